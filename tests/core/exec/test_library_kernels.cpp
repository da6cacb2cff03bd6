// The library kernels (oneDNN and the pad copy) against the reference kernels, their oracle:
// one-node graphs over the geometries the executor sends to the library (convolutions with
// groups, depthwise, dilations, asymmetric and automatic pads, 1-D and 3-D, pointwise; pools;
// BatchNormalization; activations; broadcasting arithmetic; Sum and Mean; Gemm and MatMul; Pad),
// each checked to have run on the library and to agree within the tolerance of fp32 sums; the
// cases the library declines run the reference kernel; batch-invariant convolutions; the
// scratch and packed bytes a run reports.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "exec_test_util.h"
#include "test_graphs.h"

using namespace weft;
using core::Attribute;
using test::ints;
using test::one_float;
using test::one_int;
using test::text;
using core::DType;

namespace {


std::int64_t count(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

/// Deterministic values in [lo, hi): a sine walk, different per `seed`.
std::vector<float> values(std::int64_t n, int seed, float lo = -1, float hi = 1) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] =
        lo + (hi - lo) * (0.5f + 0.5f * std::sin(0.7071f * static_cast<float>(i) + 1.37f * static_cast<float>(seed)));
  return v;
}

/// One node over graph inputs ("x..." with values given at run time) and weights, output "y".
struct Case {
  core::GraphBuilder b;
  std::map<std::string, core::HostTensor> inputs;
  std::vector<std::string> names;
  std::unique_ptr<core::Graph> graph;
  int seed = 1;

  Case& input(const std::string& name, std::vector<std::int64_t> shape, float lo = -1, float hi = 1) {
    std::vector<core::Dim> dims;
    for (auto d : shape) dims.push_back(core::Dim{d, {}});
    b.add_input(name, DType::Float32, dims);
    inputs[name] = test::host_f32(shape, values(count(shape), seed++, lo, hi));
    names.push_back(name);
    return *this;
  }
  Case& weight(const std::string& name, std::vector<std::int64_t> shape, float lo = -1, float hi = 1) {
    return weight_values(name, shape, values(count(shape), seed++, lo, hi));
  }
  Case& weight_values(const std::string& name, std::vector<std::int64_t> shape, const std::vector<float>& v) {
    b.add_weight(name, DType::Float32, std::move(shape), test::inline_weight(v));
    names.push_back(name);
    return *this;
  }
  Case& weight_i64(const std::string& name, std::vector<std::int64_t> shape, const std::vector<std::int64_t>& v) {
    b.add_weight(name, DType::Int64, std::move(shape), test::inline_weight(v));
    names.push_back(name);
    return *this;
  }
  void build(const std::string& op, std::vector<Attribute> attrs, std::size_t outputs = 1) {
    std::vector<std::string> outs{"y"};
    for (std::size_t i = 1; i < outputs; ++i) outs.push_back("y" + std::to_string(i));
    b.add_node("node0", op, std::span<const std::string>(names), std::span<const std::string>(outs), std::move(attrs));
    for (const auto& o : outs) b.mark_output(o);
    auto g = std::move(b).build();
    ASSERT_TRUE(g) << g.error().message;
    graph = std::make_unique<core::Graph>(std::move(*g));
  }
  core::Expected<core::RunResult> run(core::KernelSet kernels, core::RunOptions o = {}) const {
    o.inputs = inputs;
    o.kernels = kernels;
    return test::run_sequential(*graph, o);
  }
};

/// Skips a test of the oneDNN kernels in a build without them (WEFT_ONEDNN off).
#define SKIP_WITHOUT_ONEDNN()                                                  \
  if (core::cpu_kernel_library().empty()) GTEST_SKIP() << "built without oneDNN"

/// The node ran on the library kernel and agrees with the reference within `tol` of the output's scale.
void expect_library_matches(Case& c, const std::string& op, std::vector<Attribute> attrs, double tol = 2e-5, std::size_t outputs = 1) {
  SCOPED_TRACE(op);
  c.build(op, std::move(attrs), outputs);
  if (!c.graph) return;
  auto reference = c.run(core::KernelSet::Reference);
  auto library = c.run(core::KernelSet::Library);
  ASSERT_TRUE(reference) << reference.error().message;
  ASSERT_TRUE(library) << library.error().message;
  EXPECT_EQ(library->kernel_paths.count("reference"), 0u) << "the library declined the node";
  EXPECT_EQ(reference->kernel_paths.at("reference"), 1);
  test::expect_close_outputs(*reference, *library, tol, op);
}

