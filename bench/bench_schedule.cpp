// Every strategy (with its minimal events and validation, as make_schedule runs them) on random
// DAGs of 1k, 10k and 100k nodes. Goal: 1k nodes in under 1 ms.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>

#include "test_graphs.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/schedule/sync.h"

namespace {

using namespace weft;

// Layered random DAG shaped like a network: each node reads 1-2 of the previous ~16 nodes.
const core::Graph& graph(int nodes) {
  static std::map<int, std::unique_ptr<core::Graph>> cache;
  auto& g = cache[nodes];
  if (!g) g = std::make_unique<core::Graph>(test::make_random_dag(nodes, 0.09, 7, 2));
  return *g;
}

void strategy(benchmark::State& state, const char* name) {
  const core::Graph& g = graph(static_cast<int>(state.range(0)));
  core::CostTable costs;
  costs.nodes.assign(g.node_count(), core::NodeCost{});
  for (std::size_t v = 0; v < g.node_count(); ++v) {
    costs.nodes[v].time_us = 2.0 + static_cast<double>(v * 7919 % 97);
    costs.nodes[v].bound = v % 3 ? core::Bound::Memory : core::Bound::Compute;
  }
  core::DeviceSpec dev;
  dev.event_record_us = 1.0;
  dev.event_wait_us = 1.0;
  std::size_t events = 0, streams = 0;
  for (auto _ : state) {
    auto s = core::make_schedule(name, g, costs, dev);
    if (!s) {
      state.SkipWithError(s.error().message.c_str());
      return;
    }
    events = s->events.size();
    streams = s->stream_count();
    benchmark::DoNotOptimize(s);
  }
  state.counters["streams"] = static_cast<double>(streams);
  state.counters["events"] = static_cast<double>(events);
  state.counters["edges"] = static_cast<double>(g.edge_count());
}

}  // namespace

#define WEFT_STRATEGY_BENCH(id, name) \
  BENCHMARK_CAPTURE(strategy, id, name)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)

WEFT_STRATEGY_BENCH(sequential, "sequential");
WEFT_STRATEGY_BENCH(seed_greedy, "seed-greedy");
WEFT_STRATEGY_BENCH(level_rr, "level-rr");
WEFT_STRATEGY_BENCH(chains, "chains");
WEFT_STRATEGY_BENCH(cp_list, "cp-list");
WEFT_STRATEGY_BENCH(resource_aware, "resource-aware");
