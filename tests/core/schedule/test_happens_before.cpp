#include <gtest/gtest.h>

#include "test_graphs.h"
#include "weft/core/schedule.h"

using namespace weft;

// Two branches on two streams are unordered; one stream orders everything.
TEST(HappensBefore, BranchesOnTwoStreamsAreConcurrent) {
  const core::Graph g = test::make_two_branches(3);  // n0 n1 n2 | n3 n4 n5
  core::Schedule two{{{0, 1, 2}, {3, 4, 5}}, {}, "hand", ""};
  auto hb = core::HappensBefore::build(g, two);
  ASSERT_TRUE(hb);
  EXPECT_TRUE(hb->before(0, 2));
  EXPECT_FALSE(hb->ordered(1, 4));
  core::Schedule one{{{0, 3, 1, 4, 2, 5}}, {}, "hand", ""};
  auto hb1 = core::HappensBefore::build(g, one);
  ASSERT_TRUE(hb1);
  EXPECT_TRUE(hb1->before(3, 2));
}

// A stream order against a data edge across streams deadlocks, and the message says so.
TEST(HappensBefore, DeadlockIsReported) {
  // n0 -> n1, n2 -> n3; stream 0 runs n1 then n2, stream 1 runs n3 then n0: n0 < n1 < n2 < n3 < n0.
  const core::Graph g = test::make_dag(4, {{0, 1}, {2, 3}});
  core::Schedule s{{{1, 2}, {3, 0}}, {}, "hand", ""};
  auto hb = core::HappensBefore::build(g, s);
  ASSERT_FALSE(hb);
  EXPECT_NE(hb.error().message.find("would deadlock"), std::string::npos);
  EXPECT_NE(hb.error().message.find("stream 1"), std::string::npos);
}

// A node missing from every stream is an input error, not a crash.
TEST(HappensBefore, MissingNodeIsRejected) {
  const core::Graph g = test::make_chain(3);
  core::Schedule s{{{0, 1}}, {}, "hand", ""};
  auto hb = core::HappensBefore::build(g, s);
  ASSERT_FALSE(hb);
  EXPECT_NE(hb.error().message.find("n2"), std::string::npos);
}
