#include <gtest/gtest.h>

#include <random>

#include "sim_fixtures.h"
#include "test_graphs.h"
#include "weft/core/memory/memory_plan.h"
#include "weft/core/sim/calibrate.h"
#include "weft/core/analysis/critical_path.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/study/prediction.h"
#include "weft/core/strategy/reference.h"

using namespace weft;
using test::bandwidth_bound;
using test::compute_bound;

namespace {
constexpr std::int64_t kBig = 1 << 20;  // output elements: 4096 blocks, fills 100 SMs
}

// Sequential eager with kernels longer than a launch: first launch + sum of node times, exactly.
TEST(Simulator, SequentialEagerIsSumOfTimesPlusFirstLaunch) {
  const core::Graph g = test::make_chain(5);
  const auto costs = test::table({compute_bound(10), compute_bound(20), bandwidth_bound(30), compute_bound(40), bandwidth_bound(50)});
  const auto tl = core::simulate(g, core::reference_schedule(g), costs, test::test_device());
  EXPECT_DOUBLE_EQ(tl.items[4].end_us, 5 + 150);
  EXPECT_DOUBLE_EQ(tl.makespan_us(), 150);  // makespan counts from the first kernel's start
  EXPECT_DOUBLE_EQ(tl.items[0].start_us, 5);
  EXPECT_DOUBLE_EQ(tl.items[2].start_us, 5 + 30);
}

// Host-bound: kernels shorter than a launch wait for the host; the last ends at 4 launches + its time.
TEST(Simulator, SequentialEagerTinyKernelsAreHostBound) {
  const core::Graph g = test::make_chain(4);
  const auto costs = test::table({compute_bound(1), compute_bound(1), compute_bound(1), compute_bound(1)});
  const auto tl = core::simulate(g, core::reference_schedule(g), costs, test::test_device());
  EXPECT_DOUBLE_EQ(tl.items[3].end_us, 4 * 5 + 1);
}

// CUDA Graph: one launch, then the nodes are released one per graph_launch_per_node_us.
TEST(Simulator, SequentialGraphIsLaunchPlusNodeTimes) {
  const core::Graph g = test::make_chain(3);
  const auto costs = test::table({compute_bound(10), compute_bound(20), compute_bound(1)});
  core::SimOptions o;
  o.cuda_graph = true;
  const auto tl = core::simulate(g, core::reference_schedule(g), costs, test::test_device(), o);
  EXPECT_DOUBLE_EQ(tl.items[0].start_us, 5 + 1);
  EXPECT_DOUBLE_EQ(tl.items[2].end_us, 5 + 1 + 10 + 20 + 1);
  // Tiny kernels: the graph releases them far faster than eager launches would.
  const auto tiny = test::table({compute_bound(0.5), compute_bound(0.5), compute_bound(0.5)});
  const auto graph_tl = core::simulate(g, core::reference_schedule(g), tiny, test::test_device(), o);
  const auto eager_tl = core::simulate(g, core::reference_schedule(g), tiny, test::test_device());
  EXPECT_DOUBLE_EQ(graph_tl.items[2].end_us, 5 + 3 * 1 + 0.5);
  EXPECT_DOUBLE_EQ(eager_tl.items[2].end_us, 3 * 5 + 0.5);
}

// Two independent bandwidth-bound kernels of time t on two streams take about 2t together.
TEST(Simulator, TwoBandwidthBoundKernelsTakeTwiceAsLong) {
  const core::Graph g = test::make_dag(2, {}, kBig);
  const auto costs = test::table({bandwidth_bound(100), bandwidth_bound(100)});
  const core::Schedule s{{{0}, {1}}, {}, "hand", ""};
  const auto tl = core::simulate(g, s, costs, test::test_device());
  EXPECT_NEAR(tl.items[1].end_us - tl.items[0].start_us, 200, 6);
  // The bandwidth counter is saturated while both run.
  double peak = 0;
  for (const auto& c : tl.bandwidth_use) peak = std::max(peak, c.value);
  EXPECT_DOUBLE_EQ(peak, 1.0);
}

