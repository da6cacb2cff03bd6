// The planning pipeline: liveness over the schedule → a planner's placement → MemoryPlan.
#include "weft/core/memory/memory_planner.h"

#include <algorithm>
#include <chrono>

#include "allocation_detail.h"
#include "weft/core/memory/allocation_problem.h"
#include "weft/core/memory/bounds.h"
#include "weft/core/base/check.h"
#include "weft/core/memory/liveness.h"
#include "weft/core/memory/plan_checker.h"

namespace weft::core {

std::vector<std::string> planner_names() { return {"greedy-by-size", "greedy-by-breadth", "best-fit", "exact", "best"}; }

Status check_planner(std::string_view planner) {
  const auto names = planner_names();
  if (std::find(names.begin(), names.end(), planner) != names.end()) return {};
  std::string known;
  for (const auto& name : names) known += (known.empty() ? "" : ", ") + name;
  return make_error(ErrorKind::InvalidInput, "unknown planner '" + std::string(planner) + "' (known: " + known + ")");
}

namespace {

// `exact`, and (when wanted) `best`: the exact search, then, where it did not prove its placement
// optimal, the iterated greedy and skyline restarts, keeping the smaller arena. Each search has
// its own guard of options.search_ms (a shared one would make the follow-up's result depend on
// how long the first took).
// `decoded`: the seeds' first- and best-fit decodings where already made (see exact_placement).
std::pair<Placement, Placement> exact_and_best(const AllocationProblem& problem, const PlanOptions& options,
                                               std::int64_t lower_bound, bool want_best, std::vector<Placement> decoded) {
  // Interval structure gives the exact bound for free: the search may stop as soon as it is met.
  if (lower_bound <= 0 && problem.conflicts_are_overlaps) lower_bound = interval_lower_bound(problem);
  std::vector<std::vector<std::int32_t>> seeds{detail::order_by_size(problem), detail::order_by_breadth(problem),
                                                detail::order_by_start(problem)};
  const auto deadline = detail::Clock::now() + std::chrono::microseconds(static_cast<std::int64_t>(options.search_ms * 1000));
  auto exact = detail::exact_placement(problem, seeds, lower_bound, options.search_steps, deadline, options.seed, decoded);
  Placement best = exact.placement;
  // Without a canonical search, `exact` is the compacted best seed decoding; so is the search's
  // result when its budget buys no iteration (large problems): nothing to add.
  if (want_best && !exact.optimal && (exact.searched || detail::search_improves_seeds(problem, options, exact.lower_bound))) {
    PlanOptions rest = options;
    // On intervals (raw instances, and single-stream schedules' liveness) the follow-up is the
    // older skyline search, which after the canonical search gained on J alone (1.043 -> 1.040)
    // of the MiniMalloc instances and changed no bundled model's plan: a quarter of the steps.
    // (On partial-order conflicts the local search does gain, e.g. 3.5% on RandWire under
    // resource-aware, so it keeps them all.)
    if (exact.searched && problem.conflicts_are_overlaps) rest.search_steps = options.search_steps / 4;
    Placement other = detail::search_placement(problem, std::move(seeds), rest, exact.lower_bound, std::move(decoded));
    if (other.arena_bytes < best.arena_bytes) best = std::move(other);
  }
  return {std::move(exact.placement), std::move(best)};
}

// The plan of a problem too dense to list: the stream sweep by its exact frontiers where it has
// them, else the interval sweep over its conservative ranges.
Placement dense_placement(const AllocationProblem& problem) {
  if (auto by_streams = detail::stream_sweep_placement(problem)) return std::move(*by_streams);
  return detail::sweep_placement(problem);
}

}  // namespace

Expected<Placement> place_blocks(const AllocationProblem& problem, std::string_view planner, const PlanOptions& options,
                                 std::int64_t lower_bound) {
  if (problem.conflicts_omitted()) {
    // Too many conflicts to list: whichever planner was asked for, only a sweep applies.
    if (!planner.empty()) WEFT_TRY(check_planner(planner));
    Placement out = dense_placement(problem);
    WEFT_CHECK(check_placement(problem, out));
    return out;
  }
  detail::Decoder decoder(problem);
  Placement out;
  if (planner == "greedy-by-size") {
    out = decoder.decode(detail::order_by_size(problem), detail::Fit::First);
  } else if (planner == "greedy-by-breadth") {
    out = decoder.decode(detail::order_by_breadth(problem), detail::Fit::First);
  } else if (planner == "best-fit") {
    out = decoder.decode(detail::order_by_start(problem), detail::Fit::Best);
  } else if (planner == "exact" || planner == "best") {
    auto [exact, best] = exact_and_best(problem, options, lower_bound, planner == "best", {});
    out = std::move(planner == "best" ? best : exact);
  } else {
    return check_planner(planner).error();
  }
  out.planner = std::string(planner);
  WEFT_CHECK(check_placement(problem, out));
  return out;
}

namespace {

MemoryPlan to_plan(const Graph& graph, const Liveness& liveness, std::string_view planner, const PlanOptions& options,
                   const Placement& placement) {
  MemoryPlan plan;
  plan.planner = placement.planner == "sweep" || placement.planner == "stream-sweep" ? placement.planner : std::string(planner);
  plan.alignment = options.alignment;
  plan.outputs_in_arena = options.outputs_in_arena;
  plan.arena_bytes = placement.arena_bytes;
  plan.offset.assign(graph.tensor_count(), kNotPlanned);
  plan.size.assign(graph.tensor_count(), 0);
  for (std::size_t b = 0; b < liveness.tensors.size(); ++b) {
    const auto t = static_cast<std::size_t>(liveness.tensors[b]);
    plan.offset[t] = placement.offset[b];
    plan.size[t] = liveness.problem.size[b];
  }
  place_views(graph, plan);
  return plan;
}

}  // namespace

Expected<MemoryPlan> plan_memory(const Graph& graph, const Liveness& liveness, std::string_view planner,
                                 const PlanOptions& options, std::int64_t lower_bound) {
  WEFT_TRY_ASSIGN(auto placement, place_blocks(liveness.problem, planner, options, lower_bound));
  return to_plan(graph, liveness, planner, options, placement);
}

std::vector<Placement> place_blocks_all(const AllocationProblem& problem, const PlanOptions& options,
                                        std::int64_t lower_bound) {
  if (problem.conflicts_omitted()) {
    // Too many conflicts to list (AllocationProblem::omitted_conflict_pairs): a sweep alone.
    Placement sweep = dense_placement(problem);
    WEFT_CHECK(check_placement(problem, sweep));
    return {std::move(sweep)};
  }
  // The three greedy planners are three of the six decodings `exact` and `best` start from (each
  // order by first and best fit), and `best` starts from `exact`'s result: each is computed once.
  detail::Decoder decoder(problem);
  std::vector<Placement> decoded;
  for (const auto& seed : {detail::order_by_size(problem), detail::order_by_breadth(problem), detail::order_by_start(problem)}) {
    auto [first, best] = decoder.decode_first_and_best(seed);
    decoded.push_back(std::move(first));
    decoded.push_back(std::move(best));
  }
  std::vector<Placement> placements{decoded[0], decoded[2], decoded[5]};
  auto [exact, best] = exact_and_best(problem, options, lower_bound, true, std::move(decoded));
  placements.push_back(std::move(exact));
  placements.push_back(std::move(best));
  const auto names = planner_names();
  WEFT_CHECK(names.size() == placements.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    placements[i].planner = names[i];
    // A placement equal to one already checked (often `best` is `exact`'s) is not checked again.
    const auto same = [&](std::size_t j) {
      return placements[j].arena_bytes == placements[i].arena_bytes && placements[j].offset == placements[i].offset;
    };
    bool checked = false;
    for (std::size_t j = 0; j < i && !checked; ++j) checked = same(j);
    if (!checked) WEFT_CHECK(check_placement(problem, placements[i]));
  }
  return placements;
}

Expected<std::vector<MemoryPlan>> plan_memory_all(const Graph& graph, const Liveness& liveness,
                                                  const PlanOptions& options, std::int64_t lower_bound) {
  std::vector<MemoryPlan> plans;
  for (const Placement& placement : place_blocks_all(liveness.problem, options, lower_bound))
    plans.push_back(to_plan(graph, liveness, placement.planner, options, placement));
  return plans;
}

Expected<MemoryPlan> plan_memory(const Graph& graph, const Schedule& schedule, std::string_view planner,
                                 const PlanOptions& options) {
  if (options.alignment <= 0) return make_error(ErrorKind::InvalidInput, "alignment must be positive, got " + std::to_string(options.alignment));
  // One execution order for the liveness, the bound and the debug check.
  WEFT_TRY_ASSIGN(const ExecutionOrder order, ExecutionOrder::build(graph, schedule));
  const Liveness liveness = compute_liveness(graph, order, options);
  std::int64_t bound = 0;
  if (planner == "best") {
    // The exact bound lets the search stop as soon as it is optimal.
    bound = schedule.stream_count() <= 1 ? interval_lower_bound(liveness.problem)
                                         : concurrent_lower_bound(graph, order, options).bytes;
  }
  auto plan = plan_memory(graph, liveness, planner, options, bound);
  // check_placement (always on) verified the blocks; this re-derives liveness independently.
  if (plan) WEFT_DEBUG_CHECK(check_plan(graph, order, *plan));
  return plan;
}

}  // namespace weft::core
