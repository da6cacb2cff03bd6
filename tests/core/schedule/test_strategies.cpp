#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "schedule_test_util.h"
#include "test_graphs.h"
#include "weft/core/memory/bounds.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/strategy/registry.h"
#include "weft/core/schedule/sync.h"

using namespace weft;
using core::NodeId;
using core::Schedule;

namespace {

core::StrategyOptions opts(int streams, double granularity = 0) {
  core::StrategyOptions o;
  o.max_streams = streams;
  o.granularity_us = granularity;
  return o;
}

Schedule run(std::string_view name, const core::Graph& g, const core::CostTable& c, const core::StrategyOptions& o) {
  auto s = core::make_schedule(name, g, c, core::DeviceSpec{}, o);
  EXPECT_TRUE(s) << name << ": " << (s ? "" : s.error().message);
  return s ? *s : Schedule{};
}

std::vector<std::set<NodeId>> as_sets(const Schedule& s) {
  std::vector<std::set<NodeId>> out;
  for (const auto& st : s.streams) out.emplace_back(st.begin(), st.end());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

// Every strategy on random DAGs (several densities, caps and cost spreads) gives a valid
// schedule that places every node once, carries exactly its minimal events and respects the cap.
TEST(Strategies, EveryStrategyValidOnRandomDags) {
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    const int nodes = 20 + static_cast<int>(seed * 7 % 90);
    const core::Graph g = test::make_random_dag(nodes, seed % 3 == 0 ? 0.3 : 0.05, seed);
    core::CostTable c = test::uniform_costs(g, 1.0);
    for (std::size_t v = 0; v < g.node_count(); ++v) {
      c.nodes[v].time_us = 0.5 + static_cast<double>((v * 37 + seed) % 11);
      c.nodes[v].bound = v % 3 == 0 ? core::Bound::Compute : core::Bound::Memory;
    }
    for (int cap : {1, 2, 3, 8}) {
      for (double gran : {0.0, 3.0}) {
        for (const std::string& name : core::fixed_strategy_names()) {
          const Schedule s = run(name, g, c, opts(cap, gran));
          EXPECT_TRUE(core::validate_schedule(g, s)) << name << " seed " << seed;
          EXPECT_EQ(s.events, core::compute_events(g, s)) << name;
          EXPECT_EQ(s.strategy, name);
          std::size_t placed = 0;
          for (const auto& st : s.streams) placed += st.size();
          EXPECT_EQ(placed, g.node_count()) << name;
          if (name != "seed-greedy") {
            EXPECT_LE(s.stream_count(), static_cast<std::size_t>(cap)) << name << " seed " << seed;
          }
          if (name == "sequential") {
            EXPECT_EQ(s.stream_count(), 1u);
          }
          // Any schedule is at best the critical path and at worst the sum of all work.
          const double m = core::ideal_makespan_us(g, s, core::node_times(c));
          EXPECT_LE(m, c.total_us() + 1e-9) << name;
        }
      }
    }
  }
}

// chains uses exactly the maximum antichain width (brute force) when the cap allows it.
TEST(Strategies, ChainsUsesAntichainWidth) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const core::Graph g = test::make_random_dag(12, seed % 2 ? 0.15 : 0.35, seed);
    const Schedule s = run("chains", g, test::uniform_costs(g, 1.0), opts(64));
    EXPECT_EQ(s.stream_count(), test::brute_force_width(g)) << "seed " << seed;
  }
  const core::Graph g = test::make_fan_out(6);  // width 6
  EXPECT_EQ(run("chains", g, test::uniform_costs(g, 1.0), opts(8)).stream_count(), 6u);
  EXPECT_EQ(run("chains", g, test::uniform_costs(g, 1.0), opts(4)).stream_count(), 4u);
}

