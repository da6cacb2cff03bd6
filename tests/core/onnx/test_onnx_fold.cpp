#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "onnx_model_builder.h"
#include "weft/core/base/file_io.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/proto/tensor_pb.h"

using namespace weft;
using test::OnnxModel;

namespace {

core::Expected<core::Graph> import(const OnnxModel& m, const core::ImportOptions& o = {}) {
  return core::import_onnx_bytes(m.bytes(), "/tmp/weft_fold/model.onnx", o);
}

template <class T>
std::vector<T> values_of(const core::Graph& g, const std::string& name) {
  auto id = g.find_tensor(name);
  EXPECT_TRUE(id.has_value()) << name;
  if (!id) return {};
  const core::Tensor& t = g.tensor(*id);
  EXPECT_EQ(t.kind, core::TensorKind::Weight) << name;
  auto bytes = core::read_weight_bytes(t);
  EXPECT_TRUE(bytes) << name;
  if (!bytes) return {};
  std::vector<T> v(bytes->size() / sizeof(T));
  std::memcpy(v.data(), bytes->data(), v.size() * sizeof(T));
  return v;
}

// Folds `op` over constant inputs; its output "v" is read by an opaque custom-domain node so it
// survives as a weight whose bytes the test reads back.
OnnxModel fold_one(const std::string& op, std::vector<std::string> inputs, std::int64_t opset = 13) {
  OnnxModel m(opset);
  m.input("x", {1}).output("y");
  m.node(op, std::move(inputs), {"v"}, "under_test");
  m.node("Sink", {"x", "v"}, {"y"}, "sink").set_domain("test.sink");
  return m;
}

std::vector<std::int64_t> shape_of(const core::Graph& g, const std::string& name) {
  return g.tensor(*g.find_tensor(name)).shape();
}

}  // namespace

// The torch reshape idiom Shape → Gather → Unsqueeze → Concat → Reshape folds to a constant
// target [-1, 3], leaving only the Reshape with a static output shape.
TEST(OnnxFold, ShapeChainFeedingReshape) {
  OnnxModel m;
  m.input("x", {2, 4, 3}).output("y");
  m.init_i64("one", {}, {2}).init_i64("zero", {1}, {0}).init_i64("minus1", {1}, {-1});
  m.node("Shape", {"x"}, {"s"});
  m.node("Gather", {"s", "one"}, {"c"});
  m.node("Unsqueeze", {"c", "zero"}, {"cu"});
  m.node("Concat", {"minus1", "cu"}, {"target"}).add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("axis");
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(0);
    return a;
  }());
  m.node("Reshape", {"x", "target"}, {"y"}, "reshape");
  auto g = import(m);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->info().folded_nodes, 4);
  ASSERT_EQ(g->node_count(), 1u);
  EXPECT_EQ(g->node(0).op_type, "Reshape");
  EXPECT_EQ(values_of<std::int64_t>(*g, "target"), (std::vector<std::int64_t>{-1, 3}));
  EXPECT_EQ(shape_of(*g, "y"), (std::vector<std::int64_t>{8, 3}));
  // Initializers only the folded nodes read are gone; the folded value is the only weight.
  EXPECT_FALSE(g->find_tensor("one").has_value());
  EXPECT_EQ(g->tensor_count(), 3u);

  core::ImportOptions no_fold;
  no_fold.fold = false;
  auto raw = import(m, no_fold);
  ASSERT_TRUE(raw);
  EXPECT_EQ(raw->node_count(), 5u);
  EXPECT_EQ(raw->info().folded_nodes, 0);
  EXPECT_FALSE(raw->tensor(*raw->find_tensor("y")).shape_known());
}

