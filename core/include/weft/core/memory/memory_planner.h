#pragma once
// The planners: placing an allocation problem's blocks, and planning a schedule's arena
// (liveness, then a planner's placement, checked).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/memory/allocation_problem.h"
#include "weft/core/graph/graph.h"
#include "weft/core/memory/liveness.h"
#include "weft/core/memory/memory_plan.h"
#include "weft/core/schedule/schedule.h"

namespace weft::core {

/// Planner names: greedy-by-size, greedy-by-breadth, best-fit, exact, best. `exact` is a search
/// over canonical placements after MiniMalloc (Moffitt, ASPLOS 2023), generalised to any conflict
/// graph: optimal when it meets the lower bound within its budget, the best found otherwise.
/// `best` is `exact`, then (unless that was proven optimal) the iterated greedy and skyline search,
/// keeping the smaller arena.
std::vector<std::string> planner_names();

/// Fails (InvalidInput, listing the known names) for a name planner_names() lacks. O(planners).
Status check_planner(std::string_view planner);

/// Places the blocks with the named planner (see planner_names()). `lower_bound` (optional, 0:
/// unknown) lets `best` stop as soon as it is reached. Errors: as check_planner().
Expected<Placement> place_blocks(const AllocationProblem& problem, std::string_view planner,
                                 const PlanOptions& options = {}, std::int64_t lower_bound = 0);

/// Every planner of planner_names() on one problem, in that order (each placement named and
/// checked): the same placements as place_blocks() per name, with the greedy decodings the
/// searches start from done once and `best` continuing from `exact`'s search.
std::vector<Placement> place_blocks_all(const AllocationProblem& problem, const PlanOptions& options = {},
                                        std::int64_t lower_bound = 0);

/// Plans the arena for `schedule` (liveness over its happens-before partial order).
/// Errors (InvalidInput): an unknown planner, a non-positive alignment, an invalid schedule.
/// Every placement passes check_placement (always checked); Debug builds also re-check the plan
/// with check_plan.
Expected<MemoryPlan> plan_memory(const Graph& graph, const Schedule& schedule, std::string_view planner = "best",
                                 const PlanOptions& options = {});

/// The same from a precomputed liveness (the CLI runs every planner on one liveness).
Expected<MemoryPlan> plan_memory(const Graph& graph, const Liveness& liveness, std::string_view planner,
                                 const PlanOptions& options = {}, std::int64_t lower_bound = 0);

/// Every planner of planner_names() on one liveness, in that order: the same plans as
/// plan_memory() per name, with the greedy decodings the `best` search starts from done once.
Expected<std::vector<MemoryPlan>> plan_memory_all(const Graph& graph, const Liveness& liveness,
                                                  const PlanOptions& options = {}, std::int64_t lower_bound = 0);

}  // namespace weft::core
