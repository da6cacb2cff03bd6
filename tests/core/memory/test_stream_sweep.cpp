// The stream sweep (liveness too dense to list under several streams): its frontiers give exactly
// the listed conflicts, its plan is first fit in start order over them (checked against a
// brute-force first fit on the listed liveness), passes the exact check, and the allocation-level
// check by frontiers refuses exactly the placements that share bytes between conflicting blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>

#include "memory_test_util.h"
#include "test_graphs.h"
#include "weft/core/memory/allocation_problem.h"
#include "weft/core/memory/bounds.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/memory/liveness.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/memory/plan_checker.h"

using namespace weft;

namespace {

// A random DAG whose tensors have random sizes (64 B to 64 KiB, so slots of the sizes' divisor
// number in the thousands and the sweep's trees grow several times).
core::Graph random_sized_dag(int nodes, double p, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> elems(16, 1 << 14);
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(nodes));
  for (auto& s : sizes) s = elems(rng);
  return test::make_sized_dag(nodes, test::random_edges(nodes, p, seed), sizes);
}

core::PlanOptions dense_options() {
  core::PlanOptions o;
  o.max_conflict_pairs = 1;  // omit every list
  return o;
}

// The frontiers' conflict rule, as StreamFrontiers documents it, for blocks x and y.
bool frontier_conflict(const core::AllocationProblem& p, std::size_t x, std::size_t y) {
  const auto& f = p.frontiers;
  const bool x_first = p.start[x] != p.start[y] ? p.start[x] < p.start[y] : x < y;
  const std::size_t a = x_first ? x : y, c = x_first ? y : x;
  return f.index[c] < f.dead_from[a * f.streams + static_cast<std::size_t>(f.stream[c])];
}

// First fit by brute force: blocks in (start, larger size, index) order, each at the lowest
// aligned offset free of the placed blocks `conflicts` lists.
std::vector<std::int64_t> brute_first_fit(const core::AllocationProblem& order_by, const core::AllocationProblem& listed) {
  const std::size_t n = listed.block_count();
  std::vector<std::int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    if (order_by.start[ua] != order_by.start[ub]) return order_by.start[ua] < order_by.start[ub];
    return listed.size[ua] > listed.size[ub];
  });
  std::vector<std::int64_t> offset(n, -1);
  for (std::int32_t b : order) {
    const auto ub = static_cast<std::size_t>(b);
    std::int64_t at = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (std::int32_t c : listed.conflicts[ub]) {
        const auto uc = static_cast<std::size_t>(c);
        if (offset[uc] < 0) continue;
        if (at < offset[uc] + listed.size[uc] && offset[uc] < at + listed.size[ub]) {
          at = offset[uc] + listed.size[uc];
          moved = true;
        }
      }
    }
    offset[ub] = at;
  }
  return offset;
}

}  // namespace

// Frontiers name exactly the listed conflicts, and the stream sweep's plan is first fit over
// them in start order, valid by the exact check, on random DAGs × random schedules.
TEST(StreamSweep, FirstFitOverTheExactConflictsOnRandomDags) {
  int swept = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const core::Graph g = random_sized_dag(70, 0.06, seed);
    const int streams = 2 + static_cast<int>(seed % 5);
    const core::Schedule s = test::random_schedule(g, streams, seed * 13, {.events_for_cross_edges = seed % 3 == 0,
                                                                            .drop_empty_streams = true});
    auto order = core::ExecutionOrder::build(g, s);
    ASSERT_TRUE(order) << order.error().message;
    const core::Liveness listed = core::compute_liveness(g, *order);
    const core::Liveness dense = core::compute_liveness(g, *order, dense_options());
    ASSERT_FALSE(listed.problem.conflicts_omitted());
    if (!dense.problem.conflicts_omitted()) continue;  // at most one pair
    ASSERT_EQ(dense.tensors, listed.tensors);
    if (order->stream_count() < 2) {
      EXPECT_TRUE(dense.problem.frontiers.empty());
      continue;
    }
    ASSERT_FALSE(dense.problem.frontiers.empty());
    const std::size_t n = listed.tensors.size();
    for (std::size_t x = 0; x < n; ++x)
      for (std::size_t y = x + 1; y < n; ++y) {
        const auto& lx = listed.problem.conflicts[x];
        const bool listed_conflict = std::binary_search(lx.begin(), lx.end(), static_cast<std::int32_t>(y));
        ASSERT_EQ(frontier_conflict(dense.problem, x, y), listed_conflict) << "blocks " << x << " and " << y;
      }
    auto plans = core::plan_memory_all(g, dense, dense_options(), 0);
    ASSERT_TRUE(plans) << plans.error().message;
    ASSERT_EQ(plans->size(), 1u);
    const core::MemoryPlan& plan = plans->front();
    ASSERT_EQ(plan.planner, "stream-sweep");
    const std::vector<std::int64_t> want = brute_first_fit(dense.problem, listed.problem);
    for (std::size_t b = 0; b < n; ++b)
      ASSERT_EQ(plan.offset[static_cast<std::size_t>(listed.tensors[b])], want[b]) << "block " << b;
    auto ok = core::check_plan(g, *order, plan, 0);  // the listed liveness
    EXPECT_TRUE(ok) << ok.error().message;
    ok = core::check_plan(g, *order, plan);  // the default limit
    EXPECT_TRUE(ok) << ok.error().message;
    EXPECT_GE(plan.arena_bytes, core::concurrent_lower_bound(g, *order, dense_options()).bytes);
    ++swept;
  }
  EXPECT_GT(swept, 20);
}

