// Hybrid teams: the nodes that run alone in a schedule (every other node before or after them in
// H) found against brute force, marked wide by assign_alone_teams and make_hybrid (a stem chain
// and the joins of a real model wide, its branches not), carried through schedule JSON.
#include <gtest/gtest.h>

#include <string>

#include "schedule_test_util.h"
#include "test_graphs.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/schedule/node_teams.h"
#include "weft/core/schedule/schedule_edit.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/strategy/reference.h"
#include "weft/core/strategy/strategies.h"

using namespace weft;

namespace {

// n0 -> n1 -> {n2 -> n3, n4 -> n5} -> n6 -> n7: a stem, two branches, a join and a tail.
core::Graph stem_then_branches() {
  return test::make_dag(8, {{0, 1}, {1, 2}, {2, 3}, {1, 4}, {4, 5}, {3, 6}, {5, 6}, {6, 7}});
}

core::Schedule stem_schedule() {
  core::Schedule s;
  s.streams = {{0, 1, 2, 3, 6, 7}, {4, 5}};
  s.events = {{1, 4}, {5, 6}};
  s.strategy = "hand";
  return s;
}

}  // namespace

// The golden case: the stem, the join and the tail run alone; the branches do not.
TEST(NodeTeams, StemAndJoinRunAlone) {
  const core::Graph g = stem_then_branches();
  auto order = core::ExecutionOrder::build(g, stem_schedule());
  ASSERT_TRUE(order) << order.error().message;
  EXPECT_EQ(core::alone_nodes(*order), (std::vector<char>{1, 1, 0, 0, 0, 0, 1, 1}));
  // One stream: every node runs alone.
  auto one = core::ExecutionOrder::build(g, core::reference_schedule(g));
  ASSERT_TRUE(one);
  EXPECT_EQ(core::alone_nodes(*one), std::vector<char>(8, 1));
}

// Stream order counts: the branch n4 -> n5 put after n3 on stream 0 makes every node alone.
TEST(NodeTeams, StreamOrderSerialisesBranches) {
  const core::Graph g = stem_then_branches();
  core::Schedule s = stem_schedule();
  s.streams = {{0, 1, 2, 3, 4, 5, 6, 7}, {}};
  s.events.clear();
  auto order = core::ExecutionOrder::build(g, s);
  ASSERT_TRUE(order);
  EXPECT_EQ(core::alone_nodes(*order), std::vector<char>(8, 1));
}

// alone_nodes agrees with the definition (every other node ordered before or after it by H's
// closure) on random DAGs and schedules of 2 to 4 streams.
TEST(NodeTeams, MatchesBruteForceOnRandomSchedules) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const core::Graph g = test::make_random_dag(30, 0.12, seed);
    const core::Schedule s = test::random_schedule(g, 2 + static_cast<int>(seed % 3), seed * 7, {.events_for_cross_edges = true});
    auto order = core::ExecutionOrder::build(g, s);
    ASSERT_TRUE(order) << order.error().message;
    const std::vector<char> alone = core::alone_nodes(*order);
    for (std::size_t v = 0; v < g.node_count(); ++v) {
      bool expected = true;
      for (std::size_t w = 0; w < g.node_count() && expected; ++w)
        if (w != v && !order->before(static_cast<core::NodeId>(v), static_cast<core::NodeId>(w)) &&
            !order->before(static_cast<core::NodeId>(w), static_cast<core::NodeId>(v)))
          expected = false;
      EXPECT_EQ(alone[v] != 0, expected) << "seed " << seed << " node " << v;
    }
  }
}

// assign_alone_teams marks the alone nodes with the wide team and nothing else; a wide team no
// wider than the streams' clears the teams; below 1 is refused. make_hybrid's team is every core
// the streams hold.
TEST(NodeTeams, AssignMarksAloneNodes) {
  const core::Graph g = stem_then_branches();
  core::Schedule s = stem_schedule();
  ASSERT_TRUE(core::assign_alone_teams(g, s, 2));
  EXPECT_EQ(s.node_threads, (std::vector<std::int32_t>{2, 2, 0, 0, 0, 0, 2, 2}));
  EXPECT_EQ(s.team_of(0), 2);
  EXPECT_EQ(s.team_of(2), 1);
  EXPECT_TRUE(s.has_node_teams());
  EXPECT_EQ(core::count_node_teams(s).nodes, 4u);
  EXPECT_EQ(core::node_teams_text(s, g.node_count()),
            "hybrid: 4 of 8 nodes run alone on teams of 2 threads, the others on 1 thread per stream");
  ASSERT_TRUE(core::assign_alone_teams(g, s, 1));
  EXPECT_FALSE(s.has_node_teams());
  EXPECT_EQ(core::node_teams_text(s, g.node_count()), "");
  EXPECT_FALSE(core::assign_alone_teams(g, s, 0));
  ASSERT_TRUE(core::make_hybrid(g, s, 1, 8));
  EXPECT_EQ(s.team_of(0), 2);  // 2 streams of 1 thread hold 2 of the 8 cores
  ASSERT_TRUE(core::make_hybrid(g, s, 1, 1));
  EXPECT_FALSE(s.has_node_teams());  // one core: the streams take turns, no team is wider
}

