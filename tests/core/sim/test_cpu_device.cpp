// The calibrated CPU device: its file format, the simulator's CPU model (cores shared, latches,
// no host thread) and the fit of per-node times into device parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "sim_fixtures.h"
#include "test_graphs.h"
#include "weft/core/sim/calibrate.h"
#include "weft/core/exec/compare_outputs.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/study/cpu_calibration.h"
#include "weft/core/strategy/reference.h"
#include "weft/core/analysis/analyze.h"
#include "weft/core/schedule/node_teams.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/advice.h"
#include "weft/core/study/prediction.h"

using namespace weft;

namespace {

core::DeviceSpec cpu_device(int cores, double latch_us = 0) {
  core::DeviceSpec d;
  d.name = "cpu-test";
  d.kind = core::DeviceKind::Cpu;
  d.sm_count = cores;
  d.peak_fp32_flops = d.peak_tf32_flops = d.peak_fp16_flops = 1e10;
  d.memory_bandwidth = 1e10;
  d.launch_us = 1;
  d.event_wait_us = latch_us;
  return d;
}

core::NodeCost measured(double us) {
  core::NodeCost c;
  c.time_us = us;
  c.measured = true;
  c.known = true;
  return c;
}

// Two independent chains n0..n2 and n3..n5, one per stream.
core::Schedule two_streams() {
  core::Schedule s;
  s.streams = {{0, 1, 2}, {3, 4, 5}};
  s.strategy = "hand";
  return s;
}

}  // namespace

// A CPU device file round-trips through device_to_json; "cores" replaces "sm_count".
TEST(CpuDevice, FileRoundTrip) {
  const core::DeviceSpec d = cpu_device(6, 3.5);
  const std::string text = core::device_to_json(d);
  EXPECT_NE(text.find("\"kind\": \"cpu\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"cores\": 6"), std::string::npos) << text;
  EXPECT_EQ(text.find("sm_count"), std::string::npos) << text;
  auto back = core::parse_device(text, "test");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->kind, core::DeviceKind::Cpu);
  EXPECT_EQ(back->sm_count, 6);
  EXPECT_DOUBLE_EQ(back->event_wait_us, 3.5);
  EXPECT_DOUBLE_EQ(back->peak_fp32_flops, 1e10);
  EXPECT_DOUBLE_EQ(back->launch_us, 1);
  EXPECT_DOUBLE_EQ(back->concurrent_slowdown, 1);
  core::DeviceSpec slow = d;
  slow.concurrent_slowdown = 1.25;
  auto slow_back = core::parse_device(core::device_to_json(slow), "test");
  ASSERT_TRUE(slow_back) << slow_back.error().message;
  EXPECT_DOUBLE_EQ(slow_back->concurrent_slowdown, 1.25);
}

// Keys of the other kind are refused by name; a bad kind too.
TEST(CpuDevice, KindSpecificKeysRefused) {
  const std::string cpu = R"({"name": "c", "kind": "cpu", "peak_fp32_tflops": 0.1, "memory_bandwidth_gb_s": 10,
    "launch_us": 1, "event_record_us": 0, "event_wait_us": 2, )";
  EXPECT_TRUE(core::parse_device(cpu + R"("cores": 4})", "t"));
  auto with_sms = core::parse_device(cpu + R"("cores": 4, "sm_count": 4})", "t");
  ASSERT_FALSE(with_sms);
  EXPECT_NE(with_sms.error().message.find("'sm_count' does not apply to a cpu device"), std::string::npos);
  EXPECT_FALSE(core::parse_device(cpu + R"("launch_us": 1})", "t"));  // no cores
  auto faster = core::parse_device(cpu + R"("cores": 4, "concurrent_slowdown": 0.9})", "t");
  ASSERT_FALSE(faster);
  EXPECT_NE(faster.error().message.find("'concurrent_slowdown' must be 1 or more"), std::string::npos) << faster.error().message;
  const std::string gpu = R"({"name": "g", "peak_fp32_tflops": 10, "memory_bandwidth_gb_s": 1000, "sm_count": 10,
    "launch_us": 5, "graph_launch_per_node_us": 1, "event_record_us": 1, "event_wait_us": 1, "kernel_min_us": 2, )";
  ASSERT_TRUE(core::parse_device(gpu + R"("hardware_queues": 8})", "t"));
  EXPECT_FALSE(core::parse_device(gpu + R"("concurrent_slowdown": 1.1})", "t"));
  auto kind = core::parse_device(R"({"name": "c", "kind": "tpu"})", "t");
  ASSERT_FALSE(kind);
  EXPECT_NE(kind.error().message.find("'kind'"), std::string::npos);
}

// Two streams on two cores run side by side; on one core they share it and take as long as one stream.
TEST(CpuDevice, CoresAreTheSharedResource) {
  const core::Graph g = test::make_two_branches(3);
  const auto costs = test::table({measured(10), measured(10), measured(10), measured(10), measured(10), measured(10)});
  const auto wide = core::simulate(g, two_streams(), costs, cpu_device(2));
  EXPECT_DOUBLE_EQ(wide.makespan_us(), 30);
  const auto narrow = core::simulate(g, two_streams(), costs, cpu_device(1));
  EXPECT_DOUBLE_EQ(narrow.makespan_us(), 60);
  // No host thread: the first operator starts at once, with no launch before it.
  EXPECT_DOUBLE_EQ(wide.items[0].start_us, 0);
}

