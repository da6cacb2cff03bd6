// `weft sweep`: predicted (and, with --backend cpu|cuda, measured) speedup per strategy against batch
// size, as a table, a CSV and a PNG chart; `--merge` joins the CSVs of points run elsewhere.
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>


#include "cli.h"
#include "weft/core/study/run_comparison.h"
#include "sweep_chart.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/base/file_io.h"
#include "weft/core/study/batch_sweep.h"
#include "weft/core/base/text_format.h"
#include "weft/gpu/cuda_executor.h"
#include "weft/gpu/devices.h"

namespace weft::cli {
namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

void print_sweep_table(std::ostream& out, const std::vector<core::SweepPoint>& points) {
  std::vector<std::string> strategies;
  std::vector<std::int64_t> batches;
  bool measured = false;
  for (const core::SweepPoint& p : points) {
    if (std::find(strategies.begin(), strategies.end(), p.strategy) == strategies.end()) strategies.push_back(p.strategy);
    if (std::find(batches.begin(), batches.end(), p.batch) == batches.end()) batches.push_back(p.batch);
    measured = measured || p.measured_speedup.has_value();
  }
  std::sort(batches.begin(), batches.end());
  const int width = measured ? 18 : 10;
  out << std::left << std::setw(8) << "batch";
  for (const std::string& s : strategies) out << std::right << std::setw(std::max<int>(width, static_cast<int>(s.size()) + 2)) << s;
  out << "\n";
  for (std::int64_t b : batches) {
    out << std::left << std::setw(8) << b;
    for (const std::string& s : strategies) {
      std::string cell = "-";
      for (const core::SweepPoint& p : points)
        if (p.batch == b && p.strategy == s) {
          cell = core::fixed_text(p.predicted_speedup, 2) + "x";
          if (p.measured_speedup) cell += " / " + core::fixed_text(*p.measured_speedup, 2) + "x";
        }
      out << std::right << std::setw(std::max<int>(width, static_cast<int>(s.size()) + 2)) << cell;
    }
    out << "\n";
  }
  out << (measured ? "predicted / measured speedup over the reference schedule\n"
                   : "predicted speedup over the reference schedule\n");
  // --hybrid: how many nodes each point put on a wide team.
  std::size_t fewest = 0, most = 0;
  int threads = 0;
  for (const core::SweepPoint& p : points) {
    if (p.hybrid_nodes == 0) continue;
    fewest = fewest == 0 ? p.hybrid_nodes : std::min(fewest, p.hybrid_nodes);
    most = std::max(most, p.hybrid_nodes);
    threads = std::max(threads, p.hybrid_threads);
  }
  if (most > 0)
    out << "hybrid: " << fewest << (most > fewest ? "-" + std::to_string(most) : std::string()) << " nodes per point run alone on teams of "
        << threads << " threads" << (measured ? " (the reference runs them so too)" : "") << "\n";
}

std::string chart_title(const std::vector<core::SweepPoint>& points) {
  if (points.empty()) return "weft sweep";
  const std::string model = std::filesystem::path(points.front().model).stem().string();
  const core::SweepPoint& p = points.front();
  return model + " on " + p.device + (p.mode == p.device ? std::string() : " (" + p.mode + ")");
}

int write_outputs(Args& args, const std::vector<core::SweepPoint>& points) {
  if (auto csv = args.value("csv"))
    if (auto ok = core::write_file_atomic(*csv, core::sweep_csv(points)); !ok) return report("sweep", ok.error());
  if (auto png = args.value("png")) {
    auto bytes = render_chart(sweep_chart(points, chart_title(points)), ChartFormat::Png);
    if (!bytes) return report("sweep", bytes.error());
    if (auto ok = core::write_file_atomic(*png, *bytes); !ok) return report("sweep", ok.error());
  }
  if (args.flag("json")) {
    std::cout << core::sweep_json(points) << "\n";
  } else {
    print_sweep_table(std::cout, points);
  }
  return 0;
}

}  // namespace

