#include <gtest/gtest.h>

#include <algorithm>

#include "happens_before_closure.h"
#include "schedule_test_util.h"
#include "test_graphs.h"
#include "weft/core/schedule/sync.h"

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
    const std::vector<int> stream_of = core::stream_slots(g, s).value().stream_of;
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

// The events and their listing, pinned against the definition on random DAGs × schedules: by
// waiting node in Kahn's first-in first-out order of D = data edges ∪ stream order, then by
// predecessor, every cross-stream data edge that no other direct predecessor in D (closure by
// brute force) already follows.
TEST(ComputeEvents, ListedInKahnOrderOfDataAndStreamOrder) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const core::Graph g = test::make_random_dag(45, 0.1, seed);
    const Schedule s = test::random_schedule(g, 1 + static_cast<int>(seed % 5), seed * 13);
    const std::size_t n = g.node_count();
    const core::StreamSlots slots = core::stream_slots(g, s).value();
    const test::HappensBeforeClosure d(g, Schedule{s.streams, {}, "", ""});
    // D's predecessors of v: its data predecessors and its stream predecessor.
    const auto stream_pred = [&](core::NodeId v) {
      const auto i = static_cast<std::size_t>(v);
      if (slots.position[i] == 0) return core::kNoNode;
      return s.streams[static_cast<std::size_t>(slots.stream_of[i])][static_cast<std::size_t>(slots.position[i] - 1)];
    };
    std::vector<std::vector<core::NodeId>> succ(n);
    std::vector<int> indeg(n, 0);
    for (std::size_t v = 0; v < n; ++v) {
      const auto data = g.predecessors(static_cast<core::NodeId>(v));
      std::vector<core::NodeId> preds(data.begin(), data.end());
      if (const core::NodeId p = stream_pred(static_cast<core::NodeId>(v)); p != core::kNoNode) preds.push_back(p);
      std::sort(preds.begin(), preds.end());
      preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
      for (core::NodeId u : preds) succ[static_cast<std::size_t>(u)].push_back(static_cast<core::NodeId>(v));
      indeg[v] = static_cast<int>(preds.size());
    }
    std::vector<core::NodeId> queue;
    for (std::size_t v = 0; v < n; ++v)
      if (indeg[v] == 0) queue.push_back(static_cast<core::NodeId>(v));
    for (std::size_t head = 0; head < queue.size(); ++head)
      for (core::NodeId w : succ[static_cast<std::size_t>(queue[head])])
        if (--indeg[static_cast<std::size_t>(w)] == 0) queue.push_back(w);
    ASSERT_EQ(queue.size(), n);
    std::vector<Event> expected;
    for (core::NodeId v : queue) {
      const auto preds = g.predecessors(v);
      for (core::NodeId u : preds) {
        if (slots.stream_of[static_cast<std::size_t>(u)] == slots.stream_of[static_cast<std::size_t>(v)]) continue;
        const core::NodeId sp = stream_pred(v);
        bool implied = sp != core::kNoNode && d.before(u, sp);
        for (core::NodeId w : preds) implied = implied || (w != u && d.before(u, w));
        if (!implied) expected.push_back({u, v});
      }
    }
    EXPECT_EQ(core::compute_events(g, s), expected) << "seed " << seed;
  }
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
}