// A compute-bound kernel beside a bandwidth-bound one: about the longer of the two.
TEST(Simulator, ComputeBesideBandwidthTakesTheLonger) {
  const core::Graph g = test::make_dag(2, {}, kBig);
  const auto costs = test::table({compute_bound(100), bandwidth_bound(80)});
  const core::Schedule s{{{0}, {1}}, {}, "hand", ""};
  const auto tl = core::simulate(g, s, costs, test::test_device());
  // Each is slowed only by the 1% of bandwidth the compute-bound kernel also uses.
  EXPECT_NEAR(tl.items[0].end_us, 5 + 100, 1.0);
  EXPECT_NEAR(tl.items[1].end_us, 10 + 80, 1.0);
  EXPECT_NEAR(tl.makespan_us(), 100, 1.0);
}

// Small grids leave SMs free: two compute-bound kernels of 10 blocks each run side by side at full speed.
TEST(Simulator, SmallGridsOverlapFully) {
  const core::Graph g = test::make_dag(2, {}, 10 * 256);
  const auto costs = test::table({compute_bound(100), compute_bound(100)});
  const core::Schedule s{{{0}, {1}}, {}, "hand", ""};
  const auto tl = core::simulate(g, s, costs, test::test_device());
  EXPECT_DOUBLE_EQ(tl.items[1].end_us, 10 + 100);
}

// Tiny kernels on two streams lose to the event costs; the verdict says to coarsen.
TEST(Simulator, TinyKernelsLoseToEvents) {
  const core::Graph g = test::make_diamond();
  const auto costs = test::table({compute_bound(2), compute_bound(2), compute_bound(2), compute_bound(2)});
  const core::Schedule s{{{0, 1, 3}, {2}}, {{0, 2}, {2, 3}}, "hand", ""};
  auto p = core::predict(g, s, costs, test::test_device());
  ASSERT_TRUE(p);
  // Host: n0 5, record 7, n1 12, wait 14, n2 19, record 21, wait 23, n3 28; n3 ends at 30.
  EXPECT_DOUBLE_EQ(p->timeline.items[3].end_us, 30);
  EXPECT_DOUBLE_EQ(p->sequential_eager.items[3].end_us, 22);
  EXPECT_LT(p->speedup_vs_eager, 1.0);
  EXPECT_EQ(p->verdict, "events cost more than the overlap gains: coarsen");
}

// An event's consumer waits for the producer's end, on another stream.
TEST(Simulator, EventDelaysConsumerUntilProducerEnds) {
  const core::Graph g = test::make_dag(3, {{0, 2}}, kBig);  // n0 -> n2, n1 alone
  const auto costs = test::table({compute_bound(50), compute_bound(10), compute_bound(10)});
  const core::Schedule s{{{0}, {1, 2}}, {{0, 2}}, "hand", ""};
  const auto tl = core::simulate(g, s, costs, test::test_device());
  EXPECT_GE(tl.items[2].start_us, tl.items[0].end_us);
  EXPECT_EQ(tl.items[2].stream, 1);
  ASSERT_EQ(tl.events.size(), 1u);
}

