// The one error rule: WEFT_TRY / WEFT_TRY_ASSIGN pass errors on unchanged, and WEFT_CHECK (and
// Expected's wrong-alternative access) abort with file:line in every build type.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "weft/core/base/expected.h"

namespace core = weft::core;

namespace {

core::Expected<int> parse_positive(int x) {
  if (x <= 0) return core::make_error(core::ErrorKind::InvalidInput, "not positive: " + std::to_string(x));
  return x;
}

core::Status check_even(int x) {
  if (x % 2 != 0) return core::make_error(core::ErrorKind::Runtime, "odd: " + std::to_string(x));
  return {};
}

core::Expected<std::string> describe(int x) {
  WEFT_TRY_ASSIGN(const int v, parse_positive(x));
  WEFT_TRY(check_even(v));
  return "ok " + std::to_string(v);
}

core::Expected<std::unique_ptr<int>> boxed(int x) {
  WEFT_TRY_ASSIGN(int v, parse_positive(x));  // a plain declaration
  std::unique_ptr<int> out;
  WEFT_TRY_ASSIGN(out, core::Expected<std::unique_ptr<int>>(std::make_unique<int>(v)));  // an existing variable, move-only
  return out;
}

}  // namespace

// Errors pass through both macros with their kind and message; values flow on.
TEST(ErrorRule, TryPropagatesKindAndMessage) {
  auto ok = describe(4);
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, "ok 4");
  auto bad = describe(-3);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_EQ(bad.error().message, "not positive: -3");
  auto odd = describe(5);
  ASSERT_FALSE(odd);
  EXPECT_EQ(odd.error().kind, core::ErrorKind::Runtime);
  EXPECT_EQ(odd.error().message, "odd: 5");
  auto b = boxed(7);
  ASSERT_TRUE(b);
  EXPECT_EQ(**b, 7);
  EXPECT_FALSE(boxed(0));
}

// value() of an error aborts naming file, line and what was wrong, in Release too (the test
// binary is built RelWithDebInfo, where a plain assert would have been compiled out).
TEST(ErrorRuleDeathTest, ValueOfErrorAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        auto e = parse_positive(-1);
        static_cast<void>(e.value());
      },
      "expected\\.h:[0-9]+: weft invariant failed: has_value\\(\\): Expected::value\\(\\) of an error");
  EXPECT_DEATH(
      {
        auto e = parse_positive(1);
        static_cast<void>(e.error());
      },
      "Expected::error\\(\\) of a value");
  EXPECT_DEATH(static_cast<void>(core::Status{}.error()), "Expected::error\\(\\) of a value");
}

// WEFT_CHECK reports the condition's text and the caller's file:line.
TEST(ErrorRuleDeathTest, CheckNamesConditionAndPlace) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const int streams = 3;
  EXPECT_DEATH(WEFT_CHECK(streams < 2), "test_expected\\.cpp:[0-9]+: weft invariant failed: streams < 2");
  EXPECT_DEATH(WEFT_CHECK_MSG(streams == 0, "no streams expected"), "streams == 0: no streams expected");
  WEFT_CHECK(streams == 3);  // a holding check does nothing
}
