// The CUDA executor on a real GPU: outputs agree with the CPU reference for every strategy on
// real models, measured timelines respect the schedule, CUDA Graph replay gives the same outputs,
// and hand-built graphs pin the cuBLAS row-major mapping, broadcasting, pooling and concat.
// The binary exits 77 (ctest: skipped) when no CUDA device is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "gpu_test_paths.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/cost/device.h"
#include "weft/core/memory/memory_aware_order.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/transform/micro_batch.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/study/merge_study.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/strategy/registry.h"
#include "weft/core/study/run_comparison.h"
#include "weft/gpu/cuda_executor.h"
#include "weft/gpu/devices.h"

#if WEFT_TEST_NVTX
#include "nvtx_counter.h"
#endif

namespace {

using namespace weft;

/// Static dims for GraphBuilder::add_input.
std::vector<core::Dim> dims(std::initializer_list<std::int64_t> values) {
  std::vector<core::Dim> d;
  for (std::int64_t v : values) d.push_back(core::Dim{v, {}});
  return d;
}

std::vector<float> floats(const core::HostTensor& h) {
  std::vector<float> v(h.bytes.size() / sizeof(float));
  if (!v.empty()) std::memcpy(v.data(), h.bytes.data(), h.bytes.size());
  return v;
}

/// Largest |a - b| over all outputs divided by max(1, largest |a|): the relative-to-scale error.
double scaled_error(const core::RunResult& ref, const core::RunResult& got) {
  double worst = 0;
  for (const auto& [name, h] : ref.outputs) {
    const auto it = got.outputs.find(name);
    EXPECT_NE(it, got.outputs.end()) << name;
    if (it == got.outputs.end()) return INFINITY;
    EXPECT_EQ(it->second.shape, h.shape) << name;
    const auto a = floats(h), b = floats(it->second);
    if (a.size() != b.size()) return INFINITY;
    double scale = 1, diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      scale = std::max(scale, static_cast<double>(std::fabs(a[i])));
      const double d = std::fabs(static_cast<double>(a[i]) - b[i]);
      diff = std::isnan(d) ? INFINITY : std::max(diff, d);
    }
    worst = std::max(worst, diff / scale);
  }
  return worst;
}

core::Graph load(const std::string& model) {
  auto g = core::import_onnx(test::model_file(model));
  EXPECT_TRUE(g) << g.error().message;
  return std::move(*g);
}

core::Schedule sequential(const core::Graph& g) {
  return core::Schedule{{core::memory_aware_order(g)}, {}, "sequential", ""};
}

core::RunOptions quick() {
  core::RunOptions o;
  o.iterations = 3;
  o.warmup = 1;
  return o;
}

constexpr double kTolerance = 1e-3;  // max abs error relative to the output's scale (FMA and summation order)

/// Every node once, on its schedule stream, and every data edge u -> v with start(v) >= end(u).
void expect_timeline_respects(const core::Graph& g, const core::Schedule& s, const core::Timeline& tl) {
  ASSERT_EQ(tl.items.size(), g.node_count());
  std::vector<int> stream_of(g.node_count(), -1);
  for (std::size_t k = 0; k < s.streams.size(); ++k)
    for (core::NodeId v : s.streams[k]) stream_of[static_cast<std::size_t>(v)] = static_cast<int>(k);
  std::vector<const core::TimelineItem*> item(g.node_count(), nullptr);
  for (const auto& it : tl.items) {
    ASSERT_GE(it.node, 0);
    item[static_cast<std::size_t>(it.node)] = &it;
    EXPECT_EQ(it.stream, stream_of[static_cast<std::size_t>(it.node)]) << g.key(it.node);
    EXPECT_LE(it.start_us, it.end_us) << g.key(it.node);
  }
  for (std::size_t u = 0; u < g.node_count(); ++u)
    for (core::NodeId v : g.successors(static_cast<core::NodeId>(u))) {
      ASSERT_TRUE(item[u] && item[static_cast<std::size_t>(v)]);
      // Both stamps come from the same GPU clock; allow float rounding of the ms -> µs conversion.
      EXPECT_GE(item[static_cast<std::size_t>(v)]->start_us, item[u]->end_us - 0.01)
          << g.key(static_cast<core::NodeId>(u)) << " -> " << g.key(v);
    }
}

