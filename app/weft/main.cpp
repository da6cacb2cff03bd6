// weft: the command-line front end. Every command is a thin layer over weft_core.
#include <algorithm>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli.h"
#include "weft/core/strategy.h"

namespace {

constexpr const char* kUsage = R"(weft: parallel schedules of neural-network graphs

usage: weft COMMAND [ARGS]

commands:
  analyze  MODEL [--json]                      parallelism of a model: levels, width, critical path, work/span
  schedule MODEL --strategy S [SCHEDULE OPTIONS] [--graph] [-o FILE] [--json] | --compare
                                               assign operators to streams; events; ideal makespan
                                               (strategies: listed below)
  schedule MODEL [SCHEDULE OPTIONS] [-o FILE] [--json] [--external-timeout S] --external PROGRAM [ARGS...]
                                               a schedule from another program: graph, costs and
                                               options as JSON on its stdin, schedule JSON on its
                                               stdout (docs/strategy-protocol.md); no shell
  validate MODEL SCHEDULE.json                 check a schedule against a model (exit 0 valid, 2 not)
  plan     MODEL [--schedule F | --strategy S] [--graph] [--planner P] [--json]
  plan     --intervals FILE.csv [--json]       memory plan: arena offsets, bounds, price of concurrency
  simulate MODEL [--schedule F | --strategy S] [--graph] [--calibrate T.json] [--trace OUT.json] [--json]
                                               predicted timeline and speedup vs sequential baselines
  run      MODEL --backend cpu|cuda [--schedule F | --strategy S] [--graph] [--tf32] [--iterations N] [--trace OUT.json] [--json]
                                               execute a schedule for real; compare with the sequential run
                                               (--tf32: allow TF32 tensor cores on CUDA)
  layers   MODEL [--wires F | --schedule F | --strategy S] [--json]
                                               wire layering by the head rule; horizontal merges
                                               (one launch per layer's equal operators)
  frontier MODEL [--graph] [--caps 1,2,4,8] [--levels N] [--all] [--csv FILE|-] [--svg FILE] [--json]
                                               Pareto front of predicted time against arena bytes
                                               over strategies, stream caps and memory budgets
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

model options (every command that takes MODEL):
  --dim NAME=VALUE   bind a symbolic dimension (repeatable); INPUT:AXIS=VALUE binds one dim by position
  --no-fold          do not fold constant subgraphs at import
  --device NAME      device preset for the cost model (see 'weft devices')

exit codes: 0 ok, 1 usage, 2 invalid input, 3 device or runtime, 4 internal
)";

void print_usage(std::ostream& out) {
  out << kUsage << "\nstrategies (--strategy S):\n";
  for (const weft::core::StrategyInfo& s : weft::core::strategy_list()) {
    std::string name = "  " + s.name;
    name.resize(std::max<std::size_t>(name.size() + 2, 18), ' ');
    out << name << s.description << "\n";
  }
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
      std::cout << "weft 0.1.0\n";
      return 0;
    }
    if (command == "analyze") return weft::cli::cmd_analyze(args);
    if (command == "schedule") return weft::cli::cmd_schedule(args);
    if (command == "validate") return weft::cli::cmd_validate(args);
    if (command == "plan") return weft::cli::cmd_plan(args);
    if (command == "simulate") return weft::cli::cmd_simulate(args);
    if (command == "run") return weft::cli::cmd_run(args);
    if (command == "layers") return weft::cli::cmd_layers(args);
    if (command == "frontier") return weft::cli::cmd_frontier(args);
    if (command == "devices") return weft::cli::cmd_devices(args);
  } catch (const std::exception& e) {
    // Exceptions are not part of any module's contract; one reaching here is a bug.
    std::cerr << "weft " << command << ": internal error: " << e.what() << "\n";
    return 4;
  }
  std::cerr << "weft: unknown command '" << command << "'\n";
  print_usage(std::cerr);
  return 1;
}