// Shape of a tensor whose shape is symbolic is not folded until --dim binds the symbol.
TEST(OnnxFold, ShapeOfUnknownIsNotFolded) {
  OnnxModel m;
  m.input("x", {-1, 3}, onnx::TensorProto::FLOAT, {"N"}).output("y");
  m.node("Shape", {"x"}, {"s"});
  m.node("Sink", {"s"}, {"y"}, "sink").set_domain("test.sink");
  auto g = import(m);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->info().folded_nodes, 0);
  EXPECT_EQ(g->node_count(), 2u);
  ASSERT_EQ(g->info().unresolved_dims.size(), 1u);
  EXPECT_EQ(g->info().unresolved_dims[0], "x: dim 0 'N'");

  core::ImportOptions o;
  o.dims["N"] = 4;
  auto bound = import(m, o);
  ASSERT_TRUE(bound) << bound.error().message;
  EXPECT_EQ(bound->info().folded_nodes, 1);
  EXPECT_TRUE(bound->info().unresolved_dims.empty());
  EXPECT_EQ(values_of<std::int64_t>(*bound, "s"), (std::vector<std::int64_t>{4, 3}));
  const core::Tensor& x = bound->tensor(bound->inputs()[0]);
  EXPECT_EQ(x.dims[0].value, 4);
  EXPECT_EQ(x.dims[0].symbol, "N");
}

// Unnamed input dims are reported; a --dim naming no symbol is a warning, not a silent no-op.
TEST(OnnxFold, UnresolvedAndUnusedDims) {
  OnnxModel m;
  m.input("audio", {-1, 512}).output("y");
  m.node("Relu", {"audio"}, {"y"});
  core::ImportOptions o;
  o.dims["batch"] = 2;
  auto g = import(m, o);
  ASSERT_TRUE(g) << g.error().message;
  ASSERT_EQ(g->info().unresolved_dims.size(), 1u);
  EXPECT_EQ(g->info().unresolved_dims[0], "audio: dim 0 (unnamed)");
  ASSERT_EQ(g->info().warnings.size(), 1u);
  EXPECT_NE(g->info().warnings[0].find("batch"), std::string::npos);
}

// Golden values of the small reference kernels.
TEST(OnnxFold, GatherNegativeIndex) {
  auto m = fold_one("Gather", {"d", "i"});
  m.init_i64("d", {3}, {10, 20, 30}).init_i64("i", {}, {-1});
  auto g = import(m);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(values_of<std::int64_t>(*g, "v"), (std::vector<std::int64_t>{30}));
  EXPECT_TRUE(shape_of(*g, "v").empty());
}

TEST(OnnxFold, Gather2DAxis1) {
  auto m = fold_one("Gather", {"d", "i"});
  m.init_i64("d", {2, 3}, {1, 2, 3, 4, 5, 6}).init_i64("i", {2}, {2, 0});
  OnnxModel::attr_int(*m.graph().mutable_node(0), "axis", 1);
  auto g = import(m);
  ASSERT_TRUE(g);
  EXPECT_EQ(values_of<std::int64_t>(*g, "v"), (std::vector<std::int64_t>{3, 1, 6, 4}));
  EXPECT_EQ(shape_of(*g, "v"), (std::vector<std::int64_t>{2, 2}));
}

TEST(OnnxFold, SliceNegativeStep) {
  auto m = fold_one("Slice", {"d", "s", "e", "a", "st"});
  m.init_i64("d", {5}, {0, 1, 2, 3, 4}).init_i64("s", {1}, {-1}).init_i64("e", {1}, {-100});
  m.init_i64("a", {1}, {0}).init_i64("st", {1}, {-2});
  auto g = import(m);
  ASSERT_TRUE(g);
  EXPECT_EQ(values_of<std::int64_t>(*g, "v"), (std::vector<std::int64_t>{4, 2, 0}));
}

TEST(OnnxFold, SliceOpset9Attributes) {
  auto m = fold_one("Slice", {"d"}, 9);
  m.init_i64("d", {2, 3}, {1, 2, 3, 4, 5, 6});
  auto& n = *m.graph().mutable_node(0);
  OnnxModel::attr_ints(n, "starts", {1});
  OnnxModel::attr_ints(n, "ends", {1000});
  OnnxModel::attr_ints(n, "axes", {1});
  auto g = import(m);
  ASSERT_TRUE(g);
  EXPECT_EQ(values_of<std::int64_t>(*g, "v"), (std::vector<std::int64_t>{2, 3, 5, 6}));
  EXPECT_EQ(shape_of(*g, "v"), (std::vector<std::int64_t>{2, 2}));
}

