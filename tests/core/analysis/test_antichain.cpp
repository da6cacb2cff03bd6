#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "test_graphs.h"
#include "weft/core/analysis/antichain.h"

using namespace weft;
using core::WidthMethod;

namespace {

constexpr WidthMethod kMethods[] = {WidthMethod::Matching, WidthMethod::MinFlow};

// reach[u][v]: v is reachable from u by a non-empty path.
std::vector<std::vector<char>> closure(const core::Graph& g) {
  const std::size_t n = g.node_count();
  std::vector<std::vector<char>> r(n, std::vector<char>(n, 0));
  const auto order = g.topo_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    for (core::NodeId s : g.successors(*it)) {
      auto& row = r[static_cast<std::size_t>(*it)];
      row[static_cast<std::size_t>(s)] = 1;
      for (std::size_t v = 0; v < n; ++v)
        if (r[static_cast<std::size_t>(s)][v]) row[v] = 1;
    }
  return r;
}

bool independent(const std::vector<std::vector<char>>& r, core::NodeId a, core::NodeId b) {
  return !r[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] &&
         !r[static_cast<std::size_t>(b)][static_cast<std::size_t>(a)];
}

// Largest antichain by enumerating every subset (n <= 16).
std::size_t brute_force_width(const core::Graph& g) {
  const auto r = closure(g);
  const int n = static_cast<int>(g.node_count());
  std::size_t best = 0;
  for (std::uint32_t mask = 1; mask < (1u << n); ++mask) {
    const auto size = static_cast<std::size_t>(std::popcount(mask));
    if (size <= best) continue;
    bool ok = true;
    for (int a = 0; a < n && ok; ++a)
      if (mask >> a & 1u)
        for (int b = a + 1; b < n && ok; ++b)
          if (mask >> b & 1u) ok = independent(r, a, b);
    if (ok) best = size;
  }
  return best;
}

// A valid cover: chains disjoint, covering every node, each totally ordered by reachability in
// the listed order; the antichain pairwise independent and as large as the cover.
void expect_valid(const core::Graph& g, const core::Width& w, const std::string& what) {
  const auto r = closure(g);
  std::vector<int> seen(g.node_count(), 0);
  for (const auto& chain : w.cover.chains) {
    EXPECT_FALSE(chain.empty()) << what;
    for (std::size_t i = 0; i < chain.size(); ++i) {
      ++seen[static_cast<std::size_t>(chain[i])];
      if (i > 0) {
        EXPECT_TRUE(r[static_cast<std::size_t>(chain[i - 1])][static_cast<std::size_t>(chain[i])])
            << what << ": " << chain[i - 1] << " does not reach " << chain[i];
      }
    }
  }
  for (std::size_t v = 0; v < g.node_count(); ++v) EXPECT_EQ(seen[v], 1) << what << ": node " << v;
  EXPECT_EQ(w.antichain.size(), w.cover.width()) << what;
  for (std::size_t i = 0; i < w.antichain.size(); ++i)
    for (std::size_t j = i + 1; j < w.antichain.size(); ++j)
      EXPECT_TRUE(independent(r, w.antichain[i], w.antichain[j])) << what;
}

}  // namespace

// Golden: chain width 1, diamond 2, fan-out k, two branches 2, for both exact methods.
TEST(Antichain, GoldenShapes) {
  for (WidthMethod m : kMethods) {
    EXPECT_EQ(core::min_chain_cover(test::make_chain(6), m).width(), 1u);
    EXPECT_EQ(core::min_chain_cover(test::make_diamond(), m).width(), 2u);
    EXPECT_EQ(core::max_antichain(test::make_diamond(), m), (std::vector<core::NodeId>{1, 2}));
    EXPECT_EQ(core::min_chain_cover(test::make_fan_out(5), m).width(), 5u);
    EXPECT_EQ(core::max_antichain(test::make_fan_out(5), m), (std::vector<core::NodeId>{1, 2, 3, 4, 5}));
    EXPECT_EQ(core::min_chain_cover(test::make_two_branches(4), m).width(), 2u);
  }
}

// Golden: two independent branches are covered by exactly those branches (chains follow edges).
TEST(Antichain, ChainsFollowEdges) {
  for (WidthMethod m : kMethods) {
    auto chains = core::min_chain_cover(test::make_two_branches(3), m).chains;
    std::sort(chains.begin(), chains.end());
    EXPECT_EQ(chains, (std::vector<std::vector<core::NodeId>>{{0, 1, 2}, {3, 4, 5}}));
  }
}

