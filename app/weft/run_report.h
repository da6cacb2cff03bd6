#pragma once
// The JSON keys every `weft run` backend reports (docs in README / docs/gpu.md): the schedule,
// both runs' wall times, the speedup, output agreement and arenas. Backends add their own keys.
#include <string_view>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "weft/core/executor.h"
#include "weft/core/memory_plan.h"
#include "weft/core/graph.h"
#include "weft/core/schedule.h"

namespace weft::cli {

/// What every backend runs: the reference schedule (core::reference_schedule) and the chosen
/// schedule, each with its study plan (core::study_plan with `planner`, "" for every planner).
struct RunPair {
  core::Schedule sequential;
  core::Schedule schedule;
  core::MemoryPlan sequential_plan;
  core::MemoryPlan plan;
};
core::Expected<RunPair> prepare_run(const ScheduleChoice& choice, const LoadedModel& model, const std::string& planner);

/// `diff` NaN (shapes differ) is written as null.
nlohmann::ordered_json run_report_json(const core::Graph& graph, const core::Schedule& schedule, std::string_view backend,
                                       const core::RunOptions& options, const core::RunResult& sequential,
                                       const core::RunResult& scheduled, std::string_view planner, double diff,
                                       bool identical);

}  // namespace weft::cli
