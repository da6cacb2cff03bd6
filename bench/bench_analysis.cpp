// Each analysis pass on synthetic layered DAGs of 1k, 10k and 100k nodes (4 parallel lanes with
// random cross edges, like a branchy network), to check they stay near-linear.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>

#include "test_graphs.h"
#include "weft/core/analysis/analyze.h"
#include "weft/core/analysis/antichain.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/analysis/levels.h"

using namespace weft;

namespace {

// Random DAG with edges only between nearby nodes (window 16), in-degree <= 3: E ≈ 2.4 V.
const core::Graph& graph_of(int n) {
  static std::map<int, std::unique_ptr<core::Graph>> cache;
  auto& g = cache[n];
  if (!g) g = std::make_unique<core::Graph>(test::make_dag(n, test::random_edges(n, 0.15, 42, 3), 1 << 14));
  return *g;
}

core::DeviceSpec device() {
  auto d = core::parse_device(R"({"name": "bench", "peak_fp32_tflops": 60, "memory_bandwidth_gb_s": 3000,
    "sm_count": 132, "launch_us": 4.5, "graph_launch_per_node_us": 1, "event_record_us": 2,
    "event_wait_us": 2, "kernel_min_us": 2})", "bench");
  return *d;
}

void set_counters(benchmark::State& state, const core::Graph& g) {
  state.counters["nodes"] = static_cast<double>(g.node_count());
  state.counters["edges"] = static_cast<double>(g.edge_count());
  state.SetComplexityN(static_cast<benchmark::IterationCount>(g.node_count()));
}

void BM_Levels(benchmark::State& state) {
  const auto& g = graph_of(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(core::compute_levels(g));
  set_counters(state, g);
}

void BM_CostModel(benchmark::State& state) {
  const auto& g = graph_of(static_cast<int>(state.range(0)));
  const auto d = device();
  for (auto _ : state) benchmark::DoNotOptimize(core::estimate_costs(g, d));
  set_counters(state, g);
}

void BM_CriticalPath(benchmark::State& state) {
  const auto& g = graph_of(static_cast<int>(state.range(0)));
  const auto times = core::node_times(core::estimate_costs(g, device()));
  for (auto _ : state) benchmark::DoNotOptimize(core::find_critical_path(g, times));
  set_counters(state, g);
}

void BM_WidthMatching(benchmark::State& state) {
  const auto& g = graph_of(static_cast<int>(state.range(0)));
  std::size_t w = 0;
  for (auto _ : state) w = core::compute_width(g, core::WidthMethod::Matching).cover.width();
  state.counters["width"] = static_cast<double>(w);
  set_counters(state, g);
}

void BM_WidthMinFlow(benchmark::State& state) {
  const auto& g = graph_of(static_cast<int>(state.range(0)));
  std::size_t w = 0;
  for (auto _ : state) w = core::compute_width(g, core::WidthMethod::MinFlow).cover.width();
  state.counters["width"] = static_cast<double>(w);
  set_counters(state, g);
}

void BM_Analyze(benchmark::State& state) {
  const auto& g = graph_of(static_cast<int>(state.range(0)));
  const auto costs = core::estimate_costs(g, device());
  for (auto _ : state) benchmark::DoNotOptimize(core::analyze(g, costs));
  set_counters(state, g);
}

}  // namespace

BENCHMARK(BM_Levels)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CostModel)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CriticalPath)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
// The closure needs V²/8 bytes: 1.25 GB at 100k, so the matching runs up to 10k (Auto's limit is 20k).
BENCHMARK(BM_WidthMatching)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WidthMinFlow)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Analyze)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