// One operator per core, as the CPU executor runs them: three independent operators on three
// streams and two cores take two rounds (a fluid share would end all three at 15 µs). A core
// that frees carries on with its stream's next operator when that is ready at once, before an
// operator that has waited longer: a0 -> a1 on stream 0, b (20 µs) on stream 1, c on stream 2.
TEST(CpuDevice, OneOperatorPerCoreAndStreamsCarryOn) {
  const core::Graph three = test::make_dag(3, {});
  core::Schedule spread;
  spread.streams = {{0}, {1}, {2}};
  const auto ten = test::table({measured(10), measured(10), measured(10)});
  const auto rounds = core::simulate(three, spread, ten, cpu_device(2));
  EXPECT_DOUBLE_EQ(rounds.makespan_us(), 20);
  EXPECT_DOUBLE_EQ(rounds.items[2].start_us, 10);
  EXPECT_DOUBLE_EQ(core::simulate(three, spread, ten, cpu_device(3)).makespan_us(), 10);

  const core::Graph g = test::make_dag(4, {{0, 1}});
  core::Schedule s;
  s.streams = {{0, 1}, {2}, {3}};
  const auto costs = test::table({measured(10), measured(10), measured(20), measured(10)});
  const auto tl = core::simulate(g, s, costs, cpu_device(2));
  EXPECT_DOUBLE_EQ(tl.items[1].start_us, 10);  // a1: stream 0's core carries on
  EXPECT_DOUBLE_EQ(tl.items[3].start_us, 20);  // c: waits for b's core
  EXPECT_DOUBLE_EQ(tl.makespan_us(), 30);
}

// With every core busy, each running operator is slowed by the device's concurrent_slowdown; with
// k of n busy by 1 + (slowdown - 1)(k - 1)/(n - 1); alone, not at all.
TEST(CpuDevice, BusyCoresSlowEachOther) {
  const core::Graph g = test::make_two_branches(3);
  const auto costs = test::table({measured(10), measured(10), measured(10), measured(10), measured(10), measured(10)});
  core::DeviceSpec two = cpu_device(2);
  two.concurrent_slowdown = 1.2;
  EXPECT_NEAR(core::simulate(g, two_streams(), costs, two).makespan_us(), 36, 1e-9);
  core::DeviceSpec four = cpu_device(4);
  four.concurrent_slowdown = 1.3;
  EXPECT_NEAR(core::simulate(g, two_streams(), costs, four).makespan_us(), 33, 1e-9);  // 2 of 4 cores: 1.1x
  core::Schedule one;
  one.streams = {{0, 1, 2, 3, 4, 5}};
  EXPECT_NEAR(core::simulate(g, one, costs, two).makespan_us(), 60, 1e-9);
}

// Memory-bound operators take concurrent_slowdown_memory instead: of two branches, the
// compute-bound one (10 us each, 1.1x beside another) ends at 33 us; by then the memory-bound one
// (1.5x) has done 22 us of its 30 and ends alone at 41. The factor reads back from the device
// file, and 0 means the common factor.
TEST(CpuDevice, MemoryBoundOperatorsContendByTheirOwnFactor) {
  const core::Graph g = test::make_two_branches(3);
  auto memory = [](double us) {
    core::NodeCost c = measured(us);
    c.bound = core::Bound::Memory;
    return c;
  };
  const auto costs = test::table({memory(10), memory(10), memory(10), measured(10), measured(10), measured(10)});
  core::DeviceSpec two = cpu_device(2);
  two.concurrent_slowdown = 1.1;
  two.concurrent_slowdown_memory = 1.5;
  const core::Timeline tl = core::simulate(g, two_streams(), costs, two);
  EXPECT_NEAR(tl.items[2].end_us, 41, 1e-9);
  EXPECT_NEAR(tl.items[5].end_us, 33, 1e-9);
  auto back = core::parse_device(core::device_to_json(two), "t");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_DOUBLE_EQ(back->concurrent_slowdown_memory, 1.5);
  two.concurrent_slowdown_memory = 0;
  EXPECT_NEAR(core::simulate(g, two_streams(), costs, two).makespan_us(), 33, 1e-9);
  EXPECT_FALSE(core::parse_device(R"({"name": "c", "kind": "cpu", "peak_fp32_tflops": 0.1, "memory_bandwidth_gb_s": 10, "launch_us": 1,
    "event_record_us": 0, "event_wait_us": 2, "cores": 2, "concurrent_slowdown_memory": 0.5})", "t"));
}

// An event's consumer starts one latch latency after its producer ends.
TEST(CpuDevice, EventsCostTheLatch) {
  const core::Graph g = test::make_chain(2);
  core::Schedule s;
  s.streams = {{0}, {1}};
  s.events = {{0, 1}};
  const auto costs = test::table({measured(10), measured(10)});
  const auto tl = core::simulate(g, s, costs, cpu_device(2, 7));
  EXPECT_DOUBLE_EQ(tl.items[1].start_us, 17);
  EXPECT_DOUBLE_EQ(tl.makespan_us(), 27);
}