TEST(OnnxFold, Transpose) {
  auto m = fold_one("Transpose", {"d"});
  m.init_i64("d", {2, 3}, {1, 2, 3, 4, 5, 6});
  auto g = import(m);
  ASSERT_TRUE(g);
  EXPECT_EQ(values_of<std::int64_t>(*g, "v"), (std::vector<std::int64_t>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(shape_of(*g, "v"), (std::vector<std::int64_t>{3, 2}));
}

TEST(OnnxFold, EqualWhereBroadcast) {
  OnnxModel m;
  m.input("x", {1}).output("y");
  m.init_i64("a", {2}, {1, 5}).init_i64("b", {2}, {1, 6}).init_i64("seven", {}, {7});
  m.init_i64("other", {2, 2}, {1, 2, 3, 4});
  m.node("Equal", {"a", "b"}, {"cond"});
  m.node("Where", {"cond", "seven", "other"}, {"v"});
  m.node("Sink", {"x", "v"}, {"y"}).set_domain("test.sink");
  auto g = import(m);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->info().folded_nodes, 2);
  EXPECT_EQ(values_of<std::int64_t>(*g, "v"), (std::vector<std::int64_t>{7, 2, 7, 4}));
}

TEST(OnnxFold, ConcatAxis1) {
  auto m = fold_one("Concat", {"p", "q"});
  m.init_i64("p", {2, 1}, {1, 2}).init_i64("q", {2, 2}, {3, 4, 5, 6});
  OnnxModel::attr_int(*m.graph().mutable_node(0), "axis", 1);
  auto g = import(m);
  ASSERT_TRUE(g);
  EXPECT_EQ(values_of<std::int64_t>(*g, "v"), (std::vector<std::int64_t>{1, 3, 4, 2, 5, 6}));
}

TEST(OnnxFold, TileAndExpand) {
  auto t = fold_one("Tile", {"d", "r"});
  t.init_i64("d", {2}, {1, 2}).init_i64("r", {1}, {3});
  auto g = import(t);
  ASSERT_TRUE(g);
  EXPECT_EQ(values_of<std::int64_t>(*g, "v"), (std::vector<std::int64_t>{1, 2, 1, 2, 1, 2}));

  auto e = fold_one("Expand", {"d", "s"});
  e.init_i64("d", {2, 1}, {1, 2}).init_i64("s", {2}, {2, 3});
  auto g2 = import(e);
  ASSERT_TRUE(g2);
  EXPECT_EQ(values_of<std::int64_t>(*g2, "v"), (std::vector<std::int64_t>{1, 1, 1, 2, 2, 2}));
}

TEST(OnnxFold, CastFloatToIntTruncates) {
  auto m = fold_one("Cast", {"d"});
  m.init_f32("d", {3}, {-1.7f, 2.9f, 0.4f}, /*raw=*/false);
  OnnxModel::attr_int(*m.graph().mutable_node(0), "to", onnx::TensorProto::INT64);
  auto g = import(m);
  ASSERT_TRUE(g);
  EXPECT_EQ(values_of<std::int64_t>(*g, "v"), (std::vector<std::int64_t>{-1, 2, 0}));
}

TEST(OnnxFold, IntegerDivAndMod) {
  auto d = fold_one("Div", {"a", "b"});
  d.init_i64("a", {2}, {-7, 7}).init_i64("b", {}, {2});
  auto g = import(d);
  ASSERT_TRUE(g);
  EXPECT_EQ(values_of<std::int64_t>(*g, "v"), (std::vector<std::int64_t>{-3, 3}));

  auto md = fold_one("Mod", {"a", "b"});
  md.init_i64("a", {2}, {-7, 7}).init_i64("b", {}, {3});
  auto g2 = import(md);
  ASSERT_TRUE(g2);
  EXPECT_EQ(values_of<std::int64_t>(*g2, "v"), (std::vector<std::int64_t>{2, 1}));

  auto z = fold_one("Div", {"a", "b"});
  z.init_i64("a", {1}, {1}).init_i64("b", {1}, {0});
  auto g3 = import(z);
  ASSERT_TRUE(g3);  // division by zero is not folded, the node stays
  EXPECT_EQ(g3->info().folded_nodes, 0);
}

TEST(OnnxFold, RangeConstantOfShapeReduceProd) {
  auto r = fold_one("Range", {"s", "l", "d"});
  r.init_i64("s", {}, {1}).init_i64("l", {}, {10}).init_i64("d", {}, {3});
  auto g = import(r);
  ASSERT_TRUE(g);
  EXPECT_EQ(values_of<std::int64_t>(*g, "v"), (std::vector<std::int64_t>{1, 4, 7}));

  auto c = fold_one("ConstantOfShape", {"s"});
  c.init_i64("s", {1}, {3});
  auto* a = c.graph().mutable_node(0)->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  a->mutable_t()->add_dims(1);
  a->mutable_t()->add_int64_data(5);
  auto g2 = import(c);
  ASSERT_TRUE(g2) << g2.error().message;
  EXPECT_EQ(values_of<std::int64_t>(*g2, "v"), (std::vector<std::int64_t>{5, 5, 5}));

  auto p = fold_one("ReduceProd", {"s"});
  p.init_i64("s", {3}, {2, 3, 4});
  OnnxModel::attr_int(*p.graph().mutable_node(0), "keepdims", 0);
  auto g3 = import(p);
  ASSERT_TRUE(g3);
  EXPECT_EQ(values_of<std::int64_t>(*g3, "v"), (std::vector<std::int64_t>{24}));
  EXPECT_TRUE(shape_of(*g3, "v").empty());
}

// Float arithmetic folds in float32 (a weight-only subgraph: Sigmoid of a learned scalar).
TEST(OnnxFold, FloatWeightOnlySubgraph) {
  OnnxModel m;
  m.input("x", {2}).output("y");
  m.init_f32("w", {1}, {0.0f}).init_f32("k", {1}, {3.0f});
  m.node("Sigmoid", {"w"}, {"s"});
  m.node("Mul", {"s", "k"}, {"v"});
  m.node("Mul", {"x", "v"}, {"y"}, "scale");
  auto g = import(m);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->info().folded_nodes, 2);
  ASSERT_EQ(g->node_count(), 1u);
  EXPECT_EQ(values_of<float>(*g, "v"), (std::vector<float>{1.5f}));
}

