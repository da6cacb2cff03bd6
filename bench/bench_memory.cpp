// Memory planning benchmarks: the MiniMalloc "challenging" instances (arena / bound per planner)
// and planning a large random DAG under a concurrent schedule.
#include <benchmark/benchmark.h>

#include <random>

#include "test_graphs.h"
#include "weft/core/file_io.h"
#include "weft/core/memory_planner.h"

using namespace weft;

namespace {

void minimalloc(benchmark::State& state, char name, const std::string& planner) {
  const std::string path = std::string(WEFT_SHARED_DIR) + "/benchmarks/minimalloc/" + name + ".csv";
  auto text = core::read_file(path);
  auto inst = text ? core::parse_minimalloc_csv(*text, path) : core::Expected<core::IntervalInstance>(text.error());
  if (!inst) {
    state.SkipWithError(inst.error().message.c_str());
    return;
  }
  const core::AllocationProblem p = core::interval_problem(*inst);
  const std::int64_t bound = core::interval_lower_bound(p);
  core::PlanOptions options;
  options.search_ms = 3000;
  std::int64_t arena = 0;
  for (auto _ : state) {
    auto pl = core::place_blocks(p, planner, options, bound);
    arena = pl ? pl->arena_bytes : 0;
    benchmark::DoNotOptimize(arena);
  }
  state.counters["arena"] = static_cast<double>(arena);
  state.counters["bound"] = static_cast<double>(bound);
  state.counters["ratio"] = static_cast<double>(arena) / static_cast<double>(bound);
}

void random_dag(benchmark::State& state) {
  const core::Graph g = test::make_random_dag(static_cast<int>(state.range(0)), 4.0 / static_cast<double>(state.range(0)), 7);
  std::mt19937_64 rng(1);
  core::Schedule s;
  s.streams.resize(4);
  for (core::NodeId v : g.topo_order()) s.streams[rng() % 4].push_back(v);
  core::PlanOptions options;
  options.search_ms = 0;
  for (auto _ : state) {
    auto plan = core::plan_memory(g, s, "greedy-by-size", options);
    auto bound = core::concurrent_lower_bound(g, s, options);
    benchmark::DoNotOptimize(plan);
    benchmark::DoNotOptimize(bound);
  }
}

}  // namespace

BENCHMARK(random_dag)->Arg(1000)->Arg(5000)->Unit(benchmark::kMillisecond);

int register_minimalloc = [] {
  for (char name = 'A'; name <= 'K'; ++name)
    for (const char* planner : {"greedy-by-size", "best"})
      benchmark::RegisterBenchmark((std::string("minimalloc/") + name + "/" + planner).c_str(),
                                   [name, planner](benchmark::State& st) { minimalloc(st, name, planner); })
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
  return 0;
}();
