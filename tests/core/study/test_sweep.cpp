// The batch sweep: batch binding, predicted speedups per strategy and batch, the CPU-measured
// variant, and the CSV that joins points run elsewhere.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "weft/core/cost/cost_model.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/strategy/registry.h"
#include "weft/core/study/prediction.h"
#include "weft/core/study/batch_sweep.h"

using namespace weft;

namespace {
std::string model(const std::string& name) { return std::string(WEFT_TEST_DATA_DIR) + "/models/" + name + ".onnx"; }

core::SweepOptions options(std::vector<std::int64_t> batches, std::vector<std::string> strategies) {
  core::SweepOptions o;
  o.batches = std::move(batches);
  o.strategies = std::move(strategies);
  auto d = core::load_device("h100-sxm");
  EXPECT_TRUE(d);
  o.device = *d;
  return o;
}
}  // namespace

// The batch dimension is found on a model with a symbolic batch; a static one is refused by name.
TEST(Sweep, FindsTheBatchDimension) {
  auto mlp = core::import_onnx(model("grouped_mlp"));
  ASSERT_TRUE(mlp) << mlp.error().message;
  auto dim = core::find_batch_dim(*mlp);
  ASSERT_TRUE(dim) << dim.error().message;
  EXPECT_EQ(*dim, "batch");
  auto resnet = core::import_onnx(model("resnet50"));
  ASSERT_TRUE(resnet);
  auto none = core::find_batch_dim(*resnet);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("no unbound symbolic batch dimension"), std::string::npos);
}

// Every strategy at every batch: sequential is 1x, the work grows with the batch, and a wide
// model's concurrent schedule gains over the reference under CUDA Graph replay.
TEST(Sweep, PredictedPointsPerBatchAndStrategy) {
  core::SweepOptions o = options({1, 8}, {"sequential", "cp-list"});
  o.mode = core::LaunchMode::Graph;
  auto points = core::sweep(model("randwire_ws"), o);
  ASSERT_TRUE(points) << points.error().message;
  ASSERT_EQ(points->size(), 4u);
  EXPECT_EQ((*points)[0].batch, 1);
  EXPECT_EQ((*points)[0].strategy, "sequential");
  EXPECT_EQ((*points)[1].strategy, "cp-list");
  EXPECT_EQ((*points)[2].batch, 8);
  for (const core::SweepPoint& p : *points) {
    EXPECT_EQ(p.device, "h100-sxm");
    EXPECT_EQ(p.mode, "graph");
    EXPECT_FALSE(p.measured_speedup);
    if (p.strategy == "sequential") {
      EXPECT_NEAR(p.predicted_speedup, 1.0, 1e-9);
    }
  }
  EXPECT_GT((*points)[2].predicted_sequential_us, (*points)[0].predicted_sequential_us);
  EXPECT_GT((*points)[1].predicted_speedup, 1.05);
  EXPECT_GT((*points)[1].streams, 1);
}

// Bad requests: an unknown strategy, a non-positive batch, a batch dimension named that the model
// does not have.
TEST(Sweep, Refusals) {
  EXPECT_FALSE(core::sweep(model("randwire_ws"), options({1}, {"no-such"})));
  EXPECT_FALSE(core::sweep(model("randwire_ws"), options({0}, {"cp-list"})));
  core::SweepOptions named = options({1, 2}, {"cp-list"});
  named.batch_dim = "no_such_dim";
  auto st = core::sweep(model("grouped_mlp"), named);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, core::ErrorKind::InvalidInput);
}

