#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "memory_test_util.h"
#include "test_graphs.h"
#include "weft/core/memory/bounds.h"
#include "weft/core/memory/liveness.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/memory/plan_checker.h"

using namespace weft;

namespace {
constexpr std::int64_t kTensor = 4096;
}

// Golden bounds: branches concurrent → all four intermediates at once; one stream → two.
TEST(Bounds, TwoBranches) {
  const core::Graph g = test::make_two_branches(3);
  const core::Schedule two{{{0, 1, 2}, {3, 4, 5}}, {}, "hand", ""};
  const core::Schedule one{{{0, 1, 2, 3, 4, 5}}, {}, "hand", ""};
  auto b2 = core::concurrent_lower_bound(g, two);
  ASSERT_TRUE(b2);
  EXPECT_EQ(b2->bytes, 4 * kTensor);
  EXPECT_EQ(b2->antichain.size(), 4u);
  auto b1 = core::concurrent_lower_bound(g, one);
  ASSERT_TRUE(b1);
  EXPECT_EQ(b1->bytes, 2 * kTensor);
  EXPECT_EQ(core::linear_lower_bound(g, one.streams[0]), 2 * kTensor);
}

// Golden: a diamond's root output is read by both arms, so it is live with both arm outputs.
TEST(Bounds, Diamond) {
  const core::Graph g = test::make_diamond();  // n0 -> {n1, n2} -> n3
  const core::Schedule two{{{0, 1, 3}, {2}}, {}, "hand", ""};
  auto b = core::concurrent_lower_bound(g, two);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->bytes, 3 * kTensor);
  const std::vector<core::NodeId> order{0, 1, 2, 3};
  EXPECT_EQ(core::linear_lower_bound(g, order), 3 * kTensor);
}

// The flow bound equals a brute-force maximum-weight clique of the conflict graph (= max-weight
// antichain of dead-before), its antichain is pairwise conflicting, and on one stream it equals
// the linear bound.
TEST(Bounds, ConcurrentBoundIsExact) {
  int multi_stream = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const core::Graph g = test::make_random_dag(12, 0.25, seed, 3);
    const int streams = 1 + static_cast<int>(seed % 4);
    const core::Schedule s = test::random_schedule(g, streams, seed * 13, {.drop_empty_streams = true});
    auto live = core::compute_liveness(g, s);
    ASSERT_TRUE(live);
    if (live->tensors.size() > 18) continue;
    auto bound = core::concurrent_lower_bound(g, s);
    ASSERT_TRUE(bound) << bound.error().message;
    EXPECT_EQ(bound->bytes, test::brute_force_max_clique(live->problem)) << "seed " << seed;
    std::int64_t w = 0;
    for (std::size_t i = 0; i < bound->antichain.size(); ++i) {
      const auto bi = live->block_of[static_cast<std::size_t>(bound->antichain[i])];
      w += live->problem.size[static_cast<std::size_t>(bi)];
      for (std::size_t j = i + 1; j < bound->antichain.size(); ++j) {
        const auto bj = live->block_of[static_cast<std::size_t>(bound->antichain[j])];
        const auto& c = live->problem.conflicts[static_cast<std::size_t>(bi)];
        EXPECT_NE(std::find(c.begin(), c.end(), bj), c.end()) << "antichain members must conflict, seed " << seed;
      }
    }
    EXPECT_EQ(w, bound->bytes);
    if (s.stream_count() == 1) EXPECT_EQ(bound->bytes, core::linear_lower_bound(g, s.streams[0]));
    else ++multi_stream;
  }
  EXPECT_GT(multi_stream, 20);
}