class CudaModels : public ::testing::TestWithParam<std::string> {};

// Every strategy's schedule, run eagerly on the GPU with per-node timing, agrees with the CPU
// reference and yields a timeline that enforces every data edge on the schedule's streams.
TEST_P(CudaModels, EveryStrategyMatchesCpuAndRespectsDependencies) {
  const core::Graph g = load(GetParam());
  auto device = core::load_device(core::default_device_name());
  ASSERT_TRUE(device);
  const auto costs = core::estimate_costs(g, *device);
  core::RunOptions cpu_options;
  cpu_options.iterations = 1;
  cpu_options.warmup = 0;
  const core::Schedule seq = sequential(g);
  auto seq_plan = core::plan_memory(g, seq);
  ASSERT_TRUE(seq_plan);
  auto cpu = core::make_cpu_executor()->run(g, seq, *seq_plan, cpu_options);
  ASSERT_TRUE(cpu) << cpu.error().message;
  auto cuda = gpu::make_cuda_executor();
  for (const std::string& strategy : core::fixed_strategy_names()) {
    SCOPED_TRACE(strategy);
    auto s = core::make_schedule(strategy, g, costs, *device);
    ASSERT_TRUE(s) << s.error().message;
    auto plan = core::plan_memory(g, *s);
    ASSERT_TRUE(plan);
    auto r = cuda->run(g, *s, *plan, quick());
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_LE(scaled_error(*cpu, *r), kTolerance);
    EXPECT_EQ(r->timeline.kind, core::RunKind::Measured);
    EXPECT_EQ(r->timeline.stream_count, static_cast<int>(s->stream_count()));
    expect_timeline_respects(g, *s, r->timeline);
    EXPECT_EQ(r->iteration_ms.size(), 3u);
    EXPECT_GT(r->wall_ms, 0);
    EXPECT_EQ(r->random_weights, cpu->random_weights);
  }
}

// CUDA Graph capture of a multi-stream schedule replays to the eager outputs (same kernels,
// same algorithms: equal up to the last bits at most) and to the CPU within tolerance.
TEST_P(CudaModels, GraphModeMatchesEager) {
  const core::Graph g = load(GetParam());
  auto device = core::load_device(core::default_device_name());
  ASSERT_TRUE(device);
  const auto costs = core::estimate_costs(g, *device);
  core::StrategyOptions so;
  so.cuda_graph = true;
  auto s = core::make_schedule("cp-list", g, costs, *device, so);
  ASSERT_TRUE(s);
  auto plan = core::plan_memory(g, *s);
  ASSERT_TRUE(plan);
  auto eager = gpu::make_cuda_executor()->run(g, *s, *plan, quick());
  ASSERT_TRUE(eager) << eager.error().message;
  gpu::CudaRunOptions graph_mode;
  graph_mode.cuda_graph = true;
  auto graph = gpu::make_cuda_executor(graph_mode)->run(g, *s, *plan, quick());
  ASSERT_TRUE(graph) << graph.error().message;
  EXPECT_LE(scaled_error(*eager, *graph), 1e-5);
  EXPECT_TRUE(graph->timeline.items.empty());  // no per-node timing inside a graph
  EXPECT_GT(graph->wall_ms, 0);
}

// The device comparison `weft run --backend cuda` makes (core::compare_runs with the eager
// executor, the CUDA Graph executor and the CPU check): every figure it prints comes from the
// runs, the outputs agree, the per-node timed timelines respect the schedule.
TEST_P(CudaModels, DeviceComparisonThroughCompareRuns) {
  const core::Graph g = load(GetParam());
  auto device = core::load_device(core::default_device_name());
  ASSERT_TRUE(device);
  auto s = core::make_schedule("cp-list", g, core::estimate_costs(g, *device), *device);
  ASSERT_TRUE(s);
  gpu::CudaRunOptions graph_mode;
  graph_mode.cuda_graph = true;
  auto eager = gpu::make_cuda_executor();
  auto graphed = gpu::make_cuda_executor(graph_mode);
  auto cpu = core::make_cpu_executor();
  core::RunComparisonOptions options;
  options.run = quick();
  options.run.per_node_timing = false;
  options.timed_runs = true;
  options.graph_executor = graphed.get();
  options.check_executor = cpu.get();
  auto c = core::compare_runs(*eager, g, *s, options);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_TRUE(c->sequential_timed && c->scheduled_timed && c->sequential_graph && c->scheduled_graph && c->check);
  EXPECT_LE(scaled_error(*c->check, c->scheduled), kTolerance);
  EXPECT_LE(scaled_error(c->scheduled, *c->scheduled_graph), 1e-5);
  EXPECT_GT(c->speedup(), 0);
  EXPECT_GT(c->speedup_vs_graph(), 0);
  EXPECT_TRUE(c->sequential.timeline.items.empty());  // throughput runs: no per-node events
  expect_timeline_respects(g, *s, c->scheduled_timeline());
  EXPECT_TRUE((c->scheduled_timeline().identity() == core::RunIdentity{core::RunKind::Measured, "cuda", "cp-list"}));
  EXPECT_EQ(c->sequential_timeline().label, "measured cuda sequential");
  EXPECT_EQ(c->overlapped_pairs, core::overlapped_pairs(c->scheduled_timeline()));
}

