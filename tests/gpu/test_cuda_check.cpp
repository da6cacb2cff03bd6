// Host-side behaviour of the CUDA executor that needs no GPU: which operators it accepts, the
// "unsupported" errors it gives before any launch, and the errors of a build or machine without CUDA.
#include <gtest/gtest.h>

#include <string>

#include "weft/core/memory_planner.h"
#include "weft/core/onnx_import.h"
#include "weft/gpu/cuda_executor.h"
#include "weft/gpu/devices.h"

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

// The four CNN models of the issue use only operators the CUDA executor accepts.
TEST(CudaCheck, AcceptsTheCnnModels) {
  if (!gpu::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  for (const char* model : {"googlenet", "squeezenet1_1", "resnet50", "mobilenet_v3_large"}) {
    auto g = core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/" + model + ".onnx");
    ASSERT_TRUE(g) << g.error().message;
    const auto s = gpu::cuda_check_supported(*g);
    EXPECT_TRUE(s) << model << ": " << (s ? "" : s.error().message);
  }
}

// An operator without a CUDA kernel is refused by name and node, as InvalidInput, before any launch.
TEST(CudaCheck, RefusesUnsupportedOperatorNamingNode) {
  if (!gpu::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  const core::Graph g = tiny_graph("Erf");
  const auto s = gpu::cuda_check_supported(g);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_EQ(s.error().message.rfind("unsupported: operator Erf at node 'odd'", 0), 0u) << s.error().message;
  // run() gives the same error, whether or not a GPU is present (the check comes first).
  auto r = gpu::make_cuda_executor()->run(g, one_stream(g), core::plan_no_reuse(g), {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(r.error().message.find("Erf"), std::string::npos);
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

// Without a device (or without CUDA in the build) run() fails with a Runtime error that says so.
TEST(CudaCheck, NoDeviceIsARuntimeError) {
  if (gpu::built_with_cuda() && gpu::list_gpus()) GTEST_SKIP() << "a GPU is present";
  const core::Graph g = tiny_graph("Sigmoid");
  auto r = gpu::make_cuda_executor()->run(g, one_stream(g), core::plan_no_reuse(g), {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, core::ErrorKind::Runtime);
  const std::string& m = r.error().message;
  EXPECT_TRUE(m.find("built without") != std::string::npos || m.find("no usable CUDA GPU") != std::string::npos) << m;
}

}  // namespace