// A tensor read on another stream than its writer's costs its reader the device's cross-core
// rate on up to cross_core_max_bytes of it: n0 writes 1 MiB, read by n1 on the other stream
// (10 µs per MiB on 512 KiB: 5 µs more) and by n2 on its own (nothing more). One stream, or a
// GPU, pays nothing. The rate and its cap read back from the device file, and go together.
TEST(CpuDevice, TensorsCrossingStreamsCostTheTransfer) {
  const core::Graph g = test::make_sized_dag(3, {{0, 1}, {0, 2}}, {1 << 18, 1 << 18, 1 << 18});
  core::Schedule s;
  s.streams = {{0, 2}, {1}};
  s.events = {{0, 1}};
  const auto costs = test::table({measured(10), measured(10), measured(10)});
  core::DeviceSpec d = cpu_device(2);
  d.cross_core_us_per_mib = 10;
  d.cross_core_max_bytes = 512 * 1024;
  const core::Timeline tl = core::simulate(g, s, costs, d);
  EXPECT_NEAR(tl.items[1].end_us - tl.items[1].start_us, 15, 1e-9);
  EXPECT_NEAR(tl.items[2].end_us - tl.items[2].start_us, 10, 1e-9);
  d.cross_core_max_bytes = 4 << 20;  // the whole tensor
  EXPECT_NEAR(core::simulate(g, s, costs, d).items[1].end_us, 30, 1e-9);
  core::Schedule one;
  one.streams = {{0, 1, 2}};
  EXPECT_NEAR(core::simulate(g, one, costs, d).makespan_us(), 30, 1e-9);
  core::DeviceSpec gpu = d;
  gpu.kind = core::DeviceKind::Gpu;
  gpu.sm_count = 2;
  core::DeviceSpec plain_gpu = gpu;
  plain_gpu.cross_core_us_per_mib = plain_gpu.cross_core_max_bytes = 0;
  EXPECT_DOUBLE_EQ(core::simulate(g, s, costs, gpu).items[1].end_us, core::simulate(g, s, costs, plain_gpu).items[1].end_us);

  auto back = core::parse_device(core::device_to_json(d), "t");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_DOUBLE_EQ(back->cross_core_us_per_mib, 10);
  EXPECT_DOUBLE_EQ(back->cross_core_max_bytes, 4 << 20);
  const std::string cpu = R"({"name": "c", "kind": "cpu", "peak_fp32_tflops": 0.1, "memory_bandwidth_gb_s": 10, "launch_us": 1,
    "event_record_us": 0, "event_wait_us": 2, "cores": 2, )";
  auto alone = core::parse_device(cpu + R"("cross_core_us_per_mib": 5})", "t");
  ASSERT_FALSE(alone);
  EXPECT_NE(alone.error().message.find("go together"), std::string::npos) << alone.error().message;
  EXPECT_FALSE(core::parse_device(cpu + R"("cross_core_us_per_mib": -1, "cross_core_max_kib": 1024})", "t"));
  EXPECT_TRUE(core::parse_device(cpu + R"("cross_core_us_per_mib": 5, "cross_core_max_kib": 1024})", "t"));
}

// With the plan the schedule runs with, a node writing arena bytes that a node of another stream
// wrote last pays the same rate: n0 (stream 0) writes 1 MiB at offset 0, n1 (stream 1) reads it
// (10 µs more) and n2 (stream 1) writes its output over n0's bytes (10 µs more); in bytes of its
// own, or without the plan, n2 pays nothing.
TEST(CpuDevice, WritesOverAnotherStreamsBytesCostTheTransfer) {
  const core::Graph g = test::make_sized_dag(3, {{0, 1}, {1, 2}}, {1 << 18, 1 << 18, 1 << 18});
  core::Schedule s;
  s.streams = {{0}, {1, 2}};
  s.events = {{0, 1}};
  const auto costs = test::table({measured(10), measured(10), measured(10)});
  core::DeviceSpec d = cpu_device(2);
  d.cross_core_us_per_mib = 10;
  d.cross_core_max_bytes = 4 << 20;
  const auto tensor = [&](const char* name) { return static_cast<std::size_t>(*g.find_tensor(name)); };
  core::MemoryPlan plan = core::plan_no_reuse(g);
  plan.offset[tensor("n0_out")] = 0;
  plan.offset[tensor("n1_out")] = 1 << 20;
  plan.offset[tensor("n2_out")] = 2 << 20;
  plan.arena_bytes = 3 << 20;
  core::SimOptions o;
  o.plan = &plan;
  EXPECT_NEAR(core::simulate(g, s, costs, d, o).items[1].end_us, 30, 1e-9);  // the read across cores
  EXPECT_NEAR(core::simulate(g, s, costs, d, o).makespan_us(), 40, 1e-9);   // n2 in bytes of its own
  plan.offset[tensor("n2_out")] = 0;  // over n0's bytes, dead once n1 has read them
  EXPECT_NEAR(core::simulate(g, s, costs, d, o).makespan_us(), 50, 1e-9);
  EXPECT_NEAR(core::simulate(g, s, costs, d).makespan_us(), 40, 1e-9);  // no plan: writes unknown
  core::Schedule one;
  one.streams = {{0, 1, 2}};
  EXPECT_NEAR(core::simulate(g, one, costs, d, o).makespan_us(), 30, 1e-9);
}