// Folding runs the CPU executor's kernels, so every operator they support folds, not only the
// shape arithmetic: a Softmax and a MatMul over weights fold to their values.
TEST(OnnxFold, AnyOperatorWithAKernelFolds) {
  OnnxModel m;
  m.input("x", {2}).output("y");
  m.init_f32("w", {2}, {0.0f, 0.0f}).init_f32("a", {1, 2}, {1.0f, 2.0f}).init_f32("b", {2, 1}, {3.0f, 4.0f});
  m.node("Softmax", {"w"}, {"s"});
  m.node("MatMul", {"a", "b"}, {"p"});
  m.node("Mul", {"s", "p"}, {"v"});
  m.node("Mul", {"x", "v"}, {"y"}, "scale");
  auto g = import(m);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->info().folded_nodes, 3);
  ASSERT_EQ(g->node_count(), 1u);
  EXPECT_EQ(values_of<float>(*g, "v"), (std::vector<float>{5.5f, 5.5f}));
}

// A weight-only subgraph over external weights whose file is absent folds by shape: the result
// is a weight without data, so the graph does not depend on whether weights.bin is present.
TEST(OnnxFold, ExternalWeightsAbsentFoldByShape) {
  OnnxModel m;
  m.input("x", {3}).output("y");
  m.init_external("w", {3}, "absent_weights.bin");
  m.node("Sigmoid", {"w"}, {"s"});
  m.node("Mul", {"x", "s"}, {"y"}, "scale");
  auto g = import(m);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->info().folded_nodes, 1);
  ASSERT_EQ(g->node_count(), 1u);
  const core::Tensor& s = g->tensor(*g->find_tensor("s"));
  EXPECT_EQ(s.kind, core::TensorKind::Weight);
  EXPECT_FALSE(s.data.has_data());
  EXPECT_EQ(s.shape(), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(s.dtype, core::DType::Float32);
  EXPECT_EQ(g->info().warnings.size(), 1u);
  EXPECT_EQ(shape_of(*g, "y"), (std::vector<std::int64_t>{3}));
}