INSTANTIATE_TEST_SUITE_P(Models, CudaModels, ::testing::Values("squeezenet1_1", "googlenet"));

// A micro-batch split model (batch 4, k = 2) under split-overlap: the copies read their slices of
// the input and write their slices of the output in place (views), eagerly and as a CUDA Graph,
// and agree with the unsplit model on the CPU.
TEST(CudaSplit, SplitOverlapMatchesTheUnsplitModel) {
  core::ImportOptions io;
  io.batch = 4;
  auto g = core::import_onnx(test::model_file("squeezenet1_1"), io);
  ASSERT_TRUE(g) << g.error().message;
  auto split = core::split_batch(*g, 2);
  ASSERT_TRUE(split) << split.error().message;
  auto device = core::load_device(core::default_device_name());
  ASSERT_TRUE(device);
  core::RunOptions cpu_options;
  cpu_options.iterations = 1;
  cpu_options.warmup = 0;
  const core::Schedule seq = sequential(*g);
  auto seq_plan = core::plan_memory(*g, seq);
  ASSERT_TRUE(seq_plan);
  auto cpu = core::make_cpu_executor()->run(*g, seq, *seq_plan, cpu_options);
  ASSERT_TRUE(cpu) << cpu.error().message;
  auto s = core::make_schedule("split-overlap", *split, core::estimate_costs(*split, *device), *device);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->stream_count(), 2u);
  auto plan = core::plan_memory(*split, *s);
  ASSERT_TRUE(plan) << plan.error().message;
  for (bool graph_mode : {false, true}) {
    SCOPED_TRACE(graph_mode ? "graph" : "eager");
    gpu::CudaRunOptions o;
    o.cuda_graph = graph_mode;
    auto r = gpu::make_cuda_executor(o)->run(*split, *s, *plan, quick());
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_LE(scaled_error(*cpu, *r), kTolerance);
  }
}

core::Attribute ints(std::string name, std::vector<std::int64_t> v) {
  core::Attribute a;
  a.name = std::move(name);
  a.type = core::Attribute::Type::Ints;
  a.ints = std::move(v);
  return a;
}
core::Attribute one_int(std::string name, std::int64_t v) {
  core::Attribute a;
  a.name = std::move(name);
  a.type = core::Attribute::Type::Int;
  a.i = v;
  return a;
}
core::Attribute one_float(std::string name, float v) {
  core::Attribute a;
  a.name = std::move(name);
  a.type = core::Attribute::Type::Float;
  a.f = v;
  return a;
}

/// Runs g on the CPU and the GPU (one stream) and returns the scaled error.
double cpu_vs_cuda(const core::Graph& g) {
  core::Schedule s{{std::vector<core::NodeId>(g.topo_order().begin(), g.topo_order().end())}, {}, "sequential", ""};
  const auto plan = core::plan_no_reuse(g);
  core::RunOptions o;
  o.iterations = 1;
  o.warmup = 0;
  auto cpu = core::make_cpu_executor()->run(g, s, plan, o);
  EXPECT_TRUE(cpu) << cpu.error().message;
  auto cuda = gpu::make_cuda_executor()->run(g, s, plan, o);
  EXPECT_TRUE(cuda) << cuda.error().message;
  if (!cpu || !cuda) return INFINITY;
  return scaled_error(*cpu, *cuda);
}