// A static-batch export (resnet50, batch 1) is re-batched at each point, as --batch does: the
// same prediction as importing it with ImportOptions::batch; the sweep says so once. A model that
// fixes its batch inside (shufflenet_v2: its output keeps batch 1) is refused at the first batch
// it cannot reach, naming the output, rather than swept as something else.
TEST(Sweep, StaticBatchIsRebatched) {
  core::SweepOptions o = options({1, 4}, {"cp-list"});
  std::vector<std::string> notes;
  o.on_note = [&](const std::string& n) { notes.push_back(n); };
  auto points = core::sweep(model("resnet50"), o);
  ASSERT_TRUE(points) << points.error().message;
  ASSERT_EQ(points->size(), 2u);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("has a static batch (1): each point re-batches"), std::string::npos) << notes[0];
  core::ImportOptions io;
  io.batch = 4;
  auto rebatched = core::import_onnx(model("resnet50"), io);
  ASSERT_TRUE(rebatched) << rebatched.error().message;
  EXPECT_TRUE(rebatched->info().rebatch_kept.empty());
  const auto costs = core::estimate_costs(*rebatched, o.device);
  auto schedule = core::make_schedule("cp-list", *rebatched, costs, o.device, o.strategy);
  ASSERT_TRUE(schedule) << schedule.error().message;
  core::PredictOptions po;
  po.counterfactuals = false;
  auto p = core::predict(*rebatched, *schedule, costs, o.device, po);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ((*points)[1].batch, 4);
  EXPECT_DOUBLE_EQ((*points)[1].predicted_us, p->makespan_us);
  EXPECT_GT((*points)[1].predicted_sequential_us, (*points)[0].predicted_sequential_us);  // more work at batch 4

  auto fixed = core::sweep(model("shufflenet_v2_x1_0"), options({1, 8}, {"cp-list"}));
  ASSERT_FALSE(fixed);
  EXPECT_EQ(fixed.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(fixed.error().message.find("batch 8: re-batched, output 'output' keeps the exported batch"), std::string::npos)
      << fixed.error().message;
  io.batch = 8;
  auto kept = core::import_onnx(model("shufflenet_v2_x1_0"), io);
  ASSERT_TRUE(kept) << kept.error().message;
  EXPECT_EQ(kept->info().rebatch_kept, std::vector<std::string>{"output"});
  bool warned = false;
  for (const std::string& w : kept->info().warnings) warned = warned || w.find("--batch 8: output 'output' has 1 at dim 0") != std::string::npos;
  EXPECT_TRUE(warned);
}

// With the CPU executor each point is also measured, and the prediction comes from a CPU device
// calibrated on that batch's sequential run.
TEST(Sweep, MeasuredOnTheCpu) {
  auto executor = core::make_cpu_executor();
  core::SweepOptions o = options({1, 2}, {"cp-list"});
  o.executor = executor.get();
  o.run.iterations = 1;
  o.run.warmup = 0;
  auto points = core::sweep(model("grouped_mlp"), o);
  ASSERT_TRUE(points) << points.error().message;
  ASSERT_EQ(points->size(), 2u);
  for (const core::SweepPoint& p : *points) {
    EXPECT_EQ(p.mode, "cpu");
    ASSERT_TRUE(p.measured_speedup);
    EXPECT_GT(*p.measured_speedup, 0);
    EXPECT_GT(*p.measured_sequential_ms, 0);
    EXPECT_GT(p.predicted_speedup, 0);
  }
}

// Hybrid teams measured on the CPU: a point on several streams puts its alone nodes on a team of
// every core, runs against the reference with the same teams (bit for bit, or the sweep fails)
// and says so in its JSON; without hybrid no point has a wide node and the JSON no such key.
TEST(Sweep, HybridTeamsMeasuredOnTheCpu) {
  if (core::cpu_count() < 2) GTEST_SKIP() << "one CPU: no team of 2";
  auto executor = core::make_cpu_executor();
  core::SweepOptions o = options({1}, {"cp-list"});
  o.executor = executor.get();
  o.run.iterations = 1;
  o.run.warmup = 0;
  o.hybrid = true;
  auto points = core::sweep(model("squeezenet1_1"), o);
  ASSERT_TRUE(points) << points.error().message;
  ASSERT_EQ(points->size(), 1u);
  const core::SweepPoint& p = points->front();
  ASSERT_GT(p.streams, 1);
  EXPECT_GT(p.hybrid_nodes, 0u);
  EXPECT_EQ(p.hybrid_threads, std::min(p.streams, core::cpu_count()));
  ASSERT_TRUE(p.measured_speedup);
  EXPECT_GT(*p.measured_speedup, 0);
  EXPECT_GT(p.predicted_speedup, 0);
  EXPECT_NE(core::sweep_json(*points).find("\"hybrid_nodes\": " + std::to_string(p.hybrid_nodes)), std::string::npos);
  o.hybrid = false;
  auto plain = core::sweep(model("squeezenet1_1"), o);
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(plain->front().hybrid_nodes, 0u);
  EXPECT_EQ(core::sweep_json(*plain).find("hybrid_nodes"), std::string::npos);
}