// Predicted (not measured) CPU times keep their per-operator overhead on the device.
TEST(CpuDevice, PredictedTimesKeepTheOverhead) {
  core::NodeCost c;
  c.time_us = 12;
  EXPECT_DOUBLE_EQ(core::device_time_us(c, cpu_device(2)), 12);
  core::DeviceSpec gpu = cpu_device(2);
  gpu.kind = core::DeviceKind::Gpu;
  EXPECT_DOUBLE_EQ(core::device_time_us(c, gpu), 11);
}

// The fit recovers the rates and overhead that generated the node times (googlenet's shapes).
TEST(CpuDevice, FitRecoversGeneratingParameters) {
  auto g = core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/googlenet.onnx");
  ASSERT_TRUE(g) << g.error().message;
  core::DeviceSpec truth = cpu_device(4);
  truth.peak_fp32_flops = truth.peak_tf32_flops = truth.peak_fp16_flops = 3e10;  // 30 GFLOP/s
  truth.memory_bandwidth = 5e9;                                                   // 5 GB/s
  truth.launch_us = 4;
  const core::CostTable costs = core::estimate_costs(*g, truth);
  core::Timeline run;
  double t = 0;
  for (std::size_t v = 0; v < g->node_count(); ++v) {
    run.items.push_back({static_cast<core::NodeId>(v), 0, t, t + costs.nodes[v].time_us});
    t += costs.nodes[v].time_us;
  }
  core::CpuFitOptions o;
  o.cores = 4;
  o.latch_us = 2;
  auto cal = core::fit_cpu_device(*g, core::node_times(run, g->node_count()), o);
  ASSERT_TRUE(cal) << cal.error().message;
  EXPECT_EQ(cal->device.kind, core::DeviceKind::Cpu);
  EXPECT_EQ(cal->device.sm_count, 4);
  EXPECT_DOUBLE_EQ(cal->device.event_wait_us, 2);
  EXPECT_NEAR(cal->device.peak_fp32_flops / 3e10, 1.0, 0.03);
  EXPECT_NEAR(cal->device.memory_bandwidth / 5e9, 1.0, 0.03);
  EXPECT_NEAR(cal->device.launch_us / 4, 1.0, 0.05);
  EXPECT_LT(cal->median_node_error, 0.02);
  EXPECT_LT(cal->total_error, 0.02);
  EXPECT_GT(cal->fitted_nodes, 50u);
}

// Too few timed nodes: refused with the count.
TEST(CpuDevice, FitNeedsNodes) {
  const core::Graph g = test::make_chain(2);
  core::Timeline run;
  run.items.push_back({0, 0, 0, 5});
  core::CpuFitOptions o;
  o.latch_us = 1;
  auto cal = core::fit_cpu_device(g, core::node_times(run, g.node_count()), o);
  ASSERT_FALSE(cal);
  EXPECT_NE(cal.error().message.find("3 needed"), std::string::npos) << cal.error().message;
}

// A real sequential run calibrates a device whose prediction of the reference schedule is 1x
// and of two concurrent streams on as many cores is above 1x.
TEST(CpuDevice, CalibrateFromARealRun) {
  auto g = core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/squeezenet1_1.onnx");
  ASSERT_TRUE(g) << g.error().message;
  core::RunOptions ro;
  ro.iterations = 1;
  ro.warmup = 0;
  core::CpuFitOptions o;
  o.cores = 2;
  auto cal = core::calibrate_cpu(*g, ro, o);
  ASSERT_TRUE(cal) << cal.error().message;
  EXPECT_GT(cal->device.peak_fp32_flops, 0);
  EXPECT_GE(cal->device.event_wait_us, 0);  // measured latch
  for (const core::NodeCost& c : cal->measured.nodes) EXPECT_TRUE(c.measured);
  auto one = core::predicted_cpu_speedup(*g, core::reference_schedule(*g), cal->measured, cal->device);
  ASSERT_TRUE(one);
  EXPECT_DOUBLE_EQ(*one, 1.0);
  EXPECT_GT(core::cpu_latch_latency_us(2, 50), 0.0);  // a round trip takes time, whichever way it waits
  EXPECT_GE(cal->device.concurrent_slowdown, 1.0);  // measured: two copies at once
  // Measured too where two streams have cores of their own: a rate, and the core's cache as its cap.
  EXPECT_GE(cal->device.cross_core_us_per_mib, 0.0);
  if (core::cpu_count() >= 2) {
    EXPECT_GT(cal->device.cross_core_max_bytes, 0.0);
  }
  EXPECT_GT(core::cpu_core_cache_bytes(), 0);
}

