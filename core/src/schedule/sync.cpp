// Synchronisation of a schedule: minimal events (the cross-stream edges of the transitive
// reduction of data edges ∪ stream order), validation and the ideal makespan.
#include "weft/core/check.h"
#include "weft/core/sync.h"
#include "weft/core/execution_order.h"

#include <algorithm>
#include <sstream>

#include "schedule_detail.h"

namespace weft::core {
namespace detail {

Expected<StreamSlots> place(const Graph& graph, const Schedule& schedule) {
  const std::size_t n = graph.node_count();
  if (schedule.streams.size() > kMaxScheduleStreams)
    return make_error(ErrorKind::InvalidInput, "the schedule has " + std::to_string(schedule.streams.size()) +
                                                   " streams; weft handles at most " + std::to_string(kMaxScheduleStreams));
  StreamSlots p;
  p.stream_of.assign(n, -1);
  p.position.assign(n, -1);
  for (std::size_t s = 0; s < schedule.streams.size(); ++s)
    for (std::size_t i = 0; i < schedule.streams[s].size(); ++i) {
      const NodeId v = schedule.streams[s][i];
      if (v < 0 || static_cast<std::size_t>(v) >= n)
        return make_error(ErrorKind::InvalidInput, "stream " + std::to_string(s) + " names node index " + std::to_string(v) +
                                                       ", which the model does not have");
      const auto vi = static_cast<std::size_t>(v);
      if (p.stream_of[vi] >= 0)
        return make_error(ErrorKind::InvalidInput, "node '" + graph.key(v) + "' is placed twice (streams " +
                                                       std::to_string(p.stream_of[vi]) + " and " + std::to_string(s) + ")");
      p.stream_of[vi] = static_cast<int>(s);
      p.position[vi] = static_cast<int>(i);
    }
  for (std::size_t v = 0; v < n; ++v)
    if (p.stream_of[v] < 0)
      return make_error(ErrorKind::InvalidInput, "node '" + graph.key(static_cast<NodeId>(v)) + "' is on no stream");
  return p;
}

HEdges h_edges(const Graph& graph, const Schedule& schedule, bool data, bool events) {
  const std::size_t n = graph.node_count();
  HEdges h;
  h.begin.assign(n + 1, 0);
  // Count, prefix-sum, fill: CSR without per-node vectors.
  if (data)
    for (std::size_t v = 0; v < n; ++v) h.begin[v + 1] += static_cast<std::uint32_t>(graph.predecessors(static_cast<NodeId>(v)).size());
  for (const auto& stream : schedule.streams)
    for (std::size_t i = 1; i < stream.size(); ++i) ++h.begin[static_cast<std::size_t>(stream[i]) + 1];
  if (events)
    for (const Event& e : schedule.events) ++h.begin[static_cast<std::size_t>(e.to) + 1];
  for (std::size_t v = 0; v < n; ++v) h.begin[v + 1] += h.begin[v];
  h.items.resize(h.begin[n]);
  std::vector<std::uint32_t> fill(h.begin.begin(), h.begin.end() - 1);
  if (data)
    for (std::size_t v = 0; v < n; ++v)
      for (NodeId u : graph.predecessors(static_cast<NodeId>(v))) h.items[fill[v]++] = {u, EdgeKind::Data};
  for (const auto& stream : schedule.streams)
    for (std::size_t i = 1; i < stream.size(); ++i)
      h.items[fill[static_cast<std::size_t>(stream[i])]++] = {stream[i - 1], EdgeKind::Stream};
  if (events)
    for (const Event& e : schedule.events) h.items[fill[static_cast<std::size_t>(e.to)]++] = {e.from, EdgeKind::Event};
  return h;
}

std::string where(const Graph& graph, NodeId n, const StreamSlots& placement) {
  return graph.key(n) + " on stream " + std::to_string(placement.stream_of[static_cast<std::size_t>(n)]);
}

Expected<std::vector<NodeId>> h_order(const Graph& graph, const HEdges& edges, const StreamSlots& placement) {
  const std::size_t n = edges.size();
  // Successor CSR (reverse of the predecessor lists).
  std::vector<std::uint32_t> succ_begin(n + 1, 0), indeg(n, 0);
  for (const auto& [u, kind] : edges.items) ++succ_begin[static_cast<std::size_t>(u) + 1];
  for (std::size_t v = 0; v < n; ++v) succ_begin[v + 1] += succ_begin[v];
  std::vector<NodeId> succ(edges.items.size());
  {
    std::vector<std::uint32_t> fill(succ_begin.begin(), succ_begin.end() - 1);
    for (std::size_t v = 0; v < n; ++v)
      for (auto [u, kind] : edges.pred(static_cast<NodeId>(v))) {
        succ[fill[static_cast<std::size_t>(u)]++] = static_cast<NodeId>(v);
        ++indeg[v];
      }
  }
  std::vector<NodeId> order;
  order.reserve(n);
  for (std::size_t v = 0; v < n; ++v)
    if (indeg[v] == 0) order.push_back(static_cast<NodeId>(v));
  for (std::size_t head = 0; head < order.size(); ++head)
    for (std::uint32_t k = succ_begin[static_cast<std::size_t>(order[head])]; k < succ_begin[static_cast<std::size_t>(order[head]) + 1]; ++k)
      if (--indeg[static_cast<std::size_t>(succ[k])] == 0) order.push_back(succ[k]);
  if (order.size() == n) return order;

  return deadlock_error(graph, edges, indeg, placement);
}

Error deadlock_error(const Graph& graph, const HEdges& edges, std::span<const std::uint32_t> left, const StreamSlots& placement) {
  const std::size_t n = edges.size();
  // Every node left has a predecessor left, so walking predecessors inside the remainder must
  // repeat a node: the cycle. (Walking successors could dead-end below the cycle.)
  NodeId cur = kNoNode;
  for (std::size_t v = 0; v < n && cur == kNoNode; ++v)
    if (left[v] > 0) cur = static_cast<NodeId>(v);
  WEFT_CHECK_MSG(cur != kNoNode, "deadlock_error: no node left");
  std::vector<int> seen(n, -1);
  std::vector<NodeId> walk;
  std::vector<EdgeKind> via;  // via[i]: kind of the edge walk[i+1] → walk[i]
  while (seen[static_cast<std::size_t>(cur)] < 0) {
    seen[static_cast<std::size_t>(cur)] = static_cast<int>(walk.size());
    walk.push_back(cur);
    for (auto [u, kind] : edges.pred(cur))
      if (left[static_cast<std::size_t>(u)] > 0) {
        cur = u;
        via.push_back(kind);
        break;
      }
  }
  const auto first = static_cast<std::size_t>(seen[static_cast<std::size_t>(cur)]);
  std::ostringstream msg;
  msg << "would deadlock: " << where(graph, walk[first], placement);
  for (std::size_t i = first; i < walk.size(); ++i) {
    if (i > first) msg << ", which";
    msg << (via[i] == EdgeKind::Stream ? " runs after " : " waits for ");
    const bool closes = i + 1 == walk.size();
    msg << (closes ? graph.key(walk[first]) : where(graph, walk[i + 1], placement));
  }
  return Error{ErrorKind::InvalidInput, msg.str()};
}

VectorClocks::VectorClocks(const HEdges& edges, const std::vector<NodeId>& order, const StreamSlots& placement,
                           std::size_t streams)
    : m_streams(streams), m_clock(edges.size() * streams, -1) {
  for (NodeId v : order) {
    int* c = &m_clock[static_cast<std::size_t>(v) * m_streams];
    for (auto [u, kind] : edges.pred(v)) {
      const int* cu = &m_clock[static_cast<std::size_t>(u) * m_streams];
      for (std::size_t s = 0; s < m_streams; ++s) c[s] = std::max(c[s], cu[s]);
    }
    c[placement.stream_of[static_cast<std::size_t>(v)]] = placement.position[static_cast<std::size_t>(v)];
  }
}

}  // namespace detail

std::vector<Event> compute_events(const Graph& graph, const Schedule& schedule) {
  auto placement = detail::place(graph, schedule);
  if (!placement) return {};
  const detail::StreamSlots& p = *placement;
  const detail::HEdges d = detail::h_edges(graph, schedule, /*data=*/true, /*events=*/false);
  auto order = detail::h_order(graph, d, p);
  WEFT_CHECK_MSG(order, "compute_events: data edges ∪ stream order must be acyclic");
  const detail::VectorClocks clocks(d, *order, p, schedule.streams.size());

  // D = data edges ∪ stream order has a unique transitive reduction; its cross-stream edges are
  // exactly the events every valid event set must contain (an edge of the reduction is implied
  // by no longer path, so only an event can supply it), and together with stream order they
  // imply all of D. An edge u→v is in the reduction iff no other direct predecessor w of v in D
  // already has u before or at it, which the vector clocks answer in O(1).
  std::vector<Event> events;
  for (NodeId v : *order) {
    const auto vi = static_cast<std::size_t>(v);
    const int sv = p.stream_of[vi];
    const auto preds = graph.predecessors(v);
    const NodeId stream_pred = p.position[vi] > 0 ? schedule.streams[static_cast<std::size_t>(sv)][static_cast<std::size_t>(p.position[vi] - 1)] : kNoNode;
    for (NodeId u : preds) {
      if (p.stream_of[static_cast<std::size_t>(u)] == sv) continue;
      bool implied = stream_pred != kNoNode && clocks.reaches(u, stream_pred, p);
      for (std::size_t k = 0; k < preds.size() && !implied; ++k)
        if (preds[k] != u && clocks.reaches(u, preds[k], p)) implied = true;
      if (!implied) events.push_back(Event{u, v});
    }
  }
  return events;
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
  std::vector<double> start(graph.node_count(), 0);
  double makespan = 0;
  for (NodeId v : order->order()) {
    const auto vi = static_cast<std::size_t>(v);
    const double finish = start[vi] + (vi < node_time_us.size() ? node_time_us[vi] : 0.0);
    makespan = std::max(makespan, finish);
    for (NodeId w : order->successors(v)) start[static_cast<std::size_t>(w)] = std::max(start[static_cast<std::size_t>(w)], finish);
  }
  return makespan;
}

double event_host_cost_us(const Schedule& schedule, const DeviceSpec& device) {
  return static_cast<double>(schedule.events.size()) * (device.event_record_us + device.event_wait_us);
}

}  // namespace weft::core
