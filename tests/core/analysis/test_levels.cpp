#include <gtest/gtest.h>

#include "test_graphs.h"
#include "weft/core/analysis/levels.h"

using namespace weft;

// Golden: diamond has 3 levels, widest 2; the middle nodes have no slack.
TEST(Levels, Diamond) {
  const auto lv = core::compute_levels(test::make_diamond());
  EXPECT_EQ(lv.depth, 3);
  EXPECT_EQ(lv.widest_level, 2);
  EXPECT_EQ(lv.asap, (std::vector<int>{0, 1, 1, 2}));
  EXPECT_EQ(lv.alap, (std::vector<int>{0, 1, 1, 2}));
}

// Golden: a short branch beside a long one has slack.
TEST(Levels, SlackOnShortBranch) {
  // n0 -> n1 -> n2 -> n4, n0 -> n3 -> n4
  const auto lv = core::compute_levels(test::make_dag(5, {{0, 1}, {1, 2}, {2, 4}, {0, 3}, {3, 4}}));
  EXPECT_EQ(lv.depth, 4);
  EXPECT_EQ(lv.asap[3], 1);
  EXPECT_EQ(lv.alap[3], 2);
  EXPECT_EQ(lv.slack[3], 1);
  EXPECT_EQ(lv.slack[1], 0);
}

// Golden: chain and independent branches.
TEST(Levels, ChainAndBranches) {
  EXPECT_EQ(core::compute_levels(test::make_chain(7)).widest_level, 1);
  const auto lv = core::compute_levels(test::make_two_branches(5));
  EXPECT_EQ(lv.depth, 5);
  EXPECT_EQ(lv.widest_level, 2);
}

// Property: on random DAGs every edge goes up at least one ASAP level and ALAP >= ASAP.
TEST(Levels, RandomDagsRespectEdges) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const core::Graph g = test::make_random_dag(60, 0.08, seed);
    const auto lv = core::compute_levels(g);
    for (core::NodeId u = 0; u < static_cast<core::NodeId>(g.node_count()); ++u) {
      EXPECT_GE(lv.slack[static_cast<std::size_t>(u)], 0);
      for (core::NodeId v : g.successors(u)) {
        EXPECT_LT(lv.asap[static_cast<std::size_t>(u)], lv.asap[static_cast<std::size_t>(v)]);
        EXPECT_LT(lv.alap[static_cast<std::size_t>(u)], lv.alap[static_cast<std::size_t>(v)]);
      }
    }
  }
}
