#pragma once
// The JSON keys every `weft run` backend reports (docs in README / docs/gpu.md): the schedule,
// both runs' wall times, the speedup, output agreement and arenas. Backends add their own keys.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "weft/core/exec/executor.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/study/run_comparison.h"

namespace weft::cli {

/// The comparison's shared keys; a NaN max_abs_diff (shapes differ) is written as null.
nlohmann::ordered_json run_report_json(const core::Graph& graph, const core::Schedule& schedule, std::string_view backend,
                                       const core::RunOptions& options, const core::RunComparison& compared);

/// How the run launched its merged nodes, for the text reports: "12 members in turn" (empty
/// without merged nodes).
std::string merged_paths_text(const core::RunResult& run);

/// The CPU run's kernels: the library and its version, threads per stream, nodes per kernel,
/// library scratch and packed weight bytes (`weft run --json`'s "kernels").
nlohmann::ordered_json cpu_kernels_json(const core::RunResult& run);

/// How the wall times were taken, for the text reports: "median of 21 in 3 rounds, each after 1
/// warm-up" (or "median of 5 after 1 warm-up" in one round); `cpu` adds the CPU executor's
/// least warm-up time ("after 1 warm-up, 25 ms at least").
std::string median_text(const core::RunOptions& options, int rounds, bool cpu);

}  // namespace weft::cli
