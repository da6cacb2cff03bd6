// compare_outputs: the largest |a − b| over every output, bit identity, NaN on one side only or a
// shape / dtype / name mismatch gives NaN; NaN on both sides agrees.
#include <gtest/gtest.h>

#include <cmath>

#include "exec_test_util.h"
#include "weft/core/exec/compare_outputs.h"
#include "weft/core/exec/executor.h"

using namespace weft;
using test::host_f32;
using test::host_i64;

namespace {
core::RunResult result(std::map<std::string, core::HostTensor> outputs) {
  core::RunResult r;
  r.outputs = std::move(outputs);
  return r;
}
}  // namespace

TEST(CompareOutputs, IdenticalAndDiffering) {
  const auto a = result({{"y", host_f32({2, 2}, {1.0f, 2.0f, 3.0f, 4.0f})}, {"i", host_i64({2}, {7, 8})}});
  core::OutputDiff same = core::compare_outputs(a, a);
  EXPECT_TRUE(same.identical);
  EXPECT_EQ(same.max_abs_diff, 0.0);
  const auto b = result({{"y", host_f32({2, 2}, {1.0f, 2.5f, 3.0f, 3.75f})}, {"i", host_i64({2}, {7, 11})}});
  const core::OutputDiff d = core::compare_outputs(a, b);
  EXPECT_FALSE(d.identical);
  EXPECT_EQ(d.max_abs_diff, 3.0);  // the int64 output differs most: |8 − 11|
}

TEST(CompareOutputs, NaNsAndMismatches) {
  const float nan = std::nanf("");
  const auto a = result({{"y", host_f32({2}, {nan, 1.0f})}});
  EXPECT_EQ(core::compare_outputs(a, a).max_abs_diff, 0.0);  // NaN where both have NaN agrees
  EXPECT_TRUE(std::isnan(core::compare_outputs(a, result({{"y", host_f32({2}, {0.0f, 1.0f})}})).max_abs_diff));
  const core::OutputDiff shape = core::compare_outputs(a, result({{"y", host_f32({1, 2}, {nan, 1.0f})}}));
  EXPECT_TRUE(std::isnan(shape.max_abs_diff));
  EXPECT_FALSE(shape.identical);
  const core::OutputDiff missing = core::compare_outputs(a, result({{"z", host_f32({2}, {nan, 1.0f})}}));
  EXPECT_TRUE(std::isnan(missing.max_abs_diff));
  EXPECT_FALSE(missing.identical);
  // b has an output a lacks: not identical, though every output of a matches.
  const core::OutputDiff extra = core::compare_outputs(a, result({{"y", host_f32({2}, {nan, 1.0f})}, {"z", host_f32({1}, {0.0f})}}));
  EXPECT_FALSE(extra.identical);
  EXPECT_EQ(extra.max_abs_diff, 0.0);
}

// The relative difference is the largest |a − b| on the reference's scale (its largest finite
// |value|), the absolute one where the reference is all zero, NaN where the absolute one is.
TEST(CompareOutputs, RelativeToTheReference) {
  const float inf = INFINITY;
  const auto ref = result({{"y", host_f32({4}, {-200.0f, 1.0f, 3.0f, inf})}});
  const auto got = result({{"y", host_f32({4}, {-200.0f, 1.02f, 3.0f, inf})}});
  const core::OutputDiff d = core::compare_outputs(ref, got);
  EXPECT_EQ(d.max_abs_reference, 200.0);  // the infinity is not a scale
  EXPECT_NEAR(d.max_abs_diff, 0.02, 1e-6);
  EXPECT_NEAR(d.max_rel_diff(), 0.02 / 200.0, 1e-9);
  const auto zero = result({{"y", host_f32({2}, {0.0f, 0.0f})}});
  EXPECT_NEAR(core::compare_outputs(zero, result({{"y", host_f32({2}, {0.0f, 0.5f})}})).max_rel_diff(), 0.5, 1e-9);
  EXPECT_TRUE(std::isnan(core::compare_outputs(zero, result({{"z", host_f32({2}, {0.0f, 0.5f})}})).max_rel_diff()));
}

// Equal outputs give equal digests; one bit, a shape or a name changes it.
TEST(CompareOutputs, DigestTellsRunsApart) {
  const auto a = result({{"y", host_f32({2, 2}, {1.0f, 2.0f, 3.0f, 4.0f})}, {"i", host_i64({2}, {7, 8})}});
  const std::string digest = core::outputs_digest(a);
  EXPECT_EQ(digest.size(), 16u);
  EXPECT_EQ(core::outputs_digest(result({{"i", host_i64({2}, {7, 8})}, {"y", host_f32({2, 2}, {1.0f, 2.0f, 3.0f, 4.0f})}})), digest);
  EXPECT_NE(core::outputs_digest(result({{"y", host_f32({2, 2}, {1.0f, 2.0f, 3.0f, 4.000001f})}, {"i", host_i64({2}, {7, 8})}})), digest);
  EXPECT_NE(core::outputs_digest(result({{"y", host_f32({4}, {1.0f, 2.0f, 3.0f, 4.0f})}, {"i", host_i64({2}, {7, 8})}})), digest);
  EXPECT_NE(core::outputs_digest(result({{"z", host_f32({2, 2}, {1.0f, 2.0f, 3.0f, 4.0f})}, {"i", host_i64({2}, {7, 8})}})), digest);
}
