#include <gtest/gtest.h>

#include "weft/core/memory/allocation_problem.h"
#include "weft/core/memory/bounds.h"
#include "weft/core/base/file_io.h"
#include "weft/core/memory/intervals.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/memory/plan_checker.h"

using namespace weft;

namespace {

core::AllocationProblem minimalloc_instance(char name) {
  const std::string path = std::string(WEFT_TEST_DATA_DIR) + "/minimalloc/" + name + ".csv";
  auto text = core::read_file(path);
  EXPECT_TRUE(text) << path;
  auto inst = core::parse_minimalloc_csv(text ? *text : "", path);
  EXPECT_TRUE(inst) << path;
  return inst ? core::interval_problem(*inst) : core::AllocationProblem{};
}

}  // namespace

// The benchmark goal (label slow): every instance within MiniMalloc's capacity of 1 MiB, the
// ones whose bound equals it optimally, checker-valid. The budgets are the measured need plus
// margin (docs/performance.md). D and J end on the budget below 1 MiB; their bounds (0.94 MiB)
// are not proven reachable, so they are held to the arena the search reaches at that budget.
TEST(ExactPlannerSlow, MiniMallocAllInstances) {
  struct Goal {
    char name;
    std::int64_t steps;
    double max_ratio;  // arena / bound
  };
  const Goal goals[] = {{'A', 15'000'000, 1.0}, {'B', 15'000'000, 1.0}, {'C', 15'000'000, 1.0}, {'D', 3'000'000, 1.054},
                        {'E', 15'000'000, 1.0}, {'F', 15'000'000, 1.0}, {'G', 15'000'000, 1.0}, {'H', 15'000'000, 1.0},
                        {'I', 3'000'000, 1.0},  {'J', 3'000'000, 1.044}, {'K', 15'000'000, 1.0}};
  for (const Goal& goal : goals) {
    const core::AllocationProblem p = minimalloc_instance(goal.name);
    const std::int64_t bound = core::interval_lower_bound(p);
    core::PlanOptions options;
    options.search_steps = goal.steps;
    options.search_ms = 600'000;  // the step budget, not the clock, ends the search
    auto pl = core::place_blocks(p, "exact", options, bound);
    ASSERT_TRUE(pl);
    ASSERT_TRUE(core::check_placement(p, *pl)) << goal.name;
    EXPECT_LE(static_cast<double>(pl->arena_bytes), goal.max_ratio * static_cast<double>(bound)) << goal.name;
    EXPECT_LE(pl->arena_bytes, 1'048'576) << goal.name;
  }
}
