// weft_embed: Weft's CPU executor as the runtime of a chosen schedule, in a program of your own.
//   weft_embed [MODEL.onnx] [STRATEGY] [ITERATIONS]
// Loads the model, estimates costs for a device preset, builds the schedule with STRATEGY,
// plans its memory, runs the sequential reference and the schedule on the CPU and prints both
// times, the speedup and whether the outputs agree. Every step returns an Expected: an error
// carries its kind and a message naming the problem, and nothing throws.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "weft/build_info.h"
#include "weft/core/exec/compare_outputs.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/cost/device.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/strategy/reference.h"

namespace wc = weft::core;

namespace {

int fail(const char* step, const wc::Error& e) {
  std::fprintf(stderr, "weft_embed: %s: %s\n", step, e.message.c_str());
  return wc::exit_code(e.kind);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string model = argc > 1 ? argv[1] : std::string(WEFT_EMBED_ASSETS) + "/models/googlenet.onnx";
  const std::string strategy = argc > 2 ? argv[2] : "cp-list";
  const int iterations = argc > 3 ? std::atoi(argv[3]) : 3;
  std::printf("weft %s (libweft %s)\n", std::string(weft::build::kVersion).c_str(), weft::build::library_version());

  // 1. The model: an immutable graph with static shapes (symbolic dims would be bound here).
  auto graph = wc::import_onnx(model);
  if (!graph) return fail("import", graph.error());
  // 2. Costs from a device preset: they guide the strategy's choices.
  auto device = wc::load_device(wc::default_device_name());
  if (!device) return fail("device", device.error());
  const wc::CostTable costs = wc::estimate_costs(*graph, *device);
  // 3. The schedule (validated, with its minimal cross-stream events) and the reference.
  auto schedule = wc::make_schedule(strategy, *graph, costs, *device);
  if (!schedule) return fail("schedule", schedule.error());
  const wc::Schedule reference = wc::reference_schedule(*graph);
  // 4. Memory plans: offsets in one arena, valid for each schedule's partial order.
  auto plan = wc::study_plan(*graph, *schedule);
  if (!plan) return fail("plan", plan.error());
  auto reference_plan = wc::study_plan(*graph, reference);
  if (!reference_plan) return fail("plan", reference_plan.error());
  // 5. Run both on the CPU executor: one thread per stream, events as latches.
  auto executor = wc::make_cpu_executor();
  wc::RunOptions options;
  options.iterations = iterations > 0 ? iterations : 1;
  auto sequential = executor->run(*graph, reference, *reference_plan, options);
  if (!sequential) return fail("run", sequential.error());
  auto scheduled = executor->run(*graph, *schedule, *plan, options);
  if (!scheduled) return fail("run", scheduled.error());

  const wc::OutputDiff diff = wc::compare_outputs(*sequential, *scheduled);
  std::printf("model: %s, %zu operators\n", model.c_str(), graph->node_count());
  std::printf("schedule: %s, %zu streams, %zu events, arena %.1f MiB (sequential %.1f MiB)\n", schedule->strategy.c_str(),
              schedule->stream_count(), schedule->events.size(), static_cast<double>(plan->arena_bytes) / (1 << 20),
              static_cast<double>(reference_plan->arena_bytes) / (1 << 20));
  std::printf("sequential: %.2f ms, scheduled: %.2f ms (median of %d)\n", sequential->wall_ms, scheduled->wall_ms,
              options.iterations);
  std::printf("speedup: %.2fx\n", scheduled->wall_ms > 0 ? sequential->wall_ms / scheduled->wall_ms : 0.0);
  std::printf("outputs: %s (max abs diff %g)\n", diff.identical ? "bit-identical" : "differ", diff.max_abs_diff);
  return diff.identical ? 0 : 4;
}
