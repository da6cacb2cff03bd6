// Sequential reference and schedule on one executor: plan, run, run, compare; then the device
// comparison's extra pairs (per-node timed, replayed as a graph) and the reference check.
#include "weft/core/study/run_comparison.h"

#include <vector>

#include "weft/core/compare_outputs.h"
#include "weft/core/study/reference.h"

namespace weft::core {

Expected<RunComparison> compare_runs(Executor& executor, const Graph& graph, const Schedule& schedule,
                                     const RunComparisonOptions& options) {
  RunComparison c;
  const auto stage = [&](int percent, std::string_view what) {
    if (options.progress && !options.progress(percent, what)) c.cancelled = true;
    return !c.cancelled;
  };
  if (!stage(2, "Planning memory")) return c;
  const Graph& reference_graph = options.reference_graph ? *options.reference_graph : graph;
  c.reference = reference_schedule(reference_graph);
  // A micro-batch split against the unsplit model: the copies' matrix products have fewer rows,
  // and BLAS kernels chosen by shape may round them differently; row-at-a-time products make the
  // comparison bit for bit (every run, so the speedups stay like for like).
  RunOptions run = options.run;
  if (reference_graph.info().micro_batches != graph.info().micro_batches) run.batch_invariant = true;
  WEFT_TRY_ASSIGN(c.reference_plan, study_plan(reference_graph, c.reference, options.planner, options.plan));
  WEFT_TRY_ASSIGN(c.plan, study_plan(graph, schedule, options.planner, options.plan));

  RunOptions timed = run;
  timed.per_node_timing = true;
  RunOptions once = run;
  once.iterations = 1;
  once.warmup = 0;
  const std::string name = schedule.strategy.empty() ? std::string("the schedule") : schedule.strategy;

  // Every executor run as one stage, in order; the percentages share 10..100 evenly. The
  // optional results are made here (a cancelled comparison is partial anyway).
  struct Step {
    std::string what;
    Executor* on;
    bool reference;  ///< the reference schedule (else the schedule)
    const RunOptions* with;
    RunResult* into;
  };
  std::vector<Step> steps{{"Running sequentially", &executor, true, &run, &c.sequential},
                          {"Running " + name, &executor, false, &run, &c.scheduled}};
  if (options.timed_runs && !run.per_node_timing) {
    steps.push_back({"Timing each node, sequentially", &executor, true, &timed, &c.sequential_timed.emplace()});
    steps.push_back({"Timing each node of " + name, &executor, false, &timed, &c.scheduled_timed.emplace()});
  }
  if (Executor* other = options.graph_executor) {
    steps.push_back({"Running sequentially on " + other->name(), other, true, &run, &c.sequential_graph.emplace()});
    steps.push_back({"Running " + name + " on " + other->name(), other, false, &run, &c.scheduled_graph.emplace()});
  }
  if (Executor* check = options.check_executor)
    steps.push_back({"Checking outputs on " + check->name(), check, true, &once, &c.check.emplace()});

  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    // The executor cannot be interrupted mid-run: a cancel takes effect here, between the runs.
    if (!stage(10 + static_cast<int>(90 * i / steps.size()), s.what)) return c;
    const Graph& g = s.reference ? reference_graph : graph;
    WEFT_TRY_ASSIGN(*s.into, s.on->run(g, s.reference ? c.reference : schedule, s.reference ? c.reference_plan : c.plan, *s.with));
    if (i == 1) {
      if (!stage(10 + static_cast<int>(90 * (i + 1) / steps.size()) - 2, "Comparing outputs")) return c;
      c.diff = compare_outputs(c.sequential, c.scheduled);
    }
  }
  if (c.scheduled_graph) c.graph_diff = compare_outputs(c.scheduled, *c.scheduled_graph);
  if (c.check) c.check_diff = compare_outputs(*c.check, c.scheduled);
  c.overlapped_pairs = overlapped_pairs(c.scheduled_timeline());
  stage(100, "Done");
  c.cancelled = false;  // finished: a late cancel changes nothing
  return c;
}

}  // namespace weft::core