// seed-greedy (the seed's assign_queues) puts every edge across queues, so a chain pays one
// event per edge where sequential pays none.
TEST(Strategies, SeedGreedyCrossesEveryEdge) {
  const core::Graph chain = test::make_chain(6);
  const Schedule s = run("seed-greedy", chain, test::uniform_costs(chain, 1.0), opts(8));
  EXPECT_EQ(s.streams, (std::vector<std::vector<NodeId>>{{0, 2, 4}, {1, 3, 5}}));
  EXPECT_EQ(s.events.size(), 5u);
  EXPECT_TRUE(run("sequential", chain, test::uniform_costs(chain, 1.0), opts(8)).events.empty());
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const core::Graph g = test::make_random_dag(80, 0.1, seed);
    const Schedule r = run("seed-greedy", g, test::uniform_costs(g, 1.0), opts(8));
    const std::vector<int> stream_of = core::stream_slots(g, r).value().stream_of;
    for (NodeId u = 0; u < static_cast<NodeId>(g.node_count()); ++u)
      for (NodeId v : g.successors(u))
        EXPECT_NE(stream_of[static_cast<std::size_t>(u)], stream_of[static_cast<std::size_t>(v)]) << "seed " << seed;
    EXPECT_FALSE(r.events.empty());
  }
  // Two independent chains: seed-greedy alternates queues along each, one event per edge;
  // chains needs none.
  const core::Graph b = test::make_two_branches(10);
  EXPECT_EQ(run("seed-greedy", b, test::uniform_costs(b, 1.0), opts(8)).events.size(), b.edge_count());
  EXPECT_TRUE(run("chains", b, test::uniform_costs(b, 1.0), opts(8)).events.empty());
}

// level-rr: stream = index within the ASAP level modulo the cap (golden on a fan-out).
TEST(Strategies, LevelRoundRobinGolden) {
  const core::Graph g = test::make_fan_out(4);  // n0 -> n1..n4
  const Schedule s = run("level-rr", g, test::uniform_costs(g, 1.0), opts(2));
  EXPECT_EQ(s.streams, (std::vector<std::vector<NodeId>>{{0, 1, 3}, {2, 4}}));
  EXPECT_EQ(s.events, (std::vector<core::Event>{{0, 2}}));
}

// cp-list runs two independent branches on two streams (ideal makespan = one branch) and a chain on one.
TEST(Strategies, CpListGolden) {
  const core::Graph g = test::make_two_branches(4);
  const core::CostTable c = test::uniform_costs(g, 2.0);
  const Schedule s = run("cp-list", g, c, opts(8));
  EXPECT_EQ(as_sets(s), (std::vector<std::set<NodeId>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_DOUBLE_EQ(core::ideal_makespan_us(g, s, core::node_times(c)), 8.0);
  const core::Graph chain = test::make_chain(5);
  EXPECT_EQ(run("cp-list", chain, test::uniform_costs(chain, 2.0), opts(8)).stream_count(), 1u);
  // With a cap of one, everything serialises.
  EXPECT_DOUBLE_EQ(core::ideal_makespan_us(g, run("cp-list", g, c, opts(1)), core::node_times(c)), 16.0);
}

// cp-list charges events: when an event costs more than the overlap gains, it stays on one stream.
TEST(Strategies, CpListChargesEvents) {
  const core::Graph g = test::make_diamond();
  const core::CostTable c = test::uniform_costs(g, 1.0);
  core::DeviceSpec dev;
  dev.event_record_us = 1.0;
  dev.event_wait_us = 1.0;
  auto s = core::make_schedule("cp-list", g, c, dev, opts(8));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->stream_count(), 1u);
  auto cheap = core::make_schedule("cp-list", g, c, core::DeviceSpec{}, opts(8));
  ASSERT_TRUE(cheap);
  EXPECT_EQ(cheap->stream_count(), 2u);
}

// Granularity: operators shorter than the threshold stay on a producer's stream.
TEST(Strategies, GranularityKeepsTinyOperatorsOnProducerStream) {
  const core::Graph g = test::make_fan_out(4);
  const core::CostTable tiny = test::uniform_costs(g, 0.5);
  for (const char* name : {"chains", "level-rr", "cp-list", "resource-aware"}) {
    EXPECT_EQ(run(name, g, tiny, opts(8, 1.0)).stream_count(), 1u) << name;
    EXPECT_GT(run(name, g, tiny, opts(8, 0.0)).stream_count(), 1u) << name;
  }
  // Automatic granularity is two event costs of the device.
  core::DeviceSpec dev;
  dev.event_record_us = 0.2;
  dev.event_wait_us = 0.1;
  EXPECT_DOUBLE_EQ(core::resolved_granularity_us(core::StrategyOptions{}, dev), 0.6);
  auto s = core::make_schedule("chains", g, tiny, dev);  // 0.5 < 0.6: one stream
  ASSERT_TRUE(s);
  EXPECT_EQ(s->stream_count(), 1u);
  EXPECT_EQ(s->options, "streams=8 granularity_us=0.6");
  // Under CUDA Graph replay dependencies cost the host nothing: automatic granularity is 0 and the
  // same tiny operators spread out; an explicit granularity still wins.
  core::StrategyOptions graph_replay;
  graph_replay.cuda_graph = true;
  EXPECT_DOUBLE_EQ(core::resolved_granularity_us(graph_replay, dev), 0.0);
  auto spread = core::make_schedule("chains", g, tiny, dev, graph_replay);
  ASSERT_TRUE(spread);
  EXPECT_GT(spread->stream_count(), 1u);
  EXPECT_EQ(spread->options, "streams=8 granularity_us=0 cuda_graph=on");
  graph_replay.granularity_us = 1.0;
  EXPECT_DOUBLE_EQ(core::resolved_granularity_us(graph_replay, dev), 1.0);
}

// resource-aware merges a compute-bound with a compute-bound chain, so that across streams
// compute runs beside memory; chains (bound-blind) merges the cheapest pair instead.
TEST(Strategies, ResourceAwarePairsComplementaryWork) {
  const core::Graph g = test::make_dag(4, {});  // four independent operators
  const core::CostTable c = test::uniform_costs(g, 1.0, {0, 2});  // n0, n2 compute-bound
  EXPECT_EQ(as_sets(run("resource-aware", g, c, opts(2))), (std::vector<std::set<NodeId>>{{0, 2}, {1, 3}}));
  EXPECT_EQ(as_sets(run("chains", g, c, opts(2))), (std::vector<std::set<NodeId>>{{0, 1}, {2, 3}}));
}

// Unknown names and bad caps are invalid input (core never returns Usage); a cap above the hardware queues warns.
TEST(Strategies, ErrorsAndWarnings) {
  const core::Graph g = test::make_chain(3);
  auto bad = core::make_schedule("fastest", g, test::uniform_costs(g, 1.0), core::DeviceSpec{});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(bad.error().message.find("resource-aware"), std::string::npos);
  EXPECT_FALSE(core::make_schedule("chains", g, test::uniform_costs(g, 1.0), core::DeviceSpec{}, opts(0)));
  const Schedule s = run("chains", g, test::uniform_costs(g, 1.0), opts(16));
  const auto w = core::schedule_warnings(s, opts(16), core::DeviceSpec{});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("16"), std::string::npos);
  EXPECT_TRUE(core::schedule_warnings(s, opts(8), core::DeviceSpec{}).empty());
  EXPECT_EQ(core::strategy_names(), (std::vector<std::string>{"sequential", "seed-greedy", "level-rr", "chains", "cp-list",
                                                              "resource-aware", "search", "split-overlap"}));
  EXPECT_EQ(core::fixed_strategy_names(),
            (std::vector<std::string>{"sequential", "seed-greedy", "level-rr", "chains", "cp-list", "resource-aware",
                                      "split-overlap"}));
}