// Hybrid teams predicted on a CPU device calibrated at 1 and 2 threads: the alone nodes take the
// 2-thread rates, so the hybrid points predict faster than the plain ones over the same
// sequential baseline. A GPU device, or an executor other than the CPU's, is refused.
TEST(Sweep, HybridTeamsPredictedOnACpuDevice) {
  core::SweepOptions o = options({1, 2}, {"cp-list"});
  // A device file as `weft calibrate` writes one, with its team sizes.
  auto cpu = core::parse_device(R"({"name": "cpu-test", "kind": "cpu", "cores": 2, "peak_fp32_tflops": 0.01,
      "memory_bandwidth_gb_s": 10, "launch_us": 1, "event_record_us": 0, "event_wait_us": 0.2,
      "teams": [{"threads": 1, "peak_fp32_tflops": 0.01, "memory_bandwidth_gb_s": 10, "launch_us": 1},
                {"threads": 2, "peak_fp32_tflops": 0.019, "memory_bandwidth_gb_s": 16, "launch_us": 1.5}]})",
                                "cpu-test.json");
  ASSERT_TRUE(cpu) << cpu.error().message;
  o.device = *cpu;
  auto plain = core::sweep(model("squeezenet1_1"), o);
  ASSERT_TRUE(plain) << plain.error().message;
  o.hybrid = true;
  auto hybrid = core::sweep(model("squeezenet1_1"), o);
  ASSERT_TRUE(hybrid) << hybrid.error().message;
  ASSERT_EQ(hybrid->size(), 2u);
  for (std::size_t i = 0; i < hybrid->size(); ++i) {
    const core::SweepPoint &h = (*hybrid)[i], &p = (*plain)[i];
    ASSERT_GT(h.streams, 1);
    EXPECT_GT(h.hybrid_nodes, 0u);
    EXPECT_EQ(h.hybrid_threads, 2);
    EXPECT_DOUBLE_EQ(h.predicted_sequential_us, p.predicted_sequential_us);
    EXPECT_LT(h.predicted_us, p.predicted_us);
    EXPECT_EQ(p.hybrid_nodes, 0u);
  }
  o.device = options({1}, {}).device;
  auto gpu = core::sweep(model("squeezenet1_1"), o);
  ASSERT_FALSE(gpu);
  EXPECT_EQ(gpu.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(gpu.error().message.find("hybrid teams need a CPU device, not h100-sxm"), std::string::npos) << gpu.error().message;
  auto executor = core::make_cpu_executor();
  o.executor = executor.get();
  o.calibrate_cpu = false;
  auto other = core::sweep(model("squeezenet1_1"), o);
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("hybrid teams need the CPU executor"), std::string::npos) << other.error().message;
}

namespace {
// The CPU executor, with every output of a schedule on more than one stream moved by `shift`: a
// device whose kernels sum in another order (small shift) or that computes wrongly (large).
class ShiftedExecutor : public core::Executor {
 public:
  explicit ShiftedExecutor(float shift) : m_shift(shift) {}
  std::string name() const override { return "shifted"; }
  core::Expected<core::RunResult> run(const core::Graph& graph, const core::Schedule& schedule, const core::MemoryPlan& plan,
                                      const core::RunOptions& options) override {
    auto r = m_cpu->run(graph, schedule, plan, options);
    if (!r || schedule.stream_count() < 2) return r;
    for (auto& [name, t] : r->outputs)
      for (std::size_t i = 0; i + sizeof(float) <= t.bytes.size(); i += sizeof(float)) {
        float x;
        std::memcpy(&x, t.bytes.data() + i, sizeof x);
        x += m_shift;
        std::memcpy(t.bytes.data() + i, &x, sizeof x);
      }
    return r;
  }