// Copies of a one-stream run at once: each a whole run with the same outputs; the contention
// probe built on them gives a factor of at least 1, and 1 without a second core.
TEST(CpuDevice, CopiesRunAtOnce) {
  auto g = core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/squeezenet1_1.onnx");
  ASSERT_TRUE(g) << g.error().message;
  const core::Schedule s = core::reference_schedule(*g);
  core::RunOptions ro;
  ro.iterations = 2;
  ro.warmup = 0;
  auto copies = core::run_cpu_copies(*g, s, core::plan_no_reuse(*g), ro, 3);
  ASSERT_TRUE(copies) << copies.error().message;
  ASSERT_EQ(copies->size(), 3u);
  for (const core::RunResult& r : *copies) {
    EXPECT_EQ(r.iteration_ms.size(), 2u);
    ASSERT_EQ(r.node_median_us.size(), g->node_count());
    EXPECT_TRUE(core::compare_outputs(r, copies->front()).identical);
  }
  auto factor = core::measure_cpu_contention(*g, ro, 2);
  ASSERT_TRUE(factor) << factor.error().message;
  EXPECT_GE(*factor, 1.0);
  auto alone = core::measure_cpu_contention(*g, ro, 1);
  ASSERT_TRUE(alone);
  EXPECT_EQ(*alone, 1.0);
  // No room for two copies (each holds its arena, weights and inputs): nothing runs, factor 1.
  auto cramped = core::measure_cpu_contention(*g, ro, 2, 1 << 20);
  ASSERT_TRUE(cramped);
  EXPECT_EQ(*cramped, 1.0);
  EXPECT_GT(core::available_memory_bytes(), 0);
}

// The prediction `weft run --backend cpu` and the studio report: the reference predicts exactly
// 1x; more streams than CPUs are predicted too (one operator per CPU, as the executor runs them),
// with the device's cores the CPUs the run may use; a comparison whose reference ran another
// graph is refused.
TEST(CpuDevice, RunPrediction) {
  const core::Graph g = test::make_random_dag(40, 0.1, 5);
  core::RunOptions ro;
  ro.iterations = 3;
  ro.warmup = 0;
  core::RunComparisonOptions options;
  options.run = ro;
  auto executor = core::make_cpu_executor();
  const auto compare = [&](const core::Schedule& s) {
    auto c = core::compare_runs(*executor, g, s, options);
    EXPECT_TRUE(c) << c.error().message;
    return c;
  };
  const core::Schedule reference = core::reference_schedule(g);
  auto same = compare(reference);
  ASSERT_TRUE(same);
  auto one = core::predict_cpu_run(g, reference, *same, ro);
  ASSERT_TRUE(one) << one.error().message;
  EXPECT_DOUBLE_EQ(one->predicted, 1.0);
  EXPECT_EQ(one->device.sm_count, core::cpu_count());
  const int streams = core::cpu_count() + 1;
  const core::Schedule many = test::random_schedule(g, streams, 3, {.events_for_cross_edges = true});
  auto crowded = compare(many);
  ASSERT_TRUE(crowded);
  auto p = core::predict_cpu_run(g, many, *crowded, ro);
  ASSERT_TRUE(p) << p.error().message;
  // No more than the CPUs' worth of the reference's work at once.
  EXPECT_GT(p->predicted, 0.0);
  EXPECT_LE(p->predicted, static_cast<double>(core::cpu_count()) + 1e-9);
  crowded->sequential.node_median_us.pop_back();
  auto other = core::predict_cpu_run(g, many, *crowded, ro);
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("another graph"), std::string::npos) << other.error().message;
}

// A device of streams of 2 threads with a team curve round-trips: the file counts every core and
// names the team size; cpu_team_device picks a team's rates and runs cores / threads streams at
// once; a team size never calibrated, and more threads than cores, are refused by name.
TEST(CpuDevice, TeamsRoundTripAndSelect) {
  core::DeviceSpec d = cpu_device(2);
  d.threads_per_stream = 2;
  d.cpu_teams = {{1, 1e10, 2e10, 1.0}, {2, 1.8e10, 2.5e10, 1.5}, {4, 3e10, 3e10, 2.0}};
  const std::string text = core::device_to_json(d);
  EXPECT_NE(text.find("\"cores\": 4"), std::string::npos) << text;
  EXPECT_NE(text.find("\"threads_per_stream\": 2"), std::string::npos) << text;
  auto back = core::parse_device(text, "test");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->sm_count, 2);
  EXPECT_EQ(back->threads_per_stream, 2);
  ASSERT_EQ(back->cpu_teams.size(), 3u);
  EXPECT_DOUBLE_EQ(back->cpu_teams[1].peak_fp32_flops, 1.8e10);
  EXPECT_EQ(core::cpu_team_sizes(*back), (std::vector<int>{1, 2, 4}));
  auto one = core::cpu_team_device(*back, 1);
  ASSERT_TRUE(one) << one.error().message;
  EXPECT_EQ(one->sm_count, 4);
  EXPECT_EQ(one->threads_per_stream, 1);
  EXPECT_DOUBLE_EQ(one->peak_fp32_flops, 1e10);
  EXPECT_DOUBLE_EQ(one->launch_us, 1.0);
  auto four = core::cpu_team_device(*back, 4);
  ASSERT_TRUE(four);
  EXPECT_EQ(four->sm_count, 1);
  EXPECT_DOUBLE_EQ(four->memory_bandwidth, 3e10);
  auto three = core::cpu_team_device(*back, 3);
  ASSERT_FALSE(three);
  EXPECT_NE(three.error().message.find("1, 2, 4"), std::string::npos) << three.error().message;
  EXPECT_FALSE(core::cpu_team_device(*back, 8));
  // A plain device predicts only its own team size.
  EXPECT_TRUE(core::cpu_team_device(cpu_device(2), 1));
  EXPECT_FALSE(core::cpu_team_device(cpu_device(2), 2));
  // Teams out of order, or a team larger than the cores, are refused.
  core::DeviceSpec bad = d;
  bad.cpu_teams = {{2, 1e10, 1e10, 1}, {1, 1e10, 1e10, 1}};
  EXPECT_FALSE(core::parse_device(core::device_to_json(bad), "t"));
  bad.cpu_teams = {{8, 1e10, 1e10, 1}};
  EXPECT_FALSE(core::parse_device(core::device_to_json(bad), "t"));
}

