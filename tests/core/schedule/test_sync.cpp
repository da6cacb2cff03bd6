#include <gtest/gtest.h>

#include "schedule_test_util.h"
#include "test_graphs.h"
#include "weft/core/sync.h"

using namespace weft;
using core::Event;
using core::Schedule;

namespace {
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

// A diamond split over two streams needs exactly the fork and the join event.
TEST(ComputeEvents, DiamondNeedsForkAndJoin) {
  const core::Graph g = test::make_diamond();
  const Schedule s{{{0, 1, 3}, {2}}, {}, "hand", ""};
  EXPECT_EQ(core::compute_events(g, s), (std::vector<Event>{{0, 2}, {2, 3}}));
}

// An edge implied by another event plus stream order is not an event (transitive reduction).
TEST(ComputeEvents, ImpliedEdgeIsDropped) {
  // n0 -> n1 -> n2 and n0 -> n2; n0 alone on stream 0, n1 n2 on stream 1: only n0 -> n1 is needed.
  const core::Graph g = test::make_dag(3, {{0, 1}, {1, 2}, {0, 2}});
  const Schedule s{{{0}, {1, 2}}, {}, "hand", ""};
  EXPECT_EQ(core::compute_events(g, s), (std::vector<Event>{{0, 1}}));
  // n2 waits for n1 on another stream; n0 -> n2 follows from n0 -> n1 (stream 0) and that event.
  const Schedule t{{{0, 1}, {2}}, {}, "hand", ""};
  EXPECT_EQ(core::compute_events(g, t), (std::vector<Event>{{1, 2}}));
}

// One stream needs no events; a chain alternating between two streams needs every edge.
TEST(ComputeEvents, OneStreamNoneAlternatingAll) {
  const core::Graph g = test::make_chain(4);
  EXPECT_TRUE(core::compute_events(g, Schedule{{{0, 1, 2, 3}}, {}, "", ""}).empty());
  EXPECT_EQ(core::compute_events(g, Schedule{{{0, 2}, {1, 3}}, {}, "", ""}).size(), 3u);
}

// Minimality: on small random DAGs and random stream assignments, no smaller subset of the
// cross-stream data edges makes a valid schedule (checked over every subset).
TEST(ComputeEvents, MinimalByBruteForce) {
  int checked = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const core::Graph g = test::make_random_dag(7, 0.45, seed);
    Schedule s = test::random_schedule(g, 2 + static_cast<int>(seed % 2), seed * 7);
    std::vector<int> stream_of, pos;
    s.locate(g.node_count(), stream_of, pos);
    std::vector<Event> cross;
    for (core::NodeId u = 0; u < static_cast<core::NodeId>(g.node_count()); ++u)
      for (core::NodeId v : g.successors(u))
        if (stream_of[static_cast<std::size_t>(u)] != stream_of[static_cast<std::size_t>(v)]) cross.push_back({u, v});
    if (cross.size() > 14) continue;
    const std::vector<Event> events = core::compute_events(g, s);
    Schedule with = s;
    with.events = events;
    ASSERT_TRUE(core::validate_schedule(g, with)) << "seed " << seed;
    std::size_t best = cross.size() + 1;
    for (std::uint32_t mask = 0; mask < (1u << cross.size()); ++mask) {
      if (static_cast<std::size_t>(__builtin_popcount(mask)) >= best) continue;
      Schedule t = s;
      for (std::size_t i = 0; i < cross.size(); ++i)
        if (mask >> i & 1u) t.events.push_back(cross[i]);
      if (core::validate_schedule(g, t)) best = t.events.size();
    }
    EXPECT_EQ(events.size(), best) << "seed " << seed;
    ++checked;
  }
  EXPECT_GT(checked, 40);
}

