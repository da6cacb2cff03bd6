#include "weft/ui/memory_model.h"

#include <algorithm>

#include "weft/core/simulate.h"

namespace weft::ui {

namespace {

std::size_t idx(std::int32_t i) { return static_cast<std::size_t>(i); }

// Growth per step, and over time when a timeline is given (memory_growth orders the steps of a
// timeline by start time, so the per-step series always come from the schedule's linearisation).
core::Expected<MemoryCurve> curve_of(const core::Graph& graph, const core::Schedule& schedule,
                                     const core::MemoryPlan& plan, const core::Timeline* timeline,
                                     std::vector<core::NodeId>* steps) {
  auto by_step = core::memory_growth(graph, schedule, plan);
  if (!by_step) return by_step.error();
  MemoryCurve c;
  c.live_bytes = std::move(by_step->live_bytes);
  c.high_water = std::move(by_step->high_water);
  if (steps) *steps = std::move(by_step->steps);
  if (timeline) {
    auto by_time = core::memory_growth(graph, schedule, plan, timeline);
    if (!by_time) return by_time.error();
    c.live_over_time = std::move(by_time->live_over_time);
    c.high_water_over_time = std::move(by_time->high_water_over_time);
    c.makespan_us = timeline->makespan_us();
  }
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

MemoryModel compute_memory_model(const core::Graph& graph, const core::Schedule& schedule,
                                 const core::CostTable* costs, const core::DeviceSpec* device,
                                 const MemoryModelOptions& options) {
  MemoryModel m;
  m.planner = options.planner;
  if (graph.node_count() > options.max_nodes) {
    m.note = "The model has " + std::to_string(graph.node_count()) + " nodes; the memory view re-plans only up to " +
             std::to_string(options.max_nodes) + " on every edit (use `weft plan` for this one).";
    return m;
  }
  core::Schedule sequential;
  sequential.streams.emplace_back(graph.topo_order().begin(), graph.topo_order().end());
  sequential.strategy = "sequential";

  auto plan = core::plan_memory(graph, schedule, options.planner, options.plan);
  if (!plan) {
    m.note = "The schedule cannot be planned: " + plan.error().message;
    return m;
  }
  auto seq_plan = core::plan_memory(graph, sequential, options.planner, options.plan);
  auto bound = core::concurrent_lower_bound(graph, schedule, options.plan);
  if (!seq_plan || !bound) {
    m.note = "Planning failed: " + (seq_plan ? bound.error().message : seq_plan.error().message);
    return m;
  }
  m.arena_bytes = plan->arena_bytes;
  m.sequential_arena_bytes = seq_plan->arena_bytes;
  m.concurrent_bound_bytes = bound->bytes;
  m.linear_bound_bytes = core::linear_lower_bound(graph, sequential.streams[0], options.plan);
  m.no_reuse_bytes = core::plan_no_reuse(graph, options.plan.alignment, options.plan.outputs_in_arena).arena_bytes;

  // Predicted timelines only when the device has rates to simulate with.
  const bool timed = costs && device && device->peak_fp32_flops > 0 && device->memory_bandwidth > 0;
  core::Timeline run, seq_run;
  if (timed) {
    core::SimOptions sim;
    sim.plan = &*plan;
    run = core::simulate(graph, schedule, *costs, *device, sim);
    sim.plan = &*seq_plan;
    seq_run = core::simulate(graph, sequential, *costs, *device, sim);
  }
  auto cur = curve_of(graph, schedule, *plan, timed ? &run : nullptr, &m.steps);
  auto seq = curve_of(graph, sequential, *seq_plan, timed ? &seq_run : nullptr, nullptr);
  if (!cur || !seq) {
    m.note = "Growth failed: " + (cur ? seq.error().message : cur.error().message);
    return m;
  }
  m.current = std::move(*cur);
  m.sequential = std::move(*seq);

  std::vector<int> step_of(graph.node_count(), 0);
  for (std::size_t i = 0; i < m.steps.size(); ++i) step_of[idx(m.steps[i])] = static_cast<int>(i);
  std::vector<double> start(graph.node_count(), 0), end(graph.node_count(), 0);
  for (const core::TimelineItem& it : run.items) {
    start[idx(it.node)] = it.start_us;
    end[idx(it.node)] = it.end_us;
  }
  for (std::size_t t = 0; t < graph.tensor_count(); ++t) {
    if (plan->offset[t] < 0) continue;
    const core::Tensor& tensor = graph.tensor(static_cast<core::TensorId>(t));
    MemoryBlock b;
    b.tensor = static_cast<core::TensorId>(t);
    b.producer = tensor.producer;
    b.offset = plan->offset[t];
    b.size = plan->size[t];
    b.first_step = b.last_step = step_of[idx(tensor.producer)];
    b.start_us = start[idx(tensor.producer)];
    b.end_us = end[idx(tensor.producer)];
    for (core::NodeId r : tensor.consumers) {
      b.last_step = std::max(b.last_step, step_of[idx(r)]);
      b.end_us = std::max(b.end_us, end[idx(r)]);
    }
    m.blocks.push_back(b);
  }
  m.computed = true;
  return m;
}

}  // namespace weft::ui