// A team's node times follow its fitted rates per node: a compute-bound node gains the peak's
// ratio, a memory-bound one the bandwidth's, a measured time keeps what was measured and scales.
TEST(CpuDevice, TeamCostsScaleEachNodeByItsRates) {
  const core::Graph g = test::make_two_branches(3);
  core::DeviceSpec d = cpu_device(2);
  d.cpu_teams = {{1, 1e10, 1e10, 1.0}, {2, 2e10, 1e10, 1.0}};
  auto one = core::cpu_team_device(d, 1);
  auto two = core::cpu_team_device(d, 2);
  ASSERT_TRUE(one && two);
  const core::CostTable base = core::estimate_costs(g, *one);
  core::CostTable measured_table = base;
  for (auto& c : measured_table.nodes)
    if (c.known) {
      c.time_us *= 3;
      c.measured = true;
    }
  const core::CostTable moved = core::cpu_team_costs(g, measured_table, *one, *two);
  const core::CostTable predicted = core::estimate_costs(g, *two);
  for (std::size_t v = 0; v < base.nodes.size(); ++v) {
    if (!base.nodes[v].known) continue;
    EXPECT_NEAR(moved.nodes[v].time_us, 3 * predicted.nodes[v].time_us, 1e-9 * predicted.nodes[v].time_us) << v;
    EXPECT_TRUE(moved.nodes[v].measured);
  }
}

// Calibrating at every team size fits each one's rates from its own run (into cpu_teams, the
// run's own size among them); the team sizes worth calibrating are the powers of two and the cores.
TEST(CpuDevice, CalibrateEveryTeamSize) {
  EXPECT_EQ(core::cpu_calibration_teams(2), (std::vector<int>{1, 2}));
  EXPECT_EQ(core::cpu_calibration_teams(6), (std::vector<int>{1, 2, 4, 6}));
  EXPECT_EQ(core::cpu_calibration_teams(1), (std::vector<int>{1}));
  auto g = core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/squeezenet1_1.onnx");
  ASSERT_TRUE(g) << g.error().message;
  core::RunOptions ro;
  ro.iterations = 1;
  ro.warmup = 0;
  core::CpuFitOptions o;
  o.cores = 2;
  o.concurrent_slowdown = 1.1;  // no contention probe: not what this pins
  o.teams = {1, 2};
  auto cal = core::calibrate_cpu(*g, ro, o);
  ASSERT_TRUE(cal) << cal.error().message;
  ASSERT_EQ(cal->device.cpu_teams.size(), 2u);
  EXPECT_EQ(cal->device.cpu_teams[0].threads, 1);
  EXPECT_DOUBLE_EQ(cal->device.cpu_teams[0].peak_fp32_flops, cal->device.peak_fp32_flops);
  EXPECT_EQ(cal->device.cpu_teams[1].threads, 2);
  EXPECT_GT(cal->device.cpu_teams[1].peak_fp32_flops, 0);
  auto back = core::parse_device(core::device_to_json(cal->device), "t");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->cpu_teams.size(), 2u);
  EXPECT_TRUE(core::check_threads_per_stream(1));
  EXPECT_FALSE(core::check_threads_per_stream(0));
  EXPECT_FALSE(core::check_threads_per_stream(core::cpu_count() + 1));
}

namespace {

// A CPU of 2 cores without per-operator overhead whose streams of 2 threads run each operator
// `gain` times faster.
core::DeviceSpec two_core_teams(double gain) {
  core::DeviceSpec d = cpu_device(2);
  d.launch_us = 0;
  d.cpu_teams = {{1, 1e10, 1e10, 0.0}, {2, gain * 1e10, gain * 1e10, 0.0}};
  return d;
}

}  // namespace

// Search on a CPU calibrated at two team sizes picks the threads per stream with the streams:
// two independent branches on two streams of one thread (2x) where a team gains 1.5x, a chain on
// one stream of two threads where the team nearly doubles every operator; the schedule records
// its team size, saves it and reads it back, and predict() simulates it on that team against the
// one-thread sequential run.
TEST(CpuDevice, SearchChoosesStreamsAndThreadsPerStream) {
  core::StrategyOptions o;
  o.search_evaluations = 400;
  o.max_streams = 2;
  struct Case {
    core::Graph graph;
    double gain;
    int threads;
    std::size_t streams;
    double speedup;
  };
  std::vector<Case> cases;
  cases.push_back({test::make_two_branches(6), 1.5, 1, 2, 2.0});
  cases.push_back({test::make_chain(8), 1.95, 2, 1, 1.95});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.gain);
    const core::DeviceSpec d = two_core_teams(c.gain);
    const core::CostTable costs = core::estimate_costs(c.graph, d);
    auto s = core::make_schedule("search", c.graph, costs, d, o);
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->threads_per_stream, c.threads);
    EXPECT_EQ(s->stream_count(), c.streams);
    auto back = core::schedule_from_json(c.graph, core::schedule_to_json(c.graph, *s, d.name));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->threads_per_stream, s->threads_per_stream);
    auto p = core::predict(c.graph, *s, costs, d);
    ASSERT_TRUE(p) << p.error().message;
    EXPECT_NEAR(p->speedup_vs_eager, c.speedup, 0.05);
  }
  const core::Graph g = test::make_chain(3);
  auto bad = core::schedule_from_json(g, core::schedule_to_json(g, core::reference_schedule(g), "cpu").replace(0, 1, R"({"threads_per_stream": 0,)"));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("threads_per_stream"), std::string::npos) << bad.error().message;
}