// Conv (groups, bias, pads, stride) -> MaxPool with ceil_mode -> AveragePool with pads ->
// GlobalAveragePool -> Flatten -> Gemm (transB, alpha, beta, broadcast C) -> Softmax.
TEST(CudaOps, ConvPoolGemmSoftmaxMatchCpu) {
  core::GraphBuilder b;
  b.add_input("x", core::DType::Float32, dims({2, 4, 9, 9}));
  b.add_weight("w", core::DType::Float32, {6, 2, 3, 3});
  b.add_weight("wb", core::DType::Float32, {6});
  b.add_weight("fc", core::DType::Float32, {5, 6});
  b.add_weight("fcb", core::DType::Float32, {5});
  const std::string conv_in[] = {"x", "w", "wb"}, conv_out[] = {"c"};
  b.add_node("conv", "Conv", conv_in, conv_out, {ints("pads", {1, 1, 1, 1}), ints("strides", {1, 1}), one_int("group", 2)});
  b.add_node("relu", "Relu", {"c"}, {"r"});
  const std::string mp_in[] = {"r"}, mp_out[] = {"m"};
  b.add_node("maxpool", "MaxPool", mp_in, mp_out, {ints("kernel_shape", {2, 2}), ints("strides", {2, 2}), one_int("ceil_mode", 1)});
  const std::string ap_in[] = {"m"}, ap_out[] = {"a"};
  b.add_node("avgpool", "AveragePool", ap_in, ap_out,
             {ints("kernel_shape", {3, 3}), ints("pads", {1, 1, 1, 1}), one_int("count_include_pad", 1)});
  b.add_node("gap", "GlobalAveragePool", {"a"}, {"p"});
  const std::string fl_in[] = {"p"}, fl_out[] = {"f"};
  b.add_node("flatten", "Flatten", fl_in, fl_out, {one_int("axis", 1)});
  const std::string gm_in[] = {"f", "fc", "fcb"}, gm_out[] = {"g"};
  b.add_node("gemm", "Gemm", gm_in, gm_out, {one_int("transB", 1), one_float("alpha", 0.5f), one_float("beta", 2.0f)});
  b.add_node("softmax", "Softmax", {"g"}, {"y"});
  b.set_shape("c", core::DType::Float32, {2, 6, 9, 9});
  b.set_shape("r", core::DType::Float32, {2, 6, 9, 9});
  b.set_shape("m", core::DType::Float32, {2, 6, 5, 5});
  b.set_shape("a", core::DType::Float32, {2, 6, 5, 5});
  b.set_shape("p", core::DType::Float32, {2, 6, 1, 1});
  b.set_shape("f", core::DType::Float32, {2, 6});
  b.set_shape("g", core::DType::Float32, {2, 5});
  b.set_shape("y", core::DType::Float32, {2, 5});
  b.mark_output("y");
  b.mark_output("a");
  auto g = std::move(b).build();
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_LE(cpu_vs_cuda(*g), 1e-5);
}

