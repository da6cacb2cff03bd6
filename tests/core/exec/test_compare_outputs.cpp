// compare_outputs: the largest |a − b| over every output, bit identity, NaN on one side only or a
// shape / dtype / name mismatch gives NaN; NaN on both sides agrees.
#include <gtest/gtest.h>

#include <cmath>

#include "exec_test_util.h"
#include "weft/core/compare_outputs.h"
#include "weft/core/executor.h"

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