// The advice on a CPU calibrated at two team sizes weighs both: a chain gains nothing from
// streams, and streams of two threads (named in the line) where the team nearly doubles every
// operator, one thread where it gains 2%; each team size's best speedup over the one-thread
// sequential run is kept.
TEST(CpuDevice, AdviceWeighsThreadsPerStream) {
  const core::Graph g = test::make_chain(8);
  for (const double gain : {1.02, 1.95}) {
    SCOPED_TRACE(gain);
    const core::DeviceSpec d = two_core_teams(gain);
    const core::AnalysisReport report = core::analyze(g, core::estimate_costs(g, d));
    core::AdviceOptions o;
    o.strategy.max_streams = 2;
    o.memory = false;
    auto a = core::advise(g, report, d, o);
    ASSERT_TRUE(a) << a.error().message;
    ASSERT_EQ(a->team_speedups.size(), 2u);
    EXPECT_EQ(a->team_speedups[0].first, 1);
    EXPECT_EQ(a->team_speedups[1].first, 2);
    EXPECT_NEAR(a->team_speedups[1].second, gain, 0.01);
    if (gain < 1.5) {
      EXPECT_EQ(a->best_threads_per_stream, 1);
      EXPECT_NE(a->line.find("streams of 2 threads"), std::string::npos) << a->line;
    } else {
      EXPECT_EQ(a->best_threads_per_stream, 2);
      EXPECT_NEAR(a->best_speedup, gain, 0.01);
      EXPECT_NE(a->line.find("of 2 threads predicts"), std::string::npos) << a->line;
    }
  }
}

// Hybrid teams: a node on a team of every core holds every core in the simulator (the other
// stream's node waits for it), and on a CPU calibrated at two team sizes whose team of 2 runs
// each operator 1.8x faster, a stem, two branches and a join on 2 streams of one thread predict
// a shorter makespan with the alone nodes on the team: the branches as before, the stem and the
// join 1.8x faster. Costs measured at the nodes' teams already are not moved again.
TEST(CpuDevice, HybridTeamsHoldTheCoresAndGainTheTeamRate) {
  const core::Graph two = test::make_two_branches(2);
  core::Schedule side = two_streams();
  side.streams = {{0, 1}, {2, 3}};
  side.threads_per_stream = 1;
  side.node_threads = {2, 0, 0, 0};
  const auto ten = test::table({measured(10), measured(10), measured(10), measured(10)});
  const auto tl = core::simulate(two, side, ten, cpu_device(2));
  EXPECT_DOUBLE_EQ(tl.items[2].start_us, 10);  // waits for the wide node's cores
  EXPECT_DOUBLE_EQ(tl.makespan_us(), 30);
  side.node_threads.clear();
  EXPECT_DOUBLE_EQ(core::simulate(two, side, ten, cpu_device(2)).items[2].start_us, 0);

  const core::Graph g = test::make_dag(8, {{0, 1}, {1, 2}, {2, 3}, {1, 4}, {4, 5}, {3, 6}, {5, 6}, {6, 7}});
  core::Schedule s;
  s.streams = {{0, 1, 2, 3, 6, 7}, {4, 5}};
  s.events = {{1, 4}, {5, 6}};
  s.strategy = "hand";
  const double gain = 1.8;
  const core::DeviceSpec d = two_core_teams(gain);
  const core::CostTable costs = core::estimate_costs(g, d);
  core::PredictOptions po;
  po.counterfactuals = false;
  auto plain = core::predict(g, s, costs, d, po);
  ASSERT_TRUE(plain) << plain.error().message;
  core::Schedule hybrid = s;
  ASSERT_TRUE(core::make_hybrid(g, hybrid, 1, 2));
  ASSERT_EQ(core::count_node_teams(hybrid).nodes, 4u);
  auto p = core::predict(g, hybrid, costs, d, po);
  ASSERT_TRUE(p) << p.error().message;
  double alone_us = 0;
  for (core::NodeId v : {0, 1, 6, 7}) alone_us += core::device_time_us(costs[v], d);
  EXPECT_LT(p->makespan_us, plain->makespan_us);
  EXPECT_NEAR(plain->makespan_us - p->makespan_us, alone_us * (1 - 1 / gain), 1e-6 * plain->makespan_us);
  EXPECT_DOUBLE_EQ(p->sequential_eager_us, plain->sequential_eager_us);  // the baseline stays one thread
  po.costs_at_node_teams = true;
  auto as_given = core::predict(g, hybrid, costs, d, po);
  ASSERT_TRUE(as_given);
  EXPECT_DOUBLE_EQ(as_given->makespan_us, plain->makespan_us);
  std::size_t uncalibrated = 0;
  hybrid.node_threads[0] = 4;  // no team of 4 calibrated: left as it is, and counted
  const core::CostTable moved = core::cpu_node_team_costs(g, hybrid, costs, d, &uncalibrated);
  EXPECT_EQ(uncalibrated, 1u);
  EXPECT_DOUBLE_EQ(moved.nodes[0].time_us, costs.nodes[0].time_us);
  EXPECT_NEAR(moved.nodes[1].time_us, costs.nodes[1].time_us / gain, 1e-9 * costs.nodes[1].time_us);
}