// Capacities count units of the weights' greatest common divisor, 32-bit while their total fits.
// Tensors of about a gibibyte each, of sizes with no common factor past 4 bytes, total more units
// than 32 bits hold: the 64-bit network still finds the brute-force maximum.
TEST(Bounds, CapacitiesPastThirtyTwoBits) {
  int checked = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const auto edges = test::random_edges(10, 0.3, seed, 3);
    core::GraphBuilder b;
    b.add_input("x", core::DType::Float32, {core::Dim{1, {}}, core::Dim{1 << 28, {}}});
    std::vector<std::vector<std::string>> ins(10);
    for (auto [u, v] : edges) ins[static_cast<std::size_t>(v)].push_back("n" + std::to_string(u) + "_out");
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 10; ++i) {
      auto& in = ins[static_cast<std::size_t>(i)];
      if (in.empty()) in.push_back("x");
      const std::string out = "n" + std::to_string(i) + "_out";
      b.add_node("n" + std::to_string(i), in.size() > 1 ? "Sum" : "Relu", std::span<const std::string>(in),
                 std::span<const std::string>(&out, 1));
      b.set_shape(out, core::DType::Float32, {1, (std::int64_t{1} << 28) + static_cast<std::int64_t>(rng() % 4096)});
    }
    b.mark_output("n9_out");
    auto g = std::move(b).build();
    ASSERT_TRUE(g) << g.error().message;
    const core::Schedule s = test::random_schedule(*g, 2 + static_cast<int>(seed % 3), seed * 5, {.drop_empty_streams = true});
    if (s.stream_count() < 2) continue;
    const core::PlanOptions options{.alignment = 4};
    auto live = core::compute_liveness(*g, s, options);
    ASSERT_TRUE(live);
    std::int64_t total = 0, unit = 0;
    for (std::int64_t size : live->problem.size) {
      total += size;
      unit = std::gcd(unit, size);
    }
    ASSERT_GT(total / unit, std::int64_t{INT32_MAX}) << "seed " << seed;
    auto bound = core::concurrent_lower_bound(*g, s, options);
    ASSERT_TRUE(bound) << bound.error().message;
    EXPECT_TRUE(bound->exact);
    EXPECT_EQ(bound->bytes, test::brute_force_max_clique(live->problem)) << "seed " << seed;
    ++checked;
  }
  EXPECT_GT(checked, 15);
}

// A fan-out whose readers sit on different streams needs the join of its readers in the network.
TEST(Bounds, MultiReaderJoin) {
  // n0 -> n1, n0 -> n2; n1 -> n3; n2 -> n4; n3, n4 -> n5. n0_out is read by n1 and n2 on two streams.
  const core::Graph g = test::make_dag(6, {{0, 1}, {0, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 5}});
  const core::Schedule s{{{0, 1, 3, 5}, {2, 4}}, {}, "hand", ""};
  auto live = core::compute_liveness(g, s);
  ASSERT_TRUE(live);
  auto bound = core::concurrent_lower_bound(g, s);
  ASSERT_TRUE(bound);
  EXPECT_EQ(bound->bytes, test::brute_force_max_clique(live->problem));
  // n0_out dies only before n5; the arms run concurrently: all five intermediates are live at once.
  EXPECT_EQ(bound->bytes, 5 * kTensor);
}

// The same exactness with events and up to five streams (the network enters each tensor at its
// per-stream dead-from frontier, found by vector clocks).
TEST(Bounds, ConcurrentBoundIsExactWithEvents) {
  int checked = 0;
  for (std::uint64_t seed = 1; seed <= 80; ++seed) {
    const core::Graph g = test::make_random_dag(14, 0.2, seed + 100, 3);
    const int streams = 2 + static_cast<int>(seed % 4);
    const core::Schedule s = test::random_schedule(g, streams, seed * 17, {.events_for_cross_edges = true});
    auto live = core::compute_liveness(g, s);
    ASSERT_TRUE(live);
    if (live->tensors.size() > 18) continue;
    auto bound = core::concurrent_lower_bound(g, s);
    ASSERT_TRUE(bound) << bound.error().message;
    EXPECT_EQ(bound->bytes, test::brute_force_max_clique(live->problem)) << "seed " << seed;
    ++checked;
  }
  EXPECT_GT(checked, 30);
}

