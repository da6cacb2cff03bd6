// Sequential reference and schedule on one executor: plan, run, run, compare.
#include "weft/core/study/run_comparison.h"

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
  // comparison bit for bit (both runs, so the speedup stays like for like).
  RunOptions run = options.run;
  if (reference_graph.info().micro_batches != graph.info().micro_batches) run.batch_invariant = true;
  WEFT_TRY_ASSIGN(c.reference_plan, study_plan(reference_graph, c.reference, options.planner, options.plan));
  WEFT_TRY_ASSIGN(c.plan, study_plan(graph, schedule, options.planner, options.plan));
  if (!stage(10, "Running sequentially")) return c;
  WEFT_TRY_ASSIGN(c.sequential, executor.run(reference_graph, c.reference, c.reference_plan, run));
  // The executor cannot be interrupted mid-run: a cancel takes effect here, between the runs.
  if (!stage(55, "Running " + (schedule.strategy.empty() ? std::string("the schedule") : schedule.strategy))) return c;
  WEFT_TRY_ASSIGN(c.scheduled, executor.run(graph, schedule, c.plan, run));
  if (!stage(98, "Comparing outputs")) return c;
  c.diff = compare_outputs(c.sequential, c.scheduled);
  stage(100, "Done");
  c.cancelled = false;  // finished: a late cancel changes nothing
  return c;
}

}  // namespace weft::core
