// Simulator throughput on 1k / 10k / 100k-node DAGs on 4 streams with an event per
// cross-stream edge: simulate() alone, and predict() (schedule, both baselines, counterfactuals).
#include <benchmark/benchmark.h>

#include <random>

#include "test_graphs.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/study/prediction.h"
#include "weft/core/strategy/reference.h"

using namespace weft;

namespace {

struct Case {
  core::Graph graph;
  core::CostTable costs;
  core::Schedule schedule;
  core::DeviceSpec device;
};

// Each node reads up to 3 of the 64 nodes before it: wide, local, like real networks' blocks.
Case make_case(int nodes) {
  std::mt19937_64 rng(42);
  std::vector<std::pair<int, int>> edges;
  for (int v = 1; v < nodes; ++v) {
    std::uniform_int_distribution<int> back(1, std::min(v, 64));
    const int k = 1 + static_cast<int>(rng() % 3);
    std::vector<int> from;
    for (int i = 0; i < k; ++i) from.push_back(v - back(rng));
    std::sort(from.begin(), from.end());
    from.erase(std::unique(from.begin(), from.end()), from.end());
    for (int u : from) edges.emplace_back(u, v);
  }
  Case c{test::make_dag(nodes, edges, 1 << 18), {}, {}, {}};
  c.device.name = "bench";
  c.device.peak_fp32_flops = 60e12;
  c.device.memory_bandwidth = 3.3e12;
  c.device.sm_count = 132;
  c.device.launch_us = 4;
  c.device.graph_launch_per_node_us = 0.8;
  c.device.event_record_us = 1.5;
  c.device.event_wait_us = 1.5;
  std::uniform_real_distribution<double> us(2, 50);
  for (int v = 0; v < nodes; ++v) {
    core::NodeCost n;
    const double device_us = us(rng);
    n.time_us = device_us + c.device.launch_us;  // the cost model's convention
    const bool compute = rng() % 2 == 0;
    n.flops = compute ? device_us * 1e-6 * c.device.peak_fp32_flops : 1e6;
    n.bytes = compute ? 1e5 : device_us * 1e-6 * c.device.memory_bandwidth;
    n.known = true;
    c.costs.nodes.push_back(n);
  }
  const int streams = 4;
  c.schedule.streams.resize(streams);
  std::vector<int> stream_of(static_cast<std::size_t>(nodes));
  for (core::NodeId v : c.graph.topo_order()) {
    const int s = static_cast<int>(rng() % streams);
    stream_of[static_cast<std::size_t>(v)] = s;
    c.schedule.streams[static_cast<std::size_t>(s)].push_back(v);
  }
  for (int u = 0; u < nodes; ++u)
    for (core::NodeId v : c.graph.successors(u))
      if (stream_of[static_cast<std::size_t>(u)] != stream_of[static_cast<std::size_t>(v)]) c.schedule.events.push_back({u, v});
  c.schedule.strategy = "random";
  return c;
}

void BM_Simulate(benchmark::State& state) {
  const Case c = make_case(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    const core::Timeline tl = core::simulate(c.graph, c.schedule, c.costs, c.device);
    benchmark::DoNotOptimize(tl.items.data());
  }
  state.counters["nodes"] = static_cast<double>(c.graph.node_count());
  state.counters["events"] = static_cast<double>(c.schedule.events.size());
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_Predict(benchmark::State& state) {
  const Case c = make_case(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto p = core::predict(c.graph, c.schedule, c.costs, c.device);
    benchmark::DoNotOptimize(p);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

}  // namespace

BENCHMARK(BM_Simulate)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Predict)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