// When the external file is present, a weight-only subgraph folds by value (the bytes are read
// only for that subgraph).
TEST(OnnxFold, ExternalWeightsPresentFoldByValue) {
  const auto dir = std::filesystem::temp_directory_path() / "weft_fold_external";
  std::filesystem::create_directories(dir);
  const std::vector<float> w{0.0f, 0.0f, 0.0f, 0.0f, 100.0f, -100.0f};  // offset 16: the last two
  ASSERT_TRUE(core::write_file_atomic((dir / "w.bin").string(),
                                      std::string(reinterpret_cast<const char*>(w.data()), w.size() * 4)));
  OnnxModel m;
  m.input("x", {2}).output("y");
  m.init_external("w", {2}, "w.bin", 16);
  m.node("Sigmoid", {"w"}, {"s"});
  m.node("Mul", {"x", "s"}, {"y"}, "scale");
  auto g = core::import_onnx_bytes(m.bytes(), (dir / "model.onnx").string());
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->info().folded_nodes, 1);
  EXPECT_TRUE(g->info().warnings.empty());
  const auto s = values_of<float>(*g, "s");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0], 1.0f);
  EXPECT_LT(s[1], 1e-40f);  // sigmoid(-100) in float32: a denormal
  EXPECT_GT(s[1], 0.0f);
}

// A node that produces a graph output is kept, even when its inputs are constant.
TEST(OnnxFold, GraphOutputsAreNotFolded) {
  OnnxModel m;
  m.input("x", {1}).output("y").output("v");
  m.init_i64("a", {1}, {2});
  m.node("Add", {"a", "a"}, {"v"});
  m.node("Relu", {"x"}, {"y"});
  auto g = import(m);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->info().folded_nodes, 0);
  EXPECT_EQ(g->node_count(), 2u);
}

// Constant nodes of every value form become weights with their values, not operators.
TEST(OnnxFold, ConstantNodesBecomeWeights) {
  OnnxModel m(11);
  m.input("x", {2}).output("y");
  auto& c = m.node("Constant", {}, {"k"});
  OnnxModel::attr_ints(c, "value_ints", {4, 5});
  auto& f = m.node("Constant", {}, {"f"});
  auto* a = f.add_attribute();
  a->set_name("value_float");
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(0.25f);
  m.node("Sink", {"x", "k", "f"}, {"y"}).set_domain("test.sink");
  auto g = import(m);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->info().constant_nodes, 2);
  EXPECT_EQ(g->info().opset, 11);
  EXPECT_EQ(g->node_count(), 1u);
  EXPECT_EQ(values_of<std::int64_t>(*g, "k"), (std::vector<std::int64_t>{4, 5}));
  EXPECT_EQ(values_of<float>(*g, "f"), (std::vector<float>{0.25f}));
  EXPECT_TRUE(shape_of(*g, "f").empty());
}

// Opset-11 Unsqueeze/Squeeze take axes as attributes.
TEST(OnnxFold, UnsqueezeSqueezeOpset11) {
  OnnxModel m(11);
  m.input("x", {1}).output("y");
  m.init_i64("d", {2}, {7, 8});
  OnnxModel::attr_ints(m.node("Unsqueeze", {"d"}, {"u"}), "axes", {0, 2});
  OnnxModel::attr_ints(m.node("Squeeze", {"u"}, {"v"}), "axes", {2});
  m.node("Sink", {"x", "u", "v"}, {"y"}).set_domain("test.sink");
  auto g = import(m);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->info().folded_nodes, 2);
  EXPECT_EQ(shape_of(*g, "u"), (std::vector<std::int64_t>{1, 2, 1}));
  EXPECT_EQ(shape_of(*g, "v"), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(values_of<std::int64_t>(*g, "v"), (std::vector<std::int64_t>{7, 8}));
}

