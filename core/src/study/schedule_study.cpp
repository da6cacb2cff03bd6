// One schedule's figures, prediction and memory report; every strategy's for the compare table.
#include "weft/core/study/schedule_study.h"

#include <algorithm>
#include <optional>

#include "weft/core/schedule/execution_order.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/strategy/registry.h"
#include "weft/core/strategy/reference.h"
#include "weft/core/schedule/sync.h"

namespace weft::core {

namespace {

std::size_t cross_stream_edges(const Graph& graph, const ExecutionOrder& order) {
  std::size_t n = 0;
  for (std::size_t u = 0; u < graph.node_count(); ++u)
    for (NodeId v : graph.successors(static_cast<NodeId>(u)))
      if (order.stream_of(static_cast<NodeId>(u)) != order.stream_of(v)) ++n;
  return n;
}

// Conflict tests a repaired arena may take (moved tensors × tensors): tens of milliseconds.
constexpr std::size_t kRepairWork = 16'000'000;

ScheduleStudy cancelled(ScheduleStudy s) {
  s.cancelled = true;
  return s;
}

// The study from the schedule's validated execution order and the reference's, each built once:
// every pass below (ideal makespans, memory report, prediction) reads them instead of rebuilding
// happens-before.
Expected<ScheduleStudy> study(const Graph& graph, const CostTable& costs, const DeviceSpec& device, Schedule schedule,
                              const ExecutionOrder& order, const ExecutionOrder& reference_order,
                              const StudyOptions& options) {
  ScheduleStudy s;
  s.schedule = std::move(schedule);
  const std::vector<double> times = node_times(costs);
  s.ideal_makespan_us = ideal_makespan_us(order, times);
  s.reference_ideal_us = ideal_makespan_us(reference_order, times);
  s.event_host_us = event_host_cost_us(s.schedule, device);
  s.cross_stream_edges = cross_stream_edges(graph, order);
  const auto stop = [&] { return options.cancelled && options.cancelled(); };
  // The prediction first: it does not depend on the plan (only the arena counter on its timeline
  // does, added below), and it is what an edit in the studio waits for.
  if (options.predict && can_simulate(device)) {
    if (stop()) return cancelled(std::move(s));
    PredictOptions p;
    p.mode = options.mode;
    p.counterfactuals = options.counterfactuals;
    WEFT_TRY_ASSIGN(s.prediction, predict(graph, order, reference_order, costs, device, p));
    if (options.on_prediction && options.memory) options.on_prediction(s);
  }
  // Growth over time along the runs just predicted (the memory view's time axis), and the arena
  // counter on the predicted timeline, for a report of this schedule.
  const MemoryReportOptions& m = options.memory_options;
  const bool growth_over_time = m.growth && !m.timeline && !m.reference_timeline;
  const auto follow_prediction = [&](MemoryReport& report) -> Status {
    if (!s.prediction) return {};
    add_arena_counter(graph, report.plan, s.prediction->timeline);
    if (!growth_over_time) return {};
    const Prediction& pr = *s.prediction;
    return add_growth_over_time(graph, report, &pr.timeline,
                                options.mode == LaunchMode::Graph ? &pr.sequential_graph : &pr.sequential_eager);
  };
  if (options.memory && options.repair_from && options.on_repaired) {
    // The previous plan repaired for this schedule: an arena within a frame of an edit, while
    // the report below plans afresh. Unless so many tensors clash that it is no edit but a new
    // schedule: placing each costs a pass over the tensors, and the report below is the tool.
    if (stop()) return cancelled(std::move(s));
    // The stage is optional: a report it cannot repair (planned with other options, of another
    // model) is left to the complete report, not made the study's error.
    const std::size_t max_moved = std::max<std::size_t>(64, kRepairWork / std::max<std::size_t>(1, graph.tensor_count()));
    auto repaired = repaired_memory_report(graph, order, *options.repair_from, options.memory_options, max_moved);
    if (repaired && *repaired && follow_prediction(**repaired)) {
      s.memory = std::move(**repaired);
      options.on_repaired(s);
      s.memory.reset();
    }
  }
  if (options.memory) {
    if (stop()) return cancelled(std::move(s));
    MemoryReportOptions memory_options = options.memory_options;
    memory_options.cancelled = options.cancelled;  // stages of the report are long on large models
    auto report = memory_report(graph, order, reference_order, memory_options);
    if (!report) {
      if (stop()) return cancelled(std::move(s));
      return report.error();
    }
    s.memory = std::move(*report);
    if (s.prediction && growth_over_time && stop()) return cancelled(std::move(s));
    WEFT_TRY(follow_prediction(*s.memory));
  }
  return s;
}

/// `options` without the memory report where symbolic input dimensions leave tensor sizes
/// unknown (memory_report refuses them): the rest of the study stands, ScheduleStudy::memory
/// stays empty.
StudyOptions planned_where_bound(const Graph& graph, const StudyOptions& options) {
  StudyOptions o = options;
  if (!graph.info().unresolved_dims.empty()) o.memory = false;
  return o;
}

}  // namespace

bool can_simulate(const DeviceSpec& device) { return device.peak_fp32_flops > 0 && device.memory_bandwidth > 0; }

Expected<ScheduleStudy> study_schedule(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                                       Schedule schedule, const StudyOptions& options) {
  // Validation builds the schedule's one execution order.
  WEFT_TRY_ASSIGN(const ExecutionOrder order, ExecutionOrder::validate(graph, schedule));
  std::optional<Schedule> own_reference;
  const Schedule& reference = options.reference ? *options.reference : own_reference.emplace(reference_schedule(graph));
  WEFT_TRY_ASSIGN(const ExecutionOrder reference_order, ExecutionOrder::build(graph, reference));
  return study(graph, costs, device, std::move(schedule), order, reference_order, planned_where_bound(graph, options));
}

Expected<std::vector<StrategyStudy>> study_strategies(const Graph& graph, const CostTable& costs,
                                                      const DeviceSpec& device, const StrategyOptions& strategy_options,
                                                      const StudyOptions& options) {
  std::vector<StrategyStudy> rows;
  // The reference, its execution order and its plan are the same for every row: build them once.
  StudyOptions row_options = planned_where_bound(graph, options);
  std::optional<Schedule> own_reference;
  const Schedule& reference = options.reference ? *options.reference : own_reference.emplace(reference_schedule(graph));
  WEFT_TRY_ASSIGN(const ExecutionOrder reference_order, ExecutionOrder::build(graph, reference));
  std::optional<MemoryPlan> reference_plan;
  if (row_options.memory && !options.memory_options.reference_plan) {
    WEFT_TRY_ASSIGN(reference_plan, study_plan(graph, reference_order, options.memory_options.planner,
                                               options.memory_options.plan, -1, nullptr, options.memory_options.verify));
    row_options.memory_options.reference_plan = &*reference_plan;
  }
  // chains and resource-aware (and search, which runs both) start from one chain cover.
  StrategyOptions shared = strategy_options;
  if (!shared.chain_cover) shared.chain_cover = std::make_shared<const ChainCover>(min_chain_cover(graph));
  for (const std::string& name : strategy_names()) {
    WEFT_TRY_ASSIGN(Schedule schedule, make_schedule(name, graph, costs, device, shared));
    StrategyStudy row;
    row.warnings = schedule_warnings(schedule, strategy_options, device);
    WEFT_TRY_ASSIGN(const ExecutionOrder order, ExecutionOrder::validate(graph, schedule));
    WEFT_TRY_ASSIGN(row.study, study(graph, costs, device, std::move(schedule), order, reference_order, row_options));
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace weft::core
