// One schedule's figures, prediction and memory report; every strategy's for the compare table.
#include "weft/core/study/schedule_study.h"

#include "weft/core/study/reference.h"
#include "weft/core/sync.h"

#include <optional>

namespace weft::core {

namespace {

std::size_t cross_stream_edges(const Graph& graph, const Schedule& schedule) {
  const std::vector<int> stream_of = stream_slots(graph, schedule).value().stream_of;  // validated
  std::size_t n = 0;
  for (std::size_t u = 0; u < graph.node_count(); ++u)
    for (NodeId v : graph.successors(static_cast<NodeId>(u)))
      if (stream_of[u] != stream_of[static_cast<std::size_t>(v)]) ++n;
  return n;
}

ScheduleStudy cancelled(ScheduleStudy s) {
  s.cancelled = true;
  return s;
}

}  // namespace

bool can_simulate(const DeviceSpec& device) { return device.peak_fp32_flops > 0 && device.memory_bandwidth > 0; }

Expected<ScheduleStudy> study_schedule(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                                       Schedule schedule, const StudyOptions& options) {
  WEFT_TRY(validate_schedule(graph, schedule));
  ScheduleStudy s;
  s.schedule = std::move(schedule);
  std::optional<Schedule> own_reference;
  const Schedule& reference = options.reference ? *options.reference : own_reference.emplace(reference_schedule(graph));
  const std::vector<double> times = node_times(costs);
  s.ideal_makespan_us = ideal_makespan_us(graph, s.schedule, times);
  s.reference_ideal_us = ideal_makespan_us(graph, reference, times);
  s.event_host_us = event_host_cost_us(s.schedule, device);
  s.cross_stream_edges = cross_stream_edges(graph, s.schedule);
  const auto stop = [&] { return options.cancelled && options.cancelled(); };
  if (options.memory) {
    if (stop()) return cancelled(std::move(s));
    MemoryReportOptions memory = options.memory_options;
    memory.reference = &reference;
    WEFT_TRY_ASSIGN(s.memory, memory_report(graph, s.schedule, memory));
  }
  if (options.predict && can_simulate(device)) {
    if (stop()) return cancelled(std::move(s));
    PredictOptions p;
    p.mode = options.mode;
    p.counterfactuals = options.counterfactuals;
    p.plan = s.memory ? &s.memory->plan : nullptr;
    p.reference = &reference;
    WEFT_TRY_ASSIGN(s.prediction, predict(graph, s.schedule, costs, device, p));
    const MemoryReportOptions& m = options.memory_options;
    if (s.memory && m.growth && !m.timeline && !m.reference_timeline) {
      // Growth over time along the runs just predicted: the memory view's time axis.
      if (stop()) return cancelled(std::move(s));
      const Prediction& pr = *s.prediction;
      WEFT_TRY(add_growth_over_time(graph, s.schedule, reference, *s.memory, &pr.timeline,
                                    options.mode == LaunchMode::Graph ? &pr.sequential_graph : &pr.sequential_eager));
    }
  }
  return s;
}

Expected<std::vector<StrategyStudy>> study_strategies(const Graph& graph, const CostTable& costs,
                                                      const DeviceSpec& device, const StrategyOptions& strategy_options,
                                                      const StudyOptions& options) {
  std::vector<StrategyStudy> rows;
  // The reference and its plan are the same for every row: build them once.
  StudyOptions row_options = options;
  std::optional<Schedule> reference;
  if (!options.reference) row_options.reference = &reference.emplace(reference_schedule(graph));
  std::optional<MemoryPlan> reference_plan;
  if (options.memory && !options.memory_options.reference_plan) {
    WEFT_TRY_ASSIGN(reference_plan, study_plan(graph, *row_options.reference, options.memory_options.planner,
                                               options.memory_options.plan, -1, nullptr, options.memory_options.verify));
    row_options.memory_options.reference_plan = &*reference_plan;
  }
  for (const std::string& name : strategy_names()) {
    WEFT_TRY_ASSIGN(Schedule schedule, make_schedule(name, graph, costs, device, strategy_options));
    StrategyStudy row;
    row.warnings = schedule_warnings(schedule, strategy_options, device);
    WEFT_TRY_ASSIGN(row.study, study_schedule(graph, costs, device, std::move(schedule), row_options));
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace weft::core