// Folding does not rely on the file being topologically sorted.
TEST(OnnxFold, UnsortedFileFolds) {
  OnnxModel m;
  m.input("x", {6, 2}).output("y");
  m.init_i64("zero", {1}, {0});
  m.node("Reshape", {"x", "target"}, {"y"}, "reshape");
  m.node("Concat", {"zero_u", "s"}, {"target"});
  OnnxModel::attr_int(*m.graph().mutable_node(1), "axis", 0);
  m.node("Slice", {"full", "zero", "one"}, {"s"});
  m.node("Shape", {"x"}, {"full"});
  m.init_i64("one", {1}, {1}).init_i64("zero_u", {1}, {-1});
  auto g = import(m);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->info().folded_nodes, 3);
  EXPECT_EQ(values_of<std::int64_t>(*g, "target"), (std::vector<std::int64_t>{-1, 6}));
  EXPECT_EQ(shape_of(*g, "y"), (std::vector<std::int64_t>{2, 6}));
}

// An If whose condition folds to a constant is replaced by the chosen branch; its outputs keep
// their names and shapes, and what follows sees the branch's operators.
TEST(OnnxFold, ConstantIfIsInlined) {
  OnnxModel m;
  m.input("x", {2, 3}).output("z");
  m.init_i64("sixteen", {}, {16}).init_i64("sr", {}, {16});
  m.node("Equal", {"sr", "sixteen"}, {"cond"});
  auto& node = m.node("If", {"cond"}, {"y"}, "choose");
  for (const char* which : {"then_branch", "else_branch"}) {
    auto* a = node.add_attribute();
    a->set_name(which);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* body = a->mutable_g();
    body->set_name(which);
    auto* n = body->add_node();
    n->set_op_type(std::string(which) == "then_branch" ? "Neg" : "Sigmoid");
    n->set_name(std::string(which) + "_op");
    n->add_input("x");
    n->add_output(std::string(which) + "_out");
    body->add_output()->set_name(std::string(which) + "_out");
  }
  m.node("Relu", {"y"}, {"z"}, "after");
  auto g = import(m);
  ASSERT_TRUE(g) << g.error().message;
  ASSERT_EQ(g->node_count(), 2u);
  EXPECT_EQ(g->info().folded_nodes, 2);  // the Equal, then the If
  const core::NodeId neg = *g->find_node("then_branch_op");
  EXPECT_EQ(g->node(neg).op_type, "Neg");
  EXPECT_EQ(g->tensor(g->node(neg).outputs[0]).name, "y");
  EXPECT_EQ(shape_of(*g, "z"), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(g->successors(neg).size(), 1u);
}

// Hostile constants (overflowing products, INT64_MIN / -1, huge steps and reshape targets) fold
// without undefined behaviour or giant allocations (found by fuzzing shufflenet's constants).
TEST(OnnxFold, HostileConstantsAreSafe) {
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  auto mul = fold_one("Mul", {"a", "b"});
  mul.init_i64("a", {1}, {116}).init_i64("b", {1}, {-(std::int64_t{1} << 62)});
  auto g = import(mul);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->info().folded_nodes, 1);  // wraps like int64 hardware

  auto div = fold_one("Div", {"a", "b"});
  div.init_i64("a", {1}, {kMin}).init_i64("b", {1}, {-1});
  auto g2 = import(div);
  ASSERT_TRUE(g2);
  // Folded on the CPU kernel, which wraps like the hardware's negation (as the Mul above).
  EXPECT_EQ(values_of<std::int64_t>(*g2, "v"), (std::vector<std::int64_t>{kMin}));

  auto slice = fold_one("Slice", {"d", "s", "e", "a", "st"});
  slice.init_i64("d", {4}, {1, 2, 3, 4}).init_i64("s", {1}, {1}).init_i64("e", {1}, {4});
  slice.init_i64("a", {1}, {0}).init_i64("st", {1}, {std::numeric_limits<std::int64_t>::max()});
  auto g3 = import(slice);
  ASSERT_TRUE(g3);
  EXPECT_EQ(values_of<std::int64_t>(*g3, "v"), (std::vector<std::int64_t>{2}));

  auto cos = fold_one("ConstantOfShape", {"s"});
  cos.init_i64("s", {2}, {0, std::int64_t{1} << 40});
  auto g4 = import(cos);
  ASSERT_TRUE(g4);
  EXPECT_EQ(g4->info().folded_nodes, 0);
}
