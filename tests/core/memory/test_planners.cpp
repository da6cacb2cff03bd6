#include <gtest/gtest.h>

#include "memory_test_util.h"
#include "test_graphs.h"
#include "weft/core/memory/allocation_problem.h"
#include "weft/core/memory/bounds.h"
#include "weft/core/memory/liveness.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/memory/plan_checker.h"

using namespace weft;

namespace {
constexpr std::int64_t kTensor = 4096;  // make_dag's default tensors: float32 [1, 1024]
}

// Golden: two concurrent branches may not share bytes; the same graph on one stream may.
TEST(Planners, ConcurrentBranchesDoNotShare) {
  const core::Graph g = test::make_two_branches(3);
  const core::Schedule two{{{0, 1, 2}, {3, 4, 5}}, {}, "hand", ""};
  const core::Schedule one{{{0, 1, 2, 3, 4, 5}}, {}, "hand", ""};
  for (const std::string& planner : core::planner_names()) {
    auto p2 = core::plan_memory(g, two, planner);
    ASSERT_TRUE(p2) << planner;
    EXPECT_EQ(p2->arena_bytes, 4 * kTensor) << planner;
    EXPECT_TRUE(core::check_plan(g, two, *p2)) << planner;
    auto p1 = core::plan_memory(g, one, planner);
    ASSERT_TRUE(p1) << planner;
    EXPECT_EQ(p1->arena_bytes, 2 * kTensor) << planner;
    EXPECT_TRUE(core::check_plan(g, one, *p1)) << planner;
    EXPECT_EQ(p1->planner, planner);
  }
}

// A plan made for the sequential order is a data race once the branches run concurrently: caught.
TEST(Planners, SequentialPlanFailsConcurrentCheck) {
  const core::Graph g = test::make_two_branches(3);
  const core::Schedule two{{{0, 1, 2}, {3, 4, 5}}, {}, "hand", ""};
  const core::Schedule one{{{0, 1, 2, 3, 4, 5}}, {}, "hand", ""};
  auto seq = core::plan_memory(g, one, "greedy-by-size");
  ASSERT_TRUE(seq);
  auto status = core::check_plan(g, two, *seq);
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message.find("overlap"), std::string::npos) << status.error().message;
  EXPECT_NE(status.error().message.find("_out'"), std::string::npos) << status.error().message;
}

// The checker catches a missing tensor, a misaligned offset and a short arena.
TEST(Planners, CheckerCatchesBrokenPlans) {
  const core::Graph g = test::make_chain(4);
  const core::Schedule s{{{0, 1, 2, 3}}, {}, "hand", ""};
  auto plan = core::plan_memory(g, s, "best");
  ASSERT_TRUE(plan);
  ASSERT_TRUE(core::check_plan(g, s, *plan));
  EXPECT_EQ(plan->arena_bytes, 2 * kTensor);  // n0_out and n2_out share
  const auto n1 = static_cast<std::size_t>(*g.find_tensor("n1_out"));
  core::MemoryPlan missing = *plan;
  missing.offset[n1] = core::kNotPlanned;
  EXPECT_FALSE(core::check_plan(g, s, missing));
  core::MemoryPlan misaligned = *plan;
  misaligned.offset[n1] += 8;
  misaligned.arena_bytes += 8;
  EXPECT_FALSE(core::check_plan(g, s, misaligned));
  core::MemoryPlan short_arena = *plan;
  short_arena.arena_bytes -= 256;
  EXPECT_FALSE(core::check_plan(g, s, short_arena));
  EXPECT_TRUE(core::check_plan(g, s, core::plan_no_reuse(g)));
}

// An unknown planner is invalid input (core never returns Usage) naming the known ones.
TEST(Planners, UnknownPlannerIsInvalidInput) {
  const core::Graph g = test::make_chain(3);
  auto plan = core::plan_memory(g, core::Schedule{{{0, 1, 2}}, {}, "hand", ""}, "first-come");
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(plan.error().message.find("greedy-by-size"), std::string::npos);
}

