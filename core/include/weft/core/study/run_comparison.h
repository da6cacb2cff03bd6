#pragma once
// The run comparison: the reference schedule and a schedule run for real on one Executor, each
// with its plan from the study's memory planning; outputs compared, measured timelines kept.
// `weft run` (both backends) and the studio's Run menu all call it; progress and cancel go
// through a callback. A device comparison (`weft run --backend cuda`) adds, on the same call, a
// per-node timed pair, the pair replayed as one captured graph, and a check of the outputs
// against a reference executor.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "weft/core/exec/compare_outputs.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/exec/executor.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/study/memory_report.h"

namespace weft::core {

/// Called between stages with a percentage (0..100) and what comes next; return false to cancel
/// (an executor run in flight finishes first).
using RunProgress = std::function<bool(int percent, std::string_view stage)>;

/// RunComparisonOptions::rounds by default.
inline constexpr int kDefaultRunRounds = 3;
/// Timed and warm-up iterations of a run by default, in `weft run`, the studio's Run menu and
/// Python's Model.run alike.
inline constexpr int kDefaultRunIterations = 5;
inline constexpr int kDefaultRunWarmup = 1;

/// Checks a run's counts: at least one timed iteration and one round, no negative warm-up.
/// Errors (InvalidInput) name the count and the value; front ends report them as usage errors. O(1).
Status check_run_counts(int iterations, int warmup, int rounds);

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
  /// With run.per_node_timing off (throughput runs: no per-node events in the wall times), one
  /// more run of each schedule with per-node timing, whose timelines show what overlapped.
  /// Ignored when run.per_node_timing is on (the runs have timelines already).
  bool timed_runs = false;
  /// When set, both schedules also run on this executor with `run`'s options: the same
  /// schedules launched another way (the CUDA executor replaying one captured CUDA Graph), whose
  /// sequential run is the graph baseline.
  Executor* graph_executor = nullptr;
  /// The reference and the schedule (on `executor`, and again on graph_executor) run in this
  /// many alternating rounds that share run.iterations between them (at most one round per
  /// iteration), each round with run.warmup warm-up iterations: a slow phase of the machine then
  /// slows both sides of the speedup, not one. RunResult holds every round's iterations; its
  /// wall time is their median (combine_rounds).
  int rounds = kDefaultRunRounds;
  /// When set, the reference also runs once (one iteration, no warm-up) on this executor, and
  /// the schedule's outputs are checked against it (the CPU reference for a GPU run).
  Executor* check_executor = nullptr;
};

/// A stage of the comparison that failed: its name (as given to the progress callback, e.g.
/// "Running sequentially on cuda-graph (round 2 of 3)") and the executor's error.
struct StageFailure {
  std::string stage;
  Error error;
};

struct RunComparison {
  bool cancelled = false;    ///< the callback asked to stop: the fields below are partial
  /// An extra stage (the timed pair, the graph executor's pair, the check run) that failed after
  /// the reference and the schedule had run: the pair it belongs to is absent (its optionals
  /// empty), everything measured before it is kept, and no later stage ran. Front ends report the
  /// results present, then this failure.
  std::optional<StageFailure> failure;
  Schedule reference;        ///< reference_schedule(graph), or of options.reference_graph
  MemoryPlan reference_plan, plan;
  RunResult sequential;      ///< the reference run (timeline: "measured <backend> sequential")
  RunResult scheduled;       ///< the schedule's run (timeline: "measured <backend> <strategy>")
  int rounds = 1;            ///< the rounds the reference and the schedule alternated in
  OutputDiff diff;           ///< scheduled vs sequential outputs
  double speedup() const { return scheduled.wall_ms > 0 ? sequential.wall_ms / scheduled.wall_ms : 0.0; }

  /// With timed_runs: the per-node timed runs of the reference and of the schedule.
  std::optional<RunResult> sequential_timed, scheduled_timed;
  /// With a graph_executor: both schedules run on it, and its schedule's outputs vs `scheduled`'s.
  std::optional<RunResult> sequential_graph, scheduled_graph;
  OutputDiff graph_diff;
  /// sequential_graph / scheduled_graph wall time (0 without a graph executor): the speedup over
  /// the graph baseline.
  double speedup_vs_graph() const {
    return sequential_graph && scheduled_graph && scheduled_graph->wall_ms > 0
               ? sequential_graph->wall_ms / scheduled_graph->wall_ms
               : 0.0;
  }
  /// With a check_executor: its run of the reference, and `scheduled`'s outputs vs it.
  std::optional<RunResult> check;
  OutputDiff check_diff;
  /// The measured timelines of the reference and the schedule: the timed runs' when there are
  /// some, else the runs' own.
  const Timeline& sequential_timeline() const { return sequential_timed ? sequential_timed->timeline : sequential.timeline; }
  const Timeline& scheduled_timeline() const { return scheduled_timed ? scheduled_timed->timeline : scheduled.timeline; }
  /// overlapped_pairs(scheduled_timeline()): node pairs on different streams that overlapped.
  std::int64_t overlapped_pairs = 0;
};

/// What a device predicts for a comparison's schedule once the cost model is given the run's own
/// sequential node times: the measured counterparts of RunComparison::speedup() (eager) and
/// speedup_vs_graph() (CUDA Graph replay).
struct CalibratedSpeedups {
  double eager = 0;  ///< the schedule with a launch per node against the sequential eager run
  double graph = 0;  ///< the schedule replayed as a CUDA Graph against the sequential graph
};

/// Fails (InvalidInput, starting with `what`) unless `sequential`'s node medians cover every node
/// of `graph`: a comparison whose reference ran another graph (a merged or split graph's
/// reference is the original model) has no node times for it.
Status check_node_times_fit(const Graph& graph, const RunResult& sequential, std::string_view what);

/// `costs` with every node's time replaced by the comparison's sequential node medians (the
/// per-node timed reference run's when there is one, else the reference run's; nodes it did not
/// time keep theirs), the reference and `schedule` simulated on `device` in both launch modes.
/// Errors (InvalidInput): a comparison whose reference ran another graph (a merged or split
/// graph's) or timed no node; prediction's.
Expected<CalibratedSpeedups> calibrated_speedups(const Graph& graph, const Schedule& schedule, const CostTable& costs,
                                                 const DeviceSpec& device, const RunComparison& compared);

/// Plans both schedules, runs the reference and the schedule on `executor` (in alternating
/// rounds) and compares their outputs; then, as the options ask, the timed pair, the pair on the
/// graph executor (in rounds) and the check run, in that order. Errors: the planner's
/// (InvalidInput) and those of the executor's runs of the reference and the schedule
/// (InvalidInput, Runtime); a later stage's error is RunComparison::failure, beside the results
/// measured before it. Cost: the planning plus 2 to 4·rounds + 3 executor runs.
Expected<RunComparison> compare_runs(Executor& executor, const Graph& graph, const Schedule& schedule,
                                     const RunComparisonOptions& options = {});

}  // namespace weft::core
