// run_process: arguments reach the program unexpanded, large input and output do not deadlock,
// exit codes, signals, time limits and unknown programs are reported.
#include <gtest/gtest.h>

#include <string>

#include "weft/core/base/subprocess.h"

namespace weft::core {
namespace {

// 4 MiB through cat in both directions: the pipes are drained while the input is written.
TEST(Subprocess, LargeInputAndOutputRoundTrip) {
  std::string input(4 << 20, 'x');
  for (std::size_t i = 0; i < input.size(); i += 997) input[i] = static_cast<char>('a' + i % 26);
  auto r = run_process({"cat"}, input, 30);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_FALSE(r->timed_out);
  EXPECT_EQ(r->out, input);
}

// No shell: quotes, $ and ; are plain characters of one argument.
TEST(Subprocess, ArgumentsAreNotExpanded) {
  auto r = run_process({"printf", "%s|", "$HOME", "a;b", "'q'"}, "", 10);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->out, "$HOME|a;b|'q'|");
}

TEST(Subprocess, ExitCodeStderrSignalAndTimeout) {
  auto r = run_process({"sh", "-c", "echo oops >&2; exit 7"}, "", 10);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->exit_code, 7);
  EXPECT_EQ(r->err, "oops\n");

  r = run_process({"sh", "-c", "kill -TERM $$"}, "", 10);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->signal, 15);
  EXPECT_EQ(r->exit_code, -1);

  r = run_process({"sleep", "30"}, "", 0.3);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->timed_out);
  EXPECT_EQ(r->signal, 9);

  // A program that exits without reading its input does not stall or kill the caller (SIGPIPE).
  r = run_process({"true"}, std::string(8 << 20, 'y'), 10);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->exit_code, 0);
}

TEST(Subprocess, UnknownProgramIsAnError) {
  auto r = run_process({"/nonexistent/program"}, "", 5);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("cannot run '/nonexistent/program'"), std::string::npos) << r.error().message;
  EXPECT_FALSE(run_process({}, "", 5));
}

}  // namespace
}  // namespace weft::core
