// Report numbers: fixed decimals round as printf does, byte counts read in MiB.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "weft/core/base/text_format.h"

using weft::core::fixed_text;
using weft::core::mib_text;

TEST(TextFormat, FixedDecimals) {
  EXPECT_EQ(fixed_text(1.5, 2), "1.50");
  EXPECT_EQ(fixed_text(2.345, 1), "2.3");
  EXPECT_EQ(fixed_text(99.96, 1), "100.0");
  EXPECT_EQ(fixed_text(0.4, 0), "0");
  EXPECT_EQ(fixed_text(-3.25, 1), "-3.2");  // binary 3.25 is exact: round half to even
  EXPECT_EQ(fixed_text(std::numeric_limits<double>::infinity(), 2), "inf");
  // The widest double still prints whole (309 digits before the point).
  EXPECT_EQ(fixed_text(std::numeric_limits<double>::max(), 2).size(), 309u + 3u);
}

TEST(TextFormat, MebibytesWithTwoDecimals) {
  EXPECT_EQ(mib_text(0), "0.00 MiB");
  EXPECT_EQ(mib_text(3 << 19), "1.50 MiB");
  EXPECT_EQ(mib_text(6428672), "6.13 MiB");
}
