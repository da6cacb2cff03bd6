#pragma once
// The run comparison: the reference schedule and a schedule run for real on one Executor, each
// with its plan from the study's memory planning; outputs compared, measured timelines kept.
// `weft run` and the studio's Run menu both call it; progress and cancel go through a callback.
#include <functional>
#include <string>
#include <string_view>

#include "weft/core/executor.h"
#include "weft/core/graph.h"
#include "weft/core/schedule.h"
#include "weft/core/study/memory_report.h"

namespace weft::core {

/// Called between stages with a percentage (0..100) and what comes next; return false to cancel
/// (an executor run in flight finishes first).
using RunProgress = std::function<bool(int percent, std::string_view stage)>;

struct RunComparisonOptions {
  RunOptions run;
  std::string planner{kReferencePlanner};  ///< "" every planner, smallest arena; or one
  PlanOptions plan = reference_plan_options();
  RunProgress progress;  ///< optional
  /// When set, the reference runs this graph instead of `graph`: the unmerged model of a merged
  /// `graph` (merge_graph keeps inputs, outputs and weights by name and order), so the comparison
  /// measures merging and scheduling together against the plain sequential run; or the unsplit
  /// model of a micro-batch split `graph` (both runs are then RunOptions::batch_invariant).
  const Graph* reference_graph = nullptr;
};

struct RunComparison {
  bool cancelled = false;    ///< the callback asked to stop: the fields below are partial
  Schedule reference;        ///< reference_schedule(graph), or of options.reference_graph
  MemoryPlan reference_plan, plan;
  RunResult sequential;      ///< the reference run (timeline: "measured <backend> sequential")
  RunResult scheduled;       ///< the schedule's run (timeline: "measured <backend> <strategy>")
  OutputDiff diff;           ///< scheduled vs sequential outputs
  double speedup() const { return scheduled.wall_ms > 0 ? sequential.wall_ms / scheduled.wall_ms : 0.0; }
};

/// Plans both schedules, runs the reference then the schedule on `executor`, compares outputs.
/// Errors: the planner's (InvalidInput) and the executor's (InvalidInput, Runtime).
Expected<RunComparison> compare_runs(Executor& executor, const Graph& graph, const Schedule& schedule,
                                     const RunComparisonOptions& options = {});

}  // namespace weft::core