// More event cost never makes a schedule faster: random DAGs on 3 streams, eager and graph mode.
// Kernels with small grids and a fifth of the bandwidth never saturate the device, so the model
// is a max-plus system, monotone in every overhead. (Where kernels do contend, delaying one can
// relieve the critical path, as on a real GPU; see the contended case below.)
TEST(Simulator, MoreEventCostNeverFaster) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const core::Graph g = test::make_dag(30, test::random_edges(30, 0.15, seed), 10 * 256);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> us(1, 60);
    std::vector<core::NodeCost> nodes;
    for (int i = 0; i < 30; ++i) {
      core::NodeCost c;
      const double device_us = us(rng);
      c.time_us = device_us + test::kTestLaunch;
      c.bytes = 0.2 * device_us * 1e5;
      c.flops = 0.1 * device_us * 1e6;
      c.known = true;
      nodes.push_back(c);
    }
    const auto costs = test::table(nodes);
    const core::Schedule s = test::random_schedule(g, 3, seed * 7, {.events_for_cross_edges = true});
    for (bool graph_mode : {false, true}) {
      core::SimOptions o;
      o.cuda_graph = graph_mode;
      double last = 0;
      for (double ev : {0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0}) {
        auto d = test::test_device();
        d.event_record_us = d.event_wait_us = ev;
        const auto tl = core::simulate(g, s, costs, d, o);
        double m = 0;
        for (const auto& it : tl.items) m = std::max(m, it.end_us);
        EXPECT_GE(m, last - 1e-6) << "seed " << seed << " event cost " << ev << (graph_mode ? " (graph)" : "");
        last = m;
      }
    }
  }
}

// The same with contention: bandwidth-bound branches forked and joined through events. (Mixed
// compute- and bandwidth-bound branches are not monotone: a later start can pair a kernel with a
// complementary one instead of a competitor, e.g. 120.5 -> 114.5 µs when events go from 4 to 8 µs.)
TEST(Simulator, MoreEventCostNeverFasterContended) {
  const core::Graph g = test::make_dag(6, {{0, 1}, {0, 3}, {1, 2}, {3, 4}, {2, 5}, {4, 5}}, kBig);
  const auto costs = test::table({bandwidth_bound(20), bandwidth_bound(40), bandwidth_bound(30), bandwidth_bound(25),
                                  bandwidth_bound(35), bandwidth_bound(10)});
  const core::Schedule s{{{0, 1, 2, 5}, {3, 4}}, {{0, 3}, {4, 5}}, "hand", ""};
  double last = 0;
  for (double ev : {0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0}) {
    auto d = test::test_device();
    d.event_record_us = d.event_wait_us = ev;
    const auto tl = core::simulate(g, s, costs, d);
    EXPECT_GE(tl.items[5].end_us, last - 1e-9) << "event cost " << ev;
    last = tl.items[5].end_us;
  }
}

// Every node starts after its stream predecessor and waited events end; data edges hold (random DAGs).
TEST(Simulator, TimelineRespectsEveryDependency) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const core::Graph g = test::make_random_dag(60, 0.08, seed);
    std::vector<core::NodeCost> nodes;
    for (int i = 0; i < 60; ++i) nodes.push_back(i % 3 ? compute_bound(1 + i % 7) : bandwidth_bound(2 + i % 5));
    const auto costs = test::table(nodes);
    const core::Schedule s = test::random_schedule(g, 4, seed, {.events_for_cross_edges = true});
    const auto tl = core::simulate(g, s, costs, test::test_device());
    ASSERT_EQ(tl.items.size(), g.node_count());
    for (std::size_t u = 0; u < g.node_count(); ++u) {
      EXPECT_GE(tl.items[u].end_us - tl.items[u].start_us, costs.nodes[u].time_us - test::kTestLaunch - 1e-9);
      for (core::NodeId v : g.successors(static_cast<core::NodeId>(u)))
        EXPECT_GE(tl.items[static_cast<std::size_t>(v)].start_us, tl.items[u].end_us - 1e-9);
    }
    for (const auto& st : s.streams)
      for (std::size_t i = 1; i < st.size(); ++i)
        EXPECT_GE(tl.items[static_cast<std::size_t>(st[i])].start_us, tl.items[static_cast<std::size_t>(st[i - 1])].end_us - 1e-9);
  }
}

