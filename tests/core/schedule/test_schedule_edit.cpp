#include <gtest/gtest.h>

#include "schedule_test_util.h"
#include "test_graphs.h"
#include "weft/core/schedule/schedule_edit.h"
#include "weft/core/schedule/sync.h"

using namespace weft;
using core::NodeId;
using core::Schedule;

namespace {
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
Schedule with_events(const core::Graph& g, Schedule s) {
  s.events = core::compute_events(g, s);
  return s;
}
}  // namespace

// A valid move returns the edited streams, strategy "hand" and recomputed minimal events.
TEST(ScheduleEdit, MoveNodeAcrossStreams) {
  const core::Graph g = test::make_two_branches(3);  // n0 n1 n2 | n3 n4 n5
  const Schedule s = with_events(g, Schedule{{{0, 1, 2}, {3, 4, 5}}, {}, "chains", ""});
  auto m = core::move_node(g, s, 4, 0, 0);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->streams, (std::vector<std::vector<NodeId>>{{4, 0, 1, 2}, {3, 5}}));
  EXPECT_EQ(m->events, (std::vector<core::Event>{{3, 4}, {4, 5}}));
  EXPECT_EQ(m->strategy, "hand");
  EXPECT_TRUE(core::validate_schedule(g, *m));
  // Moving within a stream: position is the index after removal.
  auto w = core::move_node(g, *m, 4, 0, 3);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->streams[0], (std::vector<NodeId>{0, 1, 2, 4}));
}

// A move that would put a consumer before its producer on one stream is refused, naming the cycle.
TEST(ScheduleEdit, DeadlockIsRefusedWithTheCycle) {
  const core::Graph g = test::make_diamond();  // n0 -> {n1, n2} -> n3
  const Schedule s = with_events(g, Schedule{{{0, 1, 3}, {2}}, {}, "chains", ""});
  auto m = core::move_node(g, s, 3, 1, 0);  // stream 1: n3 then n2, but n3 waits for n2
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_TRUE(contains(m.error().message, "would deadlock")) << m.error().message;
  EXPECT_TRUE(contains(m.error().message, "n3 on stream 1")) << m.error().message;
  EXPECT_TRUE(contains(m.error().message, "n2")) << m.error().message;

  // Three nodes on two streams, the shape of the studio's message: a waits for b, which runs
  // after c on the other stream, which waits for a.
  const core::Graph h = test::make_dag(4, {{0, 1}, {2, 3}});
  const Schedule t = with_events(h, Schedule{{{0, 1}, {2, 3}}, {}, "hand", ""});
  auto d = core::move_node(h, t, 0, 1, 2);  // stream 1: n2 n3 n0 -- fine, no cycle
  ASSERT_TRUE(d) << d.error().message;
  auto e = core::move_node(h, *d, 2, 0, 1);  // stream 0: n1 n2; stream 1: n3 n0 -> n0<n1<n2<n3<n0
  ASSERT_FALSE(e);
  EXPECT_TRUE(contains(e.error().message, "waits for")) << e.error().message;
  EXPECT_TRUE(contains(e.error().message, "which runs after")) << e.error().message;
}

// Bad streams and positions are refused with the reason.
TEST(ScheduleEdit, BadStreamOrPosition) {
  const core::Graph g = test::make_chain(3);
  const Schedule s{{{0, 1, 2}}, {}, "sequential", ""};
  auto m = core::move_node(g, s, 1, 5, 0);
  ASSERT_FALSE(m);
  EXPECT_TRUE(contains(m.error().message, "stream 5 does not exist (the schedule has 1 streams)")) << m.error().message;
  m = core::move_node(g, s, 1, 0, 7);
  ASSERT_FALSE(m);
  EXPECT_TRUE(contains(m.error().message, "position 7")) << m.error().message;
}

// A contiguous run moves as a block; a non-contiguous set is refused.
TEST(ScheduleEdit, MoveRange) {
  const core::Graph g = test::make_dag(5, {});  // independent
  const Schedule s{{{0, 1, 2, 3}, {4}}, {}, "hand", ""};
  const NodeId run[] = {2, 1};
  auto m = core::move_nodes(g, s, run, 1, 1);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->streams, (std::vector<std::vector<NodeId>>{{0, 3}, {4, 1, 2}}));
  const NodeId gap[] = {0, 2};
  auto r = core::move_nodes(g, s, gap, 1, 0);
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.error().message, "not a contiguous run")) << r.error().message;
  const NodeId mixed[] = {3, 4};
  EXPECT_FALSE(core::move_nodes(g, s, mixed, 0, 0));
}

// Streams can be added, removed when empty (refused otherwise) and merged without deadlock.
TEST(ScheduleEdit, AddRemoveMergeStreams) {
  const core::Graph g = test::make_diamond();
  const Schedule s = with_events(g, Schedule{{{0, 1, 3}, {2}}, {}, "chains", ""});
  auto a = core::add_stream(g, s);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->stream_count(), 3u);
  auto r = core::remove_stream(g, *a, 1);
  ASSERT_FALSE(r);
  EXPECT_TRUE(contains(r.error().message, "still holds 1 nodes")) << r.error().message;
  auto ok = core::remove_stream(g, *a, 2);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->streams, s.streams);
  auto m = core::merge_streams(g, s, 0, 1);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->stream_count(), 1u);
  EXPECT_TRUE(m->events.empty());
  EXPECT_TRUE(core::validate_schedule(g, *m));
  EXPECT_FALSE(core::merge_streams(g, s, 1, 1));
  EXPECT_FALSE(core::merge_streams(g, s, 0, 4));
  // Two independent chains merge interleaved (H's breadth-first order), not one after the other.
  const core::Graph b = test::make_two_branches(3);  // n0 n1 n2 | n3 n4 n5
  auto mb = core::merge_streams(b, Schedule{{{0, 1, 2}, {3, 4, 5}}, {}, "chains", ""}, 0, 1);
  ASSERT_TRUE(mb) << mb.error().message;
  EXPECT_EQ(mb->streams, (std::vector<std::vector<NodeId>>{{0, 3, 1, 4, 2, 5}}));
}

// Random legal moves keep schedules valid; every refusal leaves no partial change behind.
TEST(ScheduleEdit, RandomMovesStayValid) {
  std::mt19937_64 rng(42);
  const core::Graph g = test::make_random_dag(40, 0.1, 3);
  Schedule s = with_events(g, test::random_schedule(g, 3, 9));
  int accepted = 0, refused = 0;
  for (int i = 0; i < 300; ++i) {
    const auto v = static_cast<NodeId>(rng() % g.node_count());
    const int stream = static_cast<int>(rng() % 3);
    const int pos = static_cast<int>(rng() % (s.streams[static_cast<std::size_t>(stream)].size() + 1));
    auto m = core::move_node(g, s, v, stream, pos);
    if (m) {
      ASSERT_TRUE(core::validate_schedule(g, *m));
      EXPECT_EQ(m->events, core::compute_events(g, *m));
      s = *m;
      ++accepted;
    } else {
      EXPECT_TRUE(contains(m.error().message, "would deadlock") || contains(m.error().message, "position"))
          << m.error().message;
      ++refused;
    }
  }
  EXPECT_GT(accepted, 10);
  EXPECT_GT(refused, 10);
}