// Property: random DAG × random valid schedule → every planner's plan passes the checker, and
// linear bound (a linearisation) <= concurrent bound <= arena <= no-reuse total; best <= each greedy.
TEST(Planners, RandomSchedulesAlwaysValid) {
  core::PlanOptions options;
  options.search_ms = 5;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const core::Graph g = test::make_random_dag(20 + static_cast<int>(seed % 30), 0.12, seed);
    const core::Schedule s = test::random_schedule(g, 1 + static_cast<int>(seed % 5), seed * 31, {.drop_empty_streams = true});
    auto bound = core::concurrent_lower_bound(g, s, options);
    ASSERT_TRUE(bound) << bound.error().message;
    const test::HappensBeforeClosure hb(g, s);
    ASSERT_TRUE(hb.acyclic());
    EXPECT_LE(core::linear_lower_bound(g, hb.order(), options), bound->bytes) << "seed " << seed;
    const std::int64_t no_reuse = core::plan_no_reuse(g).arena_bytes;
    std::int64_t smallest_greedy = no_reuse;
    for (const std::string& planner : core::planner_names()) {
      auto plan = core::plan_memory(g, s, planner, options);
      ASSERT_TRUE(plan) << planner;
      ASSERT_TRUE(core::check_plan(g, s, *plan)) << planner << " seed " << seed;
      EXPECT_GE(plan->arena_bytes, bound->bytes) << planner << " seed " << seed;
      EXPECT_LE(plan->arena_bytes, no_reuse) << planner << " seed " << seed;
      if (planner != "best") {
        smallest_greedy = std::min(smallest_greedy, plan->arena_bytes);
      } else {
        EXPECT_LE(plan->arena_bytes, smallest_greedy) << "seed " << seed;
      }
    }
  }
}

// Placement primitives on a hand-made conflict graph: a triangle plus a free block.
TEST(Planners, PlaceBlocksOnConflictGraph) {
  core::AllocationProblem p;
  p.size = {100, 200, 300, 400};
  p.start = {0, 0, 0, 5};
  p.end = {4, 4, 4, 9};
  p.conflicts = {{1, 2}, {0, 2}, {0, 1}, {}};
  for (const std::string& planner : core::planner_names()) {
    auto pl = core::place_blocks(p, planner);
    ASSERT_TRUE(pl);
    EXPECT_TRUE(core::check_placement(p, *pl)) << planner;
    EXPECT_EQ(pl->arena_bytes, 600) << planner;
  }
  EXPECT_EQ(core::interval_lower_bound(p), 600);
  core::Placement bad{"hand", {0, 50, 300, 0}, 700};
  EXPECT_FALSE(core::check_placement(p, bad));
}

// plan_memory_all shares the greedy decodings and the exact search between planners: every plan
// must equal the one plan_memory makes for that planner alone (one stream and several; budgets
// in steps, so the comparison does not depend on timing).
TEST(Planners, AllPlannersAtOnceMatchEachPlannerAlone) {
  core::PlanOptions options;
  options.search_steps = 20'000;
  options.search_ms = 600'000;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const core::Graph g = test::make_random_dag(40 + static_cast<int>(seed * 37 % 200), 0.1, seed);
    const core::Schedule s = test::random_schedule(g, 1 + static_cast<int>(seed % 4), seed * 17, {.drop_empty_streams = true});
    auto live = core::compute_liveness(g, s, options);
    ASSERT_TRUE(live) << live.error().message;
    const std::int64_t bound = seed % 2 ? 0 : core::concurrent_lower_bound(g, s, options)->bytes;
    auto all = core::plan_memory_all(g, *live, options, bound);
    ASSERT_TRUE(all) << all.error().message;
    const auto names = core::planner_names();
    ASSERT_EQ(all->size(), names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
      auto alone = core::plan_memory(g, *live, names[i], options, bound);
      ASSERT_TRUE(alone) << names[i];
      EXPECT_EQ((*all)[i].planner, names[i]);
      EXPECT_EQ((*all)[i].arena_bytes, alone->arena_bytes) << names[i] << " seed " << seed;
      EXPECT_EQ((*all)[i].offset, alone->offset) << names[i] << " seed " << seed;
    }
  }
}
