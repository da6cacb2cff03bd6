// The checks every executor makes before it runs anything: the schedule is executable (each node
// once; stream order ∪ events acyclic and covering every data edge) and the plan fits.
#include "weft/core/exec/run_checks.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "weft/core/base/check.h"
#include "weft/core/base/median.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/exec/executor.h"
#include "weft/core/memory/plan_checker.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/schedule/sync.h"

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

// Per node, the middle of its samples (-1 where it has none); samples[v] is reordered.
std::vector<double> middles(std::vector<std::vector<double>>& samples) {
  std::vector<double> out(samples.size(), -1.0);
  for (std::size_t v = 0; v < samples.size(); ++v)
    if (!samples[v].empty()) out[v] = upper_middle(samples[v]);
  return out;
}

// Per node, the median of its durations over the iterations' items (-1 where it has none);
// empty when no iteration has items.
std::vector<double> median_node_times(const std::vector<std::vector<TimelineItem>>& item_runs) {
  std::vector<std::vector<double>> samples;
  for (const auto& items : item_runs)
    for (const TimelineItem& it : items) {
      if (it.node < 0) continue;
      const auto v = static_cast<std::size_t>(it.node);
      if (v >= samples.size()) samples.resize(v + 1);
      samples[v].push_back(std::max(0.0, it.end_us - it.start_us));
    }
  return middles(samples);
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
  result.node_median_us = median_node_times(item_runs);
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

RunResult combine_rounds(std::vector<RunResult> rounds) {
  WEFT_CHECK(!rounds.empty());
  if (rounds.size() == 1) return std::move(rounds.front());
  std::vector<double> iteration_ms;
  std::vector<std::vector<double>> samples;
  for (const RunResult& r : rounds) {
    iteration_ms.insert(iteration_ms.end(), r.iteration_ms.begin(), r.iteration_ms.end());
    if (samples.size() < r.node_median_us.size()) samples.resize(r.node_median_us.size());
    for (std::size_t v = 0; v < r.node_median_us.size(); ++v)
      if (r.node_median_us[v] >= 0) samples[v].push_back(r.node_median_us[v]);
  }
  std::vector<double> sorted = iteration_ms;
  const double wall_ms = upper_middle(sorted);
  std::size_t nearest = 0;
  for (std::size_t r = 1; r < rounds.size(); ++r)
    if (std::abs(rounds[r].wall_ms - wall_ms) < std::abs(rounds[nearest].wall_ms - wall_ms)) nearest = r;
  RunResult out = std::move(rounds.back());
  if (nearest + 1 < rounds.size()) out.timeline = std::move(rounds[nearest].timeline);
  out.iteration_ms = std::move(iteration_ms);
  out.wall_ms = wall_ms;
  out.node_median_us = middles(samples);
  return out;
}

}  // namespace weft::core