// Batched MatMul, MatMul against a 2-D weight (batch folded into rows), broadcasting Add/Mul/
// Sub/Div, Concat on axis 1, HardSwish, LRN and BatchNormalization.
TEST(CudaOps, MatMulBroadcastConcatNormMatchCpu) {
  core::GraphBuilder b;
  b.add_input("a", core::DType::Float32, dims({2, 3, 4}));
  b.add_input("c", core::DType::Float32, dims({2, 4, 5}));
  b.add_weight("w", core::DType::Float32, {5, 3});
  b.add_weight("bias", core::DType::Float32, {5});
  b.add_weight("k", core::DType::Float32, {3, 1});
  b.add_node("bmm", "MatMul", {"a", "c"}, {"ac"});           // 2x3x5
  b.add_node("add", "Add", {"ac", "bias"}, {"ab"});          // + [5]
  b.add_node("mul", "Mul", {"ab", "k"}, {"mk"});             // * [3,1]
  b.add_node("sub", "Sub", {"mk", "ac"}, {"sk"});
  b.add_node("div", "Div", {"sk", "bias"}, {"dk"});
  b.add_node("mm", "MatMul", {"dk", "w"}, {"dw"});           // 2x3x3 (weight 5x3)
  const std::string cat_in[] = {"dw", "a"}, cat_out[] = {"cat"};
  b.add_node("concat", "Concat", cat_in, cat_out, {one_int("axis", 2)});  // 2x3x7
  b.add_node("hswish", "HardSwish", {"cat"}, {"hs"});
  b.add_weight("scale", core::DType::Float32, {3});
  b.add_weight("shift", core::DType::Float32, {3});
  b.add_weight("mean", core::DType::Float32, {3});
  b.add_weight("var", core::DType::Float32, {3});
  b.add_node("bn", "BatchNormalization", {"hs", "scale", "shift", "mean", "var"}, {"bn_out"});
  const std::string lrn_in[] = {"bn_out"}, lrn_out[] = {"y"};
  b.add_node("lrn", "LRN", lrn_in, lrn_out, {one_int("size", 3)});
  b.set_shape("ac", core::DType::Float32, {2, 3, 5});
  b.set_shape("ab", core::DType::Float32, {2, 3, 5});
  b.set_shape("mk", core::DType::Float32, {2, 3, 5});
  b.set_shape("sk", core::DType::Float32, {2, 3, 5});
  b.set_shape("dk", core::DType::Float32, {2, 3, 5});
  b.set_shape("dw", core::DType::Float32, {2, 3, 3});
  b.set_shape("cat", core::DType::Float32, {2, 3, 7});
  b.set_shape("hs", core::DType::Float32, {2, 3, 7});
  b.set_shape("bn_out", core::DType::Float32, {2, 3, 7});
  b.set_shape("y", core::DType::Float32, {2, 3, 7});
  b.mark_output("y");
  auto g = std::move(b).build();
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_LE(cpu_vs_cuda(*g), 1e-5);
}

/// An int64 weight holding `values` (Slice bounds, Gather indices).
core::WeightData int64_data(const std::vector<std::int64_t>& values) {
  core::WeightData d;
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(values.size() * sizeof(std::int64_t));
  if (!values.empty()) std::memcpy(bytes->data(), values.data(), bytes->size());
  d.inline_bytes = std::move(bytes);
  return d;
}

// The transformer operators (vit_b_16): Transpose, Slice with a negative step, Gather of a
// scalar and of a vector of indices (one negative), Pow, Sqrt and Erf.
TEST(CudaOps, TransposeSliceGatherPowSqrtErfMatchCpu) {
  core::GraphBuilder b;
  b.add_input("x", core::DType::Float32, dims({2, 3, 4, 5}));
  b.add_weight("starts", core::DType::Int64, {2}, int64_data({1, -1}));
  b.add_weight("ends", core::DType::Int64, {2}, int64_data({3, -6}));
  b.add_weight("axes", core::DType::Int64, {2}, int64_data({1, 3}));
  b.add_weight("steps", core::DType::Int64, {2}, int64_data({1, -2}));
  b.add_weight("i0", core::DType::Int64, {}, int64_data({2}));
  b.add_weight("iv", core::DType::Int64, {3}, int64_data({0, -1, 1}));
  b.add_weight("two", core::DType::Float32, {});
  const std::string tr_in[] = {"x"}, tr_out[] = {"t"};
  b.add_node("transpose", "Transpose", tr_in, tr_out, {ints("perm", {0, 2, 3, 1})});  // 2x4x5x3
  const std::string sl_in[] = {"x", "starts", "ends", "axes", "steps"}, sl_out[] = {"s"};
  b.add_node("slice", "Slice", sl_in, sl_out);  // 2x2x4x3 (axis 3: 4, 2, 0)
  const std::string g0_in[] = {"t", "i0"}, g0_out[] = {"g0"};
  b.add_node("gather_scalar", "Gather", g0_in, g0_out, {one_int("axis", 1)});  // 2x5x3
  const std::string gv_in[] = {"s", "iv"}, gv_out[] = {"gv"};
  b.add_node("gather_vector", "Gather", gv_in, gv_out, {one_int("axis", 2)});  // 2x2x3x3
  b.add_node("pow", "Pow", {"g0", "two"}, {"p"});
  b.add_node("sqrt", "Sqrt", {"p"}, {"q"});
  b.add_node("erf", "Erf", {"gv"}, {"e"});
  b.set_shape("t", core::DType::Float32, {2, 4, 5, 3});
  b.set_shape("s", core::DType::Float32, {2, 2, 4, 3});
  b.set_shape("g0", core::DType::Float32, {2, 5, 3});
  b.set_shape("gv", core::DType::Float32, {2, 2, 3, 3});
  b.set_shape("p", core::DType::Float32, {2, 5, 3});
  b.set_shape("q", core::DType::Float32, {2, 5, 3});
  b.set_shape("e", core::DType::Float32, {2, 2, 3, 3});
  b.mark_output("q");
  b.mark_output("e");
  b.mark_output("t");
  auto g = std::move(b).build();
  ASSERT_TRUE(g) << g.error().message;
  ASSERT_TRUE(gpu::cuda_check_supported(*g)) << gpu::cuda_check_supported(*g).error().message;
  EXPECT_LE(cpu_vs_cuda(*g), 1e-5);
}

