// `weft run --backend cuda`: the schedule on the GPU against both baselines (sequential eager and
// sequential CUDA Graph), eager and as a CUDA Graph, with per-node timing for the overlap count
// and the trace, and the outputs compared with the CPU reference.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "run_report.h"
#include "weft/core/chrome_trace.h"
#include "weft/core/cpu_executor.h"
#include "weft/core/memory_planner.h"
#include "weft/gpu/cuda_executor.h"
#include "weft/gpu/devices.h"

namespace weft::cli {
namespace {


/// Pairs of nodes on different streams whose measured intervals overlap. O(n log n + pairs).
std::int64_t overlapped_pairs(const core::Timeline& tl) {
  std::vector<core::TimelineItem> items = tl.items;
  std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.start_us < b.start_us; });
  std::int64_t pairs = 0;
  for (std::size_t i = 0; i < items.size(); ++i)
    for (std::size_t j = i + 1; j < items.size() && items[j].start_us < items[i].end_us; ++j)
      if (items[j].stream != items[i].stream) ++pairs;
  return pairs;
}

void put_ms(nlohmann::ordered_json& j, const char* key, double v) {
  if (std::isnan(v)) j[key] = nullptr;
  else j[key] = v;
}

/// A run's error; after a kernel fault (the CUDA context is then unusable, and asynchronous
/// launches cannot name the node) the process reruns itself once with blocking launches, whose
/// error names the node.
int cuda_failure(const core::Error& e) {
  if (gpu::cuda_context_faulted() && !gpu::is_blocking_rerun()) {
    std::cerr << "weft run: " << e.message << "\nweft run: kernel fault; rerunning once with blocking launches (CUDA_LAUNCH_BLOCKING=1) "
              << "to name the node\n";
    const core::Error why = gpu::rerun_with_blocking_launches();  // returns only if no rerun started
    std::cerr << "weft run: " << why.message << "\n";
  }
  return report("run", e);
}

}  // namespace

