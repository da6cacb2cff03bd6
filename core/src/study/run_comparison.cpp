// Sequential reference and schedule on one executor: plan, run, run, compare; then the device
// comparison's extra pairs (per-node timed, replayed as a graph) and the reference check.
#include "weft/core/study/run_comparison.h"

#include <algorithm>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "weft/core/sim/calibrate.h"
#include "weft/core/exec/compare_outputs.h"
#include "weft/core/exec/run_checks.h"
#include "weft/core/study/prediction.h"
#include "weft/core/strategy/reference.h"

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
  // Hybrid teams: the reference runs each node on the schedule's team for it, so that every node
  // runs the same primitive in both and the outputs compare bit for bit.
  c.reference = &reference_graph == &graph ? reference_schedule_with_teams(graph, schedule) : reference_schedule(reference_graph);
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

  // Every executor run as one stage, in order; the percentages share 10..100 evenly. A pair
  // whose speedup is reported (the reference and the schedule, on the executor and on the graph
  // executor) alternates in rounds that share the iterations, each with its own warm-up, so that
  // a slow phase of the machine slows both sides rather than one. The side that goes first
  // alternates too (reference first in even rounds, the schedule in odd ones): a machine that
  // speeds up or slows down through the comparison (a clock ramping up: grouped_mlp's sequential
  // iterations went from 3.2 to 2.0 ms over one run) no longer favours the side that always ran
  // second.
  struct Side {
    std::vector<RunResult> rounds;  ///< the runs so far, combined into `into`
    RunResult* into;
  };
  struct Step {
    std::string what;
    Executor* on;
    bool reference;  ///< the reference schedule (else the schedule)
    RunOptions with;
    Side* side;  ///< where this run's result goes
  };
  std::vector<Step> steps;
  std::deque<Side> sides;  // Steps point into it
  const auto add_side = [&](RunResult* into) { return &sides.emplace_back(Side{{}, into}); };
  const auto add_pair = [&](const std::string& reference_what, const std::string& schedule_what, Executor* on,
                            const RunOptions& with, RunResult* reference, RunResult* scheduled, int rounds) {
    Side* a = add_side(reference);
    Side* b = add_side(scheduled);
    const int iterations = std::max(with.iterations, 1);
    rounds = std::clamp(rounds, 1, iterations);
    if (reference == &c.sequential) c.rounds = rounds;
    for (int r = 0; r < rounds; ++r) {
      RunOptions part = with;
      part.iterations = iterations / rounds + (r < iterations % rounds ? 1 : 0);
      const std::string of = rounds > 1 ? " (round " + std::to_string(r + 1) + " of " + std::to_string(rounds) + ")" : "";
      Step first{reference_what + of, on, true, part, a}, second{schedule_what + of, on, false, part, b};
      if (r % 2 == 1) std::swap(first, second);
      steps.push_back(std::move(first));
      steps.push_back(std::move(second));
    }
  };
  add_pair("Running sequentially", "Running " + name, &executor, run, &c.sequential, &c.scheduled, options.rounds);
  const std::size_t compared_after = steps.size();
  if (options.timed_runs && !run.per_node_timing)
    add_pair("Timing each node, sequentially", "Timing each node of " + name, &executor, timed, &c.sequential_timed.emplace(),
             &c.scheduled_timed.emplace(), 1);
  if (Executor* other = options.graph_executor)
    add_pair("Running sequentially on " + other->name(), "Running " + name + " on " + other->name(), other, run,
             &c.sequential_graph.emplace(), &c.scheduled_graph.emplace(), options.rounds);
  if (Executor* check = options.check_executor) {
    steps.push_back({"Checking outputs on " + check->name(), check, true, once, add_side(&c.check.emplace())});
  }
  // Each side's rounds as one result (a cancelled comparison keeps the rounds that ran).
  const auto gather = [&] {
    for (Side& side : sides)
      if (!side.rounds.empty()) {
        *side.into = combine_rounds(std::move(side.rounds));
        side.rounds.clear();
      }
  };

  // A failed extra stage drops the pair it belongs to (half a pair has no speedup) and keeps
  // every other result: the runs done are measurements whatever fails after them.
  const auto drop_pair_of = [&](const RunResult* into) {
    const auto is = [into](const std::optional<RunResult>& r) { return r && into == &*r; };
    if (is(c.sequential_timed) || is(c.scheduled_timed)) {
      c.sequential_timed.reset();
      c.scheduled_timed.reset();
    }
    if (is(c.sequential_graph) || is(c.scheduled_graph)) {
      c.sequential_graph.reset();
      c.scheduled_graph.reset();
    }
    if (is(c.check)) c.check.reset();
  };
  const auto finish = [&] {
    if (c.scheduled_graph) c.graph_diff = compare_outputs(c.scheduled, *c.scheduled_graph);
    if (c.check) c.check_diff = compare_outputs(*c.check, c.scheduled);
    c.overlapped_pairs = overlapped_pairs(c.scheduled_timeline());
  };

  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    // The executor cannot be interrupted mid-run: a cancel takes effect here, between the runs.
    if (!stage(10 + static_cast<int>(90 * i / steps.size()), s.what)) {
      gather();
      return c;
    }
    const Graph& g = s.reference ? reference_graph : graph;
    auto result = s.on->run(g, s.reference ? c.reference : schedule, s.reference ? c.reference_plan : c.plan, s.with);
    if (!result) {
      // Without the reference and the schedule there is nothing to report.
      if (i < compared_after) return result.error();
      c.failure = StageFailure{s.what, result.error()};
      gather();
      drop_pair_of(s.side->into);
      finish();
      return c;
    }
    s.side->rounds.push_back(std::move(*result));
    if (i + 1 == compared_after) {
      gather();
      if (!stage(10 + static_cast<int>(90 * (i + 1) / steps.size()) - 2, "Comparing outputs")) return c;
      c.diff = compare_outputs(c.sequential, c.scheduled);
    }
  }
  gather();
  finish();
  stage(100, "Done");
  c.cancelled = false;  // finished: a late cancel changes nothing
  return c;
}

