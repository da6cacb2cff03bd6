// `weft run`: execute a schedule for real (CPU reference executor) and compare it with the
// sequential run: median wall times, speedup, max abs difference of outputs, arenas, trace.
#include <algorithm>
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
#include "weft/core/memory/memory_planner.h"
#include "weft/core/schedule/node_teams.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/cpu_calibration.h"
#include "weft/core/strategy/reference.h"
#include "weft/core/study/run_comparison.h"
#include "weft/core/base/text_format.h"

namespace weft::cli {
namespace {

/// What `weft run --backend cpu` reports: the schedule, how it was made, the runs compared, the
/// prediction (or why there is none), the budget fit and the test data.
struct CpuRunReport {
  const core::Graph& graph;     ///< the graph the schedule ran on (merged where --merge merged)
  const core::Graph& unmerged;  ///< the model as imported
  const core::Schedule& schedule;
  const ObtainedSchedule& obtained;
  const core::RunOptions& ro;
  const core::RunComparison& compared;
  const core::DeviceSpec& device;  ///< the device the schedule was made for
  const std::string& made_for;
  const std::optional<core::CpuRunPrediction>& predicted;
  const std::string& unpredicted;  ///< why there is no prediction
  const std::optional<core::BudgetFit>& fit;
  const RunData& data;
  const std::optional<core::TestDataComparison>& tested;
};

void print_cpu_run_json(const CpuRunReport& r) {
  const core::Graph& graph = r.graph;
  const core::Schedule& schedule = r.schedule;
  const auto& predicted = r.predicted;
  nlohmann::ordered_json j = run_report_json(graph, schedule, "cpu", r.ro, r.compared);
  j["schedule_device"] = r.device.name;
  j["schedule_device_kind"] = std::string(core::device_kind_name(r.device.kind));
  j["schedule_made_for"] = r.made_for;
  if (predicted) {
    j["predicted_speedup"] = predicted->predicted;
    j["prediction_error"] = predicted->error;
    j["predicted_speedup_fitted"] = predicted->predicted_fitted;
    j["cpu_cores"] = predicted->device.sm_count;
    j["latch_us"] = predicted->device.event_wait_us;
    j["concurrent_slowdown"] = predicted->device.concurrent_slowdown;
    j["concurrent_slowdown_memory"] = predicted->device.concurrent_slowdown_memory;
    j["cross_core_us_per_mib"] = predicted->device.cross_core_us_per_mib;
  } else {
    j["predicted_speedup"] = nullptr;
    j["prediction_unavailable"] = r.unpredicted;
  }
  if (r.obtained.merged && core::count_merged_nodes(graph) > 0)
    j["merge"] = {{"groups", core::count_merged_nodes(graph)}, {"nodes_before", r.unmerged.node_count()}, {"nodes_after", graph.node_count()}};
  if (r.obtained.merged && core::count_fused_nodes(graph) > 0)
    j["fusion"] = {{"chains", core::count_fused_nodes(graph)}, {"nodes_before", r.unmerged.node_count()}, {"nodes_after", graph.node_count()}};
  if (r.fit) j["memory_budget"] = budget_json(*r.fit);
  if (r.tested) add_test_data_json(j, r.data, *r.tested, "cpu");
  j["kernels"] = cpu_kernels_json(r.compared.scheduled);
  const core::NodeTeamCount teams = core::count_node_teams(schedule);
  j["node_teams"] = {{"nodes", teams.nodes}, {"threads", teams.threads}, {"summary", core::node_teams_text(schedule, graph.node_count())}};
  std::cout << j.dump(2) << "\n";
}

void print_cpu_run_text(const CpuRunReport& r) {
  const core::Graph& graph = r.graph;
  const core::Schedule& schedule = r.schedule;
  const core::RunOptions& ro = r.ro;
  const auto& predicted = r.predicted;
  const core::RunResult* seq = &r.compared.sequential;
  const core::RunResult* run = &r.compared.scheduled;
  const int cpus = core::cpu_count();
  std::cout << "model: " << graph.info().model_path << " (" << graph.node_count() << " operators), backend cpu, " << cpus
            << " CPUs\n"
            << "schedule: " << schedule.strategy << " (" << schedule.options << "), " << schedule.stream_count()
            << " stream(s)" << (ro.threads_per_stream > 1 ? " of " + std::to_string(ro.threads_per_stream) + " threads" : std::string())
            << (schedule.stream_count() * static_cast<std::size_t>(ro.threads_per_stream) > static_cast<std::size_t>(cpus)
                    ? " taken in turn by " + std::to_string(std::max(cpus / ro.threads_per_stream, 1)) +
                          (ro.threads_per_stream > 1 ? " teams" : " threads")
                    : std::string())
            << ", " << schedule.events.size() << " events, made for " << r.made_for << "\n"
            << (schedule.has_node_teams() ? core::node_teams_text(schedule, graph.node_count()) + "\n" : std::string())
            << (r.obtained.merged ? core::transformed_word(graph) + ": " + std::to_string(r.unmerged.node_count()) + " -> " +
                                       std::to_string(graph.node_count()) + " operators; sequential is the " +
                                       (core::count_fused_nodes(graph) > 0 ? "unfused" : "unmerged") + " model\n"
                                 : std::string())
            << "sequential: " << core::fixed_text(seq->wall_ms, 2) << " ms (" << median_text(ro, r.compared.rounds, true) << "), arena " << core::mib_text(seq->arena_bytes) << "\n"
            << "scheduled:  " << core::fixed_text(run->wall_ms, 2) << " ms, arena " << core::mib_text(run->arena_bytes) << " (" << r.compared.plan.planner
            << " planner)\n"
            << "speedup: " << core::fixed_text(r.compared.speedup(), 2) << "x measured"
            << (predicted ? ", " + core::fixed_text(predicted->predicted, 2) +
                                "x predicted (cpu device from the sequential run's node times, " +
                                core::fixed_text(predicted->device.concurrent_slowdown, 2) + "x slower with every core busy, memory-bound ones " +
                                core::fixed_text(predicted->device.concurrent_slowdown_memory, 2) + "x" +
                                (predicted->device.cross_core_us_per_mib > 0
                                     ? ", " + core::fixed_text(predicted->device.cross_core_us_per_mib, 1) + " µs per MiB read across cores"
                                     : std::string()) +
                                "; error " +
                                core::fixed_text(100 * predicted->error, 1) + "%), " + core::fixed_text(predicted->predicted_fitted, 2) +
                                "x from the fitted device alone"
                          : ", no prediction (" + r.unpredicted + ")")
            << "\n"
            << "max abs diff vs sequential: " << r.compared.diff.max_abs_diff << (r.compared.diff.identical ? " (bit-identical)" : "") << "\n";
  if (r.fit) std::cout << budget_line(*r.fit) << "\n";
  if (run->random_weights > 0)
    std::cout << "weights: " << run->random_weights << " without data in the model's files, seeded random values used\n";
  if (!run->merged_paths.empty()) std::cout << "merged nodes: " << merged_paths_text(*run) << "\n";
  std::cout << "kernels: " << core::kernel_paths_text(*run) << "\n";
  if (r.tested) print_test_data(std::cout, r.data, *r.tested, "cpu");
}

}  // namespace

int run_cuda(Args& args, const ScheduleChoice& choice, const std::string& planner, const core::RunOptions& ro, int rounds,
             RunData& data);

int cmd_run(Args& args) {
  if (auto ok = args.parse({"backend=", "schedule=", "strategy=", "streams=", "granularity=", "memory-budget=", "planner=", "iterations=", "warmup=", "rounds=", "seed=",
                            "trace=", "json", "graph", "tf32", "merge", "fuse", "threads-per-stream=", "kernels=", "hybrid",
                            "inputs=", "test-data=", "save-outputs=", "save-model=", "rtol=", "atol="},
                           true);
      !ok)
    return usage_error("run", ok.error().message);
  const std::string backend = args.value("backend").value_or("cpu");
  if (backend != "cpu" && backend != "cuda") return usage_error("run", "--backend must be cpu or cuda, got '" + backend + "'");
  if (args.flag("graph") && backend != "cuda") return usage_error("run", "--graph needs --backend cuda");
  if (args.flag("tf32") && backend != "cuda") return usage_error("run", "--tf32 needs --backend cuda");
  auto choice = schedule_choice(args, "cp-list", args.flag("graph"));
  if (!choice) return usage_error("run", choice.error().message);
  auto iterations = args.int_value("iterations");
  auto warmup = args.int_value("warmup");
  auto rounds = args.int_value("rounds");
  auto seed = args.int_value("seed");
  for (const auto* v : {&iterations, &warmup, &rounds, &seed})
    if (!*v) return usage_error("run", v->error().message);
  // The reference and the schedule alternate in rounds (core::RunComparisonOptions::rounds); the
  // defaults and the checks are core's, as in the studio and Python.
  const auto count = [](const std::optional<std::int64_t>& v, int fallback) {
    return v ? static_cast<int>(std::clamp<std::int64_t>(*v, -1, 1 << 30)) : fallback;
  };
  const int round_count = count(*rounds, core::kDefaultRunRounds);
  core::RunOptions ro;
  ro.iterations = count(*iterations, core::kDefaultRunIterations);
  ro.warmup = count(*warmup, core::kDefaultRunWarmup);
  if (auto ok = core::check_run_counts(ro.iterations, ro.warmup, round_count); !ok) return usage_error("run", ok.error().message);
  // No --planner: every planner, the smallest arena (the studies' default planning).
  const std::string planner = args.value("planner").value_or(std::string(core::kReferencePlanner));
  if (!planner.empty())
    if (auto ok = core::check_planner(planner); !ok) return usage_error("run", ok.error().message);

  if (*seed) ro.seed = static_cast<std::uint64_t>(**seed);
  for (const char* cpu_only : {"threads-per-stream", "kernels"})
    if (args.value(cpu_only) && backend != "cpu") return usage_error("run", std::string("--") + cpu_only + " needs --backend cpu");
  if (args.flag("hybrid") && backend != "cpu") return usage_error("run", "--hybrid needs --backend cpu");
  // --inputs, --test-data, --save-outputs, --save-model (run_data.cpp).
  auto data = run_data(args);
  if (!data) return report("run", data.error());
  if (backend == "cuda") return run_cuda(args, *choice, planner, ro, round_count, *data);  // cmd_run_cuda.cpp
  if (auto threads = cpu_threads_option(args, "run"); !threads) return usage_error("run", threads.error().message);
  else ro.threads_per_stream = *threads;
  if (auto kernels = args.value("kernels")) {
    if (*kernels != "library" && *kernels != "reference") return usage_error("run", "--kernels must be library or reference, got '" + *kernels + "'");
    ro.kernels = *kernels == "reference" ? core::KernelSet::Reference : core::KernelSet::Library;
  }

  auto model = load_run_model(args, *data);
  if (!model) return report("run", model.error());
  const core::Graph& unmerged = *model->graph;
  if (auto ok = prepare_run(args, *data, unmerged, ro); !ok) return report("run", ok.error());

  // The schedule is made for the machine that runs it: a strategy's schedule for the CPU device
  // calibrated from a short sequential run (its latch decides the granularity), unless --device
  // names one; a saved schedule runs as saved.
  const core::DeviceSpec* device = &model->device;
  const core::CostTable* costs = &model->scheduled_costs();
  std::optional<core::CpuScheduleDevice> cpu;
  std::string made_for;
  if (choice->file) {
    made_for = "the saved schedule " + *choice->file;
  } else if (args.value("device")) {
    made_for = model->device.name + " (--device " + *args.value("device") + ")";
  } else {
    // The graph the schedule runs on: the merged model's where --merge merged it.
    auto calibrated = core::cpu_schedule_device(model->scheduled_graph(), ro, static_cast<std::size_t>(choice->options.max_streams));
    if (!calibrated) return report("run", calibrated.error());
    cpu = std::move(*calibrated);
    device = &cpu->device;
    costs = &cpu->costs;
    made_for = cpu->summary;
  }
  if (!choice->file && args.value("granularity")) made_for += ", granularity " + *args.value("granularity") + " us as given";

  std::optional<core::BudgetFit> fit;
  auto obtained = obtain_merged_schedule("run", *choice, *model, &fit, planner, core::reference_plan_options(), costs, device);
  if (!obtained) return report("run", obtained.error());
  const core::Schedule& schedule = obtained->schedule;
  const core::Graph& graph = obtained->graph(unmerged);
  // A schedule made for streams of several threads (a saved one, or search on a CPU calibrated at
  // several team sizes) runs so, unless --threads-per-stream says otherwise.
  if (auto threads = core::cpu_run_threads(args.value("threads-per-stream") ? ro.threads_per_stream : 0, schedule); !threads)
    return report("run", threads.error());
  else
    ro.threads_per_stream = *threads;
  // --hybrid: the nodes that run alone on a team of every core the streams hold. Where the node
  // times are a CPU's (the calibrated one's, or a CPU --device's), the nodes too short for a team
  // stay on their stream's.
  if (args.flag("hybrid"))
    if (auto ok = core::make_hybrid_for_cpu(graph, obtained->schedule, ro.threads_per_stream, *device, *costs); !ok)
      return report("run", ok.error());

  // The run comparison: the reference and the schedule on the CPU executor, outputs compared. A
  // merged schedule is compared with the unmerged model's sequential run.
  auto executor = core::make_cpu_executor();
  core::RunComparisonOptions compare;
  compare.run = ro;
  compare.rounds = round_count;
  compare.planner = planner;
  if (obtained->merged) compare.reference_graph = &unmerged;
  std::optional<core::TestDataComparison> tested;  // with --test-data
  auto compared = compare_with_data(*data, *executor, graph, schedule, compare, tested);
  if (!compared) return report("run", compared.error());
  if (auto ok = save_run_outputs(*data, graph, *compared); !ok) return report("run", ok.error());
  core::RunResult* seq = &compared->sequential;
  core::RunResult* run = &compared->scheduled;
  const bool identical = compared->diff.identical;

  // The prediction for the same schedule on the CPU device calibrated from the sequential run
  // (core::predict_cpu_run, as the studio's Run on CPU). An extra: where it cannot be made, the
  // measurement stands and the reason is given. A merged run's reference ran another graph, whose
  // node times do not fit it: no prediction then.
  std::optional<core::CpuRunPrediction> predicted;
  std::string unpredicted;
  if (obtained->merged) {
    unpredicted = "the reference ran the unmerged model, whose node times do not fit the merged one";
  } else if (auto p = core::predict_cpu_run(graph, schedule, *compared, ro)) {
    predicted = std::move(*p);
  } else {
    unpredicted = p.error().message;
  }

  if (auto trace = args.value("trace")) {
    // A trace names the nodes of one graph: a merged run's trace holds the merged run only.
    std::vector<core::Timeline> runs{seq->timeline, run->timeline};
    if (obtained->merged) runs.erase(runs.begin());
    core::TraceInfo info;
    info.device = "cpu";
    info.strategy = schedule.strategy;
    if (auto ok = core::save_chrome_trace(*trace, graph, runs, &obtained->costs(model->costs), info); !ok) return report("run", ok.error());
  }

  const CpuRunReport report_of_run{graph,    unmerged,  schedule,    *obtained, ro,    *compared, *device,
                                   made_for, predicted, unpredicted, fit,       *data, tested};
  if (args.flag("json")) print_cpu_run_json(report_of_run);
  else print_cpu_run_text(report_of_run);
  if (!identical) {
    // The reference executor promises bit-identical outputs for every valid schedule.
    return report("run", core::make_error(core::ErrorKind::Internal, "the scheduled outputs differ from the sequential run"));
  }
  return test_data_exit(tested);
}

}  // namespace weft::cli
