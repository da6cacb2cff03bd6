// The CUDA executor's host-side checks and launch geometry (gpu/src/op_geometry.h), compiled into
// the CPU build: which models and operators it takes, the errors it gives before any launch, and
// the strides, pads and products its kernels are launched with. No GPU or CUDA toolkit needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "op_geometry.h"
#include "gpu_test_paths.h"
#include "weft/core/graph/graph.h"
#include "weft/core/onnx/onnx_import.h"

using namespace weft;
namespace gd = weft::gpu::detail;

namespace {

core::Attribute ints(const std::string& name, std::vector<std::int64_t> v) {
  core::Attribute a;
  a.name = name;
  a.type = core::Attribute::Type::Ints;
  a.ints = std::move(v);
  return a;
}

core::Attribute one_int(const std::string& name, std::int64_t v) {
  core::Attribute a;
  a.name = name;
  a.type = core::Attribute::Type::Int;
  a.i = v;
  return a;
}

/// x [2, 3, 4] -> op(inputs) -> y, with the shapes given.
core::Graph one_node(const std::string& op, const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& inputs,
                     std::vector<std::int64_t> out, std::vector<core::Attribute> attrs = {}) {
  core::GraphBuilder b;
  std::vector<std::string> names;
  for (const auto& [name, shape] : inputs) {
    if (name.rfind("w", 0) == 0) b.add_weight(name, core::DType::Float32, shape);
    else {
      std::vector<core::Dim> d;
      for (std::int64_t v : shape) d.push_back(core::Dim{v, {}});
      b.add_input(name, core::DType::Float32, d);
    }
    names.push_back(name);
  }
  const std::string outs[] = {"y"};
  b.add_node("n", op, names, outs, std::move(attrs));
  b.set_shape("y", core::DType::Float32, std::move(out));
  b.mark_output("y");
  auto g = std::move(b).build();
  EXPECT_TRUE(g) << (g ? "" : g.error().message);
  return std::move(*g);
}

}  // namespace

// Every model of the GPU check's headline table and the other CNN test models pass the check the
// executor makes before any launch (inception_v3 and randwire_ws with their batch bound).
TEST(OpGeometry, HeadlineModelsAreAccepted) {
  core::ImportOptions batch1;
  batch1.dims["batch"] = 1;
  for (const char* model : {"googlenet", "inception_v3", "randwire_ws", "resnet50", "squeezenet1_1", "mobilenet_v3_large", "vit_b_16"}) {
    auto g = core::import_onnx(test::model_file(model), batch1);
    ASSERT_TRUE(g) << g.error().message;
    const auto ok = gd::check_graph(*g);
    EXPECT_TRUE(ok) << model << ": " << (ok ? "" : ok.error().message);
  }
}

// An operator without a kernel, and a shape the kernels do not take, are refused by operator and
// node, before any launch; the supported list is sorted.
TEST(OpGeometry, RefusalsNameTheOperatorAndNode) {
  const core::Graph softplus = one_node("Softplus", {{"x", {2, 3}}}, {2, 3});
  const auto s = gd::check_graph(softplus);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_EQ(s.error().message, "unsupported: operator Softplus at node 'n' on CUDA: no CUDA kernel for this operator");
  const core::Graph bad_sum = one_node("Sum", {{"x", {2, 3}}, {"z", {4, 3}}}, {2, 3});
  const auto b = gd::check_graph(bad_sum);
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().message.find("shapes do not broadcast"), std::string::npos) << b.error().message;
  const auto names = gd::supported_op_names();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  for (const char* op : {"Conv", "Gemm", "Sum", "Mean", "Softmax"})
    EXPECT_NE(std::find(names.begin(), names.end(), op), names.end()) << op;
}

