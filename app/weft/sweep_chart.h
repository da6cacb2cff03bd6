#pragma once
// The CLI's charts (drawn by chart.cpp with cairo): the sweep (speedup against batch size, one
// colour per strategy, predicted solid, measured dashed) and the memory frontier (predicted time
// against arena, every schedule as a point, the Pareto front as a line).
#include <string>
#include <vector>

#include "chart.h"
#include "weft/core/study/frontier.h"
#include "weft/core/study/batch_sweep.h"

namespace weft::cli {

/// The sweep chart of `points`. Batches are spaced by log2; a grey dashed line marks 1.0x.
Chart sweep_chart(const std::vector<core::SweepPoint>& points, const std::string& title);

/// The frontier chart of `f`: arena (MiB) across, predicted time (µs) up; every point small, the
/// front as a line with its points, the sequential schedule's time as a dashed rule.
Chart frontier_chart(const core::Frontier& f, const std::string& title);

}  // namespace weft::cli
