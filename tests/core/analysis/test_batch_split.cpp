// The batch split check: per-sample operators keep the batch, the first operator that mixes it
// is named with the reason, and weights never carry it.
#include <gtest/gtest.h>

#include "test_graphs.h"
#include "weft/core/transform/batch_split.h"
#include "weft/core/onnx/onnx_import.h"

using namespace weft;

using weft::test::int_attr;
using weft::test::ints_attr;

namespace {

// x [4, 8] -> Relu -> (op under test with `attrs`, output shape `out`) -> Relu.
core::Graph one_op(const std::string& op, std::vector<core::Attribute> attrs, std::vector<std::int64_t> out) {
  core::GraphBuilder b;
  b.add_input("x", core::DType::Float32, {core::Dim{4, {}}, core::Dim{8, {}}});
  b.add_node("r0", "Relu", {"x"}, {"a"});
  b.set_shape("a", core::DType::Float32, {4, 8});
  const std::vector<std::string> in{"a"}, o{"b"};
  b.add_node("op", op, std::span<const std::string>(in), std::span<const std::string>(o), std::move(attrs));
  b.set_shape("b", core::DType::Float32, out);
  b.add_node("r1", "Relu", {"b"}, {"c"});
  b.set_shape("c", core::DType::Float32, out);
  b.mark_output("c");
  auto g = std::move(b).build();
  EXPECT_TRUE(g) << g.error().message;
  return std::move(*g);
}

core::BatchSplitCheck model(const std::string& name) {
  auto g = core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/" + name + ".onnx");
  EXPECT_TRUE(g) << g.error().message;
  return core::check_batch_split(*g);
}

}  // namespace

// Operators over other axes keep the batch; the same operators over axis 0 are the blocker.
TEST(BatchSplit, AxisRules) {
  EXPECT_TRUE(core::check_batch_split(one_op("Softmax", {int_attr("axis", 1)}, {4, 8})).splittable);
  const auto softmax = core::check_batch_split(one_op("Softmax", {int_attr("axis", 0)}, {4, 8}));
  EXPECT_FALSE(softmax.splittable);
  EXPECT_EQ(softmax.reason, "Softmax 'op': normalises over the batch axis");
  EXPECT_EQ(softmax.blocker, 1);
  EXPECT_TRUE(core::check_batch_split(one_op("ReduceMean", {ints_attr("axes", {1})}, {4, 1})).splittable);
  EXPECT_EQ(core::check_batch_split(one_op("ReduceMean", {ints_attr("axes", {0})}, {1, 8})).reason,
            "ReduceMean 'op': reduces over the batch axis");
  EXPECT_EQ(core::check_batch_split(one_op("Transpose", {ints_attr("perm", {1, 0})}, {8, 4})).reason,
            "Transpose 'op': moves the batch axis");
  EXPECT_EQ(core::check_batch_split(one_op("Flatten", {int_attr("axis", 0)}, {1, 32})).reason,
            "Flatten 'op': flattens the batch into one row");
  EXPECT_TRUE(core::check_batch_split(one_op("Flatten", {int_attr("axis", 1)}, {4, 8})).splittable);
  const auto reshape = core::check_batch_split(one_op("Reshape", {}, {2, 16}));
  EXPECT_EQ(reshape.reason, "Reshape 'op': changes dim 0 from 4 to 2, merging the batch");
  EXPECT_EQ(core::check_batch_split(one_op("BatchNormalization", {int_attr("training_mode", 1)}, {4, 8})).reason,
            "BatchNormalization 'op': BatchNormalization in training mode computes statistics over the batch");
  EXPECT_EQ(core::check_batch_split(one_op("FancyOp", {}, {4, 8})).reason,
            "FancyOp 'op': its treatment of the batch is unknown (not in the split rules)");
}

// A MatMul whose right operand is a weight keeps the batch in the rows; weights carry no batch.
TEST(BatchSplit, WeightsDoNotCarryTheBatch) {
  core::GraphBuilder b;
  b.add_input("x", core::DType::Float32, {core::Dim{4, {}}, core::Dim{8, {}}});
  b.add_weight("w", core::DType::Float32, {8, 3});
  b.add_node("mm", "MatMul", {"x", "w"}, {"y"});
  b.set_shape("y", core::DType::Float32, {4, 3});
  b.mark_output("y");
  auto g = std::move(b).build();
  ASSERT_TRUE(g) << g.error().message;
  const auto c = core::check_batch_split(*g);
  EXPECT_TRUE(c.splittable) << c.reason;
  EXPECT_TRUE(c.carries_batch[static_cast<std::size_t>(g->outputs()[0])]);
  EXPECT_FALSE(c.carries_batch[1]);  // w
}

namespace {

// x [4, 8] and y, each fed through a Relu (so both carry the batch when they are inputs), into
// `op` with its other operands `others` (weights of the given shapes); output shape `out`.
core::BatchSplitCheck two_operand(const std::string& op, std::vector<std::int64_t> x_shape, std::vector<std::int64_t> other_shape,
                                  bool other_carries, std::vector<std::int64_t> out, bool other_first = false) {
  core::GraphBuilder b;
  std::vector<core::Dim> dims;
  for (auto d : x_shape) dims.push_back(core::Dim{d, {}});
  b.add_input("x", core::DType::Float32, dims);
  if (other_carries) {
    std::vector<core::Dim> od;
    for (auto d : other_shape) od.push_back(core::Dim{d, {}});
    b.add_input("w", core::DType::Float32, od);
  } else {
    b.add_weight("w", core::DType::Float32, other_shape);
  }
  const std::vector<std::string> in = other_first ? std::vector<std::string>{"w", "x"} : std::vector<std::string>{"x", "w"};
  const std::vector<std::string> o{"y"};
  b.add_node("op", op, std::span<const std::string>(in), std::span<const std::string>(o));
  b.set_shape("y", core::DType::Float32, out);
  b.mark_output("y");
  auto g = std::move(b).build();
  EXPECT_TRUE(g) << g.error().message;
  return core::check_batch_split(*g);
}

}  // namespace