// sequential: one stream whose peak live bytes never exceed the file order's.
TEST(Strategies, SequentialPeakNoHigherThanFileOrder) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const core::Graph g = test::make_random_dag(60, 0.08, seed);
    const Schedule s = run("sequential", g, test::uniform_costs(g, 1.0), opts(8));
    ASSERT_EQ(s.stream_count(), 1u);
    std::vector<NodeId> file(g.node_count());
    for (std::size_t v = 0; v < file.size(); ++v) file[v] = static_cast<NodeId>(v);
    EXPECT_LE(core::linear_lower_bound(g, s.streams[0]), core::linear_lower_bound(g, file)) << "seed " << seed;
    EXPECT_TRUE(s.events.empty());
  }
}

// Real models: every strategy is valid, and chains uses exactly the model's max antichain
// (shared/models/README.md) as streams.
TEST(Strategies, RealModels) {
  const std::vector<std::pair<std::string, std::size_t>> models = {
      {"googlenet", 4}, {"resnet50", 2}, {"squeezenet1_1", 2}, {"mobilenet_v3_large", 1}, {"regnet_y_400mf", 2}};
  for (const auto& [name, width] : models) {
    auto g = core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/" + name + ".onnx");
    ASSERT_TRUE(g) << g.error().message;
    const core::CostTable c = test::uniform_costs(*g, 1.0);
    for (const std::string& strategy : core::fixed_strategy_names()) {
      const Schedule s = run(strategy, *g, c, opts(8));
      EXPECT_TRUE(core::validate_schedule(*g, s)) << name << " " << strategy;
    }
    EXPECT_EQ(run("chains", *g, c, opts(8)).stream_count(), width) << name;
    // A chain model needs no events under chains.
    if (width == 1) {
      EXPECT_TRUE(run("chains", *g, c, opts(8)).events.empty()) << name;
    }
  }
}