int cmd_sweep(Args& args) {
  if (auto ok = args.parse({"batches=", "strategies=", "batch-dim=", "backend=", "graph", "streams=", "granularity=",
                            "budget-ms=", "search-evals=", "search-seed=", "iterations=", "warmup=", "csv=", "png=",
                            "json", "merge", "threads-per-stream=", "profile=", "hybrid"},
                           true);
      !ok)
    return usage_error("sweep", ok.error().message);

  if (args.flag("merge")) {
    // Points run elsewhere (one CSV each, e.g. from a job array) joined into one table and chart.
    if (args.positional().empty()) return usage_error("sweep", "--merge needs the CSV files to join");
    if (args.value("batches") || args.value("backend") || args.flag("hybrid"))
      return usage_error("sweep", "--merge joins CSV files; --batches, --backend and --hybrid do not apply");
    std::vector<core::SweepPoint> all;
    for (const std::string& file : args.positional()) {
      auto text = core::read_file(file);
      if (!text) return report("sweep", core::make_error(core::ErrorKind::InvalidInput, text.error().message));
      auto points = core::sweep_from_csv(*text, file);
      if (!points) return report("sweep", points.error());
      all.insert(all.end(), points->begin(), points->end());
    }
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.batch < b.batch; });
    return write_outputs(args, all);
  }

  if (args.positional().size() != 1) return usage_error("sweep", "expected one MODEL");
  const auto batches_text = args.value("batches");
  if (!batches_text) return usage_error("sweep", "missing --batches (e.g. --batches 1,2,4,8)");
  core::SweepOptions options;
  for (const std::string& b : split_list(*batches_text)) {
    std::int64_t v = 0;
    try {
      std::size_t used = 0;
      v = std::stoll(b, &used);
      if (used != b.size() || v <= 0) throw std::invalid_argument(b);
    } catch (const std::exception&) {
      return usage_error("sweep", "--batches takes positive integers separated by commas, got '" + b + "'");
    }
    if (std::find(options.batches.begin(), options.batches.end(), v) == options.batches.end()) options.batches.push_back(v);
  }
  if (options.batches.empty()) return usage_error("sweep", "--batches is empty");
  std::sort(options.batches.begin(), options.batches.end());
  if (auto s = args.value("strategies")) options.strategies = split_list(*s);
  options.batch_dim = args.value("batch-dim").value_or("");
  const std::string backend = args.value("backend").value_or("");
  if (!backend.empty() && backend != "cpu" && backend != "cuda")
    return usage_error("sweep", "--backend must be cpu or cuda, got '" + backend + "'");
  if (backend == "cpu" && args.flag("graph")) return usage_error("sweep", "--graph is a CUDA launch mode; it does not apply to --backend cpu");
  if (backend == "cuda" && args.flag("hybrid")) return usage_error("sweep", "--hybrid needs --backend cpu (hybrid teams are a CPU's), not cuda");
  if (auto profile = args.value("profile")) {
    if (!backend.empty()) return usage_error("sweep", "--profile predicts from measured times; it does not apply with --backend");
    options.profile = *profile;
  }
  auto choice = schedule_choice(args, "cp-list", args.flag("graph"));
  if (!choice) return usage_error("sweep", choice.error().message);
  options.strategy = choice->options;
  for (const std::string& s : options.strategies)
    if (auto ok = core::check_strategy(s, options.strategy); !ok) return usage_error("sweep", ok.error().message);
  options.mode = args.flag("graph") ? core::LaunchMode::Graph : core::LaunchMode::Eager;
  auto io = import_options(args);
  if (!io) return report("sweep", io.error());
  options.import = *io;
  auto device = load_device_option(args);
  if (!device) return report("sweep", device.error());
  options.device = *device;
  // Predicted only, hybrid teams need a CPU device (one `weft calibrate` wrote, with its team sizes).
  if (args.flag("hybrid") && backend.empty() && options.device.kind != core::DeviceKind::Cpu)
    return usage_error("sweep", "--hybrid needs --backend cpu or a CPU --device (hybrid teams are a CPU's), not " + options.device.name);
  options.hybrid = args.flag("hybrid");
  auto iterations = args.int_value("iterations");
  auto warmup = args.int_value("warmup");
  for (const auto* v : {&iterations, &warmup})
    if (!*v) return usage_error("sweep", v->error().message);
  // A sweep runs every point: fewer iterations by default than one run; the checks are core's.
  options.run.iterations = *iterations ? static_cast<int>(std::clamp<std::int64_t>(**iterations, -1, 1 << 30)) : 3;
  options.run.warmup = *warmup ? static_cast<int>(std::clamp<std::int64_t>(**warmup, -1, 1 << 30)) : core::kDefaultRunWarmup;
  if (auto ok = core::check_run_counts(options.run.iterations, options.run.warmup, 1); !ok) return usage_error("sweep", ok.error().message);
  if (args.value("threads-per-stream") && backend != "cpu") return usage_error("sweep", "--threads-per-stream needs --backend cpu");
  auto threads = cpu_threads_option(args, "sweep");
  if (!threads) return usage_error("sweep", threads.error().message);
  options.run.threads_per_stream = *threads;

  const std::string& model = args.positional()[0];
  if (auto bytes = core::read_file(model); !bytes)
    return report("sweep", core::make_error(core::ErrorKind::InvalidInput, bytes.error().message));
  std::unique_ptr<core::Executor> executor;
  if (backend == "cpu") {
    executor = core::make_cpu_executor();
    options.executor = executor.get();
  } else if (backend == "cuda") {
    // The device preset predicts; each point runs eager or, with --graph, replayed as a CUDA Graph,
    // and its speedup is over the sequential run launched the same way. No per-node events: they
    // would slow the runs being timed.
    if (auto module = gpu::load_cuda_module(); !module) return report("sweep", module.error());
    if (auto gpus = gpu::list_gpus(); !gpus) return report("sweep", gpus.error());
    gpu::CudaRunOptions mode;
    mode.cuda_graph = args.flag("graph");
    executor = gpu::make_cuda_executor(mode);
    options.executor = executor.get();
    options.calibrate_cpu = false;
    options.output_tolerance = core::kSweepOutputTolerance;
    options.run.per_node_timing = false;
  }
  options.on_note = [](const std::string& text) { std::cerr << "weft sweep: note: " << text << "\n"; };
  auto points = core::sweep(model, options);
  if (!points) return report("sweep", points.error());
  return write_outputs(args, *points);
}

}  // namespace weft::cli