// The allocation-level check by frontiers is exact: two blocks that may share bytes by the
// definition (one dead before the other) although their conservative ranges overlap are accepted
// at one offset; two that conflict are refused.
TEST(StreamSweep, FrontierCheckIsExact) {
  bool accepted_reuse = false, refused_clash = false;
  for (std::uint64_t seed = 1; seed <= 30 && !(accepted_reuse && refused_clash); ++seed) {
    const core::Graph g = test::make_random_dag(50, 0.08, seed);
    const core::Schedule s = test::random_schedule(g, 3, seed, {.drop_empty_streams = true});
    auto order = core::ExecutionOrder::build(g, s);
    ASSERT_TRUE(order);
    const core::Liveness dense = core::compute_liveness(g, *order, dense_options());
    const core::AllocationProblem& p = dense.problem;
    if (!p.conflicts_omitted() || p.frontiers.empty()) continue;
    const std::size_t n = p.block_count();
    // Every block in bytes of its own, then two of them moved onto one offset.
    core::Placement spread;
    for (std::size_t b = 0; b < n; ++b) {
      spread.offset.push_back(spread.arena_bytes);
      spread.arena_bytes += p.size[b];
    }
    ASSERT_TRUE(core::check_placement(p, spread));
    for (std::size_t x = 0; x < n; ++x)
      for (std::size_t y = x + 1; y < n; ++y) {
        const bool overlap = p.start[x] <= p.end[y] && p.start[y] <= p.end[x];
        if (!overlap || p.size[x] != p.size[y]) continue;
        core::Placement shared = spread;
        shared.offset[y] = shared.offset[x];
        const auto verdict = core::check_placement(p, shared);
        if (frontier_conflict(p, x, y)) {
          ASSERT_FALSE(verdict);
          EXPECT_NE(verdict.error().message.find("conflict but overlap"), std::string::npos) << verdict.error().message;
          refused_clash = true;
        } else {
          EXPECT_TRUE(verdict) << verdict.error().message;
          accepted_reuse = true;
        }
      }
  }
  EXPECT_TRUE(accepted_reuse);
  EXPECT_TRUE(refused_clash);
}

// Which liveness lists its pairs: at most max_conflict_pairs, and past kDenseFloorPairs at most
// max_conflict_pairs_per_block per block; 0 turns each limit off.
TEST(StreamSweep, ListedPairLimit) {
  core::PlanOptions o;
  EXPECT_EQ(core::listed_pair_limit(o, 1000), core::kDenseFloorPairs);
  EXPECT_EQ(core::listed_pair_limit(o, 100'000), 64 * 100'000);
  EXPECT_EQ(core::listed_pair_limit(o, 10'000'000), o.max_conflict_pairs);
  o.max_conflict_pairs_per_block = 0;
  EXPECT_EQ(core::listed_pair_limit(o, 100'000), o.max_conflict_pairs);
  o.max_conflict_pairs = 0;
  o.max_conflict_pairs_per_block = 64;
  EXPECT_EQ(core::listed_pair_limit(o, 100'000), 0);
}
