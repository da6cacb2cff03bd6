#pragma once
// How two runs' outputs agree: the largest difference, and whether every byte matches.
#include "weft/core/executor.h"

namespace weft::core {

/// How two runs' outputs compare: the largest |a − b| over every output element, NaN when an
/// output is missing, shapes or dtypes differ or only one side is NaN (NaN on both sides agrees);
/// identical when every output's bytes match. O(output bytes).
struct OutputDiff {
  double max_abs_diff = 0;
  bool identical = true;
};
OutputDiff compare_outputs(const RunResult& a, const RunResult& b);

}  // namespace weft::core