int run_cuda(Args& args, const ScheduleChoice& choice, const std::string& planner, const core::RunOptions& ro) {
  // The CUDA module is loaded here, not at start: which file or library is missing is the error.
  if (auto module = gpu::load_cuda_module(); !module) return report("run", module.error());
  if (auto gpus = gpu::list_gpus(); !gpus) return report("run", gpus.error());

  auto model = load_model(args);
  if (!model) return report("run", model.error());
  const core::Graph& graph = model->graph;
  // Refuse unsupported operators before the CPU reference spends its time.
  if (auto ok = gpu::cuda_check_supported(graph); !ok) return report("run", ok.error());
  auto pair = prepare_run(choice, *model, planner);
  if (!pair) return report("run", pair.error());
  const core::Schedule& sequential = pair->sequential;
  const core::Schedule& schedule = pair->schedule;

  // Throughput runs (no per-node events) give the wall times; one timed run per schedule gives
  // the timelines (overlap, trace); graph runs replay one capture.
  core::RunOptions throughput = ro, timed = ro;
  throughput.per_node_timing = false;
  timed.per_node_timing = true;
  gpu::CudaRunOptions eager_mode, graph_mode;
  eager_mode.tf32 = graph_mode.tf32 = args.flag("tf32");
  graph_mode.cuda_graph = true;
  auto eager = gpu::make_cuda_executor(eager_mode);
  auto graphed = gpu::make_cuda_executor(graph_mode);
  auto seq = eager->run(graph, sequential, pair->sequential_plan, throughput);
  if (!seq) return cuda_failure(seq.error());
  auto run = eager->run(graph, schedule, pair->plan, throughput);
  if (!run) return cuda_failure(run.error());
  auto seq_timed = eager->run(graph, sequential, pair->sequential_plan, timed);
  if (!seq_timed) return cuda_failure(seq_timed.error());
  auto run_timed = eager->run(graph, schedule, pair->plan, timed);
  if (!run_timed) return cuda_failure(run_timed.error());
  auto seq_graph = graphed->run(graph, sequential, pair->sequential_plan, throughput);
  if (!seq_graph) return cuda_failure(seq_graph.error());
  auto run_graph = graphed->run(graph, schedule, pair->plan, throughput);
  if (!run_graph) return cuda_failure(run_graph.error());

  core::RunOptions reference = ro;
  reference.iterations = 1;
  reference.warmup = 0;
  auto cpu = core::make_cpu_executor()->run(graph, sequential, pair->sequential_plan, reference);
  if (!cpu) return report("run", cpu.error());

  const core::OutputDiff sched_vs_seq = core::compare_outputs(*seq, *run);
  const bool identical = sched_vs_seq.identical;
  const double diff = sched_vs_seq.max_abs_diff;
  const double cpu_error = core::compare_outputs(*cpu, *run).max_abs_diff;
  const double graph_error = core::compare_outputs(*run, *run_graph).max_abs_diff;
  const double speedup = run->wall_ms > 0 ? seq->wall_ms / run->wall_ms : 0.0;
  const double speedup_vs_graph = run_graph->wall_ms > 0 ? seq_graph->wall_ms / run_graph->wall_ms : 0.0;
  const std::int64_t overlaps = overlapped_pairs(run_timed->timeline);
  // Hardware queues of this process's CUDA context: streams beyond them share queues.
  const auto runtime = gpu::cuda_runtime_info();
  const int connections = runtime ? runtime->max_connections : 0;

  if (auto trace = args.value("trace")) {
    seq_timed->timeline.label = "measured cuda sequential";
    run_timed->timeline.label = "measured cuda " + schedule.strategy;
    const std::vector<core::Timeline> runs{seq_timed->timeline, run_timed->timeline};
    core::TraceInfo info;
    info.device = run_timed->timeline.device;
    info.strategy = schedule.strategy;
    if (auto ok = core::save_chrome_trace(*trace, graph, runs, &model->costs, info); !ok) return report("run", ok.error());
  }

  if (args.flag("json")) {
    nlohmann::ordered_json j = run_report_json(graph, schedule, "cuda", ro, *seq, *run, pair->plan.planner, diff, identical);
    j["sequential_graph_ms"] = seq_graph->wall_ms;
    j["schedule_graph_ms"] = run_graph->wall_ms;
    j["speedup_vs_graph"] = speedup_vs_graph;
    j["overlapped_pairs"] = overlaps;
    put_ms(j, "max_abs_error_vs_cpu", cpu_error);
    put_ms(j, "max_abs_diff_graph_vs_eager", graph_error);
    j["sequential_timed_ms"] = seq_timed->wall_ms;
    j["schedule_timed_ms"] = run_timed->wall_ms;
    j["tf32"] = args.flag("tf32");
    j["max_connections"] = connections;
    j["blocking_rerun"] = gpu::is_blocking_rerun();
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "model: " << graph.info().model_path << " (" << graph.node_count() << " operators), backend cuda on "
              << run->timeline.device << "\n"
              << "schedule: " << schedule.strategy << " (" << schedule.options << "), " << schedule.stream_count() << " stream(s), "
              << schedule.events.size() << " events\n"
              << "                 eager ms   graph ms   (median of " << ro.iterations << " after " << ro.warmup << " warm-up)\n"
              << "sequential:    " << std::setw(10) << fixed(seq->wall_ms, 3) << " " << std::setw(10) << fixed(seq_graph->wall_ms, 3) << "\n"
              << "scheduled:     " << std::setw(10) << fixed(run->wall_ms, 3) << " " << std::setw(10) << fixed(run_graph->wall_ms, 3) << "\n"
              << "speedup: " << fixed(speedup, 2) << "x eager, " << fixed(speedup_vs_graph, 2) << "x vs the graph baseline\n"
              << "overlapped node pairs (per-node timed run): " << overlaps << "; hardware queues: " << connections
              << " (CUDA_DEVICE_MAX_CONNECTIONS)" << (args.flag("tf32") ? "; TF32 on" : "") << "\n"
              << "max abs error vs CPU: " << cpu_error << "; scheduled vs sequential: " << diff << (identical ? " (bit-identical)" : "")
              << "; graph vs eager: " << graph_error << "\n";
    if (run->random_weights > 0)
      std::cout << "weights: " << run->random_weights << " without data in the model's files, seeded random values used\n";
  }
  if (gpu::is_blocking_rerun()) std::cerr << "weft run: the kernel fault did not recur with blocking launches\n";
  if (schedule.stream_count() > static_cast<std::size_t>(connections))
    std::cerr << "weft run: warning: " << schedule.stream_count() << " streams share " << connections
              << " hardware queues (CUDA_DEVICE_MAX_CONNECTIONS)\n";
  return 0;
}

}  // namespace weft::cli
