#include <gtest/gtest.h>

#include "memory_test_util.h"
#include "test_graphs.h"
#include "weft/core/allocation_problem.h"
#include "weft/core/bounds.h"
#include "weft/core/memory_aware_order.h"
#include "weft/core/memory_growth.h"
#include "weft/core/memory_planner.h"

using namespace weft;

namespace {
constexpr std::int64_t kTensor = 4096;
}

// Golden growth of a 4-chain on one stream: live bytes per step and the arena high-water mark.
TEST(Growth, ChainSteps) {
  const core::Graph g = test::make_chain(4);  // n0_out..n2_out planned; n3_out is the output
  const core::Schedule s{{{0, 1, 2, 3}}, {}, "hand", ""};
  auto plan = core::plan_memory(g, s, "greedy-by-size");
  ASSERT_TRUE(plan);
  auto growth = core::memory_growth(g, s, *plan);
  ASSERT_TRUE(growth) << growth.error().message;
  EXPECT_EQ(growth->steps, (std::vector<core::NodeId>{0, 1, 2, 3}));
  EXPECT_EQ(growth->live_bytes, (std::vector<std::int64_t>{kTensor, 2 * kTensor, 2 * kTensor, kTensor}));
  EXPECT_EQ(growth->high_water, (std::vector<std::int64_t>{kTensor, 2 * kTensor, 2 * kTensor, 2 * kTensor}));
  EXPECT_TRUE(growth->live_over_time.empty());
}

// With a timeline, growth is sampled at its times: a tensor lives from producer start to last reader end.
TEST(Growth, OverTime) {
  const core::Graph g = test::make_chain(3);  // n0_out, n1_out planned
  const core::Schedule s{{{0, 1, 2}}, {}, "hand", ""};
  auto plan = core::plan_memory(g, s, "best");
  ASSERT_TRUE(plan);
  core::Timeline tl;
  tl.items = {{0, 0, 0.0, 10.0}, {1, 0, 10.0, 20.0}, {2, 0, 20.0, 30.0}};
  auto growth = core::memory_growth(g, s, *plan, &tl);
  ASSERT_TRUE(growth);
  ASSERT_EQ(growth->live_over_time.size(), 4u);  // t = 0, 10, 20, 30
  EXPECT_EQ(growth->live_over_time[0].value, static_cast<double>(kTensor));
  EXPECT_EQ(growth->live_over_time[1].value, static_cast<double>(2 * kTensor));
  EXPECT_EQ(growth->live_over_time[2].value, static_cast<double>(kTensor));
  EXPECT_EQ(growth->live_over_time[3].value, 0.0);
  EXPECT_EQ(growth->high_water_over_time.back().value, static_cast<double>(plan->arena_bytes));
}

// Live bytes never exceed the arena, and the high-water mark ends at the plan's arena.
TEST(Growth, RandomSchedulesStayUnderArena) {
  for (std::uint64_t seed = 1; seed <= 15; ++seed) {
    const core::Graph g = test::make_random_dag(40, 0.1, seed);
    const core::Schedule s = test::random_schedule(g, 3, seed, {.drop_empty_streams = true});
    core::PlanOptions o;
    o.search_ms = 2;
    auto plan = core::plan_memory(g, s, "best", o);
    ASSERT_TRUE(plan);
    auto growth = core::memory_growth(g, s, *plan);
    ASSERT_TRUE(growth);
    for (std::int64_t live : growth->live_bytes) EXPECT_LE(live, plan->arena_bytes);
    if (!growth->high_water.empty() && plan->arena_bytes > 0) {
      EXPECT_EQ(growth->high_water.back(), plan->arena_bytes);
    }
  }
}

// The memory-aware order is topological and never peaks above the file order; it helps somewhere.
TEST(MemoryAwareOrder, NoWorseThanFileOrder) {
  int better = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const core::Graph g = test::make_random_dag(40, 0.08, seed);
    const std::vector<core::NodeId> order = core::memory_aware_order(g);
    ASSERT_EQ(order.size(), g.node_count());
    std::vector<int> pos(g.node_count(), -1);
    for (std::size_t i = 0; i < order.size(); ++i) pos[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
    for (std::size_t u = 0; u < g.node_count(); ++u)
      for (core::NodeId v : g.successors(static_cast<core::NodeId>(u))) ASSERT_LT(pos[u], pos[static_cast<std::size_t>(v)]);
    const std::int64_t file = core::linear_lower_bound(g, g.topo_order());
    const std::int64_t aware = core::linear_lower_bound(g, order);
    EXPECT_LE(aware, file) << "seed " << seed;
    better += aware < file;
  }
  EXPECT_GT(better, 0);
}

// Golden: the file order interleaves two independent chains (three tensors live); the aware order
// finishes one chain before starting the other (two).
TEST(MemoryAwareOrder, FinishesAChainFirst) {
  // n0 -> n2 -> n4 and n1 -> n3 -> n5; file order n0 n1 n2 n3 n4 n5.
  const core::Graph g = test::make_dag(6, {{0, 2}, {2, 4}, {1, 3}, {3, 5}});
  EXPECT_EQ(core::linear_lower_bound(g, g.topo_order()), 3 * kTensor);
  EXPECT_EQ(core::linear_lower_bound(g, core::memory_aware_order(g)), 2 * kTensor);
}
