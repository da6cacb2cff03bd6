#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>

#include "memory_test_util.h"
#include "test_graphs.h"
#include "weft/core/memory/allocation_problem.h"
#include "weft/core/memory/liveness.h"

using namespace weft;

namespace {

bool conflicts(const core::Liveness& live, core::TensorId a, core::TensorId b) {
  const auto& c = live.problem.conflicts[static_cast<std::size_t>(live.block_of[static_cast<std::size_t>(a)])];
  return std::find(c.begin(), c.end(), live.block_of[static_cast<std::size_t>(b)]) != c.end();
}

core::TensorId t(const core::Graph& g, const std::string& name) { return *g.find_tensor(name); }

// The form AllocationProblem::conflicts promises: each list strictly ascending (sorted, no
// duplicates), no block in its own list, and b in a's list iff a in b's.
void expect_adjacency(const core::Liveness& live) {
  const auto& lists = live.problem.conflicts;
  for (std::size_t a = 0; a < lists.size(); ++a) {
    ASSERT_TRUE(std::adjacent_find(lists[a].begin(), lists[a].end(), std::greater_equal<>()) == lists[a].end()) << "block " << a;
    for (std::int32_t b : lists[a]) {
      ASSERT_NE(static_cast<std::size_t>(b), a);
      const auto& back = lists[static_cast<std::size_t>(b)];
      ASSERT_TRUE(std::binary_search(back.begin(), back.end(), static_cast<std::int32_t>(a))) << a << " - " << b;
    }
  }
}

}  // namespace

// Two branches on two streams: every intermediate of one branch conflicts with every one of the other.
TEST(Liveness, ConcurrentBranchesConflict) {
  const core::Graph g = test::make_two_branches(3);  // n0 n1 n2 | n3 n4 n5
  const core::Schedule two{{{0, 1, 2}, {3, 4, 5}}, {}, "hand", ""};
  auto live = core::compute_liveness(g, two);
  ASSERT_TRUE(live) << live.error().message;
  ASSERT_EQ(live->tensors.size(), 4u);  // n0_out n1_out n3_out n4_out (n2_out, n5_out are outputs)
  EXPECT_TRUE(conflicts(*live, t(g, "n0_out"), t(g, "n3_out")));
  EXPECT_TRUE(conflicts(*live, t(g, "n0_out"), t(g, "n4_out")));
  EXPECT_TRUE(conflicts(*live, t(g, "n1_out"), t(g, "n3_out")));
  EXPECT_TRUE(conflicts(*live, t(g, "n0_out"), t(g, "n1_out")));  // n1 reads one and writes the other
  EXPECT_FALSE(live->problem.conflicts_are_overlaps);
}

// The same graph on one stream is interval overlap: n0_out (steps 0-1) and n3_out (steps 3-4) may share.
TEST(Liveness, OneStreamIsIntervalOverlap) {
  const core::Graph g = test::make_two_branches(3);
  const core::Schedule one{{{0, 1, 2, 3, 4, 5}}, {}, "hand", ""};
  auto live = core::compute_liveness(g, one);
  ASSERT_TRUE(live);
  EXPECT_TRUE(live->problem.conflicts_are_overlaps);
  EXPECT_FALSE(conflicts(*live, t(g, "n0_out"), t(g, "n3_out")));
  EXPECT_FALSE(conflicts(*live, t(g, "n1_out"), t(g, "n4_out")));
  EXPECT_TRUE(conflicts(*live, t(g, "n3_out"), t(g, "n4_out")));
  // Interleaved order on one stream: n0_out lives until n1 runs, after n3 made n3_out.
  const core::Schedule inter{{{0, 3, 1, 4, 2, 5}}, {}, "hand", ""};
  auto live2 = core::compute_liveness(g, inter);
  ASSERT_TRUE(live2);
  EXPECT_TRUE(conflicts(*live2, t(g, "n0_out"), t(g, "n3_out")));
  EXPECT_FALSE(conflicts(*live2, t(g, "n0_out"), t(g, "n4_out")));
}

// Sizes are padded to the alignment; graph outputs join the arena only when asked.
TEST(Liveness, AlignmentAndOutputs) {
  const core::Graph g = test::make_dag(2, {{0, 1}}, 10);  // 40-byte tensors
  const core::Schedule s{{{0, 1}}, {}, "hand", ""};
  core::PlanOptions o;
  o.alignment = 64;
  auto live = core::compute_liveness(g, s, o);
  ASSERT_TRUE(live);
  ASSERT_EQ(live->tensors.size(), 1u);
  EXPECT_EQ(live->problem.size[0], 64);
  o.outputs_in_arena = true;
  auto with_out = core::compute_liveness(g, s, o);
  ASSERT_TRUE(with_out);
  EXPECT_EQ(with_out->tensors.size(), 2u);
}

