#pragma once
// How two runs' outputs agree: the largest difference, and whether every byte matches.
#include <string>

#include "weft/core/exec/executor.h"

namespace weft::core {

/// How two runs' outputs compare: the largest |a − b| over every output element, NaN when an
/// output is missing, shapes or dtypes differ or only one side is NaN (NaN on both sides agrees);
/// identical when every output's bytes match. `a` is the reference: max_abs_reference is the
/// largest finite |a| compared, and max_rel_diff() the difference on that scale (the GPU check's
/// "relative error", goal 1e-4). O(output bytes).
struct OutputDiff {
  double max_abs_diff = 0;
  double max_abs_reference = 0;
  bool identical = true;
  /// max_abs_diff / max_abs_reference; the absolute difference where the reference is all zero,
  /// NaN where max_abs_diff is.
  double max_rel_diff() const { return max_abs_reference > 0 ? max_abs_diff / max_abs_reference : max_abs_diff; }
};
OutputDiff compare_outputs(const RunResult& a, const RunResult& b);

/// A 64-bit FNV-1a digest of a run's outputs (names, dtypes, shapes and bytes, in name order) as
/// 16 hex digits: two runs with equal digests produced the same bits. O(output bytes).
std::string outputs_digest(const RunResult& run);

}  // namespace weft::core
