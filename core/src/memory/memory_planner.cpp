// The planning pipeline: liveness over the schedule → a planner's placement → MemoryPlan.
#include "weft/core/memory_planner.h"

#include <algorithm>
#include <chrono>

#include "allocation_detail.h"
#include "weft/core/allocation_problem.h"
#include "weft/core/bounds.h"
#include "weft/core/check.h"
#include "weft/core/liveness.h"
#include "weft/core/plan_checker.h"

namespace weft::core {

std::vector<std::string> planner_names() { return {"greedy-by-size", "greedy-by-breadth", "best-fit", "exact", "best"}; }

Status check_planner(std::string_view planner) {
  const auto names = planner_names();
  if (std::find(names.begin(), names.end(), planner) != names.end()) return {};
  std::string known;
  for (const auto& name : names) known += (known.empty() ? "" : ", ") + name;
  return make_error(ErrorKind::InvalidInput, "unknown planner '" + std::string(planner) + "' (known: " + known + ")");
}

Expected<Placement> place_blocks(const AllocationProblem& problem, std::string_view planner, const PlanOptions& options,
                                 std::int64_t lower_bound) {
  detail::Decoder decoder(problem);
  Placement out;
  if (planner == "greedy-by-size") {
    out = decoder.decode(detail::order_by_size(problem), detail::Fit::First);
  } else if (planner == "greedy-by-breadth") {
    out = decoder.decode(detail::order_by_breadth(problem), detail::Fit::First);
  } else if (planner == "best-fit") {
    out = decoder.decode(detail::order_by_start(problem), detail::Fit::Best);
  } else if (planner == "exact" || planner == "best") {
    // Interval structure gives the exact bound for free: the search may stop as soon as it is met.
    if (lower_bound <= 0 && problem.conflicts_are_overlaps) lower_bound = interval_lower_bound(problem);
    const std::vector<std::vector<std::int32_t>> seeds{detail::order_by_size(problem), detail::order_by_breadth(problem),
                                                       detail::order_by_start(problem)};
    const auto deadline =
        detail::Clock::now() + std::chrono::microseconds(static_cast<std::int64_t>(options.search_ms * 1000));
    auto exact = detail::exact_placement(problem, seeds, lower_bound, options.search_steps, deadline, options.seed);
    out = std::move(exact.placement);
    // `best` adds the iterated greedy and skyline restarts where the exact search did not prove
    // its placement optimal, and keeps the smaller arena.
    // Without a canonical search, `exact` is the compacted best seed decoding; so is the
    // search's result when its budget buys no iteration (large problems): nothing to add.
    if (planner == "best" && !exact.optimal &&
        (exact.searched || detail::search_improves_seeds(problem, options, exact.lower_bound))) {
      Placement other = detail::search_placement(problem, seeds, options, exact.lower_bound);
      if (other.arena_bytes < out.arena_bytes) out = std::move(other);
    }
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
  plan.planner = std::string(planner);
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

Expected<std::vector<MemoryPlan>> plan_memory_all(const Graph& graph, const Liveness& liveness,
                                                  const PlanOptions& options, std::int64_t lower_bound) {
  const AllocationProblem& problem = liveness.problem;
  // The three greedy planners are three of the six decodings `exact` and `best` start from (each
  // order by first and best fit), and `best` starts from `exact`'s result (place_blocks runs the
  // same exact search for both): each is computed once here, with the same arguments.
  std::vector<std::vector<std::int32_t>> seeds{detail::order_by_size(problem), detail::order_by_breadth(problem),
                                                detail::order_by_start(problem)};
  detail::Decoder decoder(problem);
  std::vector<Placement> decoded;
  for (const auto& seed : seeds) {
    auto [first, best] = decoder.decode_first_and_best(seed);
    decoded.push_back(std::move(first));
    decoded.push_back(std::move(best));
  }
  std::vector<Placement> placements{decoded[0], decoded[2], decoded[5]};
  if (lower_bound <= 0 && problem.conflicts_are_overlaps) lower_bound = interval_lower_bound(problem);
  const auto deadline =
      detail::Clock::now() + std::chrono::microseconds(static_cast<std::int64_t>(options.search_ms * 1000));
  auto exact = detail::exact_placement(problem, seeds, lower_bound, options.search_steps, deadline, options.seed, decoded);
  placements.push_back(exact.placement);
  Placement best = std::move(exact.placement);
  if (!exact.optimal && (exact.searched || detail::search_improves_seeds(problem, options, exact.lower_bound))) {
    Placement other = detail::search_placement(problem, std::move(seeds), options, exact.lower_bound, std::move(decoded));
    if (other.arena_bytes < best.arena_bytes) best = std::move(other);
  }
  placements.push_back(std::move(best));
  const auto names = planner_names();
  WEFT_CHECK(names.size() == placements.size());
  std::vector<MemoryPlan> plans;
  for (std::size_t i = 0; i < names.size(); ++i) {
    placements[i].planner = names[i];
    // A placement equal to one already checked (often `best` is `exact`'s) is not checked again.
    const auto same = [&](std::size_t j) {
      return placements[j].arena_bytes == placements[i].arena_bytes && placements[j].offset == placements[i].offset;
    };
    bool checked = false;
    for (std::size_t j = 0; j < i && !checked; ++j) checked = same(j);
    if (!checked) WEFT_CHECK(check_placement(problem, placements[i]));
    plans.push_back(to_plan(graph, liveness, names[i], options, placements[i]));
  }
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