// Validation names the deadlock's nodes and streams, and says which edge is not enforced.
TEST(ValidateSchedule, ReportsDeadlockAndMissingEvent) {
  const core::Graph g = test::make_dag(4, {{0, 1}, {2, 3}});
  // Stream 0: n1 then n2; stream 1: n3 then n0. n1 waits for n0, which runs after n3, which
  // waits for n2, which runs after n1.
  Schedule dead{{{1, 2}, {3, 0}}, {{0, 1}, {2, 3}}, "hand", ""};
  auto st = core::validate_schedule(g, dead);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_TRUE(contains(st.error().message, "would deadlock: ")) << st.error().message;
  EXPECT_TRUE(contains(st.error().message, "waits for")) << st.error().message;
  EXPECT_TRUE(contains(st.error().message, "which runs after")) << st.error().message;
  EXPECT_TRUE(contains(st.error().message, "on stream 1")) << st.error().message;

  const core::Graph d = test::make_diamond();
  Schedule missing{{{0, 1, 3}, {2}}, {{0, 2}}, "hand", ""};
  st = core::validate_schedule(d, missing);
  ASSERT_FALSE(st);
  EXPECT_TRUE(contains(st.error().message, "n2 -> n3 is not enforced")) << st.error().message;
  missing.events.push_back({2, 3});
  EXPECT_TRUE(core::validate_schedule(d, missing));
}

// Placement errors are input errors with the node's key.
TEST(ValidateSchedule, PlacementErrors) {
  const core::Graph g = test::make_chain(3);
  auto st = core::validate_schedule(g, Schedule{{{0, 1}}, {}, "", ""});
  ASSERT_FALSE(st);
  EXPECT_TRUE(contains(st.error().message, "'n2' is on no stream"));
  st = core::validate_schedule(g, Schedule{{{0, 1, 2}, {1}}, {}, "", ""});
  ASSERT_FALSE(st);
  EXPECT_TRUE(contains(st.error().message, "placed twice"));
  st = core::validate_schedule(g, Schedule{{{0, 1, 2}}, {{0, 9}}, "", ""});
  ASSERT_FALSE(st);
  EXPECT_TRUE(contains(st.error().message, "node index 9"));
}

// Random schedules with their computed events are always valid.
TEST(ValidateSchedule, ComputedEventsAlwaysValid) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const core::Graph g = test::make_random_dag(60, 0.08, seed);
    Schedule s = test::random_schedule(g, 1 + static_cast<int>(seed % 5), seed);
    s.events = core::compute_events(g, s);
    EXPECT_TRUE(core::validate_schedule(g, s)) << "seed " << seed;
  }
}

// Ideal makespan is the longest cost-weighted path through H; event host cost is count × (record + wait).
TEST(IdealMakespan, BranchesOverlapOnlyOnTwoStreams) {
  const core::Graph g = test::make_two_branches(3);
  const std::vector<double> t = {1, 2, 3, 4, 5, 6};
  EXPECT_DOUBLE_EQ(core::ideal_makespan_us(g, Schedule{{{0, 1, 2}, {3, 4, 5}}, {}, "", ""}, t), 15.0);
  EXPECT_DOUBLE_EQ(core::ideal_makespan_us(g, Schedule{{{0, 1, 2, 3, 4, 5}}, {}, "", ""}, t), 21.0);
  core::DeviceSpec dev;
  dev.event_record_us = 1.5;
  dev.event_wait_us = 0.5;
  EXPECT_DOUBLE_EQ(core::event_host_cost_us(Schedule{{}, {{0, 1}, {2, 3}, {4, 5}}, "", ""}, dev), 6.0);
}

// Regression: a node hanging below the cycle (n0, after n1 on stream 1) must not be reported as
// the cycle; the message walks the real one and reads as waits/runs-after steps.
TEST(ValidateSchedule, DeadlockMessageNamesTheRealCycle) {
  const core::Graph g = test::make_dag(5, {{1, 2}, {3, 4}});
  const Schedule s{{{2, 3}, {4, 1, 0}}, {{1, 2}, {3, 4}}, "hand", ""};
  auto st = core::validate_schedule(g, s);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message,
            "would deadlock: n1 on stream 1 runs after n4 on stream 1, which waits for n3 on stream 0, which runs after "
            "n2 on stream 0, which waits for n1");
  auto hb = core::HappensBefore::build(g, s);
  ASSERT_FALSE(hb);
  EXPECT_EQ(hb.error().message, st.error().message);
}
