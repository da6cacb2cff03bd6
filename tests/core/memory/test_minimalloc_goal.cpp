// The MiniMalloc benchmark goal on every instance, A to K: the `best` planner's arena is at most
// 1.10 x the exact lower bound at a tenth of `weft plan --intervals`'s default step budget (the budget, not
// the clock, ends the search, so the result does not depend on the machine's speed).
#include <gtest/gtest.h>

#include <string>

#include "weft/core/memory/allocation_problem.h"
#include "weft/core/memory/bounds.h"
#include "weft/core/base/file_io.h"
#include "weft/core/memory/intervals.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/memory/plan_checker.h"

using namespace weft;

class MiniMallocGoal : public ::testing::TestWithParam<char> {};

TEST_P(MiniMallocGoal, BestWithinTenPercentOfTheBound) {
  const std::string path = std::string(WEFT_TEST_DATA_DIR) + "/minimalloc/" + GetParam() + ".csv";
  auto text = core::read_file(path);
  ASSERT_TRUE(text) << path;
  auto inst = core::parse_minimalloc_csv(*text, path);
  ASSERT_TRUE(inst) << inst.error().message;
  const core::AllocationProblem p = core::interval_problem(*inst);
  const std::int64_t bound = core::interval_lower_bound(p);
  core::PlanOptions options;
  options.search_steps = 600'000;  // a tenth of `weft plan --intervals`'s default
  options.search_ms = 600'000;     // a guard only: the step budget ends the search
  auto best = core::place_blocks(p, "best", options, bound);
  ASSERT_TRUE(best);
  ASSERT_TRUE(core::check_placement(p, *best));
  const double ratio = static_cast<double>(best->arena_bytes) / static_cast<double>(bound);
  RecordProperty("ratio", std::to_string(ratio));
  EXPECT_LE(ratio, 1.10) << GetParam() << ": arena " << best->arena_bytes << ", bound " << bound;
}

INSTANTIATE_TEST_SUITE_P(Instances, MiniMallocGoal, ::testing::Values('A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K'),
                         [](const ::testing::TestParamInfo<char>& param_info) { return std::string(1, param_info.param); });
