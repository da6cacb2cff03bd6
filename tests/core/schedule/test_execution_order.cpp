// The checked execution order every pass reads: its order is topological (a one-stream schedule's
// is the stream), its successors are data ∪ stream order ∪ events, validation refuses an
// unenforced data edge, and a deadlock reads the same in every pass that meets it.
#include <gtest/gtest.h>

#include <algorithm>

#include "schedule_test_util.h"
#include "test_graphs.h"
#include "weft/core/memory/bounds.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/exec/executor.h"
#include "weft/core/memory/liveness.h"
#include "weft/core/exec/run_checks.h"
#include "weft/core/schedule/schedule_edit.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/schedule/sync.h"
#include "weft/core/transform/wire_layering.h"

using namespace weft;
using core::ExecutionOrder;
using core::NodeId;
using core::Schedule;

// On random DAGs × random schedules the order is topological for H, every node once, and the
// successors are exactly the sorted, distinct generating edges.
TEST(ExecutionOrder, OrderIsTopologicalAndSuccessorsAreTheGeneratingEdges) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const core::Graph g = test::make_random_dag(50, 0.1, seed);
    const Schedule s = test::random_schedule(g, 1 + static_cast<int>(seed % 5), seed * 7, {.events_for_cross_edges = true});
    auto o = ExecutionOrder::validate(g, s);
    ASSERT_TRUE(o) << o.error().message;
    EXPECT_TRUE(o->enforced());
    const std::size_t n = g.node_count();
    ASSERT_EQ(o->order().size(), n);
    std::vector<std::size_t> pos(n, n);
    for (std::size_t i = 0; i < n; ++i) pos[static_cast<std::size_t>(o->order()[i])] = i;
    for (std::size_t u = 0; u < n; ++u) {
      std::vector<NodeId> expected(g.successors(static_cast<NodeId>(u)).begin(), g.successors(static_cast<NodeId>(u)).end());
      if (const NodeId next = o->next_on_stream(static_cast<NodeId>(u)); next != core::kNoNode) expected.push_back(next);
      for (const core::Event& e : s.events)
        if (e.from == static_cast<NodeId>(u)) expected.push_back(e.to);
      std::sort(expected.begin(), expected.end());
      expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
      const auto succ = o->successors(static_cast<NodeId>(u));
      EXPECT_EQ(std::vector<NodeId>(succ.begin(), succ.end()), expected) << "seed " << seed << " node " << u;
      for (NodeId v : succ) EXPECT_LT(pos[u], pos[static_cast<std::size_t>(v)]) << "seed " << seed;
    }
  }
  // One stream: the order is the stream itself.
  const core::Graph g = test::make_two_branches(3);
  const Schedule one{{{3, 0, 4, 1, 5, 2}}, {}, "hand", ""};
  auto o = ExecutionOrder::validate(g, one);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->order(), one.streams[0]);
}

// Two branches on two streams are unordered; one stream orders everything.
TEST(ExecutionOrder, BranchesOnTwoStreamsAreConcurrent) {
  const core::Graph g = test::make_two_branches(3);  // n0 n1 n2 | n3 n4 n5
  auto two = ExecutionOrder::build(g, Schedule{{{0, 1, 2}, {3, 4, 5}}, {}, "hand", ""});
  ASSERT_TRUE(two);
  EXPECT_TRUE(two->before(0, 2));
  EXPECT_FALSE(two->before(1, 4) || two->before(4, 1));
  auto one = ExecutionOrder::build(g, Schedule{{{0, 3, 1, 4, 2, 5}}, {}, "hand", ""});
  ASSERT_TRUE(one);
  EXPECT_TRUE(one->before(3, 2));
}