// A batched MatMul whose operands both carry the batch at dim 0 computes each sample alone
// (attention's scores and context); a batch that becomes a contraction axis, or moves off dim 0
// by broadcasting, mixes it. A batch-independent operand that spans dim 0 with more than one row
// would pair a micro-batch with rows of the whole batch: refused, for MatMul, elementwise
// operators and Gemm's C.
TEST(BatchSplit, ProductsAndBroadcasts) {
  EXPECT_TRUE(two_operand("MatMul", {4, 6, 8}, {4, 8, 6}, true, {4, 6, 6}).splittable);
  EXPECT_TRUE(two_operand("MatMul", {4, 6, 8}, {1, 8, 6}, false, {4, 6, 6}).splittable);
  EXPECT_TRUE(two_operand("MatMul", {4, 6, 8}, {8, 6}, false, {4, 6, 6}).splittable);
  EXPECT_EQ(two_operand("MatMul", {4, 6, 8}, {4, 8, 6}, false, {4, 6, 6}).reason,
            "MatMul 'op': batch-independent input 1 spans the batch axis (dim 0 is 4, not 1)");
  EXPECT_EQ(two_operand("MatMul", {4, 8}, {8, 4}, true, {4, 4}).reason, "MatMul 'op': the batch reaches the right operand's contraction axis");
  EXPECT_EQ(two_operand("MatMul", {4, 8}, {3, 8, 5}, false, {3, 4, 5}).reason,
            "MatMul 'op': broadcasting against a right operand of higher rank moves the batch axis");
  // The batch only in the right operand: a left weight of one row broadcasts, one of four does not.
  EXPECT_TRUE(two_operand("MatMul", {4, 8, 6}, {1, 6, 8}, false, {4, 6, 6}, true).splittable);
  EXPECT_EQ(two_operand("MatMul", {4, 8, 6}, {6, 8}, false, {4, 6, 6}, true).reason, "");
  EXPECT_EQ(two_operand("MatMul", {4, 8, 6}, {4, 6, 8}, false, {4, 6, 6}, true).reason,
            "MatMul 'op': batch-independent input 0 spans the batch axis (dim 0 is 4, not 1)");
  EXPECT_TRUE(two_operand("MatMul", {4, 8}, {8}, false, {4}).splittable);  // a matrix-vector product per sample
  EXPECT_TRUE(two_operand("Add", {4, 8}, {1, 8}, false, {4, 8}).splittable);
  EXPECT_TRUE(two_operand("Add", {4, 8}, {8}, false, {4, 8}).splittable);
  EXPECT_EQ(two_operand("Add", {4, 8}, {4, 8}, false, {4, 8}).reason,
            "Add 'op': batch-independent input 1 spans the batch axis (dim 0 is 4, not 1)");
}

namespace {

// x [4, 8] (dtype `in`) times a weight w [8, 3] with a third operand, a weight of `third_shape`
// (MatMulInteger's zero point of A, Gemm's C), into y [4, 3] (dtype `out`).
core::BatchSplitCheck product_with_third(const std::string& op, core::DType in, core::DType out, std::vector<std::int64_t> third_shape) {
  core::GraphBuilder b;
  b.add_input("x", in, {core::Dim{4, {}}, core::Dim{8, {}}});
  b.add_weight("w", in, {8, 3});
  b.add_weight("c", in, std::move(third_shape));
  b.add_node("op", op, {"x", "w", "c"}, {"y"});
  b.set_shape("y", out, {4, 3});
  b.mark_output("y");
  auto g = std::move(b).build();
  EXPECT_TRUE(g) << g.error().message;
  return core::check_batch_split(*g);
}

}  // namespace

// MatMulInteger's zero point of A: one for the whole of A splits; one per row spans the batch.
TEST(BatchSplit, MatMulIntegerZeroPoints) {
  const auto with_zero = [](std::vector<std::int64_t> shape) {
    return product_with_third("MatMulInteger", core::DType::UInt8, core::DType::Int32, std::move(shape));
  };
  EXPECT_TRUE(with_zero({}).splittable);
  EXPECT_EQ(with_zero({4}).reason, "MatMulInteger 'op': a per-row zero point of A spans the batch");
}

// Gemm: B is [K, N] whatever K is; C of [N] or [1, N] broadcasts over the rows, C of [M, N] holds
// a row per sample of the whole batch.
TEST(BatchSplit, GemmBiasRows) {
  const auto gemm = [](std::vector<std::int64_t> shape) {
    return product_with_third("Gemm", core::DType::Float32, core::DType::Float32, std::move(shape));
  };
  EXPECT_TRUE(gemm({3}).splittable);
  EXPECT_TRUE(gemm({1, 3}).splittable);
  EXPECT_EQ(gemm({4, 3}).reason, "Gemm 'op': batch-independent input 2 spans the batch axis (dim 0 is 4, not 1)");
}

// The CNNs and the attention block split; ViT's class token joins the batch with a weight; silero's control flow is refused.
TEST(BatchSplit, TestModels) {
  for (const char* name : {"squeezenet1_1", "resnet50", "googlenet", "mobilenet_v3_large", "mnasnet1_0", "transformer4h"}) {
    const auto c = model(name);
    EXPECT_TRUE(c.splittable) << name << ": " << c.reason;
  }
  const auto vit = model("vit_b_16");
  EXPECT_FALSE(vit.splittable);
  EXPECT_NE(vit.reason.find("Concat"), std::string::npos) << vit.reason;
}
