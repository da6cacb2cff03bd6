// The checks every executor makes before it runs anything: the schedule is executable (each node
// once; stream order ∪ events acyclic and covering every data edge) and the plan fits.
#include <algorithm>
#include <numeric>

#include "weft/core/executor.h"
#include "weft/core/memory_planner.h"
#include "weft/core/schedule.h"

namespace weft::core {
namespace {

Status check_schedule(const Graph& graph, const Schedule& schedule) {
  const std::size_t n = graph.node_count();
  std::vector<int> seen(n, 0);
  for (std::size_t s = 0; s < schedule.streams.size(); ++s)
    for (NodeId v : schedule.streams[s]) {
      if (v < 0 || static_cast<std::size_t>(v) >= n)
        return make_error(ErrorKind::InvalidInput, "schedule: stream " + std::to_string(s) + " holds node id " +
                                                       std::to_string(v) + " outside the graph");
      if (seen[static_cast<std::size_t>(v)]++)
        return make_error(ErrorKind::InvalidInput, "schedule: node '" + graph.key(v) + "' is placed twice");
    }
  for (std::size_t v = 0; v < n; ++v)
    if (!seen[v]) return make_error(ErrorKind::InvalidInput, "schedule: node '" + graph.key(static_cast<NodeId>(v)) + "' is not placed");
  for (const Event& e : schedule.events)
    if (e.from < 0 || e.to < 0 || static_cast<std::size_t>(e.from) >= n || static_cast<std::size_t>(e.to) >= n)
      return make_error(ErrorKind::InvalidInput, "schedule: event refers to a node outside the graph");
  // What an executor enforces is stream order ∪ events: it must be acyclic and cover every data edge.
  auto hb = HappensBefore::build(graph, schedule, false);
  if (!hb) return make_error(ErrorKind::InvalidInput, "schedule would deadlock: " + hb.error().message);
  for (std::size_t u = 0; u < n; ++u)
    for (NodeId v : graph.successors(static_cast<NodeId>(u)))
      if (!hb->before(static_cast<NodeId>(u), v))
        return make_error(ErrorKind::InvalidInput, "schedule does not enforce the data edge '" + graph.key(static_cast<NodeId>(u)) +
                                                       "' -> '" + graph.key(v) + "' (no stream order or event)");
  return {};
}

Status check_plan_fits(const Graph& graph, const MemoryPlan& plan) {
  const std::size_t t = graph.tensor_count();
  if (plan.offset.size() != t || plan.size.size() != t)
    return make_error(ErrorKind::InvalidInput, "memory plan has " + std::to_string(plan.offset.size()) + " tensors, the graph " +
                                                   std::to_string(t));
  for (std::size_t i = 0; i < t; ++i) {
    if (plan.offset[i] == kNotPlanned) continue;
    const Tensor& tensor = graph.tensor(static_cast<TensorId>(i));
    if (tensor.producer == kNoNode)
      return make_error(ErrorKind::InvalidInput, "memory plan places '" + tensor.name + "', which no node produces");
    if (plan.offset[i] < 0 || plan.size[i] < std::max<std::int64_t>(tensor.bytes(), 0) ||
        plan.offset[i] + plan.size[i] > plan.arena_bytes)
      return make_error(ErrorKind::InvalidInput, "memory plan: tensor '" + tensor.name + "' does not fit its slot or the arena");
  }
  return {};
}

}  // namespace

Status check_run(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan, const RunOptions& options) {
  if (auto s = check_schedule(graph, schedule); !s) return s.error();
  if (auto s = check_plan_fits(graph, plan); !s) return s.error();
  if (options.check_plan) {
    // A plan made for another order may overlap tensors that this schedule keeps live together.
    if (auto s = check_plan(graph, schedule, plan); !s)
      return make_error(ErrorKind::InvalidInput, "memory plan is not valid for this schedule: " + s.error().message);
  }
  return {};
}

void finish_measured_run(RunResult& result, std::vector<std::vector<TimelineItem>> item_runs, const Schedule& schedule,
                         std::int64_t arena_bytes, std::string_view backend, std::string device) {
  result.arena_bytes = arena_bytes;
  if (result.iteration_ms.empty()) return;
  std::vector<std::size_t> order(result.iteration_ms.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return result.iteration_ms[a] < result.iteration_ms[b]; });
  const std::size_t median = order[order.size() / 2];
  result.wall_ms = result.iteration_ms[median];
  Timeline& tl = result.timeline;
  tl.label = "measured " + std::string(backend) + " " + (schedule.strategy.empty() ? std::string("schedule") : schedule.strategy);
  tl.kind = "measured";
  tl.device = std::move(device);
  tl.stream_count = static_cast<int>(schedule.streams.size());
  if (median < item_runs.size()) tl.items = std::move(item_runs[median]);
  tl.events = schedule.events;
  tl.arena_bytes = {{0.0, static_cast<double>(arena_bytes)}, {result.wall_ms * 1000.0, static_cast<double>(arena_bytes)}};
}

}  // namespace weft::core