// Sum and Mean over one, two and three broadcasting inputs (RandWire's aggregation nodes): the
// first two added into the output, the rest added in place, Mean divided by the count.
TEST(CudaOps, SumAndMeanMatchCpu) {
  core::GraphBuilder b;
  b.add_input("x", core::DType::Float32, dims({2, 3, 4}));
  b.add_input("z", core::DType::Float32, dims({2, 3, 4}));
  b.add_weight("row", core::DType::Float32, {4});
  b.add_weight("col", core::DType::Float32, {3, 1});
  const std::string one_in[] = {"x"}, one_out[] = {"s1"};
  b.add_node("sum1", "Sum", one_in, one_out);
  const std::string two_in[] = {"x", "row"}, two_out[] = {"s2"};
  b.add_node("sum2", "Sum", two_in, two_out);
  const std::string three_in[] = {"col", "z", "s2"}, three_out[] = {"m3"};
  b.add_node("mean3", "Mean", three_in, three_out);
  const std::string mean1_in[] = {"s1"}, mean1_out[] = {"m1"};
  b.add_node("mean1", "Mean", mean1_in, mean1_out);
  for (const char* t : {"s1", "s2", "m3", "m1"}) b.set_shape(t, core::DType::Float32, {2, 3, 4});
  b.mark_output("m3");
  b.mark_output("m1");
  auto g = std::move(b).build();
  ASSERT_TRUE(g) << g.error().message;
  ASSERT_TRUE(gpu::cuda_check_supported(*g)) << gpu::cuda_check_supported(*g).error().message;
  EXPECT_LE(cpu_vs_cuda(*g), 1e-6);
}

// A merged model runs each merged node as one launch where its members differ only in their
// pointers (a batched GEMM for the grouped MLP's Gemms, 48 -> 12 launches; one grid over pointer
// arrays for the transformer's per-head Relus, Adds, Transposes and Softmaxes), GoogLeNet's
// same-input 1x1 convolutions as one convolution over concatenated filters writing the outputs'
// block, else its members one after another on the node's stream. Sequentially and on streams,
// eager and replayed, the outputs are the unmerged CPU run's.
TEST(CudaMerge, MergedModelsMatchTheUnmergedCpuRun) {
  auto device = core::load_device("h200");
  ASSERT_TRUE(device) << device.error().message;
  for (const char* name : {"grouped_mlp", "transformer4h", "googlenet"}) {
    core::ImportOptions io;
    io.dims["batch"] = 4;  // googlenet has a static batch of 1
    auto g = core::import_onnx(test::model_file(name), io);
    ASSERT_TRUE(g) << name << ": " << g.error().message;
    const core::CostTable costs = core::estimate_costs(*g, *device);
    auto merged = core::merge_model(*g, costs, *device);
    ASSERT_TRUE(merged) << name << ": " << merged.error().message;
    ASSERT_LT(merged->graph.node_count(), g->node_count()) << name;
    auto cpu = core::make_cpu_executor()->run(*g, sequential(*g), core::plan_no_reuse(*g), quick());
    ASSERT_TRUE(cpu) << name << ": " << cpu.error().message;
    for (const char* strategy : {"sequential", "level-rr"}) {
      auto s = core::make_schedule(strategy, merged->graph, merged->costs, *device);
      ASSERT_TRUE(s) << s.error().message;
      auto plan = core::plan_memory(merged->graph, *s);
      ASSERT_TRUE(plan) << plan.error().message;
      for (const bool replay : {false, true}) {
        gpu::CudaRunOptions o;
        o.cuda_graph = replay;
        auto r = gpu::make_cuda_executor(o)->run(merged->graph, *s, *plan, quick());
        ASSERT_TRUE(r) << name << " " << strategy << (replay ? " graph: " : ": ") << r.error().message;
        EXPECT_LE(scaled_error(*cpu, *r), kTolerance) << name << " " << strategy << (replay ? " graph" : "");
      }
    }
  }
}

