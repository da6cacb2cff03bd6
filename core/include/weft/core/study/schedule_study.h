#pragma once
// Everything Weft says about one schedule, computed once for `weft schedule` (one strategy or the
// --compare table), `weft simulate` and the studio's figures: the ideal makespan against the
// reference, the events' host cost, the prediction under a launch mode with both baselines, and
// the memory report.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/study/prediction.h"

namespace weft::core {

struct ScheduleStudy;

struct StudyOptions {
  LaunchMode mode = LaunchMode::Eager;  ///< the launch mode predictions are made in
  bool predict = true;                  ///< simulate (needs device rates; skipped without them)
  bool counterfactuals = true;          ///< the verdict's three extra simulations
  bool memory = true;                   ///< plan memory (memory_report)
  /// Options of the memory report. With `growth` and a prediction, the growth over time follows
  /// the predicted runs (the schedule's, and the reference's in `mode`) unless timelines are given.
  MemoryReportOptions memory_options;
  /// reference_schedule(graph), when the caller already has it (a studio keeps one per model).
  const Schedule* reference = nullptr;
  /// Asked between stages (memory report, prediction, growth); true stops the study early with
  /// ScheduleStudy::cancelled set (a newer edit superseded it). Optional.
  std::function<bool()> cancelled;
  /// Called once the prediction (and every figure but the memory report) exists, before the
  /// memory report is planned, on the thread running the study: the study so far, `memory`
  /// empty. The prediction it carries is the final one but for the arena counter on its timeline,
  /// which the memory plan adds afterwards. The studio shows an edit's prediction from it while
  /// the arena is re-planned. Called only when a memory report follows (`memory`), not when the
  /// study predicts nothing or is cancelled first.
  std::function<void(const ScheduleStudy&)> on_prediction;
  /// An earlier memory report of this graph with the same planning (the schedule's before an
  /// edit). With `on_repaired` and `memory`, the study repairs its plan for this schedule
  /// (repaired_memory_report) right after the prediction, before planning afresh; not when the
  /// repair would move so many tensors (more than 16M / tensor count, at least 64) that it costs
  /// more than a frame: a new schedule rather than an edit. Optional.
  const MemoryReport* repair_from = nullptr;
  /// Called after on_prediction with the study so far, `memory` the repaired report
  /// (MemoryReport::repaired; growth over the predicted time too when asked) and its arena counter
  /// on the predicted timeline; the complete report, planned afresh, follows. The studio shows an
  /// edit's arena from it within a frame. Optional.
  std::function<void(const ScheduleStudy&)> on_repaired;
};

struct ScheduleStudy {
  Schedule schedule;
  double ideal_makespan_us = 0;    ///< longest cost-weighted path through the schedule's happens-before
  double reference_ideal_us = 0;   ///< the same for reference_schedule(): the total work
  double event_host_us = 0;        ///< host cost of the events (record + wait each)
  std::size_t cross_stream_edges = 0;  ///< data edges whose ends sit on different streams
  std::optional<Prediction> prediction;
  std::optional<MemoryReport> memory;  ///< empty when not asked, or when the graph has unresolved dimensions
  bool cancelled = false;  ///< options.cancelled stopped it: prediction and memory may be missing
  double ideal_speedup() const { return ideal_makespan_us > 0 ? reference_ideal_us / ideal_makespan_us : 1.0; }
};

/// True when `device` has the rates the simulator needs (peak FP32 and memory bandwidth).
bool can_simulate(const DeviceSpec& device);

/// Studies `schedule` (validated first: errors are InvalidInput naming the problem): the figures,
/// the prediction, then the memory report, whose plan adds the arena counter to the predicted
/// timeline (add_arena_counter). The schedule's
/// execution order (built by validation) and the reference's are built once each and read by
/// every pass (ideal makespans, memory report, prediction). A graph with unresolved dimensions
/// (tensor sizes unknown) gets no memory report. Cost: O((V + E)·S) for the orders
/// and figures, plus predict() and memory_report() when asked.
Expected<ScheduleStudy> study_schedule(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                                       Schedule schedule, const StudyOptions& options = {});

/// One strategy's schedule (make_schedule with `strategy_options`), its warnings and its study.
struct StrategyStudy {
  ScheduleStudy study;
  std::vector<std::string> warnings;  ///< schedule_warnings()
};

/// Every registered strategy in strategy_names() order (the --compare table). The reference's
/// execution order and plan are built once for all rows.
Expected<std::vector<StrategyStudy>> study_strategies(const Graph& graph, const CostTable& costs,
                                                      const DeviceSpec& device, const StrategyOptions& strategy_options,
                                                      const StudyOptions& options = {});

/// The launch mode the strategy options are made for (Graph when options.cuda_graph).
inline LaunchMode launch_mode_of(const StrategyOptions& options) {
  return options.cuda_graph ? LaunchMode::Graph : LaunchMode::Eager;
}

}  // namespace weft::core
