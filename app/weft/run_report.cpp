#include "run_report.h"

#include <cmath>
#include <string>

#include "weft/core/study/memory_report.h"
#include "weft/core/study/reference.h"

namespace weft::cli {

core::Expected<RunPair> prepare_run(const ScheduleChoice& choice, const LoadedModel& model, const std::string& planner) {
  const core::Graph& graph = model.graph;
  RunPair pair;
  pair.sequential = core::reference_schedule(graph);
  WEFT_TRY_ASSIGN(pair.schedule, obtain_schedule("run", choice, graph, model.costs, model.device, nullptr, planner));
  WEFT_TRY_ASSIGN(pair.sequential_plan, core::study_plan(graph, pair.sequential, planner));
  WEFT_TRY_ASSIGN(pair.plan, core::study_plan(graph, pair.schedule, planner));
  return pair;
}

nlohmann::ordered_json run_report_json(const core::Graph& graph, const core::Schedule& schedule, std::string_view backend,
                                       const core::RunOptions& options, const core::RunResult& sequential,
                                       const core::RunResult& scheduled, std::string_view planner, double diff,
                                       bool identical) {
  nlohmann::ordered_json j;
  j["model"] = graph.info().model_path;
  j["backend"] = std::string(backend);
  if (!scheduled.timeline.device.empty()) j["device"] = scheduled.timeline.device;
  j["strategy"] = schedule.strategy;
  j["streams"] = schedule.stream_count();
  j["events"] = schedule.events.size();
  j["iterations"] = options.iterations;
  j["warmup"] = options.warmup;
  j["sequential_ms"] = sequential.wall_ms;
  j["schedule_ms"] = scheduled.wall_ms;
  j["speedup"] = scheduled.wall_ms > 0 ? sequential.wall_ms / scheduled.wall_ms : 0.0;
  if (std::isnan(diff)) j["max_abs_diff"] = nullptr;
  else j["max_abs_diff"] = diff;
  j["bit_identical"] = identical;
  j["arena_bytes"] = scheduled.arena_bytes;
  j["sequential_arena_bytes"] = sequential.arena_bytes;
  j["planner"] = std::string(planner);
  j["random_weights"] = scheduled.random_weights;
  j["sequential_iteration_ms"] = sequential.iteration_ms;
  j["schedule_iteration_ms"] = scheduled.iteration_ms;
  return j;
}

}  // namespace weft::cli
