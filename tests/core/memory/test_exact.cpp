#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "memory_test_util.h"
#include "weft/core/memory/allocation_problem.h"
#include "weft/core/memory/bounds.h"
#include "weft/core/base/file_io.h"
#include "weft/core/memory/intervals.h"
#include "weft/core/memory/liveness.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/memory/plan_checker.h"

using namespace weft;

namespace {

// Every gravity-packed placement is some order's stacking (each block on the highest conflicting
// block before it), and some optimal placement is gravity-packed: the minimum over all orders is
// the optimum. n! orders: small problems only.
std::int64_t brute_force_arena(const core::AllocationProblem& p) {
  const std::size_t n = p.block_count();
  std::vector<std::int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::int64_t best = -1;
  std::vector<std::int64_t> offset(n);
  std::vector<char> placed(n);
  do {
    std::fill(placed.begin(), placed.end(), 0);
    std::int64_t arena = 0;
    for (std::int32_t b : order) {
      std::int64_t at = 0;
      for (std::int32_t c : p.conflicts[static_cast<std::size_t>(b)])
        if (placed[static_cast<std::size_t>(c)]) at = std::max(at, offset[static_cast<std::size_t>(c)] + p.size[static_cast<std::size_t>(c)]);
      offset[static_cast<std::size_t>(b)] = at;
      placed[static_cast<std::size_t>(b)] = 1;
      arena = std::max(arena, at + p.size[static_cast<std::size_t>(b)]);
    }
    if (best < 0 || arena < best) best = arena;
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

core::AllocationProblem random_intervals(std::size_t n, std::mt19937_64& rng) {
  core::IntervalInstance inst;
  for (std::size_t i = 0; i < n; ++i) {
    const auto lower = static_cast<std::int64_t>(rng() % 12);
    inst.ids.push_back(std::to_string(i));
    inst.lower.push_back(lower);
    inst.upper.push_back(lower + 1 + static_cast<std::int64_t>(rng() % 8));
    inst.size.push_back(1 + static_cast<std::int64_t>(rng() % 9));
  }
  return core::interval_problem(inst);
}

// A random conflict graph whose positions are only a hint (overlap does not imply conflict, nor
// the reverse), sizes multiples of the alignment.
core::AllocationProblem random_conflict_graph(std::size_t n, std::mt19937_64& rng) {
  core::AllocationProblem p;
  p.alignment = 4;
  p.conflicts.assign(n, {});
  for (std::size_t i = 0; i < n; ++i) {
    p.size.push_back(4 * (1 + static_cast<std::int64_t>(rng() % 6)));
    const auto start = static_cast<std::int64_t>(rng() % 6);
    p.start.push_back(start);
    p.end.push_back(start + static_cast<std::int64_t>(rng() % 4));
    for (std::size_t j = 0; j < i; ++j)
      if (rng() % 100 < 45) {
        p.conflicts[i].push_back(static_cast<std::int32_t>(j));
        p.conflicts[j].push_back(static_cast<std::int32_t>(i));
      }
  }
  for (auto& c : p.conflicts) std::sort(c.begin(), c.end());
  return p;
}

core::AllocationProblem minimalloc_instance(char name) {
  const std::string path = std::string(WEFT_TEST_DATA_DIR) + "/minimalloc/" + name + ".csv";
  auto text = core::read_file(path);
  EXPECT_TRUE(text) << path;
  auto inst = core::parse_minimalloc_csv(text ? *text : "", path);
  EXPECT_TRUE(inst) << path;
  return inst ? core::interval_problem(*inst) : core::AllocationProblem{};
}

}  // namespace

// Property: on small random interval instances the exact planner's arena is the brute-force optimum.
TEST(ExactPlanner, OptimalOnRandomIntervals) {
  std::mt19937_64 rng(21);
  for (int trial = 0; trial < 150; ++trial) {
    const core::AllocationProblem p = random_intervals(3 + static_cast<std::size_t>(trial % 5), rng);
    auto pl = core::place_blocks(p, "exact");
    ASSERT_TRUE(pl);
    ASSERT_TRUE(core::check_placement(p, *pl)) << "trial " << trial;
    EXPECT_EQ(pl->arena_bytes, brute_force_arena(p)) << "trial " << trial;
  }
}

// Property: the same on random conflict graphs, where the positions are not cliques (the search
// must cut its inference cliques down to true ones) and alignment is 4.
TEST(ExactPlanner, OptimalOnRandomConflictGraphs) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 150; ++trial) {
    const core::AllocationProblem p = random_conflict_graph(3 + static_cast<std::size_t>(trial % 5), rng);
    auto pl = core::place_blocks(p, "exact");
    ASSERT_TRUE(pl);
    ASSERT_TRUE(core::check_placement(p, *pl)) << "trial " << trial;
    EXPECT_EQ(pl->arena_bytes, brute_force_arena(p)) << "trial " << trial;
    auto best = core::place_blocks(p, "best");
    ASSERT_TRUE(best);
    EXPECT_EQ(best->arena_bytes, pl->arena_bytes) << "trial " << trial;
  }
}