/// The library declined the node: the reference kernel ran it, with the reference's result.
void expect_declined(Case& c, const std::string& op, std::vector<Attribute> attrs, std::size_t outputs = 1) {
  SCOPED_TRACE(op);
  c.build(op, std::move(attrs), outputs);
  if (!c.graph) return;
  auto library = c.run(core::KernelSet::Library);
  auto reference = c.run(core::KernelSet::Reference);
  ASSERT_TRUE(library) << library.error().message;
  ASSERT_TRUE(reference) << reference.error().message;
  EXPECT_EQ(library->kernel_paths.at("reference"), 1);
  for (const auto& [name, t] : reference->outputs) EXPECT_EQ(t.bytes, library->outputs.at(name).bytes) << name;
}

}  // namespace

// Conv: a 3x3 with bias and pads, a pointwise GEMM, strides with asymmetric pads, dilation and a
// 3x2 kernel, groups, depthwise with stride, SAME_LOWER, 1-D, 3-D, and weights computed at run
// time (reordered every call instead of once).
TEST(LibraryKernels, ConvGeometries) {
  SKIP_WITHOUT_ONEDNN();
  {
    Case c;
    c.input("x", {2, 5, 9, 11}).weight("w", {7, 5, 3, 3}).weight("b", {7});
    expect_library_matches(c, "Conv", {ints("pads", {1, 1, 1, 1})});
  }
  {
    Case c;
    c.input("x", {2, 16, 7, 7}).weight("w", {24, 16, 1, 1});
    expect_library_matches(c, "Conv", {});
  }
  {
    Case c;
    c.input("x", {1, 4, 12, 10}).weight("w", {6, 4, 3, 2}).weight("b", {6});
    expect_library_matches(c, "Conv", {ints("pads", {0, 1, 2, 1}), ints("strides", {2, 1}), ints("dilations", {2, 2})});
  }
  {
    Case c;
    c.input("x", {1, 6, 8, 8}).weight("w", {9, 2, 3, 3});
    expect_library_matches(c, "Conv", {one_int("group", 3), ints("pads", {1, 1, 1, 1})});
  }
  {
    Case c;
    c.input("x", {2, 8, 11, 11}).weight("w", {8, 1, 3, 3}).weight("b", {8});
    expect_library_matches(c, "Conv", {one_int("group", 8), ints("pads", {1, 1, 1, 1}), ints("strides", {2, 2})});
  }
  {
    Case c;
    c.input("x", {1, 3, 7, 6}).weight("w", {4, 3, 4, 4});
    expect_library_matches(c, "Conv", {text("auto_pad", "SAME_LOWER"), ints("strides", {2, 2})});
  }
  {
    Case c;
    c.input("x", {1, 4, 20}).weight("w", {5, 4, 5}).weight("b", {5});
    expect_library_matches(c, "Conv", {ints("pads", {2, 2})});
  }
  {
    Case c;
    c.input("x", {1, 2, 4, 5, 6}).weight("w", {3, 2, 3, 3, 3});
    expect_library_matches(c, "Conv", {ints("pads", {1, 1, 1, 1, 1, 1})});
  }
  {
    Case c;
    c.input("x", {1, 8, 6, 6}).input("w", {8, 8, 3, 3});
    expect_library_matches(c, "Conv", {});
  }
}

