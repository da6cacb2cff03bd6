// Memory planning benchmarks: the MiniMalloc "challenging" instances (arena / bound per planner:
// greedy, the exact canonical search, best; the goal is every arena within MiniMalloc's capacity
// of 1 MiB, in seconds) and planning a large random DAG under a concurrent schedule.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <random>

#include "test_graphs.h"
#include "weft/core/memory/allocation_problem.h"
#include "weft/core/memory/bounds.h"
#include "weft/core/base/file_io.h"
#include "weft/core/memory/intervals.h"
#include "weft/core/memory/liveness.h"
#include "weft/core/memory/memory_aware_order.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/memory/plan_checker.h"

using namespace weft;

namespace {

void minimalloc(benchmark::State& state, char name, const std::string& planner) {
  const std::string path = std::string(WEFT_TEST_DATA_DIR) + "/minimalloc/" + name + ".csv";
  auto text = core::read_file(path);
  auto inst = text ? core::parse_minimalloc_csv(*text, path) : core::Expected<core::IntervalInstance>(text.error());
  if (!inst) {
    state.SkipWithError(inst.error().message.c_str());
    return;
  }
  const core::AllocationProblem p = core::interval_problem(*inst);
  const std::int64_t bound = core::interval_lower_bound(p);
  core::PlanOptions options;
  options.search_steps = 6'000'000;  // `weft plan --intervals`'s default
  options.search_ms = 60000;
  std::int64_t arena = 0;
  for (auto _ : state) {
    auto pl = core::place_blocks(p, planner, options, bound);
    arena = pl ? pl->arena_bytes : 0;
    benchmark::DoNotOptimize(arena);
  }
  state.counters["arena"] = static_cast<double>(arena);
  state.counters["bound"] = static_cast<double>(bound);
  state.counters["ratio"] = static_cast<double>(arena) / static_cast<double>(bound);
  state.counters["under_1MiB"] = arena <= 1'048'576 ? 1 : 0;  // MiniMalloc's capacity for these
}

// A DAG shaped like a network: each node reads one or two recent outputs (window 16) and now and
// then a skip connection from up to 256 nodes back, so lifetimes stay short as in real models.
core::Graph local_dag(int nodes, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::pair<int, int>> edges;
  for (int v = 1; v < nodes; ++v) {
    const int k = 1 + static_cast<int>(rng() % 2);
    for (int i = 0; i < k; ++i) edges.emplace_back(std::max(0, v - 1 - static_cast<int>(rng() % 16)), v);
    if (rng() % 50 == 0) edges.emplace_back(std::max(0, v - 1 - static_cast<int>(rng() % 256)), v);
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return test::make_dag(nodes, edges);
}

const core::Graph& cached_dag(int nodes) {
  static std::map<int, core::Graph> cache;
  auto it = cache.find(nodes);
  if (it == cache.end()) it = cache.emplace(nodes, local_dag(nodes, 7)).first;
  return it->second;
}

// Liveness (vector clocks on several streams, a sweep on one): args nodes, streams.
void liveness(benchmark::State& state) {
  const core::Graph& g = cached_dag(static_cast<int>(state.range(0)));
  const core::Schedule s = test::random_schedule(g, static_cast<int>(state.range(1)), 1);
  std::size_t conflicts = 0;
  for (auto _ : state) {
    auto live = core::compute_liveness(g, s);
    conflicts = 0;
    for (const auto& c : live->problem.conflicts) conflicts += c.size();
    benchmark::DoNotOptimize(live);
  }
  state.counters["conflicts"] = static_cast<double>(conflicts / 2);
}

// The exact concurrent lower bound (max flow over the schedule DAG).
void concurrent_bound(benchmark::State& state) {
  const core::Graph& g = cached_dag(static_cast<int>(state.range(0)));
  const core::Schedule s = test::random_schedule(g, static_cast<int>(state.range(1)), 1);
  std::int64_t bytes = 0;
  for (auto _ : state) {
    auto bound = core::concurrent_lower_bound(g, s);
    bytes = bound->bytes;
    benchmark::DoNotOptimize(bound);
  }
  state.counters["bound"] = static_cast<double>(bytes);
}

// What `weft plan` does for a schedule: liveness, bound, every planner (best with its default
// budget) and the checker on the chosen plan; arena / bound as a counter.
void plan_pipeline(benchmark::State& state) {
  const core::Graph& g = cached_dag(static_cast<int>(state.range(0)));
  const core::Schedule s = test::random_schedule(g, static_cast<int>(state.range(1)), 1);
  core::PlanOptions options;
  double ratio = 0;
  for (auto _ : state) {
    auto live = core::compute_liveness(g, s, options);
    auto bound = core::concurrent_lower_bound(g, s, options);
    std::int64_t best = 0;
    for (const std::string& planner : core::planner_names()) {
      auto plan = core::plan_memory(g, *live, planner, options, bound->bytes);
      if (!plan || !core::check_plan(g, s, *plan)) {
        state.SkipWithError("invalid plan");
        return;
      }
      if (best == 0 || plan->arena_bytes < best) best = plan->arena_bytes;
    }
    ratio = static_cast<double>(best) / static_cast<double>(bound->bytes);
  }
  state.counters["arena/bound"] = ratio;
}

}  // namespace

// The memory-aware sequential order (the sequential strategy's order).
void memory_aware(benchmark::State& state) {
  const core::Graph& g = cached_dag(static_cast<int>(state.range(0)));
  std::int64_t peak = 0;
  for (auto _ : state) {
    auto order = core::memory_aware_order(g);
    benchmark::DoNotOptimize(order);
    peak = core::linear_lower_bound(g, order);
  }
  state.counters["peak"] = static_cast<double>(peak);
}
BENCHMARK(memory_aware)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

#define WEFT_SCALES ->Args({1000, 1})->Args({1000, 4})->Args({10000, 1})->Args({10000, 4})->Args({100000, 1})->Args({100000, 4})
BENCHMARK(liveness) WEFT_SCALES->Unit(benchmark::kMillisecond);
BENCHMARK(concurrent_bound) WEFT_SCALES->Unit(benchmark::kMillisecond);
BENCHMARK(plan_pipeline) WEFT_SCALES->Iterations(1)->Unit(benchmark::kMillisecond);
#undef WEFT_SCALES

int register_minimalloc = [] {
  for (char name = 'A'; name <= 'K'; ++name)
    for (const char* planner : {"greedy-by-size", "exact", "best"})
      benchmark::RegisterBenchmark((std::string("minimalloc/") + name + "/" + planner).c_str(),
                                   [name, planner](benchmark::State& st) { minimalloc(st, name, planner); })
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
  return 0;
}();
