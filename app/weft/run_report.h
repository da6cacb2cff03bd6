#pragma once
// The JSON keys every `weft run` backend reports (docs in README / docs/gpu.md): the schedule,
// both runs' wall times, the speedup, output agreement and arenas. Backends add their own keys.
#include <string_view>

#include <nlohmann/json.hpp>

#include "weft/core/executor.h"
#include "weft/core/graph.h"
#include "weft/core/schedule.h"
#include "weft/core/study/run_comparison.h"

namespace weft::cli {

/// The comparison's shared keys; a NaN max_abs_diff (shapes differ) is written as null.
nlohmann::ordered_json run_report_json(const core::Graph& graph, const core::Schedule& schedule, std::string_view backend,
                                       const core::RunOptions& options, const core::RunComparison& compared);

}  // namespace weft::cli