// Launch costs timed with empty kernels: every figure measured, in the range a GPU gives (a
// launch costs the host microseconds, not milliseconds), a dependent kernel at least as long as
// the release of an independent one, and the eager chain no faster than its launches allow.
TEST(CudaLaunchCosts, MeasuresEveryFigure) {
  auto m = gpu::measure_launch_costs(0, 200);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_FALSE(m->name.empty());
  EXPECT_EQ(m->kernels, 200);
  for (double v : {m->launch_us, m->eager_chain_us, m->graph_chain_us, m->graph_per_node_us, m->graph_launch_us,
                   m->event_record_us, m->event_wait_us}) {
    EXPECT_GT(v, 0.0);
    EXPECT_LT(v, 1000.0);
  }
  EXPECT_GE(m->graph_chain_us * 1.5, m->graph_per_node_us);
  EXPECT_GE(m->eager_chain_us * 1.5, m->launch_us);
  std::printf("launch %.3f us, eager chain %.3f, graph chain %.3f, graph node %.3f, graph launch %.2f, record %.3f, wait %.3f\n",
              m->launch_us, m->eager_chain_us, m->graph_chain_us, m->graph_per_node_us, m->graph_launch_us, m->event_record_us,
              m->event_wait_us);
  // The context is healthy afterwards: a model still runs.
  EXPECT_FALSE(gpu::cuda_context_faulted());
}

#if WEFT_TEST_NVTX
// NVTX: one range per run ("weft <strategy>") and one per node per iteration ("<key> (<op>)"),
// all popped; nothing when NVTX is switched off.
TEST(CudaNvtx, RangePerRunAndPerNode) {
  const core::Graph g = load("squeezenet1_1");
  const core::Schedule s = sequential(g);
  auto plan = core::plan_memory(g, s);
  ASSERT_TRUE(plan);
  core::RunOptions o;
  o.iterations = 2;
  o.warmup = 1;
  const auto before = test::nvtx_counts();
  auto r = gpu::make_cuda_executor()->run(g, s, *plan, o);
  ASSERT_TRUE(r) << r.error().message;
  const auto after = test::nvtx_counts();
  EXPECT_EQ(after.pushes - before.pushes, 1 + 3 * static_cast<int>(g.node_count()));
  EXPECT_EQ(after.pops - before.pops, after.pushes - before.pushes);
  const std::vector<std::string> added(after.messages.begin() + static_cast<std::ptrdiff_t>(before.messages.size()), after.messages.end());
  ASSERT_FALSE(added.empty());
  EXPECT_EQ(added.front(), "weft sequential");
  const core::NodeId first = s.streams[0].front();
  EXPECT_EQ(added[1], g.key(first) + " (" + g.node(first).op_type + ")");

  gpu::CudaRunOptions quiet;
  quiet.nvtx = false;
  auto q = gpu::make_cuda_executor(quiet)->run(g, s, *plan, o);
  ASSERT_TRUE(q) << q.error().message;
  EXPECT_EQ(test::nvtx_counts().pushes, after.pushes);
}
#endif

}  // namespace

// ctest counts exit code 77 as skipped: without a device (or in a build without the CUDA module)
// the whole binary skips, not just its tests. A module this build made that fails to load is a
// failure, not a skip.
int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!weft::gpu::built_with_cuda()) {
    std::printf("test_cuda_executor: skipped: this build has no CUDA module\n");
    return 77;
  }
  if (auto module = weft::gpu::load_cuda_module(); !module) {
    std::printf("test_cuda_executor: FAILED: %s\n", module.error().message.c_str());
    return 1;
  }
  auto gpus = weft::gpu::list_gpus();
  if (!gpus) {
    std::printf("test_cuda_executor: skipped: %s\n", gpus.error().message.c_str());
    return 77;
  }
  return RUN_ALL_TESTS();
}
