// Synchronisation of a schedule: minimal events (the cross-stream edges of the transitive
// reduction of data edges ∪ stream order), validation and the ideal makespan.
#include "weft/core/schedule/sync.h"

#include <algorithm>

#include "weft/core/base/check.h"
#include "weft/core/schedule/execution_order.h"

namespace weft::core {
std::vector<Event> compute_events(const Graph& graph, const ExecutionOrder& order) {
  WEFT_CHECK_MSG(!order.includes_events() && order.has_clocks(),
                 "compute_events: the order must be built by ExecutionOrder::build_without_events");
  // D = data edges ∪ stream order has a unique transitive reduction; its cross-stream edges are
  // exactly the events every valid event set must contain (an edge of the reduction is implied
  // by no longer path, so only an event can supply it), and together with stream order they
  // imply all of D. An edge u→v is in the reduction iff no other direct predecessor w of v in D
  // already has u before it, which the vector clocks answer in O(1).
  std::vector<Event> events;
  for (NodeId v : order.order()) {
    const std::int32_t sv = order.stream_of(v);
    const auto preds = graph.predecessors(v);
    const NodeId stream_pred =
        order.index(v) > 0 ? order.stream(static_cast<std::size_t>(sv))[static_cast<std::size_t>(order.index(v) - 1)] : kNoNode;
    for (NodeId u : preds) {
      if (order.stream_of(u) == sv) continue;
      bool implied = stream_pred != kNoNode && order.before(u, stream_pred);
      for (std::size_t k = 0; k < preds.size() && !implied; ++k)
        if (preds[k] != u && order.before(u, preds[k])) implied = true;
      if (!implied) events.push_back(Event{u, v});
    }
  }
  return events;
}

std::vector<Event> compute_events(const Graph& graph, const Schedule& schedule) {
  // Breadth first: the events come by their waiting node in Kahn's first-in first-out order of D,
  // the listing every strategy, edit and schedule file has always had.
  auto order = ExecutionOrder::build_without_events(graph, schedule, ExecutionOrder::Walk::BreadthFirst);
  if (!order) return {};
  return compute_events(graph, *order);
}

Status validate_schedule(const Graph& graph, const Schedule& schedule) {
  // The checked execution order is the validation: placement, events, H acyclic (the one
  // deadlock message) and every data edge enforced by stream order or an event.
  WEFT_TRY(ExecutionOrder::validate(graph, schedule));
  return {};
}

double ideal_makespan_us(const Graph& graph, const Schedule& schedule, std::span<const double> node_time_us) {
  auto order = ExecutionOrder::build_unclocked(graph, schedule);
  if (!order) return 0;
  return ideal_makespan_us(*order, node_time_us);
}

double ideal_makespan_us(const ExecutionOrder& order, std::span<const double> node_time_us) {
  std::vector<double> start(order.node_count(), 0);
  double makespan = 0;
  for (NodeId v : order.order()) {
    const auto vi = static_cast<std::size_t>(v);
    const double finish = start[vi] + (vi < node_time_us.size() ? node_time_us[vi] : 0.0);
    makespan = std::max(makespan, finish);
    for (NodeId w : order.successors(v)) start[static_cast<std::size_t>(w)] = std::max(start[static_cast<std::size_t>(w)], finish);
  }
  return makespan;
}

double event_host_cost_us(const Schedule& schedule, const DeviceSpec& device) {
  return static_cast<double>(schedule.events.size()) * (device.event_record_us + device.event_wait_us);
}

}  // namespace weft::core