// Pools: max with ceil_mode, with dilations, averages counting pads or not, global pools, a 1-D
// window, and a plain-layout max pool oneDNN only has a reference for (run channels-last).
TEST(LibraryKernels, Pools) {
  SKIP_WITHOUT_ONEDNN();
  {
    Case c;
    c.input("x", {2, 3, 9, 9});
    expect_library_matches(c, "MaxPool", {ints("kernel_shape", {3, 3}), ints("strides", {2, 2}), one_int("ceil_mode", 1)});
  }
  {
    Case c;
    c.input("x", {1, 3, 10, 10});
    expect_library_matches(c, "MaxPool", {ints("kernel_shape", {2, 2}), ints("dilations", {2, 2})});
  }
  {
    Case c;
    c.input("x", {1, 4, 8, 8});
    expect_library_matches(c, "AveragePool", {ints("kernel_shape", {3, 3}), ints("pads", {1, 1, 1, 1})});
  }
  {
    Case c;
    c.input("x", {1, 4, 8, 8});
    expect_library_matches(c, "AveragePool", {ints("kernel_shape", {3, 3}), ints("pads", {1, 0, 1, 2}), one_int("count_include_pad", 1)});
  }
  {
    Case c;
    c.input("x", {1, 4, 9, 9});
    expect_library_matches(c, "AveragePool", {ints("kernel_shape", {2, 2}), ints("strides", {2, 2}), one_int("ceil_mode", 1)});
  }
  {
    Case c;
    c.input("x", {2, 5, 7, 3});
    expect_library_matches(c, "GlobalAveragePool", {});
  }
  {
    Case c;
    c.input("x", {2, 5, 7, 3});
    expect_library_matches(c, "GlobalMaxPool", {});
  }
  {
    Case c;
    c.input("x", {1, 3, 17});
    expect_library_matches(c, "MaxPool", {ints("kernel_shape", {3}), ints("strides", {2}), ints("pads", {1, 1})});
  }
  {
    Case c;
    c.input("x", {1, 64, 147, 147});
    expect_library_matches(c, "MaxPool", {ints("kernel_shape", {3, 3}), ints("strides", {2, 2})});
  }
}

// BatchNormalization in inference mode, 4-D and 2-D.
TEST(LibraryKernels, BatchNormalization) {
  SKIP_WITHOUT_ONEDNN();
  for (const std::vector<std::int64_t>& shape : {std::vector<std::int64_t>{2, 3, 5, 4}, std::vector<std::int64_t>{4, 6}}) {
    Case c;
    const std::int64_t ch = shape[1];
    c.input("x", shape).weight("s", {ch}).weight("bias", {ch}).weight("mean", {ch}).weight("var", {ch}, 0.5f, 2.0f);
    expect_library_matches(c, "BatchNormalization", {one_float("epsilon", 1e-3f)});
  }
}

// Activations over the tensor as one row (Log and Sqrt on positive inputs).
TEST(LibraryKernels, Activations) {
  SKIP_WITHOUT_ONEDNN();
  const std::vector<std::int64_t> shape{2, 3, 5, 7};
  const std::vector<std::pair<std::string, std::vector<Attribute>>> ops = {
      {"Relu", {}}, {"LeakyRelu", {one_float("alpha", 0.2f)}}, {"Sigmoid", {}}, {"Tanh", {}}, {"Elu", {one_float("alpha", 0.7f)}},
      {"Exp", {}},  {"Abs", {}},                               {"Neg", {}},     {"HardSwish", {}}};
  for (const auto& [op, attrs] : ops) {
    Case c;
    c.input("x", shape, -3, 3);
    expect_library_matches(c, op, attrs, 1e-5);
  }
  for (const char* op : {"Log", "Sqrt"}) {
    Case c;
    c.input("x", shape, 0.1f, 4);
    expect_library_matches(c, op, {}, 1e-5);
  }
  Case clip;
  clip.input("x", shape, -3, 3).weight_values("lo", {}, {-0.5f}).weight_values("hi", {}, {1.25f});
  expect_library_matches(clip, "Clip", {}, 0);
}

// Two-input arithmetic: equal shapes, a per-channel operand on either side (swapped for the
// commutative ones), a row and a column, and scalars.
TEST(LibraryKernels, BroadcastingArithmetic) {
  SKIP_WITHOUT_ONEDNN();
  const std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> shapes = {
      {{2, 3, 4, 5}, {2, 3, 4, 5}}, {{2, 3, 4, 5}, {1, 3, 1, 1}}, {{3, 1, 1}, {2, 3, 4, 5}}, {{4, 5}, {5}}, {{4, 5}, {4, 1}}, {{6}, {}}};
  for (const char* op : {"Add", "Mul", "Sub", "Div"})
    for (const auto& [a, b] : shapes) {
      const bool commutative = std::string(op) == "Add" || std::string(op) == "Mul";
      Case c;
      c.input("a", a).weight("b", b, 0.5f, 2.0f);
      if (count(a) < count(b) && !commutative) expect_declined(c, op, {});
      else expect_library_matches(c, op, {}, 1e-6);
    }
}

