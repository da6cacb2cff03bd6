#include "weft/ui/memory_model.h"

#include "weft/core/memory/memory_growth.h"

#include <algorithm>

namespace weft::ui {

namespace {

using core::detail::idx;

MemoryCurve curve_of(const core::MemoryGrowth& growth, const core::Timeline* timeline) {
  MemoryCurve c;
  c.live_bytes = growth.live_bytes;
  c.high_water = growth.high_water;
  c.live_over_time = growth.live_over_time;
  c.high_water_over_time = growth.high_water_over_time;
  if (timeline) c.makespan_us = timeline->makespan_us();
  return c;
}

}  // namespace

int MemoryModel::blockAt(double x, bool over_time, double offset) const {
  for (std::size_t i = blocks.size(); i-- > 0;) {
    const MemoryBlock& b = blocks[i];
    const double lo = over_time ? b.start_us : b.first_step;
    const double hi = over_time ? b.end_us : b.last_step + 1;
    if (x >= lo && x < hi && offset >= static_cast<double>(b.offset) &&
        offset < static_cast<double>(b.offset + b.size))
      return static_cast<int>(i);
  }
  return -1;
}

std::string memory_cutoff_note(std::size_t nodes, std::size_t max_nodes) {
  return "The model has " + std::to_string(nodes) + " nodes; the memory view re-plans only up to " +
         std::to_string(max_nodes) + " on every edit (use `weft plan` for this one).";
}

MemoryModel memory_model_from_study(const core::Graph& graph, const core::ScheduleStudy& study, core::LaunchMode mode) {
  MemoryModel m;
  if (!study.memory) {
    m.note = "The schedule has not been planned.";
    return m;
  }
  const core::Prediction* prediction = study.prediction ? &*study.prediction : nullptr;
  return memory_model_from_report(
      graph, *study.memory, prediction ? &prediction->timeline : nullptr,
      prediction ? (mode == core::LaunchMode::Graph ? &prediction->sequential_graph : &prediction->sequential_eager) : nullptr);
}

MemoryModel memory_model_from_report(const core::Graph& graph, const core::MemoryReport& report, const core::Timeline* run,
                                     const core::Timeline* seq_run) {
  MemoryModel m;
  const core::MemoryPlan* plan = &report.plan;
  m.planner = report.plan.planner;
  m.arena_bytes = report.arena_bytes();
  m.sequential_arena_bytes = report.reference_arena_bytes();
  m.concurrent_bound_bytes = report.bound.bytes;
  m.linear_bound_bytes = report.linear_bound_bytes;
  m.no_reuse_bytes = report.no_reuse_bytes;
  m.price_of_concurrency = report.price_of_concurrency();
  m.steps = report.growth.steps;
  m.current = curve_of(report.growth, run);
  m.sequential = curve_of(report.reference_growth, seq_run);

  std::vector<int> step_of(graph.node_count(), 0);
  for (std::size_t i = 0; i < m.steps.size(); ++i) step_of[idx(m.steps[i])] = static_cast<int>(i);
  std::vector<double> start(graph.node_count(), 0), end(graph.node_count(), 0);
  if (run)
    for (const core::TimelineItem& it : run->items) {
      start[idx(it.node)] = it.start_us;
      end[idx(it.node)] = it.end_us;
    }
  for (std::size_t t = 0; t < graph.tensor_count(); ++t) {
    if (plan->offset[t] < 0) continue;
    const auto id = static_cast<core::TensorId>(t);
    // A block written through views (a merged node's outputs side by side, a split's output) is
    // one block, live from its first writer to its last access; its views lie inside it.
    if (graph.tensor(id).is_view()) continue;
    const auto writers = graph.writers(id);
    if (writers.empty()) continue;
    MemoryBlock b;
    b.tensor = id;
    b.producer = writers.front();
    b.offset = plan->offset[t];
    b.size = plan->size[t];
    b.first_step = b.last_step = step_of[idx(b.producer)];
    b.start_us = start[idx(b.producer)];
    b.end_us = end[idx(b.producer)];
    for (core::NodeId w : writers) {
      b.first_step = std::min(b.first_step, step_of[idx(w)]);
      b.last_step = std::max(b.last_step, step_of[idx(w)]);
      b.start_us = std::min(b.start_us, start[idx(w)]);
      b.end_us = std::max(b.end_us, end[idx(w)]);
    }
    for (core::NodeId r : graph.readers(id)) {
      b.last_step = std::max(b.last_step, step_of[idx(r)]);
      b.end_us = std::max(b.end_us, end[idx(r)]);
    }
    m.blocks.push_back(b);
  }
  m.computed = true;
  return m;
}

}  // namespace weft::ui