// At a size brute force cannot check (2000 nodes, short lifetimes, 2-4 streams): the bound is
// exact-flagged, its antichain is pairwise conflicting and weighs exactly the bound (the min cut
// certificate), it is at least the busiest step of the schedule's linearisation, and no plan beats it.
TEST(Bounds, LargerSchedulesCertifyTheBound) {
  std::mt19937_64 rng(5);
  std::vector<std::pair<int, int>> edges;
  const int n = 2000;
  for (int v = 1; v < n; ++v) {
    const int k = 1 + static_cast<int>(rng() % 2);
    for (int i = 0; i < k; ++i) edges.emplace_back(std::max(0, v - 1 - static_cast<int>(rng() % 16)), v);
    if (rng() % 50 == 0) edges.emplace_back(std::max(0, v - 1 - static_cast<int>(rng() % 256)), v);
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  const core::Graph g = test::make_dag(n, edges);
  for (int streams = 2; streams <= 4; ++streams) {
    const core::Schedule s = test::random_schedule(g, streams, static_cast<std::uint64_t>(streams));
    auto live = core::compute_liveness(g, s);
    ASSERT_TRUE(live);
    auto bound = core::concurrent_lower_bound(g, s);
    ASSERT_TRUE(bound) << bound.error().message;
    EXPECT_TRUE(bound->exact);
    std::int64_t w = 0;
    std::vector<std::int32_t> blocks;
    for (core::TensorId t : bound->antichain) blocks.push_back(live->block_of[static_cast<std::size_t>(t)]);
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      w += live->problem.size[static_cast<std::size_t>(blocks[i])];
      const auto& c = live->problem.conflicts[static_cast<std::size_t>(blocks[i])];
      for (std::size_t j = i + 1; j < blocks.size(); ++j)
        ASSERT_TRUE(std::binary_search(c.begin(), c.end(), blocks[j])) << "streams " << streams;
    }
    EXPECT_EQ(w, bound->bytes) << "streams " << streams;
    auto clocks = core::ExecutionOrder::build(g, s);
    ASSERT_TRUE(clocks);
    EXPECT_GE(bound->bytes, core::linear_lower_bound(g, clocks->order()));
    auto plan = core::plan_memory(g, *live, "greedy-by-size", {}, bound->bytes);
    ASSERT_TRUE(plan);
    EXPECT_GE(plan->arena_bytes, bound->bytes);
    EXPECT_TRUE(core::check_plan(g, s, *plan));
  }
}

// The max flow finds the paths the initial flow leaves by direct searches, then by Dinic's phases:
// the phases alone (no direct search) and the searches alone (never a phase) give the same bound
// and the same antichain (the source side of the minimal min cut), on small schedules checked
// by brute force and on 2000-node ones.
TEST(Bounds, DinicPhasesAndDirectSearchesAgree) {
  int checked = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const core::Graph g = test::make_random_dag(12, 0.25, seed, 3);
    const core::Schedule s = test::random_schedule(g, 2 + static_cast<int>(seed % 3), seed * 13, {.drop_empty_streams = true});
    if (s.stream_count() < 2) continue;
    auto clocks = core::ExecutionOrder::build(g, s);
    ASSERT_TRUE(clocks);
    auto live = core::compute_liveness(g, s);
    ASSERT_TRUE(live);
    const auto phases = core::detail::concurrent_lower_bound(g, *clocks, {}, 0);
    const auto searches = core::detail::concurrent_lower_bound(g, *clocks, {}, 1 << 20);
    EXPECT_EQ(phases.bytes, searches.bytes) << "seed " << seed;
    EXPECT_EQ(phases.antichain, searches.antichain) << "seed " << seed;
    if (live->tensors.size() <= 18) {
      EXPECT_EQ(phases.bytes, test::brute_force_max_clique(live->problem)) << "seed " << seed;
      ++checked;
    }
  }
  EXPECT_GT(checked, 20);
  std::mt19937_64 rng(11);
  std::vector<std::pair<int, int>> edges;
  for (int v = 1; v < 2000; ++v)
    for (int i = 0, k = 1 + static_cast<int>(rng() % 3); i < k; ++i)
      edges.emplace_back(std::max(0, v - 1 - static_cast<int>(rng() % 64)), v);
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  const core::Graph g = test::make_dag(2000, edges);
  for (int streams = 2; streams <= 6; ++streams) {
    const core::Schedule s = test::random_schedule(g, streams, static_cast<std::uint64_t>(streams) * 7);
    auto clocks = core::ExecutionOrder::build(g, s);
    ASSERT_TRUE(clocks);
    const auto phases = core::detail::concurrent_lower_bound(g, *clocks, {}, 0);
    const auto searches = core::detail::concurrent_lower_bound(g, *clocks, {}, 1 << 20);
    const auto both = core::concurrent_lower_bound(g, *clocks);
    EXPECT_EQ(phases.bytes, searches.bytes) << "streams " << streams;
    EXPECT_EQ(phases.antichain, searches.antichain) << "streams " << streams;
    EXPECT_EQ(both.antichain, phases.antichain) << "streams " << streams;
  }
}