// A schedule whose stream order contradicts a data edge deadlocks and is refused.
TEST(Liveness, DeadlockIsAnError) {
  const core::Graph g = test::make_chain(3);
  const core::Schedule s{{{2, 1, 0}}, {}, "hand", ""};
  auto live = core::compute_liveness(g, s);
  ASSERT_FALSE(live);
  EXPECT_EQ(live.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(live.error().message.find("deadlock"), std::string::npos);
}

// Conflicts equal the definition (neither dead-before the other) on random DAGs × random schedules.
TEST(Liveness, MatchesDefinitionOnRandomSchedules) {
  for (std::uint64_t seed = 1; seed <= 25; ++seed) {
    const core::Graph g = test::make_random_dag(30, 0.15, seed);
    const core::Schedule s = test::random_schedule(g, 1 + static_cast<int>(seed % 4), seed * 7, {.drop_empty_streams = true});
    auto live = core::compute_liveness(g, s);
    ASSERT_TRUE(live) << live.error().message;
    expect_adjacency(*live);
    const test::HappensBeforeClosure hb(g, s);
    ASSERT_TRUE(hb.acyclic());
    for (std::size_t i = 0; i < live->tensors.size(); ++i)
      for (std::size_t j = i + 1; j < live->tensors.size(); ++j) {
        const core::TensorId a = live->tensors[i], b = live->tensors[j];
        const bool expect = !test::dead_before(g, hb, a, b) && !test::dead_before(g, hb, b, a);
        ASSERT_EQ(conflicts(*live, a, b), expect) << "seed " << seed << " tensors " << g.tensor(a).name << ", " << g.tensor(b).name;
      }
  }
}

// Vector clocks answer happens-before exactly like the closure: every ordered pair, on random
// DAGs × random schedules (1-6 streams, some empty, with and without events).
TEST(Liveness, ExecutionOrderClocksMatchClosure) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const core::Graph g = test::make_random_dag(60, 0.08, seed);
    const int streams = 1 + static_cast<int>(seed % 6);
    const core::Schedule s = test::random_schedule(g, streams, seed * 11, {.events_for_cross_edges = seed % 2 == 0});
    auto clocks = core::ExecutionOrder::build(g, s);
    ASSERT_TRUE(clocks) << clocks.error().message;
    const test::HappensBeforeClosure hb(g, s);
    ASSERT_TRUE(hb.acyclic());
    EXPECT_EQ(clocks->stream_count(), s.stream_count());
    for (std::size_t a = 0; a < g.node_count(); ++a)
      for (std::size_t b = 0; b < g.node_count(); ++b)
        ASSERT_EQ(clocks->before(static_cast<core::NodeId>(a), static_cast<core::NodeId>(b)),
                  hb.before(static_cast<core::NodeId>(a), static_cast<core::NodeId>(b)))
            << "seed " << seed << " nodes " << a << ", " << b;
  }
}

// Events order what data edges do not: a node after an event sees everything before its source.
TEST(Liveness, ExecutionOrderClocksFollowEvents) {
  const core::Graph g = test::make_two_branches(3);  // n0 n1 n2 | n3 n4 n5, no edges across
  const core::Schedule s{{{0, 1, 2}, {3, 4, 5}}, {{1, 4}}, "hand", ""};
  auto clocks = core::ExecutionOrder::build(g, s);
  ASSERT_TRUE(clocks);
  EXPECT_TRUE(clocks->before(0, 4));
  EXPECT_TRUE(clocks->before(1, 5));
  EXPECT_FALSE(clocks->before(2, 5));
  EXPECT_FALSE(clocks->before(3, 1));
  EXPECT_FALSE(clocks->before(4, 4));
  // A schedule that deadlocks is refused, as by compute_liveness.
  const core::Schedule bad{{{0, 1, 2}, {3, 4, 5}}, {{1, 3}, {4, 0}}, "hand", ""};
  EXPECT_FALSE(core::ExecutionOrder::build(g, bad));
}

// A medium graph with short lifetimes (the shape of real models): conflicts still equal the
// definition on the closure, pair by pair, on 2-5 streams with events.
TEST(Liveness, MatchesDefinitionOnLargerSchedules) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::pair<int, int>> edges;
    const int n = 300;
    for (int v = 1; v < n; ++v) {
      const int k = 1 + static_cast<int>(rng() % 2);
      for (int i = 0; i < k; ++i) edges.emplace_back(std::max(0, v - 1 - static_cast<int>(rng() % 12)), v);
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    const core::Graph g = test::make_dag(n, edges);
    const core::Schedule s = test::random_schedule(g, 1 + static_cast<int>(seed + 1), seed, {.events_for_cross_edges = seed % 2 == 1});
    auto live = core::compute_liveness(g, s);
    ASSERT_TRUE(live) << live.error().message;
    expect_adjacency(*live);
    const test::HappensBeforeClosure hb(g, s);
    ASSERT_TRUE(hb.acyclic());
    std::size_t pairs = 0;
    for (std::size_t i = 0; i < live->tensors.size(); ++i)
      for (std::size_t j = i + 1; j < live->tensors.size(); ++j) {
        const core::TensorId a = live->tensors[i], b = live->tensors[j];
        const bool expect = !test::dead_before(g, hb, a, b) && !test::dead_before(g, hb, b, a);
        pairs += expect;
        ASSERT_EQ(conflicts(*live, a, b), expect) << "seed " << seed << " tensors " << g.tensor(a).name << ", " << g.tensor(b).name;
      }
    EXPECT_GT(pairs, live->tensors.size());  // concurrency makes conflicts beyond the chain
  }
}