// Broadcast strides are numpy's, right-aligned, 0 on broadcast axes; an Add's launch carries both
// operands' strides into the output, and Sum/Mean have no single-launch form (they launch per input).
TEST(OpGeometry, BroadcastStrides) {
  std::int64_t strides[gd::kMaxRank];
  ASSERT_TRUE(gd::broadcast_strides({3, 1}, {2, 3, 4}, strides));
  EXPECT_EQ(strides[0], 0);
  EXPECT_EQ(strides[1], 1);
  EXPECT_EQ(strides[2], 0);
  EXPECT_FALSE(gd::broadcast_strides({5}, {2, 3, 4}, strides));
  const core::Graph add = one_node("Add", {{"x", {2, 3, 4}}, {"w", {4}}}, {2, 3, 4});
  auto l = gd::member_launch(add, 0, nullptr);
  ASSERT_TRUE(l && *l);
  EXPECT_EQ((*l)->family, gd::MemberLaunch::Family::Binary);
  EXPECT_EQ((*l)->count, 24);
  EXPECT_EQ((*l)->shape.a_stride[0], 12);
  EXPECT_EQ((*l)->shape.b_stride[0], 0);
  EXPECT_EQ((*l)->shape.b_stride[2], 1);
  const core::Graph sum = one_node("Sum", {{"x", {2, 3, 4}}, {"w", {4}}}, {2, 3, 4});
  auto none = gd::member_launch(sum, 0, nullptr);
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
}

// Convolution geometry: SAME_UPPER pads put the odd pixel after; asymmetric explicit pads are
// refused (cuDNN pads both sides alike); groups must divide the channels.
TEST(OpGeometry, ConvolutionPads) {
  core::Attribute auto_pad;
  auto_pad.name = "auto_pad";
  auto_pad.type = core::Attribute::Type::String;
  auto_pad.s = "SAME_UPPER";
  const core::Graph upper = one_node("Conv", {{"x", {1, 1, 5, 5}}, {"w", {1, 1, 2, 2}}}, {1, 1, 5, 5}, {auto_pad});
  auto c = gd::conv_geometry(upper, 0);
  ASSERT_FALSE(c) << "SAME_UPPER with an even kernel pads one side only, which cuDNN cannot";
  const core::Graph sym = one_node("Conv", {{"x", {1, 4, 8, 8}}, {"w", {6, 2, 3, 3}}}, {1, 6, 4, 4},
                                   {ints("pads", {1, 1, 1, 1}), ints("strides", {2, 2}), one_int("group", 2)});
  auto g = gd::conv_geometry(sym, 0);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->group, 2);
  EXPECT_EQ(g->pads[0], 1);
  EXPECT_EQ(g->pads[3], 1);
  EXPECT_EQ(g->stride, (gd::Shape{2, 2}));
  const core::Graph groups = one_node("Conv", {{"x", {1, 5, 8, 8}}, {"w", {6, 2, 3, 3}}}, {1, 6, 6, 6}, {one_int("group", 2)});
  EXPECT_FALSE(gd::conv_geometry(groups, 0));
}

// GEMM geometry: a MatMul against a 2-D weight folds the batch into rows (one GEMM); equal batch
// dims make a strided batched GEMM; broadcast batch dims are refused.
TEST(OpGeometry, MatMulGeometry) {
  const core::Graph folded = one_node("MatMul", {{"x", {2, 3, 4}}, {"w", {4, 5}}}, {2, 3, 5});
  auto f = gd::gemm_geometry(folded, 0);
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->m, 6);
  EXPECT_EQ(f->n, 5);
  EXPECT_EQ(f->k, 4);
  EXPECT_EQ(f->batch, 1);
  const core::Graph batched = one_node("MatMul", {{"x", {2, 3, 4}}, {"z", {2, 4, 5}}}, {2, 3, 5});
  auto b = gd::gemm_geometry(batched, 0);
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(b->batch, 2);
  EXPECT_EQ(b->stride_a, 12);
  EXPECT_EQ(b->stride_b, 20);
  const core::Graph broadcast = one_node("MatMul", {{"x", {2, 3, 4}}, {"z", {1, 4, 5}}}, {2, 3, 5});
  EXPECT_FALSE(gd::gemm_geometry(broadcast, 0));
}
