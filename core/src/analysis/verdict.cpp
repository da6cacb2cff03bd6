// Verdict wording (one place, so analyze and predictions say the same thing the same way).
#include "weft/core/analysis/verdict.h"

#include <algorithm>

#include "weft/core/base/text_format.h"

namespace weft::core {

namespace {

// "(work/span 2.03, width 4)"; width 0 omits the width.
std::string figures(double parallelism, std::size_t width) {
  return "(work/span " + fixed_text(parallelism, 2) + (width > 0 ? ", width " + std::to_string(width) : std::string()) + ")";
}

}  // namespace

std::string chain_verdict(std::size_t width, std::string_view where) {
  return "chain: concurrency cannot help" + std::string(where) + " (width " + std::to_string(width) + ")";
}

std::string concurrency_verdict(double parallelism, std::size_t width) {
  // Brent's bound: no schedule beats work/span, and at most `width` nodes ever run at once.
  const double bound = width > 0 ? std::min(parallelism, static_cast<double>(width)) : parallelism;
  if (bound < kWorthwhileSpeedup)
    return little_to_gain_verdict("the critical path holds " + fixed_text(100.0 / parallelism, 0) + "% of the work", parallelism,
                                  width);
  return "up to " + fixed_text(bound, 1) + "x from concurrency " + figures(parallelism, width);
}

std::string little_to_gain_verdict(std::string_view why, double parallelism, std::size_t width, std::string_view where) {
  return "little to gain from concurrency" + std::string(where) + ": " + std::string(why) + " " + figures(parallelism, width);
}

std::string reach_verdict(double parallelism, double reached) {
  return concurrency_verdict(parallelism) + "; this schedule reaches " + fixed_text(reached, 1) + "x";
}

}  // namespace weft::core