 private:
  float m_shift;
  std::unique_ptr<core::Executor> m_cpu = core::make_cpu_executor();
};
}  // namespace

// Another executor than the CPU's (CUDA, in `weft sweep --backend cuda`): the device's own
// predictions in the launch mode asked for, measured speedups beside them, and outputs that agree
// with the reference run's to kSweepOutputTolerance rather than bit for bit.
TEST(Sweep, MeasuredWithTheDevicesPredictions) {
  core::SweepOptions o = options({1, 2}, {"cp-list"});
  o.mode = core::LaunchMode::Graph;
  o.calibrate_cpu = false;
  o.output_tolerance = core::kSweepOutputTolerance;
  o.run.iterations = 1;
  o.run.warmup = 0;
  ShiftedExecutor close(1e-5f);
  o.executor = &close;
  auto points = core::sweep(model("grouped_mlp"), o);
  ASSERT_TRUE(points) << points.error().message;
  ASSERT_EQ(points->size(), 2u);
  for (const core::SweepPoint& p : *points) {
    EXPECT_EQ(p.device, "h100-sxm");
    EXPECT_EQ(p.mode, "graph");
    EXPECT_GT(p.streams, 1);
    ASSERT_TRUE(p.measured_speedup);
    EXPECT_GT(*p.measured_speedup, 0);
  }
  ShiftedExecutor wrong(1.0f);
  o.executor = &wrong;
  auto refused = core::sweep(model("grouped_mlp"), o);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("differ from the sequential run"), std::string::npos) << refused.error().message;
  // Without a tolerance (the CPU executor's sweep) nothing but identical outputs passes.
  o.output_tolerance = 0;
  o.executor = &close;
  auto exact = core::sweep(model("grouped_mlp"), o);
  ASSERT_FALSE(exact);
  EXPECT_NE(exact.error().message.find("differ from the sequential run"), std::string::npos) << exact.error().message;
}

// CSV: written points read back equal (repeated headers from concatenated files are fine);
// malformed rows are refused with the line.
TEST(Sweep, CsvRoundTrip) {
  core::SweepPoint a;
  a.model = "m,odel.onnx";
  a.batch = 4;
  a.strategy = "cp-list";
  a.device = "cpu";
  a.mode = "cpu";
  a.streams = 3;
  a.events = 7;
  a.predicted_us = 120.5;
  a.predicted_sequential_us = 200;
  a.predicted_speedup = 200 / 120.5;
  a.measured_ms = 1.5;
  a.measured_sequential_ms = 2.0;
  a.measured_speedup = 2.0 / 1.5;
  core::SweepPoint b = a;
  b.batch = 8;
  b.measured_ms.reset();
  b.measured_sequential_ms.reset();
  b.measured_speedup.reset();
  const std::string text = core::sweep_csv({a}) + core::sweep_csv({b});
  auto back = core::sweep_from_csv(text, "t.csv");
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].model, "m,odel.onnx");
  EXPECT_EQ((*back)[0].events, 7u);
  EXPECT_NEAR((*back)[0].predicted_speedup, a.predicted_speedup, 1e-9);
  ASSERT_TRUE((*back)[0].measured_speedup);
  EXPECT_NEAR(*(*back)[0].measured_speedup, 2.0 / 1.5, 1e-9);
  EXPECT_FALSE((*back)[1].measured_speedup);
  auto bad = core::sweep_from_csv("model,batch\n1,2\n", "x.csv");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("x.csv:1"), std::string::npos) << bad.error().message;
  const std::string header = core::sweep_csv({});
  auto short_row = core::sweep_from_csv(header + "a,1,2\n", "y.csv");
  ASSERT_FALSE(short_row);
  EXPECT_NE(short_row.error().message.find("y.csv:2: expected 13 fields"), std::string::npos);
  auto nan = core::sweep_from_csv(header + "m,one,s,d,eager,1,0,1,1,1,,,\n", "z.csv");
  ASSERT_FALSE(nan);
  EXPECT_NE(nan.error().message.find("batch 'one'"), std::string::npos);
}
