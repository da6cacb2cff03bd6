#pragma once
// The sweep chart as a PNG, drawn without a GUI toolkit (the CLI builds without Qt): speedup
// against batch size, one colour per strategy, predicted solid, measured dashed.
#include <string>
#include <vector>

#include "weft/core/study/sweep.h"

namespace weft::cli {

/// PNG bytes (8-bit RGB, stored deflate) of the chart of `points` at width × height pixels.
/// Batches are spaced by log2; a grey line marks 1.0x. O(width · height).
std::string sweep_chart_png(const std::vector<core::SweepPoint>& points, const std::string& title, int width = 900,
                            int height = 540);

}  // namespace weft::cli