// Sum, Mean, Max and Min: two inputs (binary, broadcasting), and three of one shape (the sum primitive).
TEST(LibraryKernels, VariadicArithmetic) {
  SKIP_WITHOUT_ONEDNN();
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) {
    Case c;
    c.input("a", {2, 4, 3, 3}).input("b", {1, 4, 1, 1});
    expect_library_matches(c, op, {}, 1e-6);
  }
  for (const char* op : {"Sum", "Mean"}) {
    Case c;
    c.input("a", {2, 4, 3, 3}).input("b", {2, 4, 3, 3}).input("c", {2, 4, 3, 3});
    expect_library_matches(c, op, {}, 1e-6);
  }
}

// Gemm: each transpose pair with a row bias, a full C, a column C, alpha without C; MatMul: a
// weight matrix, batched operands, broadcast batch dims and a computed right operand.
TEST(LibraryKernels, MatrixProducts) {
  SKIP_WITHOUT_ONEDNN();
  for (const bool ta : {false, true})
    for (const bool tb : {false, true}) {
      Case c;
      c.input("a", ta ? std::vector<std::int64_t>{37, 5} : std::vector<std::int64_t>{5, 37});
      c.weight("w", tb ? std::vector<std::int64_t>{11, 37} : std::vector<std::int64_t>{37, 11}).weight("c", {11});
      expect_library_matches(c, "Gemm", {one_int("transA", ta ? 1 : 0), one_int("transB", tb ? 1 : 0)});
    }
  for (const std::vector<std::int64_t>& cshape : {std::vector<std::int64_t>{5, 11}, std::vector<std::int64_t>{5, 1}}) {
    Case c;
    c.input("a", {5, 37}).weight("w", {37, 11}).weight("c", cshape);
    expect_library_matches(c, "Gemm", {});
  }
  {
    Case c;
    c.input("a", {5, 37}).weight("w", {37, 11});
    expect_library_matches(c, "Gemm", {one_float("alpha", 0.25f)});
  }
  {
    Case c;
    c.input("a", {5, 37}).weight("w", {37, 11}).weight("c", {11});
    expect_declined(c, "Gemm", {one_float("beta", 0.5f)});
  }
  {
    Case c;
    c.input("a", {3, 7, 40}).weight("w", {40, 9});
    expect_library_matches(c, "MatMul", {});
  }
  {
    Case c;
    c.input("a", {2, 3, 7, 16}).input("b", {2, 3, 16, 5});
    expect_library_matches(c, "MatMul", {});
  }
  {
    Case c;
    c.input("a", {2, 1, 7, 16}).input("b", {1, 3, 16, 5});
    expect_library_matches(c, "MatMul", {});
  }
}

// Pad in constant mode with a value and asymmetric pads on every axis; other modes and negative
// pads stay on the reference kernel.
TEST(LibraryKernels, Pad) {
  {
    Case c;
    c.input("x", {1, 3, 4, 5}).weight_i64("pads", {8}, {0, 1, 2, 0, 1, 0, 1, 3}).weight_values("v", {}, {-2.5f});
    expect_library_matches(c, "Pad", {}, 0);
  }
  {
    Case c;
    c.input("x", {1, 3, 4, 5}).weight_i64("pads", {8}, {0, 0, 1, 1, 0, 0, 1, 1});
    expect_declined(c, "Pad", {text("mode", "reflect")});
  }
  {
    Case c;
    c.input("x", {1, 3, 4, 5}).weight_i64("pads", {8}, {0, 0, -1, 1, 0, 0, 1, 1});
    expect_declined(c, "Pad", {});
  }
}

// A MaxPool asked for its indices, integer arithmetic and a batch-invariant Gemm stay on the
// reference kernels.
TEST(LibraryKernels, DeclinedCasesRunTheReference) {
  {
    Case c;
    c.input("x", {1, 2, 4, 4});
    expect_declined(c, "MaxPool", {ints("kernel_shape", {2, 2})}, 2);
  }
  {
    Case c;
    c.input("a", {4, 8}).weight("w", {8, 3});
    c.build("Gemm", {});
    core::RunOptions o;
    o.batch_invariant = true;
    auto r = c.run(core::KernelSet::Library, o);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->kernel_paths.at("reference"), 1);
  }
}

