// `weft run --backend cuda`: parses nothing more than cmd_run did, runs core::compare_runs on the
// CUDA executor (the schedule against both baselines, sequential eager and sequential CUDA Graph,
// eager and replayed as a CUDA Graph, per-node timing for the overlap count and the trace, the
// outputs checked against the CPU reference) and prints it.
#include <cmath>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "run_data.h"
#include "run_report.h"
#include "weft/core/sim/chrome_trace.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/study/run_comparison.h"
#include "weft/core/base/text_format.h"
#include "weft/gpu/cuda_executor.h"
#include "weft/gpu/devices.h"

namespace weft::cli {
namespace {

void put_ms(nlohmann::ordered_json& j, const char* key, double v) {
  if (std::isnan(v)) j[key] = nullptr;
  else j[key] = v;
}

/// A run's error; after a kernel fault (the CUDA context is then unusable, and asynchronous
/// launches cannot name the node) the process reruns itself once with blocking launches, whose
/// error names the node; the rerun reports this run's fault (`stage` and message) beside its own.
int cuda_failure(const core::Error& e, std::string_view stage = {}) {
  if (gpu::cuda_context_faulted() && !gpu::is_blocking_rerun()) {
    std::cerr << "weft run: " << e.message << "\nweft run: kernel fault; rerunning once with blocking launches (CUDA_LAUNCH_BLOCKING=1) "
              << "to name the node\n";
    // returns only if no rerun started
    const core::Error why = gpu::rerun_with_blocking_launches(std::string(stage) + "\n" + e.message);
    std::cerr << "weft run: " << why.message << "\n";
  }
  return report("run", e);
}

/// The first run's fault a blocking rerun carries (gpu::rerun_fault(): "stage\nmessage").
nlohmann::ordered_json fault_json(const std::string& fault) {
  const auto cut = fault.find('\n');
  nlohmann::ordered_json j;
  j["stage"] = cut == std::string::npos ? std::string() : fault.substr(0, cut);
  j["message"] = cut == std::string::npos ? fault : fault.substr(cut + 1);
  return j;
}

/// The figures `weft run --backend cuda` prints as text (the JSON holds the same).
struct CudaRunText {
  const core::Graph& graph;
  const core::Schedule& schedule;
  const core::RunOptions& ro;
  const core::RunComparison& compared;
  const std::string& device_name;  ///< the preset the prediction used
  const std::optional<core::CalibratedSpeedups>& calibrated;
  double error, error_graph;  ///< the prediction's, eager and against the graph baseline
  double cpu_error, cpu_relative, graph_error;
  bool valid, tf32;
  const std::string& fault;
  int connections;
  const RunData& data;
  const std::optional<core::TestDataComparison>& tested;
};

void print_cuda_run_text(const CudaRunText& v) {
  const core::Graph& graph = v.graph;
  const core::Schedule& schedule = v.schedule;
  const core::RunComparison& c = v.compared;
  const core::RunResult* seq = &c.sequential;
  const core::RunResult* run = &c.scheduled;
  const core::RunResult* seq_graph = c.sequential_graph ? &*c.sequential_graph : nullptr;
  const core::RunResult* run_graph = c.scheduled_graph ? &*c.scheduled_graph : nullptr;
  const auto& calibrated = v.calibrated;
  const auto ms_text = [](const core::RunResult* r) { return r ? core::fixed_text(r->wall_ms, 3) : std::string("-"); };
  std::cout << "model: " << graph.info().model_path << " (" << graph.node_count() << " operators), backend cuda on "
            << run->timeline.device << "\n"
            << "schedule: " << schedule.strategy << " (" << schedule.options << "), " << schedule.stream_count() << " stream(s), "
            << schedule.events.size() << " events\n";
  if (!v.valid)
    std::cout << "INVALID: launches were blocking (CUDA_LAUNCH_BLOCKING=1): every node synchronised, no graph replayed; "
                 "the times below are not the schedule's\n";
  if (!v.fault.empty()) {
    const auto f = fault_json(v.fault);
    std::cout << "fault of the first run" << (f["stage"].get<std::string>().empty() ? "" : " in '" + f["stage"].get<std::string>() + "'")
              << ": " << f["message"].get<std::string>() << "\n";
  }
  std::cout << "                 eager ms   graph ms   (" << median_text(v.ro, c.rounds, false) << ")\n"
            << "sequential:    " << std::setw(10) << core::fixed_text(seq->wall_ms, 3) << " " << std::setw(10) << ms_text(seq_graph) << "\n"
            << "scheduled:     " << std::setw(10) << core::fixed_text(run->wall_ms, 3) << " " << std::setw(10) << ms_text(run_graph) << "\n"
            << "speedup: " << core::fixed_text(c.speedup(), 2) << "x eager, "
            << (run_graph ? core::fixed_text(c.speedup_vs_graph(), 2) + "x" : std::string("-")) << " vs the graph baseline\n"
            << (calibrated ? "predicted (" + v.device_name + ", the sequential run's node times): " +
                                 core::fixed_text(calibrated->eager, 2) + "x eager (error " + core::fixed_text(100 * v.error, 1) +
                                 "%), " + core::fixed_text(calibrated->graph, 2) + "x vs the graph baseline (error " +
                                 core::fixed_text(100 * v.error_graph, 1) + "%)\n"
                           : std::string())
            << "overlapped node pairs (per-node timed run): " << c.overlapped_pairs << "; hardware queues: " << v.connections
            << " (CUDA_DEVICE_MAX_CONNECTIONS)" << (v.tf32 ? "; TF32 on" : "") << "\n"
            << "error vs CPU: " << v.cpu_error << " max abs, " << v.cpu_relative << " relative to the largest output; scheduled vs sequential: "
            << c.diff.max_abs_diff << (c.diff.identical ? " (bit-identical)" : "") << "; graph vs eager: " << v.graph_error << "\n";
  if (run->random_weights > 0)
    std::cout << "weights: " << run->random_weights << " without data in the model's files, seeded random values used\n";
  if (!run->merged_paths.empty()) std::cout << "merged nodes: " << merged_paths_text(*run) << "\n";
  if (v.tested) print_test_data(std::cout, v.data, *v.tested, "cuda");
}

}  // namespace

int run_cuda(Args& args, const ScheduleChoice& choice, const std::string& planner, const core::RunOptions& given_ro, int rounds,
             RunData& data) {
  // The model first: a missing or unreadable file is the user's error (exit 2) on any machine.
  auto model = load_run_model(args, data);
  if (!model) return report("run", model.error());
  const core::Graph& unmerged = *model->graph;
  if (model->fused)
    return report("run", core::make_error(core::ErrorKind::Usage, "fused nodes (--fuse, or a schedule's fusions) run on the CPU backend "
                                                                  "only: the CUDA executor has no fused kernels"));
  core::RunOptions ro = given_ro;
  if (auto ok = prepare_run(args, data, unmerged, ro); !ok) return report("run", ok.error());
  // The CUDA module is loaded here, not at start: which file or library is missing is the error.
  if (auto module = gpu::load_cuda_module(); !module) return report("run", module.error());
  if (auto gpus = gpu::list_gpus(); !gpus) return report("run", gpus.error());
  // Refuse unsupported operators before the CPU reference spends its time.
  if (auto ok = gpu::cuda_check_supported(unmerged); !ok) return report("run", ok.error());
  // With merges (--merge, or recorded in a loaded schedule) the schedule runs on the merged model
  // (a merged node is one launch where its members differ only in their pointers, else its members
  // one after another on its stream) and is compared with the
  // unmerged model's sequential run.
  auto made = obtain_merged_schedule("run", choice, *model, nullptr, planner);
  if (!made) return report("run", made.error());
  const core::Schedule& schedule = made->schedule;
  const core::Graph& graph = made->graph(unmerged);
  const bool merged = made->merged != nullptr;
  if (merged)
    if (auto ok = gpu::cuda_check_supported(graph); !ok) return report("run", ok.error());

  // The device comparison (core::compare_runs): throughput runs (no per-node events) give the
  // wall times, one per-node timed run per schedule the timelines (overlap, trace), the graph
  // executor replays one capture of each, and the CPU reference checks the outputs.
  gpu::CudaRunOptions eager_mode, graph_mode;
  eager_mode.tf32 = graph_mode.tf32 = args.flag("tf32");
  graph_mode.cuda_graph = true;
  auto eager = gpu::make_cuda_executor(eager_mode);
  auto graphed = gpu::make_cuda_executor(graph_mode);
  auto cpu = core::make_cpu_executor();
  core::RunComparisonOptions compare;
  compare.run = ro;
  compare.run.per_node_timing = false;
  compare.rounds = rounds;
  compare.planner = planner;
  compare.timed_runs = true;
  compare.graph_executor = graphed.get();
  compare.check_executor = cpu.get();
  if (merged) compare.reference_graph = &unmerged;
  // With --test-data the GPU's outputs (and the CPU reference's) are checked against each set's.
  std::optional<core::TestDataComparison> tested;
  auto compared = compare_with_data(data, *eager, graph, schedule, compare, tested);
  if (!compared) return cuda_failure(compared.error());
  // A later stage (the timed pair, graph replay, the CPU check) that failed: after a kernel fault
  // the blocking rerun names the node; otherwise what was measured is reported, then the failure.
  if (compared->failure && gpu::cuda_context_faulted() && !gpu::is_blocking_rerun())
    return cuda_failure(compared->failure->error, compared->failure->stage);
  if (auto ok = save_run_outputs(data, graph, *compared); !ok) return report("run", ok.error());
  const double speedup = compared->speedup();
  const double speedup_vs_graph = compared->speedup_vs_graph();
  const std::int64_t overlaps = compared->overlapped_pairs;
  const core::RunResult* seq_graph = compared->sequential_graph ? &*compared->sequential_graph : nullptr;
  const core::RunResult* run_graph = compared->scheduled_graph ? &*compared->scheduled_graph : nullptr;
  const core::RunResult* seq_timed = compared->sequential_timed ? &*compared->sequential_timed : nullptr;
  const core::RunResult* run_timed = compared->scheduled_timed ? &*compared->scheduled_timed : nullptr;
  const double nan = std::nan("");
  const double cpu_error = compared->check ? compared->check_diff.max_abs_diff : nan;
  const double cpu_relative = compared->check ? compared->check_diff.max_rel_diff() : nan;
  const double graph_error = run_graph ? compared->graph_diff.max_abs_diff : nan;
  // Blocking launches (the rerun after a fault, or CUDA_LAUNCH_BLOCKING=1 set by hand) synchronise
  // every node and replay no graph: the times are not the schedule's.
  const bool valid = !gpu::launches_blocking();
  const std::string fault = gpu::rerun_fault();
  // The device's prediction with the cost model given this run's own sequential node times (the
  // per-node timed run's medians): against the measured speedups, what the simulator gets wrong
  // once the kernel times are right. An extra figure: where it cannot be had, the run's own
  // figures still stand (a warning).
  // A merged run's reference ran the unmerged graph, whose node times do not fit it: none then.
  std::optional<core::CalibratedSpeedups> calibrated;
  if (!merged && valid) {
    auto c = core::calibrated_speedups(graph, schedule, model->costs, model->device, *compared);
    if (c) calibrated = *c;
    else std::cerr << "weft run: warning: no calibrated prediction: " << c.error().message << "\n";
  }
  const double error = calibrated && speedup > 0 ? std::abs(calibrated->eager - speedup) / speedup : 0.0;
  const double error_graph =
      calibrated && speedup_vs_graph > 0 ? std::abs(calibrated->graph - speedup_vs_graph) / speedup_vs_graph : 0.0;
  // Hardware queues of this process's CUDA context: streams beyond them share queues.
  const auto runtime = gpu::cuda_runtime_info();
  const int connections = runtime ? runtime->max_connections : 0;

  if (auto trace = args.value("trace")) {
    // A trace names the nodes of one graph: a merged run's trace holds the merged run only.
    std::vector<core::Timeline> runs{compared->sequential_timeline(), compared->scheduled_timeline()};
    if (merged) runs.erase(runs.begin());
    core::TraceInfo info;
    info.device = compared->scheduled_timeline().device;
    info.strategy = schedule.strategy;
    if (auto ok = core::save_chrome_trace(*trace, graph, runs, &model->costs, info); !ok) return report("run", ok.error());
  }

  const auto ms_or_null = [](const core::RunResult* r) { return r ? nlohmann::ordered_json(r->wall_ms) : nlohmann::ordered_json(); };
  if (args.flag("json")) {
    nlohmann::ordered_json j = run_report_json(graph, schedule, "cuda", ro, *compared);
    j["valid"] = valid;
    j["sequential_graph_ms"] = ms_or_null(seq_graph);
    j["schedule_graph_ms"] = ms_or_null(run_graph);
    put_ms(j, "speedup_vs_graph", run_graph ? speedup_vs_graph : nan);
    if (calibrated) {
      j["predicted_speedup"] = calibrated->eager;
      j["predicted_speedup_vs_graph"] = calibrated->graph;
      j["prediction_error"] = error;
      j["prediction_error_vs_graph"] = error_graph;
    }
    j["overlapped_pairs"] = overlaps;
    put_ms(j, "max_abs_error_vs_cpu", cpu_error);
    put_ms(j, "max_rel_error_vs_cpu", cpu_relative);
    put_ms(j, "max_abs_diff_graph_vs_eager", graph_error);
    j["sequential_timed_ms"] = ms_or_null(seq_timed);
    j["schedule_timed_ms"] = ms_or_null(run_timed);
    j["tf32"] = args.flag("tf32");
    j["max_connections"] = connections;
    j["blocking_launches"] = !valid;
    j["blocking_rerun"] = gpu::is_blocking_rerun() && !valid;
    if (!fault.empty()) j["fault"] = fault_json(fault);
    if (compared->failure) {
      j["failed_stage"] = compared->failure->stage;
      j["error"] = compared->failure->error.message;
    }
    if (merged) {
      const std::size_t groups = core::count_merged_nodes(graph);
      j["merge"] = {{"groups", groups}, {"nodes_before", unmerged.node_count()}, {"nodes_after", graph.node_count()}};
    }
    if (tested) add_test_data_json(j, data, *tested, "cuda");
    std::cout << j.dump(2) << "\n";
  } else {
    print_cuda_run_text({graph, schedule, ro, *compared, model->device.name, calibrated, error, error_graph, cpu_error, cpu_relative,
                         graph_error, valid, args.flag("tf32"), fault, connections, data, tested});
  }
  if (schedule.stream_count() > static_cast<std::size_t>(connections))
    std::cerr << "weft run: warning: " << schedule.stream_count() << " streams share " << connections
              << " hardware queues (CUDA_DEVICE_MAX_CONNECTIONS)\n";
  if (compared->failure) {
    std::cerr << "weft run: '" << compared->failure->stage << "' failed; the stages before it are reported above\n";
    return report("run", compared->failure->error);
  }
  if (!fault.empty())
    return report("run", core::make_error(core::ErrorKind::Runtime,
                                          "the first run faulted (" + fault_json(fault)["message"].get<std::string>() +
                                              ") and this rerun with blocking launches did not: its times are not a measurement"));
  return test_data_exit(tested);
}

}  // namespace weft::cli
