#pragma once
// Runs another program directly (no shell), feeds it standard input and collects its output,
// with a time limit.
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/base/expected.h"

namespace weft::core {

struct ProcessResult {
  int exit_code = -1;      ///< the program's exit status; -1 when a signal ended it
  int signal = 0;          ///< the signal that ended it, or 0
  bool timed_out = false;  ///< killed (SIGKILL) at the time limit
  std::string out;         ///< everything it wrote to standard output
  std::string err;         ///< standard error, the last 64 KiB
};

/// Runs argv[0] (looked up in PATH when it has no '/') with argv[1..] as its arguments, exactly as
/// given: no shell ever sees them. Writes `input` to its standard input and closes it, reads its
/// standard output and error until it exits or `timeout_s` passes (then it is killed). Errors
/// (Runtime): empty argv, a program that cannot be started (named, with the OS reason), pipe
/// failures. A program that starts and fails is not an error: see ProcessResult.
Expected<ProcessResult> run_process(const std::vector<std::string>& argv, std::string_view input, double timeout_s);

}  // namespace weft::core