// A batch-invariant convolution runs one image at a time: each image's output is bit for bit
// the output of that image convolved alone.
TEST(LibraryKernels, BatchInvariantConvolutionDoesNotDependOnTheBatch) {
  SKIP_WITHOUT_ONEDNN();
  const std::vector<float> w = values(16 * 8 * 9, 7);
  const std::vector<float> x = values(4 * 8 * 10 * 10, 8);
  core::RunOptions invariant;
  invariant.batch_invariant = true;
  const auto conv = [&](std::int64_t batch, std::int64_t first) {
    core::GraphBuilder b;
    b.add_input("x", DType::Float32, {core::Dim{batch, {}}, core::Dim{8, {}}, core::Dim{10, {}}, core::Dim{10, {}}});
    b.add_weight("w", DType::Float32, {16, 8, 3, 3}, test::inline_weight(w));
    const std::vector<std::string> in{"x", "w"}, out{"y"};
    b.add_node("conv", "Conv", in, out, {ints("pads", {1, 1, 1, 1})});
    b.mark_output("y");
    auto g = std::move(b).build();
    EXPECT_TRUE(g);
    core::RunOptions o = invariant;
    const auto per_image = static_cast<std::size_t>(8 * 10 * 10);
    o.inputs["x"] = test::host_f32({batch, 8, 10, 10}, std::vector<float>(x.begin() + static_cast<std::ptrdiff_t>(first * per_image),
                                                                          x.begin() + static_cast<std::ptrdiff_t>((first + batch) * per_image)));
    auto r = test::run_sequential(*g, o);
    EXPECT_TRUE(r);
    EXPECT_EQ(r->kernel_paths.count("reference"), 0u);
    return test::as_f32(r->outputs.at("y"));
  };
  const std::vector<float> all = conv(4, 0);
  const std::size_t out_image = 16 * 10 * 10;
  for (std::int64_t i = 0; i < 4; ++i) {
    const std::vector<float> one = conv(1, i);
    ASSERT_EQ(one.size(), out_image);
    EXPECT_EQ(0, std::memcmp(one.data(), all.data() + static_cast<std::size_t>(i) * out_image, out_image * sizeof(float))) << "image " << i;
  }
}

// A run reports what ran each node, the weights the library holds reordered (a 3x3
// convolution's, in oneDNN's blocked layout) and its scratch; the reference set reports none.
TEST(LibraryKernels, RunReportsKernelsScratchAndPackedWeights) {
  SKIP_WITHOUT_ONEDNN();
  Case c;
  c.input("x", {1, 16, 12, 12}).weight("w", {32, 16, 3, 3});
  c.build("Conv", {ints("pads", {1, 1, 1, 1})});
  auto library = c.run(core::KernelSet::Library);
  ASSERT_TRUE(library) << library.error().message;
  ASSERT_EQ(library->kernel_paths.size(), 1u);
  EXPECT_EQ(library->kernel_paths.begin()->first.rfind("oneDNN ", 0), 0u) << library->kernel_paths.begin()->first;
  EXPECT_GE(library->packed_weight_bytes, 32 * 16 * 9 * 4);
  EXPECT_GT(library->library_scratch_bytes, 0);
  EXPECT_EQ(library->threads_per_stream, 1);
  auto reference = c.run(core::KernelSet::Reference);
  ASSERT_TRUE(reference);
  EXPECT_EQ(reference->packed_weight_bytes, 0);
  EXPECT_EQ(reference->library_scratch_bytes, 0);
}

