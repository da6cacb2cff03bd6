#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "test_graphs.h"
#include "weft/core/analysis/critical_path.h"

using namespace weft;

namespace {

std::vector<double> ones(const core::Graph& g) { return std::vector<double>(g.node_count(), 1.0); }

// Longest node-weighted path by enumerating every source→sink path.
double brute_force_longest(const core::Graph& g, const std::vector<double>& w) {
  double best = 0;
  std::function<void(core::NodeId, double)> walk = [&](core::NodeId u, double len) {
    len += w[static_cast<std::size_t>(u)];
    best = std::max(best, len);
    for (core::NodeId s : g.successors(u)) walk(s, len);
  };
  for (core::NodeId u = 0; u < static_cast<core::NodeId>(g.node_count()); ++u)
    if (g.predecessors(u).empty()) walk(u, 0);
  return best;
}

}  // namespace

// Golden: a chain's critical path is the whole chain; work equals span.
TEST(CriticalPath, Chain) {
  const auto g = test::make_chain(5);
  const auto cp = core::find_critical_path(g, std::vector<double>{1, 2, 3, 4, 5});
  EXPECT_EQ(cp.nodes, (std::vector<core::NodeId>{0, 1, 2, 3, 4}));
  EXPECT_DOUBLE_EQ(cp.span_us, 15);
  EXPECT_DOUBLE_EQ(cp.work_us, 15);
  EXPECT_DOUBLE_EQ(cp.parallelism(), 1.0);
}

// Golden: the diamond's path goes through the heavier middle node.
TEST(CriticalPath, DiamondTakesHeavierBranch) {
  const auto g = test::make_diamond();
  const auto cp = core::find_critical_path(g, std::vector<double>{1, 2, 7, 1});
  EXPECT_EQ(cp.nodes, (std::vector<core::NodeId>{0, 2, 3}));
  EXPECT_DOUBLE_EQ(cp.span_us, 9);
  EXPECT_DOUBLE_EQ(cp.work_us, 11);
}

// Golden: fan-out of 4 with unit costs: span 2, work 5.
TEST(CriticalPath, FanOut) {
  const auto g = test::make_fan_out(4);
  const auto cp = core::find_critical_path(g, ones(g));
  EXPECT_DOUBLE_EQ(cp.span_us, 2);
  EXPECT_DOUBLE_EQ(cp.work_us, 5);
  EXPECT_EQ(cp.nodes.size(), 2u);
  EXPECT_EQ(cp.nodes.front(), 0);
}

// Golden: two independent branches, the second heavier: the path is the second branch.
TEST(CriticalPath, TwoBranches) {
  const auto g = test::make_two_branches(3);
  const auto cp = core::find_critical_path(g, std::vector<double>{1, 1, 1, 2, 2, 2});
  EXPECT_EQ(cp.nodes, (std::vector<core::NodeId>{3, 4, 5}));
  EXPECT_DOUBLE_EQ(cp.span_us, 6);
  EXPECT_DOUBLE_EQ(cp.work_us, 9);
  EXPECT_DOUBLE_EQ(cp.parallelism(), 1.5);
}

// Edge case: an empty graph has an empty path and parallelism 1.
TEST(CriticalPath, Empty) {
  core::GraphBuilder b;
  auto g = std::move(b).build();
  ASSERT_TRUE(g);
  const auto cp = core::find_critical_path(*g, {});
  EXPECT_TRUE(cp.nodes.empty());
  EXPECT_DOUBLE_EQ(cp.parallelism(), 1.0);
}

// Property: on random DAGs with random weights the span equals the brute-force longest path, the
// returned nodes form a real path (consecutive nodes joined by an edge) and sum to the span.
TEST(CriticalPath, RandomDagsMatchBruteForce) {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const int n = 4 + static_cast<int>(seed % 11);
    const auto g = test::make_random_dag(n, 0.35, seed);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(0.5, 10.0);
    std::vector<double> w(g.node_count());
    for (double& x : w) x = dist(rng);
    const auto cp = core::find_critical_path(g, w);
    EXPECT_NEAR(cp.span_us, brute_force_longest(g, w), 1e-9) << "seed " << seed;
    double sum = 0;
    for (std::size_t i = 0; i < cp.nodes.size(); ++i) {
      sum += w[static_cast<std::size_t>(cp.nodes[i])];
      if (i > 0) {
        const auto succ = g.successors(cp.nodes[i - 1]);
        EXPECT_TRUE(std::find(succ.begin(), succ.end(), cp.nodes[i]) != succ.end()) << "seed " << seed;
      }
    }
    EXPECT_NEAR(sum, cp.span_us, 1e-9);
    EXPECT_TRUE(g.predecessors(cp.nodes.front()).empty());
  }
}
