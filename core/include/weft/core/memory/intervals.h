#pragma once
// Raw interval instances in MiniMalloc's CSV format (`id,lower,upper,size`, half-open
// [lower, upper)) as allocation problems.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/memory/allocation_problem.h"
#include "weft/core/base/expected.h"

namespace weft::core {

struct IntervalInstance {
  std::vector<std::string> ids;
  std::vector<std::int64_t> lower, upper, size;
};

/// Parses the CSV (header line first; blank lines ignored). Errors: InvalidInput naming the
/// source and line (bad number, upper <= lower, size <= 0, duplicate id, wrong column count,
/// a time over 2^40, a size over 2^48 bytes or sizes totalling over 2^60: planners add them).
Expected<IntervalInstance> parse_minimalloc_csv(std::string_view text, std::string_view source_name = "csv");

/// Blocks = intervals; conflict iff the half-open lifetimes overlap. Alignment 1. O(n log n + C).
AllocationProblem interval_problem(const IntervalInstance& instance);

}  // namespace weft::core