// Property: random DAGs under random multi-stream schedules: the exact plan passes the checker,
// is optimal (brute force over the partial-order conflicts) and meets the concurrent bound
// whenever the optimum does.
TEST(ExactPlanner, OptimalOnMultiStreamSchedules) {
  int checked = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const core::Graph g = test::make_random_dag(9 + static_cast<int>(seed % 4), 0.25, seed);
    const core::Schedule s = test::random_schedule(g, 2 + static_cast<int>(seed % 3), seed * 17, {.drop_empty_streams = true});
    auto live = core::compute_liveness(g, s);
    ASSERT_TRUE(live);
    if (live->problem.block_count() > 8) continue;  // keep the brute force at 8! orders
    auto bound = core::concurrent_lower_bound(g, s);
    ASSERT_TRUE(bound);
    auto plan = core::plan_memory(g, s, "exact");
    ASSERT_TRUE(plan);
    ASSERT_TRUE(core::check_plan(g, s, *plan)) << "seed " << seed;
    const std::int64_t optimum = brute_force_arena(live->problem);
    EXPECT_EQ(plan->arena_bytes, optimum) << "seed " << seed;
    EXPECT_GE(plan->arena_bytes, bound->bytes) << "seed " << seed;
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

// Golden: a diamond of concurrent branches where interval reasoning on the linearisation would
// over-constrain: the exact plan reaches the concurrent bound (two branch tensors live at once,
// the join's inputs sharing nothing with each other).
TEST(ExactPlanner, ConcurrentPlanReachesBound) {
  const core::Graph g = test::make_two_branches(4);
  const core::Schedule two{{{0, 1, 2, 3}, {4, 5, 6, 7}}, {}, "hand", ""};
  auto bound = core::concurrent_lower_bound(g, two);
  ASSERT_TRUE(bound);
  auto plan = core::plan_memory(g, two, "exact");
  ASSERT_TRUE(plan);
  EXPECT_TRUE(core::check_plan(g, two, *plan));
  EXPECT_EQ(plan->arena_bytes, bound->bytes);
}

// Edge cases: no blocks (arena 0), one block, blocks that conflict with nothing.
TEST(ExactPlanner, TrivialProblems) {
  core::AllocationProblem empty;
  auto none = core::place_blocks(empty, "exact");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->arena_bytes, 0);
  core::AllocationProblem free_blocks;
  free_blocks.size = {256, 512, 256};
  free_blocks.start = {0, 1, 2};
  free_blocks.end = {0, 1, 2};
  free_blocks.conflicts = {{}, {}, {}};
  free_blocks.alignment = 256;
  for (const char* planner : {"exact", "best"}) {
    auto pl = core::place_blocks(free_blocks, planner);
    ASSERT_TRUE(pl);
    EXPECT_EQ(pl->arena_bytes, 512) << planner;
    EXPECT_EQ(pl->offset, (std::vector<std::int64_t>{0, 0, 0})) << planner;
  }
}

// The MiniMalloc instances the search settles in well under a second (fast subset): packed at or
// under the benchmark capacity of 1 MiB, checker-valid, and identical offsets on a second run.
TEST(ExactPlanner, MiniMallocFastInstances) {
  core::PlanOptions options;
  options.search_steps = 3'000'000;
  options.search_ms = 600'000;  // the step budget, not the clock, ends the search
  for (char name : {'A', 'B', 'C', 'F', 'G', 'I', 'K'}) {
    const core::AllocationProblem p = minimalloc_instance(name);
    const std::int64_t bound = core::interval_lower_bound(p);
    auto pl = core::place_blocks(p, "exact", options, bound);
    ASSERT_TRUE(pl);
    ASSERT_TRUE(core::check_placement(p, *pl)) << name;
    EXPECT_LE(pl->arena_bytes, 1'048'576) << name;
    EXPECT_EQ(pl->arena_bytes, bound) << name;  // optimal: these reach their bound
  }
}

// The search is deterministic for a step budget: the same offsets twice (one that ends on the
// budget, not on the bound).
TEST(ExactPlanner, Deterministic) {
  const core::AllocationProblem p = minimalloc_instance('J');
  core::PlanOptions options;
  options.search_steps = 200'000;
  options.search_ms = 600'000;
  auto a = core::place_blocks(p, "exact", options);
  auto b = core::place_blocks(p, "exact", options);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->offset, b->offset);
  EXPECT_TRUE(core::check_placement(p, *a));
}
