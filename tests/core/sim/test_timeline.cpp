// Timelines: a run's identity and the label core derives from it, and the overlap count of a
// measured run, on hand-written timelines with the expected results written out.
#include <gtest/gtest.h>

#include "weft/core/schedule/timeline.h"

using namespace weft;

// Labels come from the identity alone, and two runs are the same run only when kind, backend and
// strategy all match (the label plays no part).
TEST(Timeline, IdentityAndLabels) {
  using core::RunIdentity;
  using core::RunKind;
  EXPECT_EQ(core::run_label({RunKind::Predicted, "", "cp-list"}), "predicted cp-list");
  EXPECT_EQ(core::run_label({RunKind::Predicted, "", ""}), "predicted schedule");
  EXPECT_EQ(core::run_label({RunKind::Measured, "cuda", "sequential"}), "measured cuda sequential");
  EXPECT_EQ(core::run_label({RunKind::BaselineEager, "", "sequential"}), "sequential eager");
  EXPECT_EQ(core::run_label({RunKind::BaselineGraph, "", "sequential"}), "sequential CUDA Graph");
  core::Timeline a;
  a.kind = RunKind::Measured;
  a.backend = "cpu";
  a.strategy = "chains";
  a.label = "anything";
  core::Timeline b = a;
  b.label = "something else";
  EXPECT_TRUE(a.identity() == b.identity());
  b.backend = "cuda";
  EXPECT_FALSE(a.identity() == b.identity());
  b = a;
  b.kind = RunKind::Predicted;
  EXPECT_FALSE(a.identity() == b.identity());
  b = a;
  b.strategy = "sequential";
  EXPECT_FALSE(a.identity() == b.identity());
}

// Stream 0: [0,10] [20,30]; stream 1: [5,25]; stream 2: [30,40]. Pairs on different streams that
// overlap: (0:[0,10], 1:[5,25]) and (1:[5,25], 0:[20,30]); touching ends do not overlap.
TEST(Timeline, OverlappedPairs) {
  core::Timeline t;
  t.stream_count = 3;
  t.items = {{0, 0, 0.0, 10.0}, {1, 1, 5.0, 25.0}, {2, 0, 20.0, 30.0}, {3, 2, 30.0, 40.0}};
  EXPECT_EQ(core::overlapped_pairs(t), 2);
  t.items[3].start_us = 29.0;  // now overlaps stream 0's second item
  EXPECT_EQ(core::overlapped_pairs(t), 3);
  t.items = {{0, 0, 0.0, 10.0}, {1, 0, 5.0, 25.0}};  // the same stream never counts
  EXPECT_EQ(core::overlapped_pairs(t), 0);
}
