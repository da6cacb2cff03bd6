// weft: the command-line front end. Every command is a thin layer over weft_core.
#include <algorithm>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli.h"
#include "weft/build_info.h"
#include "weft/core/cost/device.h"
#include "weft/core/strategy/registry.h"

namespace {

constexpr const char* kUsage = R"(weft: parallel schedules of neural-network graphs

usage: weft COMMAND [ARGS]

commands:
  analyze  MODEL [--split K|auto] [--json]     parallelism of a model: levels, width, critical path, work/span
  advise   MODEL [--batch N] [--split K|auto] [--streams N] [--json]
                                               one line: what to do and what it gains (strategies x launch
                                               modes x micro-batch splits tried), then the evidence
  schedule MODEL --strategy S [SCHEDULE OPTIONS] [--graph] [--merge] [--fuse] [--hybrid] [-o FILE] [--json] | --compare
                                               assign operators to streams; events; ideal makespan
                                               (strategies: listed below)
  schedule MODEL [SCHEDULE OPTIONS] [-o FILE] [--json] [--external-timeout S] --external PROGRAM [ARGS...]
                                               a schedule from another program: graph, costs and
                                               options as JSON on its stdin, schedule JSON on its
                                               stdout (docs/strategy-protocol.md); no shell
  validate MODEL SCHEDULE.json                 check a schedule against a model (exit 0 valid, 2 not)
  plan     MODEL [--schedule F | --strategy S] [--graph] [--merge] [--fuse] [--planner P | --repair PLAN.json] [--json]
  plan     --intervals FILE.csv [--json]       memory plan: arena offsets, bounds, price of concurrency
                                               (--repair: an earlier plan's offsets kept where still
                                               valid for this schedule, the clashing tensors moved)
  simulate MODEL [--schedule F | --strategy S] [--graph] [--merge] [--fuse] [--calibrate T.json] [--trace OUT.json] [--json]
                                               predicted timeline and speedup vs sequential baselines
  run      MODEL --backend cpu|cuda [--schedule F | --strategy S] [--graph] [--tf32] [--merge] [--fuse] [--iterations N] [--rounds R] [--trace OUT.json] [--json]
                                               execute a schedule for real; compare with the sequential run
                                               (--tf32: allow TF32 tensor cores on CUDA)
  run      MODEL [...] [--inputs DIR|FILE.npz] [--save-outputs DIR|FILE.npz] [--save-model FILE.onnx]
                                               on given inputs (input_N.pb or NAME.npy files, or one .npz;
                                               symbolic dims bound from their shapes), outputs saved as
                                               output_N.pb (NAME.npy after .npy inputs, or one .npz); the
                                               model with the run's weights inline for another runtime
  run      MODEL --backend cpu [...] [--threads-per-stream T] [--hybrid] [--kernels library|reference]
                                               each stream a team of T library threads (streams x T within
                                               the CPUs; default 1, or the schedule's); the oneDNN kernels
                                               (default) or the reference kernels alone (docs/operators.md);
                                               --hybrid: the nodes nothing runs beside (a stem, a block's
                                               join) on a team of every core the streams hold (docs/devices.md)
  run      MODEL [...] --test-data DIR [--rtol R] [--atol A]
                                               ONNX test data (a test_data_set_N folder or a folder of them):
                                               every output of the reference and the schedule (on CUDA also
                                               the CPU's) checked; default tolerance the ONNX backend tests'
                                               (rtol 1e-3, atol 1e-7) or the folder's data.json; exit 5 on a
                                               mismatch (docs/inputs-and-test-data.md)
  layers   MODEL [--wires F | --schedule F | --strategy S] [--fuse] [--json]
                                               wire layering by the head rule; horizontal merges
                                               (one launch per layer's equal operators); --merge in
                                               schedule/plan/simulate/run runs them merged (a saved schedule
                                               records its merges and reloads them); --fuse fuses each Conv
                                               with the Relu/Clip/LeakyRelu/residual Add after it (one node,
                                               oneDNN post-ops), before any merge
  sweep    MODEL --batches 1,2,4,... [--strategies S,...] [--backend cpu|cuda] [--batch-dim NAME]
           [--graph] [--threads-per-stream T] [--hybrid] [--csv F] [--png F] [--json]
                                               speedup per strategy against batch size (predicted;
                                               measured too with --backend); table, CSV, chart;
                                               --hybrid (--backend cpu, or a CPU --device): each
                                               schedule with run --hybrid's teams (docs/devices.md)
  sweep    --merge A.csv B.csv ... [--csv F] [--png F]
                                               join sweep points run elsewhere (job arrays)
  calibrate MODEL [--backend cpu] [-o DEVICE.json] [--cores N] [--name N] [--iterations N] [--threads-per-stream T] [--json]
                                               fit a CPU device to a sequential CPU run (per-node
                                               times) at every team size (or T); use the file as
                                               --device DEVICE.json (search and advise then choose
                                               the threads per stream too)
  calibrate --backend cuda [--device PRESET] [--gpu N] [--kernels N] [-o DEVICE.json] [--name N] [--json]
                                               measure the GPU's launch, kernel-floor, graph-release
                                               and event costs with empty kernels: PRESET with them
  frontier MODEL [--graph] [--split K|auto] [--merge] [--fuse] [--caps 1,2,4,8] [--levels N] [--all] [--csv FILE|-] [--svg FILE] [--png FILE] [--json]
                                               Pareto front of predicted time against arena bytes
                                               over strategies, stream caps and memory budgets
  profile  MODEL PROFILE.json [--json]        a measured profile (ONNX Runtime profiler JSON, PyTorch
                                               profiler or Weft Chrome trace) mapped onto the model:
                                               replay error first, then what matched how
                                               (docs/profiles.md)
  calibrate MODEL --profile PROFILE.json [--device PRESET] [-o DEVICE.json] [--name N] [--json]
                                               fit PRESET to a measured profile: per operator family
                                               efficiency, launch and gap cost
  devices                                      list CUDA GPUs, the NVIDIA libraries in use and device presets
  help                                         this text

schedule options (with --strategy S; schedule/plan/simulate/run):
  --streams N        cap on streams (default 8, the hardware work queues)
  --granularity US   operators shorter than US stay on a producer's stream (default: two event
                     costs of the device for eager launches, 0 with --graph: CUDA Graph replay)
  --memory-budget B  fit the schedule (strategy or file) to an arena of B bytes (4MiB, 4MB, ...)
                     by ordering live ranges or merging streams; says what it cost in predicted
                     time; exit 2 when even the sequential order does not fit
  --budget-ms MS     search: wall-time budget (default 2000; the best schedule so far is kept)
  --search-evals N   search: stop after N simulated candidates (alone: no time limit, so the
                     result depends only on the seed)
  --search-seed S    search: random seed (default 1)
  --split K|auto     split the batch into K micro-batches (auto: the K in 1, 2, 4, 8 that predicts
                     fastest with split-overlap, 1 where splitting does not pay); a saved split
                     schedule records K and reloads onto the model split the same way

measured times (analyze, advise, schedule, simulate, plan, sweep, frontier):
  --profile FILE     a profile of the model (see 'weft profile'): its measured node times replace
                     the predictions node by node (sweep: at the profiled batch, every batch on the
                     device fitted to it); exit 2 for a profile of another model, malformed or
                     truncated JSON, or one without node events

model options (every command that takes MODEL):
  --dim NAME=VALUE   bind a symbolic dimension (repeatable); INPUT:AXIS=VALUE binds one dim by position
  --no-fold          do not fold constant subgraphs at import
  --batch N          re-batch: dim 0 of every graph input set to N (static or not), shapes inferred again
  --device NAME      device preset for the cost model (see 'weft devices'), or a device file
                     (a path with '/' or ending in .json, e.g. from 'weft calibrate')

exit codes: 0 ok, 1 usage, 2 invalid input, 3 device or runtime, 4 internal, 5 outputs differ from the test data
)";

void print_usage(std::ostream& out) {
  out << kUsage << "\nstrategies (--strategy S):\n";
  for (const weft::core::StrategyInfo& s : weft::core::strategy_list()) {
    std::string name = "  " + s.name;
    name.resize(std::max<std::size_t>(name.size() + 2, 18), ' ');
    out << name << s.description << "\n";
  }
}

/// The version and what this build contains (weft/build_info.h), and where assets are read from.
void print_version(std::ostream& out) {
  namespace b = weft::build;
  auto built = [](bool yes, std::string_view what) { return yes ? "built (" + std::string(what) + ")" : std::string("not built"); };
  out << "weft " << b::kVersion << " (" << b::kBuildType << ", " << b::kCompiler << ")\n"
      << "  CUDA module:   "
      << built(b::kCudaModule, "CUDA " + std::string(b::kCudaVersion) + ", cuDNN " + std::string(b::kCudnnVersion))
      << (b::kCudaModule ? "; 'weft devices' loads it and lists the GPUs" : "") << "\n"
      << "  studio:        " << built(b::kStudio, "Qt " + std::string(b::kQtVersion)) << "\n"
      << "  Python module: " << built(b::kPythonModule, "Python " + std::string(b::kPythonVersion)) << "\n"
      << "  ONNX " << b::kOnnxVersion << ", protobuf " << b::kProtobufVersion << ", BLAS " << b::kBlas << "\n"
      << "  assets:        " << weft::core::assets_dir() << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> rest(argv + (argc > 1 ? 2 : 1), argv + argc);
  const std::string command = argc > 1 ? argv[1] : "help";
  weft::cli::Args args(std::move(rest));
  try {
    if (command == "help" || command == "--help" || command == "-h") {
      print_usage(std::cout);
      return 0;
    }
    if (command == "--version" || command == "version") {
      print_version(std::cout);
      return 0;
    }
    if (command == "analyze") return weft::cli::cmd_analyze(args);
    if (command == "advise") return weft::cli::cmd_advise(args);
    if (command == "schedule") return weft::cli::cmd_schedule(args);
    if (command == "validate") return weft::cli::cmd_validate(args);
    if (command == "plan") return weft::cli::cmd_plan(args);
    if (command == "simulate") return weft::cli::cmd_simulate(args);
    if (command == "run") return weft::cli::cmd_run(args);
    if (command == "layers") return weft::cli::cmd_layers(args);
    if (command == "sweep") return weft::cli::cmd_sweep(args);
    if (command == "calibrate") return weft::cli::cmd_calibrate(args);
    if (command == "frontier") return weft::cli::cmd_frontier(args);
    if (command == "devices") return weft::cli::cmd_devices(args);
    if (command == "profile") return weft::cli::cmd_profile(args);
  } catch (const std::exception& e) {
    // Exceptions are not part of any module's contract; one reaching here is a bug.
    std::cerr << "weft " << command << ": internal error: " << e.what() << "\n";
    return 4;
  }
  std::cerr << "weft: unknown command '" << command << "'\n";
  print_usage(std::cerr);
  return 1;
}