// Golden: an X (n0, n1 -> n2 -> n3, n4) has width 2 but needs 3 vertex-disjoint paths along
// edges: the cover must skip the waist n2 in one chain (a shortcut n1 ~> n4 by reachability).
TEST(Antichain, NeedsShortcut) {
  const auto g = test::make_dag(5, {{0, 2}, {1, 2}, {2, 3}, {2, 4}});
  for (WidthMethod m : kMethods) {
    const auto w = core::compute_width(g, m);
    EXPECT_EQ(w.cover.width(), 2u);
    expect_valid(g, w, "X shape");
  }
}

// Property: on random DAGs of up to 16 nodes both methods equal brute-force subset enumeration,
// and their covers and antichains are valid.
TEST(Antichain, RandomSmallDagsMatchBruteForce) {
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    const int n = 2 + static_cast<int>(seed % 15);
    const double p = 0.1 + 0.05 * static_cast<double>(seed % 8);
    const auto g = test::make_random_dag(n, p, seed);
    const std::size_t expected = brute_force_width(g);
    for (WidthMethod m : kMethods) {
      const auto w = core::compute_width(g, m);
      const std::string what = "seed " + std::to_string(seed) + (m == WidthMethod::Matching ? " matching" : " min-flow");
      EXPECT_EQ(w.cover.width(), expected) << what;
      expect_valid(g, w, what);
    }
  }
}

// Property: on larger random DAGs the two exact methods agree and both produce valid covers.
TEST(Antichain, MethodsAgreeOnLargerDags) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const int n = 100 + static_cast<int>(seed) * 37;
    const auto g = test::make_random_dag(n, 0.02 + 0.01 * static_cast<double>(seed % 4), seed, 3);
    const auto a = core::compute_width(g, WidthMethod::Matching);
    const auto b = core::compute_width(g, WidthMethod::MinFlow);
    EXPECT_EQ(a.cover.width(), b.cover.width()) << "seed " << seed;
    expect_valid(g, a, "matching seed " + std::to_string(seed));
    expect_valid(g, b, "min-flow seed " + std::to_string(seed));
  }
}

// A chain with bursts: after a gap of 3 + j chain nodes, burst j fans the chain out to 4-8 nodes
// and a tree of two-input nodes joins them back. The chains ending in one burst's tree continue in
// the next burst, each gap a different distance on: as many of Dinic's phases as bursts. The
// width is the widest burst's (`widest`).
core::Graph make_bursts(int bursts, std::uint64_t seed, std::size_t& widest) {
  widest = 1;
  std::mt19937_64 rng(seed);
  std::vector<std::pair<int, int>> edges;
  int n = 0, head = n++;
  for (int j = 0; j < bursts; ++j) {
    for (int k = 0; k < 3 + j; ++k) {
      edges.emplace_back(head, n);
      head = n++;
    }
    std::vector<int> level;
    const int w = 4 + static_cast<int>(rng() % 5);
    widest = std::max(widest, static_cast<std::size_t>(w));
    for (int k = 0; k < w; ++k) {
      edges.emplace_back(head, n);
      level.push_back(n++);
    }
    while (level.size() > 1) {
      std::vector<int> up;
      for (std::size_t k = 0; k + 1 < level.size(); k += 2) {
        edges.emplace_back(level[k], n);
        edges.emplace_back(level[k + 1], n);
        up.push_back(n++);
      }
      if (level.size() % 2) up.push_back(level.back());
      level = std::move(up);
    }
    head = level.front();
  }
  return test::make_dag(n, edges);
}

// Property: past the phases after which the min flow first splices chains forward along the edges
// (then finishes with Dinic), it still finds the minimum: the width of the matching method, with a
// valid cover and antichain, on graphs of bursts that need more phases than that.
TEST(Antichain, MinFlowPastManyPhasesMatchesMatching) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    std::size_t widest = 0;
    const auto g = make_bursts(36 + static_cast<int>(seed) * 4, seed, widest);
    const auto a = core::compute_width(g, WidthMethod::Matching);
    const auto b = core::compute_width(g, WidthMethod::MinFlow);
    EXPECT_EQ(a.cover.width(), widest) << "seed " << seed;
    EXPECT_EQ(b.cover.width(), widest) << "seed " << seed;
    expect_valid(g, b, "min-flow bursts seed " + std::to_string(seed));
  }
}

// Edge case: an empty graph has width 0.
TEST(Antichain, Empty) {
  core::GraphBuilder b;
  auto g = std::move(b).build();
  ASSERT_TRUE(g);
  EXPECT_EQ(core::min_chain_cover(*g).width(), 0u);
  EXPECT_TRUE(core::max_antichain(*g).empty());
}
