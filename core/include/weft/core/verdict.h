#pragma once
// The one wording of Weft's verdicts, shared by `weft analyze` (from work/span and width) and
// predictions (the same bound, plus what the schedule reaches).
#include <cstddef>
#include <string>

namespace weft::core {

/// "chain: concurrency cannot help (width 1)".
std::string chain_verdict(std::size_t width);

/// From the bound on any schedule's speedup: "up to 2.0x from concurrency (work/span 2.03,
/// width 4)", or "little to gain from concurrency: the critical path holds 97% of the work
/// (work/span 1.03, width 2)" below 1.05x. The bound is min(work/span, width); width 0 means
/// unknown (the bound is work/span and the figures omit the width).
std::string concurrency_verdict(double parallelism, std::size_t width = 0);

/// concurrency_verdict(parallelism) followed by "; this schedule reaches 1.6x".
std::string reach_verdict(double parallelism, double reached);

}  // namespace weft::core
