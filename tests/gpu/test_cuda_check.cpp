// Host-side behaviour of the CUDA executor that needs no GPU: which operators it accepts, the
// "unsupported" errors it gives before any launch, and the errors of a build or machine without CUDA.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "weft/core/memory/memory_planner.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/study/merge_study.h"
#include "weft/gpu/cuda_executor.h"
#include "weft/gpu/devices.h"
#include "gpu_test_paths.h"
#include "module_api.h"
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

core::Graph tiny_graph(const std::string& op) {
  core::GraphBuilder b;
  b.add_input("x", core::DType::Float32, dims({2, 3}));
  b.add_node("n0", "Relu", {"x"}, {"a"});
  b.add_node("odd", op, {"a"}, {"y"});
  b.mark_output("y");
  b.set_shape("a", core::DType::Float32, {2, 3});
  b.set_shape("y", core::DType::Float32, {2, 3});
  auto g = std::move(b).build();
  EXPECT_TRUE(g) << (g ? "" : g.error().message);
  return std::move(*g);
}

core::Schedule one_stream(const core::Graph& g) {
  core::Schedule s;
  s.streams.emplace_back(g.topo_order().begin(), g.topo_order().end());
  s.strategy = "sequential";
  return s;
}

// The CNN models, vit_b_16 and every model of the GPU check's headline table (inception_v3 and
// randwire_ws with their symbolic batch bound: RandWire's Sum and Mean nodes) use only operators the
// CUDA executor accepts.
TEST(CudaCheck, AcceptsTheCnnModelsAndVit) {
  if (!gpu::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  core::ImportOptions batch1;
  batch1.dims["batch"] = 1;
  for (const char* model : {"googlenet", "squeezenet1_1", "resnet50", "mobilenet_v3_large", "vit_b_16", "inception_v3", "randwire_ws"}) {
    auto g = core::import_onnx(test::model_file(model), batch1);
    ASSERT_TRUE(g) << g.error().message;
    const auto s = gpu::cuda_check_supported(*g);
    EXPECT_TRUE(s) << model << ": " << (s ? "" : s.error().message);
  }
}

// An operator without a CUDA kernel is refused by name and node, as InvalidInput, before any launch.
TEST(CudaCheck, RefusesUnsupportedOperatorNamingNode) {
  if (!gpu::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  const core::Graph g = tiny_graph("Softplus");
  const auto s = gpu::cuda_check_supported(g);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_EQ(s.error().message.rfind("unsupported: operator Softplus at node 'odd'", 0), 0u) << s.error().message;
  // run() gives the same error, whether or not a GPU is present (the check comes first).
  auto r = gpu::make_cuda_executor()->run(g, one_stream(g), core::plan_no_reuse(g), {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(r.error().message.find("Softplus"), std::string::npos);
}

// The supported list is sorted and holds the CNN operators the issue names.
TEST(CudaCheck, SupportedOperatorList) {
  if (!gpu::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  const auto ops = gpu::cuda_supported_ops();
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
  for (const char* op : {"Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "LRN", "Relu", "Clip", "HardSwish", "Add", "Mul",
                         "Concat", "Flatten", "Reshape", "Gemm", "MatMul", "Softmax", "BatchNormalization"})
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << op;
}

// Dropout runs as a copy and never writes its mask: an unread mask is accepted, a read one refused.
TEST(CudaCheck, DropoutMaskOnlyWhenUnread) {
  if (!gpu::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  const auto dropout = [](bool read_mask) {
    core::GraphBuilder b;
    b.add_input("x", core::DType::Float32, dims({2, 3}));
    b.add_node("drop", "Dropout", {"x"}, {"y", "mask"});
    b.set_shape("y", core::DType::Float32, {2, 3});
    b.set_shape("mask", core::DType::Bool, {2, 3});
    b.mark_output("y");
    if (read_mask) {
      b.add_node("use", "Cast", {"mask"}, {"m"});
      b.set_shape("m", core::DType::Float32, {2, 3});
      b.mark_output("m");
    }
    auto g = std::move(b).build();
    EXPECT_TRUE(g) << (g ? "" : g.error().message);
    return std::move(*g);
  };
  EXPECT_TRUE(gpu::cuda_check_supported(dropout(false)));
  const auto s = gpu::cuda_check_supported(dropout(true));
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("'drop'"), std::string::npos) << s.error().message;
}

// A merged model (horizontal merges) is accepted where its members are: the grouped MLP merged;
// a member the executor lacks is refused inside its merged node, naming both.
TEST(CudaCheck, MergedNodesCheckTheirMembers) {
  if (!gpu::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  auto device = core::load_device("h200");
  ASSERT_TRUE(device) << device.error().message;
  core::ImportOptions io;
  io.dims["batch"] = 1;
  auto g = core::import_onnx(test::model_file("grouped_mlp"), io);
  ASSERT_TRUE(g) << g.error().message;
  auto merged = core::merge_model(*g, core::estimate_costs(*g, *device), *device);
  ASSERT_TRUE(merged) << merged.error().message;
  ASSERT_LT(merged->graph.node_count(), g->node_count());
  const auto ok = gpu::cuda_check_supported(merged->graph);
  EXPECT_TRUE(ok) << (ok ? "" : ok.error().message);

  core::GraphBuilder b;
  b.add_input("x", core::DType::Float32, dims({4, 8}));
  b.add_node("s0", "Softplus", {"x"}, {"a"});
  b.add_node("s1", "Softplus", {"x"}, {"b"});
  b.set_shape("a", core::DType::Float32, {4, 8});
  b.set_shape("b", core::DType::Float32, {4, 8});
  b.mark_output("a");
  b.mark_output("b");
  auto two = std::move(b).build();
  ASSERT_TRUE(two) << two.error().message;
  auto both = core::merge_model(*two, core::estimate_costs(*two, *device), *device);
  ASSERT_TRUE(both) << both.error().message;
  ASSERT_EQ(both->graph.node_count(), 1u);
  const auto refused = gpu::cuda_check_supported(both->graph);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(refused.error().message.find("in merged node 'merged:"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("operator Softplus at node 's0'"), std::string::npos) << refused.error().message;
}

// Non-float data is refused with the tensor's name.
TEST(CudaCheck, RefusesNonFloatData) {
  if (!gpu::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  core::GraphBuilder b;
  b.add_input("x", core::DType::Int64, dims({4}));
  b.add_node("r", "Relu", {"x"}, {"y"});
  b.set_shape("y", core::DType::Int64, {4});
  b.mark_output("y");
  auto g = std::move(b).build();
  ASSERT_TRUE(g);
  const auto s = gpu::cuda_check_supported(*g);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("'x' is int64"), std::string::npos) << s.error().message;
}

// Without a device (or without the CUDA module) run() fails with a Runtime error that says which.
TEST(CudaCheck, NoDeviceIsARuntimeError) {
  if (gpu::list_gpus()) GTEST_SKIP() << "a GPU is present";
  const core::Graph g = tiny_graph("Sigmoid");
  auto r = gpu::make_cuda_executor()->run(g, one_stream(g), core::plan_no_reuse(g), {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, core::ErrorKind::Runtime);
  const std::string& m = r.error().message;
  if (gpu::load_cuda_module()) {
    EXPECT_EQ(m.rfind("no CUDA device: ", 0), 0u) << m;
  } else {
    EXPECT_NE(m.find("libweft_cuda.so"), std::string::npos) << m;
  }
}

// Launch costs need a GPU: without one the same Runtime error; a bad kernel count is refused first.
TEST(CudaCheck, LaunchCostsNeedADevice) {
  auto bad = gpu::measure_launch_costs(0, 3);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(bad.error().message.find("16..100000, got 3"), std::string::npos) << bad.error().message;
  if (gpu::list_gpus()) GTEST_SKIP() << "a GPU is present";
  auto r = gpu::measure_launch_costs();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, core::ErrorKind::Runtime);
  if (gpu::load_cuda_module()) {
    EXPECT_EQ(r.error().message.rfind("no CUDA device: ", 0), 0u) << r.error().message;
  }
}

// The measured launch figures replace exactly the preset's launch figures.
TEST(CudaCheck, MeasuredLaunchCostsReplaceThePresets) {
  auto preset = core::load_device("h200");
  ASSERT_TRUE(preset) << preset.error().message;
  gpu::LaunchCosts m;
  m.name = "Test GPU";
  m.launch_us = 2.1;
  m.graph_chain_us = 1.3;
  m.graph_per_node_us = 0.4;
  m.event_record_us = 0.6;
  m.event_wait_us = 0.7;
  m.eager_chain_us = 9;  // not a preset figure
  const core::DeviceSpec d = gpu::with_launch_costs(*preset, m);
  EXPECT_EQ(d.launch_us, 2.1);
  EXPECT_EQ(d.kernel_min_us, 1.3);
  EXPECT_EQ(d.graph_launch_per_node_us, 0.4);
  EXPECT_EQ(d.event_record_us, 0.6);
  EXPECT_EQ(d.event_wait_us, 0.7);
  EXPECT_EQ(d.peak_fp32_flops, preset->peak_fp32_flops);
  EXPECT_EQ(d.memory_bandwidth, preset->memory_bandwidth);
  EXPECT_EQ(d.sm_count, preset->sm_count);
  EXPECT_NE(d.source.find("measured on Test GPU"), std::string::npos) << d.source;
  auto back = core::parse_device(core::device_to_json(d), "test");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->kernel_min_us, 1.3);
}

// A build that made the CUDA module loads it here (the toolkit's libraries are on this machine):
// the module comes from this build and reports the libraries it runs on, GPU or not.
TEST(CudaCheck, ModuleLoadsAndReportsLibraries) {
  if (!gpu::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  auto path = gpu::load_cuda_module();
  ASSERT_TRUE(path) << path.error().message;
  EXPECT_NE(path->find("libweft_cuda.so"), std::string::npos) << *path;
  auto info = gpu::cuda_runtime_info();
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->module_path, *path);
  EXPECT_EQ(info->built_against.rfind("weft ", 0), 0u) << info->built_against;
  EXPECT_GE(info->runtime_version, 12000);
  EXPECT_FALSE(info->cublas_version.empty());
  EXPECT_EQ(info->cudnn_version.rfind("9.", 0), 0u) << info->cudnn_version;
  EXPECT_TRUE(std::any_of(info->libraries.begin(), info->libraries.end(),
                          [](const std::string& f) { return f.find("libcudnn.so") != std::string::npos; }));
  // The module sets the hardware queues (32 unless the environment chose a value) and reports them.
  const char* connections = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  ASSERT_NE(connections, nullptr);
  EXPECT_EQ(info->max_connections, std::atoi(connections));
  EXPECT_FALSE(gpu::cuda_context_faulted());
}

#if WEFT_TEST_NVTX
// The module's NVTX ranges reach a tool (an injection library named by NVTX_INJECTION64_PATH, as
// Nsight Systems injects itself), without a GPU.
TEST(CudaCheck, ModuleNvtxRangesReachTheProgramsInjection) {
  if (!gpu::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  ASSERT_TRUE(gpu::load_cuda_module());
  const auto* api = gpu::detail::module_api();
  ASSERT_NE(api, nullptr);
  const auto before = test::nvtx_counts();
  api->nvtx_mark("weft nvtx probe");
  const auto after = test::nvtx_counts();
  EXPECT_EQ(after.pushes, before.pushes + 1);
  EXPECT_EQ(after.pops, before.pops + 1);
  ASSERT_FALSE(after.messages.empty());
  EXPECT_EQ(after.messages.back(), "weft nvtx probe");
}
#endif

}  // namespace

// A blocking rerun knows the first run's fault, and blocking launches (which synchronise every node
// and replay no graph) are told apart from real measurements: host-only, no device needed.
TEST(CudaCheck, BlockingRerunCarriesTheFault) {
  ::unsetenv("CUDA_LAUNCH_BLOCKING");
  ::unsetenv("WEFT_CUDA_FAULT");
  EXPECT_FALSE(gpu::launches_blocking());
  EXPECT_EQ(gpu::rerun_fault(), "");
  ::setenv("CUDA_LAUNCH_BLOCKING", "1", 1);
  ::setenv("WEFT_CUDA_FAULT", "Running cp-list on cuda-graph\ncudaGraphLaunch: illegal address", 1);
  EXPECT_TRUE(gpu::launches_blocking());
  EXPECT_EQ(gpu::rerun_fault(), "Running cp-list on cuda-graph\ncudaGraphLaunch: illegal address");
  ::setenv("CUDA_LAUNCH_BLOCKING", "0", 1);
  EXPECT_FALSE(gpu::launches_blocking());
  // Where the caller set WEFT_CUDA_RERUN (the GPU check under compute-sanitizer) nothing reruns.
  ::setenv("WEFT_CUDA_RERUN", "1", 1);
  EXPECT_TRUE(gpu::is_blocking_rerun());
  EXPECT_NE(gpu::rerun_with_blocking_launches("stage\nfault").message.find("not rerunning"), std::string::npos);
  ::unsetenv("WEFT_CUDA_RERUN");
  ::unsetenv("CUDA_LAUNCH_BLOCKING");
  ::unsetenv("WEFT_CUDA_FAULT");
}