// Arena bytes: a tensor lives from its producer's start to its last reader's end.
TEST(Simulator, ArenaBytesFollowTensorLifetimes) {
  const core::Graph g = test::make_chain(3);  // n0_out, n1_out intermediate (4 KiB each); n2_out output
  const auto costs = test::table({compute_bound(10), compute_bound(10), compute_bound(10)});
  const core::MemoryPlan plan = core::plan_no_reuse(g);
  core::SimOptions o;
  o.plan = &plan;
  const auto tl = core::simulate(g, core::reference_schedule(g), costs, test::test_device(), o);
  ASSERT_FALSE(tl.arena_bytes.empty());
  // 5: n0_out allocated; 15: n1_out too; 25: n0_out freed (n1 ended); 35: n1_out freed.
  const std::vector<std::pair<double, double>> expected = {{0, 0}, {5, 4096}, {15, 8192}, {25, 4096}, {35, 0}};
  ASSERT_EQ(tl.arena_bytes.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_DOUBLE_EQ(tl.arena_bytes[i].time_us, expected[i].first);
    EXPECT_DOUBLE_EQ(tl.arena_bytes[i].value, expected[i].second);
  }
}

// A cycle through events is refused with the reason, not simulated.
TEST(Simulator, DeadlockIsAnError) {
  const core::Graph g = test::make_dag(4, {{0, 1}, {2, 3}});
  const core::Schedule s{{{1, 2}, {3, 0}}, {{0, 1}, {2, 3}}, "hand", ""};
  const auto costs = test::table({compute_bound(1), compute_bound(1), compute_bound(1), compute_bound(1)});
  auto p = core::predict(g, s, costs, test::test_device());
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("would deadlock"), std::string::npos);
}

// Verdicts: chain; bandwidth-bound branches; complementary branches reach near the bound.
TEST(Prediction, Verdicts) {
  {
    const core::Graph g = test::make_chain(4);
    const auto costs = test::table({compute_bound(10), compute_bound(10), compute_bound(10), compute_bound(10)});
    auto p = core::predict(g, core::reference_schedule(g), costs, test::test_device());
    ASSERT_TRUE(p);
    EXPECT_EQ(p->verdict, "chain: concurrency cannot help (width 1)");  // analyze's wording
    EXPECT_DOUBLE_EQ(p->speedup_vs_eager, 1.0);
  }
  const core::Graph g = test::make_dag(6, {{0, 1}, {1, 2}, {3, 4}, {4, 5}}, kBig);  // two chains of 3
  const core::Schedule s{{{0, 1, 2}, {3, 4, 5}}, {}, "hand", ""};
  {
    const auto costs = test::table({bandwidth_bound(100), bandwidth_bound(100), bandwidth_bound(100),
                                    bandwidth_bound(100), bandwidth_bound(100), bandwidth_bound(100)});
    auto p = core::predict(g, s, costs, test::test_device());
    ASSERT_TRUE(p);
    EXPECT_EQ(p->verdict, "branches are all bandwidth-bound: little to gain");
    EXPECT_NEAR(p->speedup_vs_eager, 1.0, 0.02);
  }
  {
    const auto costs = test::table({compute_bound(100), compute_bound(100), compute_bound(100),
                                    compute_bound(100), compute_bound(100), compute_bound(100)});
    auto p = core::predict(g, s, costs, test::test_device());
    ASSERT_TRUE(p);
    EXPECT_EQ(p->verdict, "branches all fill the SMs: little to gain");
  }
  {
    const auto costs = test::table({compute_bound(100), compute_bound(100), compute_bound(100),
                                    bandwidth_bound(100), bandwidth_bound(100), bandwidth_bound(100)});
    auto p = core::predict(g, s, costs, test::test_device());
    ASSERT_TRUE(p);
    EXPECT_DOUBLE_EQ(p->critical.parallelism(), 2.0);
    EXPECT_EQ(p->verdict, "up to 2.0x from concurrency (work/span 2.00); this schedule reaches 1.9x") << p->verdict;
    EXPECT_GT(p->speedup_vs_graph, 1.8);
    // Baselines: kernels far longer than launches, so both are the sum of node times.
    EXPECT_DOUBLE_EQ(p->sequential_eager_us, 600);
    EXPECT_DOUBLE_EQ(p->sequential_graph_us, 600);
  }
}