// Search and advice on a CPU calibrated at two team sizes weigh hybrid teams: a long stem, two
// branches and a join, where a team of 2 runs every operator 1.8x faster, is best on 2 streams
// of one thread with the stem and the join on the team (the schedule records the teams, and its
// options say so), and the advice names --hybrid with a speedup above the streams' alone.
TEST(CpuDevice, SearchAndAdviceWeighHybridTeams) {
  std::vector<std::pair<int, int>> edges;
  for (int i = 1; i < 6; ++i) edges.emplace_back(i - 1, i);  // stem n0..n5
  for (int i = 7; i < 12; ++i) edges.emplace_back(i - 1, i);  // branch n6..n11
  for (int i = 13; i < 18; ++i) edges.emplace_back(i - 1, i);  // branch n12..n17
  edges.insert(edges.end(), {{5, 6}, {5, 12}, {11, 18}, {17, 18}, {18, 19}});
  const core::Graph g = test::make_dag(20, edges, 1 << 20);  // nodes of 0.8 ms: long enough for a team
  const core::DeviceSpec d = two_core_teams(1.8);
  const core::CostTable costs = core::estimate_costs(g, d);
  core::StrategyOptions o;
  o.search_evaluations = 400;
  o.max_streams = 2;
  auto s = core::make_schedule("search", g, costs, d, o);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->threads_per_stream, 1);
  EXPECT_EQ(s->stream_count(), 2u);
  EXPECT_EQ(core::count_node_teams(*s).nodes, 8u);  // the stem, the join and the tail
  EXPECT_EQ(s->team_of(0), 2);
  EXPECT_EQ(s->team_of(7), 1);
  EXPECT_NE(s->options.find("hybrid=8x2"), std::string::npos) << s->options;
  const core::AnalysisReport report = core::analyze(g, costs);
  core::AdviceOptions ao;
  ao.strategy.max_streams = 2;
  ao.memory = false;
  auto a = core::advise(g, report, d, ao);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->hybrid_nodes, 8u);
  EXPECT_EQ(a->hybrid_threads, 2);
  EXPECT_GT(a->hybrid_speedup, a->best_speedup);
  EXPECT_NE(a->line.find("--hybrid"), std::string::npos) << a->line;
}

// Runs given one LibraryKernelShare run the kernels the first of them prepared, its packed
// weights included (what lets run_cpu_copies' copies hold one set of weights, as a run's streams
// do): a run seeded otherwise (other random weights and biases, the same given input) sharing
// the first run's kernels differs from the same run preparing its own, whose convolutions use
// its own weights.
TEST(CpuDevice, SharedLibraryKernelsRunAsThePreparedOnes) {
  auto g = core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/squeezenet1_1.onnx");
  ASSERT_TRUE(g) << g.error().message;
  const core::Schedule s = core::reference_schedule(*g);
  const core::MemoryPlan plan = core::plan_no_reuse(*g);
  core::RunOptions ro;
  ro.iterations = 1;
  ro.warmup = 0;
  for (core::TensorId t : g->inputs()) {
    const core::Tensor& x = g->tensor(t);
    if (x.kind != core::TensorKind::Input) continue;
    core::HostTensor h{core::DType::Float32, x.shape(), {}};
    std::int64_t n = 1;
    for (std::int64_t d : h.shape) n *= d;
    const std::vector<float> half(static_cast<std::size_t>(n), 0.5f);
    h.bytes.resize(half.size() * sizeof(float));
    std::memcpy(h.bytes.data(), half.data(), h.bytes.size());
    ro.inputs[x.name] = std::move(h);
  }
  const auto exec = core::make_cpu_executor();
  core::RunOptions shared = ro;
  shared.library_kernels = core::make_library_kernel_share();
  shared.seed = 1;
  auto first = exec->run(*g, s, plan, shared);
  shared.seed = 2;
  auto second = exec->run(*g, s, plan, shared);
  ro.seed = 2;
  auto own = exec->run(*g, s, plan, ro);
  ASSERT_TRUE(first && second && own);
  ASSERT_GT(own->packed_weight_bytes, 0);  // the library packed convolution weights
  EXPECT_EQ(second->packed_weight_bytes, own->packed_weight_bytes);
  EXPECT_EQ(second->kernel_paths, own->kernel_paths);
  EXPECT_FALSE(core::compare_outputs(*second, *own).identical);    // the first run's weights
  EXPECT_FALSE(core::compare_outputs(*second, *first).identical);  // its own biases
}