// Depth first, the order runs each branch to its end; breadth first (Kahn's queue, the order
// compute_events lists its events in and merge_streams interleaves in), the branches alternate;
// lowest id first (the search strategy's priority) takes the smallest ready node.
TEST(ExecutionOrder, WalksDepthFirstBreadthFirstOrLowestIdFirst) {
  const core::Graph g = test::make_two_branches(3);
  const Schedule s{{{0, 1, 2}, {3, 4, 5}}, {}, "hand", ""};
  EXPECT_EQ(ExecutionOrder::build(g, s)->order(), (std::vector<NodeId>{0, 1, 2, 3, 4, 5}));
  auto bfs = ExecutionOrder::build_unclocked(g, s, ExecutionOrder::Walk::BreadthFirst);
  ASSERT_TRUE(bfs);
  EXPECT_EQ(bfs->order(), (std::vector<NodeId>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(bfs->walk(), ExecutionOrder::Walk::BreadthFirst);
  // n0 -> n3 with n0 n3 on stream 0 and n1 n2 on stream 1: the three walks differ.
  const core::Graph d = test::make_dag(4, {{0, 3}});
  const Schedule t{{{0, 3}, {1, 2}}, {}, "hand", ""};
  using Walk = ExecutionOrder::Walk;
  EXPECT_EQ(ExecutionOrder::build(d, t, Walk::DepthFirst)->order(), (std::vector<NodeId>{0, 3, 1, 2}));
  EXPECT_EQ(ExecutionOrder::build(d, t, Walk::BreadthFirst)->order(), (std::vector<NodeId>{0, 1, 3, 2}));
  EXPECT_EQ(ExecutionOrder::build(d, t, Walk::LowestIdFirst)->order(), (std::vector<NodeId>{0, 1, 2, 3}));
}

// Placement errors are input errors naming the node; D's order ignores the events entirely.
TEST(ExecutionOrder, MisplacedNodesAreRefused) {
  const core::Graph g = test::make_chain(3);
  auto missing = ExecutionOrder::build(g, Schedule{{{0, 1}}, {}, "hand", ""});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "node 'n2' is on no stream");
  auto twice = ExecutionOrder::build(g, Schedule{{{0, 1, 2}, {2}}, {}, "hand", ""});
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().message, "node 'n2' is placed twice (streams 0 and 1)");
  const Schedule bad_event{{{0, 1, 2}}, {{0, 7}}, "hand", ""};
  EXPECT_FALSE(ExecutionOrder::build(g, bad_event));
  auto d = ExecutionOrder::build_without_events(g, bad_event);
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_FALSE(d->includes_events());
  EXPECT_TRUE(d->enforced());
}

// A data edge across streams without an event: build() accepts it (the memory passes plan such
// schedules) but says it is not enforced; validate() names the edge and both ends' streams.
TEST(ExecutionOrder, ValidateNamesAnUnenforcedEdge) {
  const core::Graph g = test::make_chain(3);  // n0 -> n1 -> n2
  const Schedule s{{{0, 2}, {1}}, {{0, 1}}, "hand", ""};
  auto built = ExecutionOrder::build(g, s);
  ASSERT_TRUE(built) << built.error().message;
  EXPECT_FALSE(built->enforced());
  EXPECT_TRUE(built->before(1, 2));  // H has the data edge even without its event
  auto checked = ExecutionOrder::validate(g, s);
  ASSERT_FALSE(checked);
  EXPECT_NE(checked.error().message.find("data dependency n1 -> n2 is not enforced"), std::string::npos)
      << checked.error().message;
  EXPECT_NE(checked.error().message.find("n2 on stream 0 does not wait for n1 on stream 1"), std::string::npos)
      << checked.error().message;
  EXPECT_EQ(core::validate_schedule(g, s).error().message, checked.error().message);
}

// One deadlock message: the order, validation, liveness, the memory bound, the simulator's issue
// order, the wire layering, the stream merge and the run checks all name the same cycle with its
// streams.
TEST(ExecutionOrder, OneDeadlockMessageEverywhere) {
  const core::Graph g = test::make_dag(5, {{1, 2}, {3, 4}});
  const Schedule s{{{2, 3}, {4, 1, 0}}, {{1, 2}, {3, 4}}, "hand", ""};
  const std::string expected =
      "would deadlock: n1 on stream 1 runs after n4 on stream 1, which waits for n3 on stream 0, which runs after "
      "n2 on stream 0, which waits for n1";
  auto o = ExecutionOrder::build(g, s);
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().message, expected);
  EXPECT_EQ(core::validate_schedule(g, s).error().message, expected);
  EXPECT_EQ(core::compute_liveness(g, s).error().message, expected);
  EXPECT_EQ(core::concurrent_lower_bound(g, s).error().message, expected);
  EXPECT_EQ(core::wires_from_schedule(g, s).error().message, expected);
  EXPECT_EQ(core::merge_streams(g, s, 0, 1).error().message, expected);
  const core::CostTable costs = core::estimate_costs(g, core::DeviceSpec{});
  EXPECT_EQ(core::issue_order(g, s, costs).error().message, expected);
  EXPECT_EQ(ExecutionOrder::build_unclocked(g, s).error().message, expected);
  core::MemoryPlan plan;
  EXPECT_EQ(core::check_run(g, s, plan, core::RunOptions{}).error().message, "schedule: " + expected);
}