// Calibration: measured items replace predicted times (mean over repeats) and are flagged.
TEST(Calibration, MeasuredTimesReplacePredictions) {
  const auto costs = test::table({compute_bound(10), compute_bound(20), compute_bound(30)});
  core::Timeline measured;
  measured.kind = core::RunKind::Measured;
  measured.items = {{0, 0, 0, 4}, {2, 0, 10, 16}, {2, 0, 20, 28}};
  const core::CostTable cal = core::calibrate_costs(costs, measured);
  EXPECT_DOUBLE_EQ(cal.nodes[0].time_us, 4);
  EXPECT_TRUE(cal.nodes[0].measured);
  EXPECT_DOUBLE_EQ(cal.nodes[1].time_us, 20 + test::kTestLaunch);  // predicted: device time + launch
  EXPECT_FALSE(cal.nodes[1].measured);
  EXPECT_DOUBLE_EQ(cal.nodes[2].time_us, 7);
  EXPECT_DOUBLE_EQ(cal.nodes[2].flops, costs.nodes[2].flops);
  const core::Graph g = test::make_chain(3);
  const auto tl = core::simulate(g, core::reference_schedule(g), cal, test::test_device());
  // n1 waits for its launch (10) after n0's 4 µs: 5..9, 10..30, 30..37.
  EXPECT_DOUBLE_EQ(tl.makespan_us(), 37 - 5);
}

// is_chain and work/span on small graphs, written out: one critical-path DP for both weightings.
TEST(Prediction, ChainAndWorkSpan) {
  EXPECT_TRUE(core::is_chain(test::make_chain(5)));
  EXPECT_FALSE(core::is_chain(test::make_diamond()));
  EXPECT_TRUE(core::is_chain(test::make_chain(1)));
  const core::Graph d = test::make_diamond();
  const auto ws = core::find_critical_path(
      d, core::node_times(test::table({compute_bound(1), compute_bound(5), compute_bound(3), compute_bound(2)})));
  // Node times include a 5 µs launch each (6, 10, 8, 7): the cost model's weights, as analysis uses.
  EXPECT_DOUBLE_EQ(ws.work_us, 31);
  EXPECT_DOUBLE_EQ(ws.span_us, 23);
  // In CUDA Graph mode each node weighs its device time plus the 1 µs per-node cost.
  const auto wg = core::find_critical_path(
      d, core::launch_weights(test::table({compute_bound(1), compute_bound(5), compute_bound(3), compute_bound(2)}),
                              test::test_device(), core::LaunchMode::Graph));
  EXPECT_DOUBLE_EQ(wg.work_us, 15);
  EXPECT_DOUBLE_EQ(wg.span_us, 2 + 6 + 3);
}

// Predicted times carry a launch the host pays: the device runs time − launch (at least
// kernel_min_us); measured times are device times; a 0 µs node launches nothing.
TEST(Simulator, DeviceTimeAndZeroTimeNodes) {
  auto d = test::test_device();
  d.kernel_min_us = 2;
  core::NodeCost predicted;
  predicted.time_us = 12;
  EXPECT_DOUBLE_EQ(core::device_time_us(predicted, d), 7);
  predicted.time_us = 6;
  EXPECT_DOUBLE_EQ(core::device_time_us(predicted, d), 2);
  core::NodeCost measured;
  measured.time_us = 3;
  measured.measured = true;
  EXPECT_DOUBLE_EQ(core::device_time_us(measured, d), 3);
  EXPECT_DOUBLE_EQ(core::device_time_us(core::NodeCost{}, d), 0);
  // n1 is a reshape-like 0 µs node: n2 is issued one launch after n0, not two.
  const core::Graph g = test::make_chain(3);
  core::NodeCost zero;
  zero.known = true;
  const auto costs = test::table({compute_bound(1), zero, compute_bound(1)});
  const auto tl = core::simulate(g, core::reference_schedule(g), costs, test::test_device());
  EXPECT_DOUBLE_EQ(tl.items[1].end_us - tl.items[1].start_us, 0);
  EXPECT_DOUBLE_EQ(tl.items[2].start_us, 10);
}
