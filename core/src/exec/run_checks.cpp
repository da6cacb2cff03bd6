// The checks every executor makes before it runs anything: the schedule is executable (each node
// once; stream order ∪ events acyclic and covering every data edge) and the plan fits.
#include "weft/core/run_checks.h"

#include <algorithm>
#include <numeric>

#include "weft/core/execution_order.h"
#include "weft/core/executor.h"
#include "weft/core/plan_checker.h"
#include "weft/core/schedule.h"
#include "weft/core/sync.h"

namespace weft::core {
namespace {

Status check_plan_fits(const Graph& graph, const MemoryPlan& plan) {
  const std::size_t t = graph.tensor_count();
  if (plan.offset.size() != t || plan.size.size() != t)
    return make_error(ErrorKind::InvalidInput, "memory plan has " + std::to_string(plan.offset.size()) + " tensors, the graph " +
                                                   std::to_string(t));
  for (std::size_t i = 0; i < t; ++i) {
    if (plan.offset[i] == kNotPlanned) continue;
    const Tensor& tensor = graph.tensor(static_cast<TensorId>(i));
    if (tensor.is_view()) {
      const auto parent = static_cast<std::size_t>(tensor.view_of);
      if (plan.offset[parent] == kNotPlanned || plan.offset[i] != plan.offset[parent] + tensor.view_offset)
        return make_error(ErrorKind::InvalidInput, "memory plan: view '" + tensor.name + "' is not inside its parent");
      continue;
    }
    if (tensor.producer == kNoNode && tensor.views.empty())
      return make_error(ErrorKind::InvalidInput, "memory plan places '" + tensor.name + "', which no node produces");
    if (plan.offset[i] < 0 || plan.size[i] < std::max<std::int64_t>(tensor.bytes(), 0) ||
        plan.offset[i] + plan.size[i] > plan.arena_bytes)
      return make_error(ErrorKind::InvalidInput, "memory plan: tensor '" + tensor.name + "' does not fit its slot or the arena");
  }
  return {};
}

}  // namespace

Expected<ExecutionOrder> check_run(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan,
                                   const RunOptions& options) {
  // What an executor enforces is stream order ∪ events: validation checks that it is acyclic
  // and covers every data edge, by vector clocks (O((V + E) · streams), no V² closure), and
  // names a deadlock's cycle and streams in the same words everywhere.
  auto order = ExecutionOrder::validate(graph, schedule);
  if (!order) return make_error(order.error().kind, "schedule: " + order.error().message);
  WEFT_TRY(check_plan_fits(graph, plan));
  if (options.check_plan) {
    // A plan made for another order may overlap tensors that this schedule keeps live together.
    if (auto s = check_plan(graph, *order, plan); !s)
      return make_error(ErrorKind::InvalidInput, "memory plan is not valid for this schedule: " + s.error().message);
  }
  return order;
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
  tl.kind = RunKind::Measured;
  tl.backend = std::string(backend);
  tl.strategy = schedule.strategy;
  tl.label = run_label(tl.identity());
  tl.device = std::move(device);
  tl.stream_count = static_cast<int>(schedule.streams.size());
  if (median < item_runs.size()) tl.items = std::move(item_runs[median]);
  tl.events = schedule.events;
  tl.arena_bytes = {{0.0, static_cast<double>(arena_bytes)}, {result.wall_ms * 1000.0, static_cast<double>(arena_bytes)}};
}

}  // namespace weft::core