Status check_run_counts(int iterations, int warmup, int rounds) {
  if (iterations < 1) return make_error(ErrorKind::InvalidInput, "iterations must be >= 1, got " + std::to_string(iterations));
  if (warmup < 0) return make_error(ErrorKind::InvalidInput, "warm-up iterations must be >= 0, got " + std::to_string(warmup));
  if (rounds < 1) return make_error(ErrorKind::InvalidInput, "rounds must be >= 1, got " + std::to_string(rounds));
  return {};
}

Status check_node_times_fit(const Graph& graph, const RunResult& sequential, std::string_view what) {
  if (sequential.node_median_us.size() == graph.node_count()) return {};
  return make_error(ErrorKind::InvalidInput, std::string(what) + ": the comparison's reference timed " +
                                                 std::to_string(sequential.node_median_us.size()) + " nodes, the graph has " +
                                                 std::to_string(graph.node_count()) +
                                                 ": it ran another graph (a merged or split graph's reference is the original model)");
}

Expected<CalibratedSpeedups> calibrated_speedups(const Graph& graph, const Schedule& schedule, const CostTable& costs,
                                                 const DeviceSpec& device, const RunComparison& compared) {
  const RunResult& sequential = compared.sequential_timed ? *compared.sequential_timed : compared.sequential;
  WEFT_TRY(check_node_times_fit(graph, sequential, "calibrated prediction"));
  const CostTable measured = calibrate_costs(costs, sequential.node_median_us);
  CalibratedSpeedups out;
  PredictOptions po;
  po.counterfactuals = false;
  WEFT_TRY_ASSIGN(const Prediction eager, predict(graph, schedule, measured, device, po));
  po.mode = LaunchMode::Graph;
  WEFT_TRY_ASSIGN(const Prediction replayed, predict(graph, schedule, measured, device, po));
  out.eager = eager.speedup_vs_eager;
  out.graph = replayed.speedup_vs_graph;
  return out;
}

}  // namespace weft::core
