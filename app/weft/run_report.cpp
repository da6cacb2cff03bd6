#include "run_report.h"

#include <cmath>
#include <string>

#include "weft/core/base/text_format.h"
#include "weft/core/exec/cpu_executor.h"

namespace weft::cli {

nlohmann::ordered_json run_report_json(const core::Graph& graph, const core::Schedule& schedule, std::string_view backend,
                                       const core::RunOptions& options, const core::RunComparison& compared) {
  const core::RunResult& sequential = compared.sequential;
  const core::RunResult& scheduled = compared.scheduled;
  nlohmann::ordered_json j;
  j["model"] = graph.info().model_path;
  j["backend"] = std::string(backend);
  if (!scheduled.timeline.device.empty()) j["device"] = scheduled.timeline.device;
  j["strategy"] = schedule.strategy;
  j["options"] = schedule.options;
  j["streams"] = schedule.stream_count();
  j["events"] = schedule.events.size();
  j["iterations"] = options.iterations;
  j["warmup"] = options.warmup;
  j["rounds"] = compared.rounds;
  j["sequential_ms"] = sequential.wall_ms;
  j["schedule_ms"] = scheduled.wall_ms;
  j["speedup"] = compared.speedup();
  if (std::isnan(compared.diff.max_abs_diff)) j["max_abs_diff"] = nullptr;
  else j["max_abs_diff"] = compared.diff.max_abs_diff;
  if (std::isnan(compared.diff.max_abs_diff)) j["max_rel_diff"] = nullptr;
  else j["max_rel_diff"] = compared.diff.max_rel_diff();
  j["bit_identical"] = compared.diff.identical;
  // Two runs (two processes, two machines) with the same digest produced the same output bits.
  j["outputs_digest"] = core::outputs_digest(sequential);
  j["arena_bytes"] = scheduled.arena_bytes;
  j["sequential_arena_bytes"] = sequential.arena_bytes;
  j["planner"] = compared.plan.planner;
  j["random_weights"] = scheduled.random_weights;
  if (!scheduled.merged_paths.empty()) j["merged_paths"] = scheduled.merged_paths;
  j["sequential_iteration_ms"] = sequential.iteration_ms;
  j["schedule_iteration_ms"] = scheduled.iteration_ms;
  return j;
}

nlohmann::ordered_json cpu_kernels_json(const core::RunResult& run) {
  nlohmann::ordered_json j;
  const std::string library = core::cpu_kernel_library();
  if (library.empty()) j["library"] = nullptr;
  else j["library"] = library;
  j["threads_per_stream"] = run.threads_per_stream;
  // Hybrid parallelism: the nodes that ran alone on a team of their own.
  j["node_teams"] = {{"nodes", run.node_team_nodes}, {"threads", run.node_team_threads}};
  j["nodes"] = run.kernel_paths;
  j["library_scratch_bytes"] = run.library_scratch_bytes;
  j["packed_weight_bytes"] = run.packed_weight_bytes;
  j["channels_last_tensors"] = run.channels_last_tensors;
  return j;
}

std::string merged_paths_text(const core::RunResult& run) {
  std::string text;
  for (const auto& [path, count] : run.merged_paths)
    text += (text.empty() ? "" : ", ") + std::to_string(count) + " " + path;
  return text;
}

std::string median_text(const core::RunOptions& options, int rounds, bool cpu) {
  std::string text = "median of " + std::to_string(options.iterations);
  if (rounds > 1) text += " in " + std::to_string(rounds) + " rounds, each";
  text += " after " + std::to_string(options.warmup) + " warm-up";
  // The CPU executor warms up for warmup_ms too (RunOptions::warmup_ms).
  if (cpu && options.warmup > 0 && options.warmup_ms > 0) text += ", " + core::fixed_text(options.warmup_ms, 0) + " ms at least";
  return text;
}

}  // namespace weft::cli