// On GoogLeNet (a stem of convolutions and pools, then inception blocks of four branches each
// joined by a Concat) cp-list on 2 streams made hybrid runs the stem and every block's Concat on
// the wide team and no branch convolution.
TEST(NodeTeams, RealModelStemWideBranchesNot) {
  auto g = core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/googlenet.onnx");
  ASSERT_TRUE(g) << g.error().message;
  const core::DeviceSpec d = *core::load_device("h100-sxm");
  core::StrategyOptions o;
  o.max_streams = 2;
  o.granularity_us = 0;  // every branch may take the second stream
  auto s = core::make_schedule("cp-list", *g, core::estimate_costs(*g, d), d, o);
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s->stream_count(), 2u);
  ASSERT_TRUE(core::make_hybrid(*g, *s, 1, 2));
  // The first node in topological order (the stem's first convolution) is wide.
  EXPECT_EQ(s->team_of(g->topo_order().front()), 2);
  std::size_t wide_concats = 0, concats = 0, wide = 0, branch_convs = 0;
  for (std::size_t v = 0; v < g->node_count(); ++v) {
    const core::Node& n = g->node(static_cast<core::NodeId>(v));
    const bool is_wide = s->team_of(static_cast<core::NodeId>(v)) == 2;
    wide += is_wide ? 1 : 0;
    if (n.op_type == "Concat") {
      ++concats;
      wide_concats += is_wide ? 1 : 0;
    }
    if (n.op_type == "Conv" && !is_wide) ++branch_convs;
  }
  EXPECT_GT(concats, 0u);
  EXPECT_EQ(wide_concats, concats);
  EXPECT_GT(branch_convs, 30u);
  EXPECT_LT(wide, g->node_count() / 2);
}

// Schedule JSON carries the teams by node key and reads them back; a bad team is refused.
TEST(NodeTeams, JsonRoundTrip) {
  const core::Graph g = stem_then_branches();
  core::Schedule s = stem_schedule();
  ASSERT_TRUE(core::assign_alone_teams(g, s, 2));
  const std::string text = core::schedule_to_json(g, s, "cpu");
  EXPECT_NE(text.find("\"node_threads\": {\n    \"n0\": 2,\n    \"n1\": 2,\n    \"n6\": 2,\n    \"n7\": 2\n  }"), std::string::npos) << text;
  auto back = core::schedule_from_json(g, text);
  ASSERT_TRUE(back) << back.error().message;
  for (std::size_t v = 0; v < g.node_count(); ++v) EXPECT_EQ(back->team_of(static_cast<core::NodeId>(v)), s.team_of(static_cast<core::NodeId>(v))) << v;
  // Without teams the key is absent.
  EXPECT_EQ(core::schedule_to_json(g, stem_schedule(), "cpu").find("node_threads"), std::string::npos);
  std::string bad = text;
  bad.replace(bad.find("\"n0\": 2"), 7, "\"n0\": 0");
  auto refused = core::schedule_from_json(g, bad);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("node_threads: 'n0'"), std::string::npos) << refused.error().message;
  std::string unknown = text;
  unknown.replace(unknown.find("\"n0\": 2"), 7, "\"zz\": 2");
  auto refused_key = core::schedule_from_json(g, unknown);
  ASSERT_FALSE(refused_key);
  EXPECT_NE(refused_key.error().message.find("unknown node 'zz'"), std::string::npos) << refused_key.error().message;
}

// Hybrid teams follow an edit: with the branches one after the other on stream 0 every node runs
// alone and wide; the branch n4 -> n5 moved to stream 1 runs beside n2 -> n3, and those four go
// back to their stream's team while the stem, the join and the tail stay wide.
TEST(NodeTeams, EditsNarrowNodesNoLongerAlone) {
  const core::Graph g = stem_then_branches();
  core::Schedule s = stem_schedule();
  s.streams = {{0, 1, 2, 3, 4, 5, 6, 7}, {}};
  s.events.clear();
  ASSERT_TRUE(core::assign_alone_teams(g, s, 2));
  ASSERT_EQ(core::count_node_teams(s).nodes, 8u);
  const std::vector<core::NodeId> branch{4, 5};
  auto moved = core::move_nodes(g, s, branch, 1, 0);
  ASSERT_TRUE(moved) << moved.error().message;
  EXPECT_EQ(moved->node_threads, (std::vector<std::int32_t>{2, 2, 0, 0, 0, 0, 2, 2}));
}

// An alone node shorter than the threshold (its time on the stream's team given) stays narrow.
TEST(NodeTeams, ShortAloneNodesStayNarrow) {
  const core::Graph g = stem_then_branches();
  core::Schedule s = stem_schedule();
  const std::vector<double> us{500, 40, 500, 500, 500, 500, 99, -1};  // -1: not measured
  ASSERT_TRUE(core::assign_alone_teams(g, s, 2, us));
  EXPECT_EQ(s.node_threads, (std::vector<std::int32_t>{2, 0, 0, 0, 0, 0, 0, 2}));
  ASSERT_TRUE(core::make_hybrid(g, s, 1, 2, us));
  EXPECT_EQ(core::count_node_teams(s).nodes, 2u);
}
