// Every pass from file to prediction on the synthetic models (bench/synthetic_models.h) of 1k,
// 10k, 30k, 100k and 300k operators (and 3k layered), and the whole pipeline end to end: import (parse, shape inference,
// folding) → cost → analyse (levels, critical path, width) → chains → events → validation →
// memory report (every planner, bounds) → prediction (the schedule and both baselines).
// Goal (issues 16 and 45): 100k operators end to end under 2 s on 2 cores, every pass near-linear
// on every family. Args: operators, family (index in synthetic_families(): 0 layered,
// 1 transformer, 2 moe, 3 randwire, 4 wide, 5 longrange, 6 bursty).
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <tuple>

#include "synthetic_models.h"
#include "weft/core/analysis/analyze.h"
#include "weft/core/analysis/antichain.h"
#include "weft/core/memory/bounds.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/analysis/critical_path.h"
#include "weft/core/cost/device.h"
#include "weft/core/analysis/levels.h"
#include "weft/core/memory/liveness.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/study/prediction.h"
#include "weft/core/strategy/reference.h"
#include "weft/core/schedule/sync.h"

using namespace weft;

namespace {

struct Case {
  bench::SyntheticModel model;
  core::Graph graph;
  core::DeviceSpec device;
  core::CostTable costs;
  core::Schedule chains;
};

bench::SyntheticFamily family_of(const benchmark::State& state) {
  return bench::synthetic_families()[static_cast<std::size_t>(state.range(1))];
}

// Models are generated (and imported) once per size and family, at benchmark time.
const Case& cached_case(const benchmark::State& state) {
  static std::map<std::pair<int, int>, std::unique_ptr<Case>> cache;
  const auto key = std::make_pair(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  auto& slot = cache[key];
  if (!slot) {
    auto model = bench::make_synthetic_model(family_of(state), key.first);
    auto graph = core::import_onnx_bytes(model.bytes, "synthetic.onnx");
    auto device = core::load_device(core::default_device_name());
    if (!graph || !device) std::abort();
    core::CostTable costs = core::estimate_costs(*graph, *device);
    auto chains = core::make_schedule("chains", *graph, costs, *device);
    if (!chains) std::abort();
    slot = std::make_unique<Case>(Case{std::move(model), std::move(*graph), std::move(*device), std::move(costs), std::move(*chains)});
  }
  return *slot;
}

void counters(benchmark::State& state, const Case& c) {
  state.SetLabel(std::string(bench::family_name(family_of(state))));
  state.counters["nodes"] = static_cast<double>(c.graph.node_count());
  state.counters["edges"] = static_cast<double>(c.graph.edge_count());
  state.SetComplexityN(static_cast<benchmark::IterationCount>(c.graph.node_count()));
}

void BM_Import(benchmark::State& state) {
  const Case& c = cached_case(state);
  for (auto _ : state) benchmark::DoNotOptimize(core::import_onnx_bytes(c.model.bytes, "synthetic.onnx"));
  counters(state, c);
}

void BM_Cost(benchmark::State& state) {
  const Case& c = cached_case(state);
  for (auto _ : state) benchmark::DoNotOptimize(core::estimate_costs(c.graph, c.device));
  counters(state, c);
}

void BM_Levels(benchmark::State& state) {
  const Case& c = cached_case(state);
  for (auto _ : state) benchmark::DoNotOptimize(core::compute_levels(c.graph));
  counters(state, c);
}

void BM_CriticalPath(benchmark::State& state) {
  const Case& c = cached_case(state);
  const auto times = core::node_times(c.costs);
  for (auto _ : state) benchmark::DoNotOptimize(core::find_critical_path(c.graph, times));
  counters(state, c);
}

void BM_Width(benchmark::State& state) {
  const Case& c = cached_case(state);
  std::size_t w = 0;
  for (auto _ : state) w = core::compute_width(c.graph).antichain.size();
  state.counters["width"] = static_cast<double>(w);
  counters(state, c);
}

void BM_Analyze(benchmark::State& state) {
  const Case& c = cached_case(state);
  for (auto _ : state) benchmark::DoNotOptimize(core::analyze(c.graph, c.costs));
  counters(state, c);
}

void BM_Chains(benchmark::State& state) {
  const Case& c = cached_case(state);
  for (auto _ : state) benchmark::DoNotOptimize(core::make_schedule("chains", c.graph, c.costs, c.device));
  state.counters["streams"] = static_cast<double>(c.chains.stream_count());
  counters(state, c);
}

void BM_Events(benchmark::State& state) {
  const Case& c = cached_case(state);
  for (auto _ : state) benchmark::DoNotOptimize(core::compute_events(c.graph, c.chains));
  state.counters["events"] = static_cast<double>(c.chains.events.size());
  counters(state, c);
}

void BM_Validate(benchmark::State& state) {
  const Case& c = cached_case(state);
  for (auto _ : state) benchmark::DoNotOptimize(core::validate_schedule(c.graph, c.chains));
  counters(state, c);
}

// Liveness of the chains schedule (vector clocks, conflict lists): the planners' input.
void BM_Liveness(benchmark::State& state) {
  const Case& c = cached_case(state);
  std::size_t conflicts = 0, blocks = 0;
  for (auto _ : state) {
    auto live = core::compute_liveness(c.graph, c.chains);
    blocks = live->problem.block_count();
    conflicts = 0;
    for (const auto& list : live->problem.conflicts) conflicts += list.size();
  }
  state.counters["blocks"] = static_cast<double>(blocks);
  state.counters["conflicts"] = static_cast<double>(conflicts);
  counters(state, c);
}

// One planner on the chains schedule's liveness (arg 2: index in planner_names()).
void BM_Planner(benchmark::State& state) {
  const Case& c = cached_case(state);
  const auto live = core::compute_liveness(c.graph, c.chains);
  const std::string planner = core::planner_names()[static_cast<std::size_t>(state.range(2))];
  for (auto _ : state) benchmark::DoNotOptimize(core::plan_memory(c.graph, *live, planner, core::reference_plan_options()));
  counters(state, c);
  state.SetLabel(planner);
}

void BM_ConcurrentBound(benchmark::State& state) {
  const Case& c = cached_case(state);
  for (auto _ : state) benchmark::DoNotOptimize(core::concurrent_lower_bound(c.graph, c.chains));
  counters(state, c);
}

void BM_MemoryReport(benchmark::State& state) {
  const Case& c = cached_case(state);
  std::int64_t arena = 0;
  for (auto _ : state) {
    auto r = core::memory_report(c.graph, c.chains);
    if (!r) {
      state.SkipWithError(r.error().message.c_str());
      return;
    }
    arena = r->arena_bytes();
  }
  state.counters["arena_MiB"] = static_cast<double>(arena) / (1 << 20);
  counters(state, c);
}

void BM_Predict(benchmark::State& state) {
  const Case& c = cached_case(state);
  core::PredictOptions options;
  options.counterfactuals = false;
  for (auto _ : state) benchmark::DoNotOptimize(core::predict(c.graph, c.chains, c.costs, c.device, options));
  counters(state, c);
}

// The whole path from the file's bytes, as `weft plan` then `weft simulate` would run it.
void BM_EndToEnd(benchmark::State& state) {
  const Case& c = cached_case(state);
  for (auto _ : state) {
    auto graph = core::import_onnx_bytes(c.model.bytes, "synthetic.onnx");
    if (!graph) {
      state.SkipWithError(graph.error().message.c_str());
      return;
    }
    const core::CostTable costs = core::estimate_costs(*graph, c.device);
    benchmark::DoNotOptimize(core::analyze(*graph, costs));
    auto schedule = core::make_schedule("chains", *graph, costs, c.device);  // events and validation included
    auto memory = core::memory_report(*graph, *schedule);
    core::PredictOptions options;
    options.plan = memory ? &memory->plan : nullptr;
    options.counterfactuals = false;
    benchmark::DoNotOptimize(core::predict(*graph, *schedule, costs, c.device, options));
  }
  counters(state, c);
}

int family_count() { return static_cast<int>(bench::synthetic_families().size()); }

// The scaling series of every family: the exponent between neighbours, 300k included.
void sizes(benchmark::internal::Benchmark* b) {
  for (int family = 0; family < family_count(); ++family)
    for (int n : {1000, 10000, 30000, 100000, 300000}) b->Args({n, family});
  b->Args({3000, 0});
  b->Unit(benchmark::kMillisecond);
}

void planners(benchmark::internal::Benchmark* b) {
  for (int family = 0; family < family_count(); ++family)
    for (int n : {1000, 10000, 100000})
      for (int p = 0; p < static_cast<int>(core::planner_names().size()); ++p) b->Args({n, family, p});
  b->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK(BM_Import)->Apply(sizes);
BENCHMARK(BM_Cost)->Apply(sizes);
BENCHMARK(BM_Levels)->Apply(sizes);
BENCHMARK(BM_CriticalPath)->Apply(sizes);
BENCHMARK(BM_Width)->Apply(sizes);
BENCHMARK(BM_Analyze)->Apply(sizes);
BENCHMARK(BM_Chains)->Apply(sizes);
BENCHMARK(BM_Events)->Apply(sizes);
BENCHMARK(BM_Validate)->Apply(sizes);
BENCHMARK(BM_Liveness)->Apply(sizes);
BENCHMARK(BM_Planner)->Apply(planners);
BENCHMARK(BM_ConcurrentBound)->Apply(sizes);
BENCHMARK(BM_MemoryReport)->Apply(sizes);
BENCHMARK(BM_Predict)->Apply(sizes);
BENCHMARK(BM_EndToEnd)->Apply(sizes);
