#pragma once
// The one wording of Weft's verdicts, shared by `weft analyze` (from work/span and width),
// predictions (the same bound, plus what the schedule reaches) and advise() (from the best
// schedule's prediction), with one threshold for "little to gain".
#include <cstddef>
#include <string>
#include <string_view>

namespace weft::core {

/// Below this speedup, bounded (work/span, width) or predicted (the best schedule's), concurrency
/// has little to gain: the difference is within the cost model's error.
inline constexpr double kWorthwhileSpeedup = 1.05;

/// "chain: concurrency cannot help (width 1)"; `where` (e.g. " at batch 8") follows "help".
std::string chain_verdict(std::size_t width, std::string_view where = {});

/// From the bound on any schedule's speedup: "up to 2.0x from concurrency (work/span 2.03,
/// width 4)", or "little to gain from concurrency: the critical path holds 97% of the work
/// (work/span 1.03, width 2)" below kWorthwhileSpeedup. The bound is min(work/span, width);
/// width 0 means unknown (the bound is work/span and the figures omit the width).
std::string concurrency_verdict(double parallelism, std::size_t width = 0);

/// concurrency_verdict's "little to gain" wording with the caller's reason: "little to gain from
/// concurrency<where>: <why> (work/span 1.03, width 2)" (advise() gives the best schedule's
/// prediction as the reason). width 0 omits the width.
std::string little_to_gain_verdict(std::string_view why, double parallelism, std::size_t width = 0,
                                   std::string_view where = {});

/// concurrency_verdict(parallelism) followed by "; this schedule reaches 1.6x".
std::string reach_verdict(double parallelism, double reached);

}  // namespace weft::core