// The simulator's and executors' view (no clocks) is the same order, successors and events as
// the full build; reading a clock from it is a broken invariant, not a wrong answer.
TEST(ExecutionOrder, UnclockedViewMatchesTheFullBuild) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const core::Graph g = test::make_random_dag(40, 0.15, seed);
    const Schedule s = test::random_schedule(g, 1 + static_cast<int>(seed % 4), seed * 3, {.events_for_cross_edges = true});
    auto full = ExecutionOrder::validate(g, s);
    auto lean = ExecutionOrder::build_unclocked(g, s);
    ASSERT_TRUE(full && lean);
    EXPECT_TRUE(full->has_clocks());
    EXPECT_FALSE(lean->has_clocks());
    EXPECT_EQ(lean->order(), full->order());
    for (std::size_t v = 0; v < g.node_count(); ++v) {
      const auto n = static_cast<NodeId>(v);
      EXPECT_EQ(lean->stream_of(n), full->stream_of(n));
      EXPECT_EQ(lean->index(n), full->index(n));
      const auto a = lean->successors(n), b = full->successors(n);
      EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end()));
      const auto wa = lean->waits(n), wb = full->waits(n);
      EXPECT_TRUE(std::equal(wa.begin(), wa.end(), wb.begin(), wb.end()));
      const auto ra = lean->records(n), rb = full->records(n);
      EXPECT_TRUE(std::equal(ra.begin(), ra.end(), rb.begin(), rb.end()));
    }
    if (seed == 1) {
      EXPECT_DEATH(static_cast<void>(lean->before(0, 1)), "built without them");
    }
  }
}

// FirstAfter (the reverse clocks) gives, per node and stream, the first node of the stream that the
// node happens strictly before, as a scan of before() along the stream does, on any build of
// the order; after_all is the largest entry, the first node after a whole set.
TEST(ExecutionOrder, FirstAfterMatchesAScan) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const core::Graph g = test::make_random_dag(40, 0.12, seed);
    const Schedule s = test::random_schedule(g, 3, seed, {.events_for_cross_edges = seed % 2 == 0});
    auto o = ExecutionOrder::build(g, s);
    ASSERT_TRUE(o);
    auto lean = ExecutionOrder::build_unclocked(g, s);
    ASSERT_TRUE(lean);
    const core::FirstAfter after(*o), lean_after(*lean);
    ASSERT_EQ(after.stream_count(), o->stream_count());
    const auto scan = [&](std::span<const NodeId> nodes, std::size_t st) {
      for (std::size_t i = 0; i < o->stream(st).size(); ++i) {
        const NodeId x = o->stream(st)[i];
        if (std::all_of(nodes.begin(), nodes.end(), [&](NodeId v) { return o->before(v, x); })) return static_cast<std::int32_t>(i);
      }
      return static_cast<std::int32_t>(o->stream(st).size());
    };
    std::vector<std::int32_t> out;
    for (std::size_t v = 0; v < g.node_count(); ++v) {
      const auto nv = static_cast<NodeId>(v);
      for (std::size_t st = 0; st < o->stream_count(); ++st) {
        EXPECT_EQ(after.of(nv)[st], scan(std::span<const NodeId>(&nv, 1), st)) << "seed " << seed;
        EXPECT_EQ(lean_after.of(nv)[st], after.of(nv)[st]);
      }
      // A node with the next two: the first node after all three.
      const std::vector<NodeId> set{nv, static_cast<NodeId>((v + 7) % g.node_count()), static_cast<NodeId>((v + 13) % g.node_count())};
      after.after_all(set, out);
      ASSERT_EQ(out.size(), o->stream_count());
      for (std::size_t st = 0; st < o->stream_count(); ++st) EXPECT_EQ(out[st], scan(set, st)) << "seed " << seed;
    }
  }
}