namespace {

// x -> conv1 -> relu1 -> pool -> dw (depthwise) -> bn -> add(bn, pool) -> concat(add, pool) ->
// conv2 -> relu2 -> gap -> flatten -> gemm: a small network whose inner tensors the library
// kernels keep channels-last.
core::Graph small_network() {
  core::GraphBuilder b;
  b.add_input("x", DType::Float32, {core::Dim{2, {}}, core::Dim{3, {}}, core::Dim{12, {}}, core::Dim{12, {}}});
  int seed = 30;
  const auto weight = [&](const std::string& name, std::vector<std::int64_t> shape, float lo = -0.5f, float hi = 0.5f) {
    b.add_weight(name, DType::Float32, shape, test::inline_weight(values(count(shape), seed++, lo, hi)));
  };
  weight("w1", {8, 3, 3, 3});
  weight("wd", {8, 1, 3, 3});
  for (const char* p : {"s", "bb", "m"}) weight(p, {8});
  weight("v", {8}, 0.5f, 1.5f);
  weight("w2", {16, 16, 1, 1});
  weight("wf", {5, 16});
  const auto node = [&](const std::string& name, const std::string& op, std::vector<std::string> in, std::vector<Attribute> attrs = {}) {
    const std::vector<std::string> out{name};
    b.add_node(name, op, in, out, std::move(attrs));
  };
  node("conv1", "Conv", {"x", "w1"}, {ints("pads", {1, 1, 1, 1})});
  node("relu1", "Relu", {"conv1"});
  node("pool", "MaxPool", {"relu1"}, {ints("kernel_shape", {2, 2}), ints("strides", {2, 2})});
  node("dw", "Conv", {"pool", "wd"}, {ints("pads", {1, 1, 1, 1}), one_int("group", 8)});
  node("bn", "BatchNormalization", {"dw", "s", "bb", "m", "v"});
  node("add", "Add", {"bn", "pool"});
  node("cat", "Concat", {"add", "pool"}, {one_int("axis", 1)});
  node("conv2", "Conv", {"cat", "w2"});
  node("relu2", "Relu", {"conv2"});
  node("gap", "GlobalAveragePool", {"relu2"});
  node("flat", "Flatten", {"gap"});
  node("y", "Gemm", {"flat", "wf"}, {one_int("transB", 1)});
  // Shapes as an import infers them (the layout plan reads them).
  const std::vector<std::pair<std::string, std::vector<std::int64_t>>> shapes = {
      {"conv1", {2, 8, 12, 12}}, {"relu1", {2, 8, 12, 12}}, {"pool", {2, 8, 6, 6}},   {"dw", {2, 8, 6, 6}},
      {"bn", {2, 8, 6, 6}},      {"add", {2, 8, 6, 6}},     {"cat", {2, 16, 6, 6}},  {"conv2", {2, 16, 6, 6}},
      {"relu2", {2, 16, 6, 6}},  {"gap", {2, 16, 1, 1}},    {"flat", {2, 16}},       {"y", {2, 5}}};
  for (const auto& [name, shape] : shapes) b.set_shape(name, DType::Float32, shape);
  b.mark_output("y");
  auto g = std::move(b).build();
  EXPECT_TRUE(g) << g.error().message;
  return std::move(*g);
}

}  // namespace

// Between library kernels tensors stay channels-last: every tensor from conv1 to relu2 (their
// groups touch a convolution or a pool and only library kernels read them), not the graph input,
// the layout-free pool of one position, nor what Flatten (a reference kernel) reads; the run
// agrees with the reference kernels and reports the tensors it kept channels-last.
TEST(LibraryKernels, ChannelsLastBetweenLibraryKernels) {
  SKIP_WITHOUT_ONEDNN();
  core::Graph g = small_network();
  core::RunOptions o;
  o.inputs["x"] = test::host_f32({2, 3, 12, 12}, values(2 * 3 * 12 * 12, 3));
  o.kernels = core::KernelSet::Reference;
  auto reference = test::run_sequential(g, o);
  o.kernels = core::KernelSet::Library;
  auto library = test::run_sequential(g, o);
  ASSERT_TRUE(reference) << reference.error().message;
  ASSERT_TRUE(library) << library.error().message;
  test::expect_close_outputs(*reference, *library, 2e-5, "small network");
  EXPECT_EQ(library->kernel_paths.at("reference"), 1);  // Flatten
  EXPECT_EQ(library->channels_last_tensors, 9);  // conv1 .. relu2
  EXPECT_EQ(reference->channels_last_tensors, 0);
  // Every schedule of it gives the same bits (the plan is the graph's, not the schedule's).
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const core::Schedule s = test::random_schedule(g, 3, seed, {.events_for_cross_edges = true});
    auto r = core::make_cpu_executor()->run(g, s, core::plan_no_reuse(g), o);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->outputs.at("y").bytes, library->outputs.at("y").bytes) << "seed " << seed;
  }
}
