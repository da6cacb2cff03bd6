// Golden values of the CPU reference kernels on hand-built one-node graphs (expected results
// written out by hand; the library kernels checked against them), plus the error for an
// unsupported operator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "exec_test_util.h"

using namespace weft;
using core::Attribute;
using test::ints;
using test::one_float;
using test::one_int;
using test::text;
using core::DType;

namespace {


std::vector<float> iota_f(int n, float start = 1) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = start + static_cast<float>(i);
  return v;
}

/// One node `op` over inputs (graph inputs "x..." with values, or weights "w..."), output "y".
struct OneNode {
  core::GraphBuilder b;
  std::map<std::string, core::HostTensor> inputs;
  std::vector<std::string> in_names;

  OneNode& input(const std::string& name, std::vector<std::int64_t> shape, const std::vector<float>& v) {
    std::vector<core::Dim> dims;
    for (auto d : shape) dims.push_back(core::Dim{d, {}});
    b.add_input(name, DType::Float32, dims);
    inputs[name] = test::host_f32(shape, v);
    in_names.push_back(name);
    return *this;
  }
  OneNode& weight_f32(const std::string& name, std::vector<std::int64_t> shape, const std::vector<float>& v) {
    b.add_weight(name, DType::Float32, std::move(shape), test::inline_weight(v));
    in_names.push_back(name);
    return *this;
  }
  OneNode& weight_i64(const std::string& name, std::vector<std::int64_t> shape, const std::vector<std::int64_t>& v) {
    b.add_weight(name, DType::Int64, std::move(shape), test::inline_weight(v));
    in_names.push_back(name);
    return *this;
  }
  OneNode& skip() {
    in_names.emplace_back();
    return *this;
  }
  core::Expected<core::RunResult> run(const std::string& op, std::vector<Attribute> attrs = {}, core::RunOptions o = {}) {
    const std::string out = "y";
    b.add_node("node0", op, std::span<const std::string>(in_names), std::span<const std::string>(&out, 1), std::move(attrs));
    b.mark_output("y");
    auto g = std::move(b).build();
    if (!g) return g.error();
    o.inputs = inputs;
    graph = std::make_unique<core::Graph>(std::move(*g));
    // The golden values are the reference kernels'; a library kernel that takes the node must
    // agree with them (test_library_kernels checks it over many geometries).
    o.kernels = core::KernelSet::Reference;
    auto reference = test::run_sequential(*graph, o);
    o.kernels = core::KernelSet::Library;
    auto library = test::run_sequential(*graph, o);
    EXPECT_EQ(bool(reference), bool(library)) << op << ": reference and library kernels disagree on failing";
    if (reference && library) test::expect_close_outputs(*reference, *library, 1e-5, op);
    return reference;
  }
  std::unique_ptr<core::Graph> graph;
};

std::vector<float> output_of(core::Expected<core::RunResult>& r, std::vector<std::int64_t> shape) {
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  if (!r) return {};
  const auto& y = r->outputs.at("y");
  EXPECT_EQ(y.shape, shape);
  return test::as_f32(y);
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

}  // namespace

// Conv with padding, stride and bias: windows of a 4x4 ramp summed by a 3x3 kernel of ones.
TEST(CpuKernels, ConvPadsStridesBias) {
  OneNode t;
  t.input("x", {1, 1, 4, 4}, iota_f(16)).weight_f32("w", {1, 1, 3, 3}, std::vector<float>(9, 1.0f)).weight_f32("b", {1}, {1});
  auto r = t.run("Conv", {ints("pads", {1, 1, 1, 1}), ints("strides", {2, 2})});
  expect_near(output_of(r, {1, 1, 2, 2}), {15, 31, 58, 100});
}

// Dilation 2 reads every other pixel.
TEST(CpuKernels, ConvDilation) {
  OneNode t;
  t.input("x", {1, 1, 5, 5}, iota_f(25, 0)).weight_f32("w", {1, 1, 2, 2}, std::vector<float>(4, 1.0f));
  auto r = t.run("Conv", {ints("dilations", {2, 2})});
  expect_near(output_of(r, {1, 1, 3, 3}), {24, 28, 32, 44, 48, 52, 64, 68, 72});
}

// SAME_UPPER puts the odd padding at the end: the last row/column sees fewer pixels.
TEST(CpuKernels, ConvAutoPadSameUpper) {
  OneNode t;
  t.input("x", {1, 1, 3, 3}, std::vector<float>(9, 1.0f)).weight_f32("w", {1, 1, 2, 2}, std::vector<float>(4, 1.0f));
  auto r = t.run("Conv", {text("auto_pad", "SAME_UPPER")});
  expect_near(output_of(r, {1, 1, 3, 3}), {4, 4, 2, 4, 4, 2, 2, 2, 1});
}

// Groups: each output channel sees only its group's input channel (pointwise path).
TEST(CpuKernels, ConvGroups) {
  OneNode t;
  t.input("x", {1, 2, 2, 2}, iota_f(8)).weight_f32("w", {2, 1, 1, 1}, {2, 3});
  auto r = t.run("Conv", {one_int("group", 2)});
  expect_near(output_of(r, {1, 2, 2, 2}), {2, 4, 6, 8, 15, 18, 21, 24});
}

// Depthwise 3x3 with padding 1 (the direct loop): counts of in-bounds neighbours, times the channel value.
TEST(CpuKernels, ConvDepthwise) {
  OneNode t;
  std::vector<float> x(9, 1.0f);
  x.insert(x.end(), 9, 2.0f);
  t.input("x", {1, 2, 3, 3}, x).weight_f32("w", {2, 1, 3, 3}, std::vector<float>(18, 1.0f));
  auto r = t.run("Conv", {one_int("group", 2), ints("pads", {1, 1, 1, 1})});
  expect_near(output_of(r, {1, 2, 3, 3}), {4, 6, 4, 6, 9, 6, 4, 6, 4, 8, 12, 8, 12, 18, 12, 8, 12, 8});
}

// ConvTranspose stride 1 and stride 2 (the adjoint of a 2x2 conv of ones).
TEST(CpuKernels, ConvTranspose) {
  OneNode t1;
  t1.input("x", {1, 1, 2, 2}, {1, 2, 3, 4}).weight_f32("w", {1, 1, 2, 2}, std::vector<float>(4, 1.0f));
  auto r1 = t1.run("ConvTranspose");
  expect_near(output_of(r1, {1, 1, 3, 3}), {1, 3, 2, 4, 10, 6, 3, 7, 4});
  OneNode t2;
  t2.input("x", {1, 1, 2, 2}, {1, 2, 3, 4}).weight_f32("w", {1, 1, 2, 2}, std::vector<float>(4, 1.0f));
  auto r2 = t2.run("ConvTranspose", {ints("strides", {2, 2})});
  expect_near(output_of(r2, {1, 1, 4, 4}), {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
}

// Gemm with transB, alpha, beta and a broadcast C.
TEST(CpuKernels, GemmTransBAlphaBeta) {
  OneNode t;
  t.input("a", {2, 3}, iota_f(6)).weight_f32("b", {2, 3}, {1, 0, 1, 0, 1, 0}).weight_f32("c", {2}, {10, 20});
  auto r = t.run("Gemm", {one_int("transB", 1), one_float("alpha", 2.0f), one_float("beta", 0.5f)});
  expect_near(output_of(r, {2, 2}), {13, 14, 25, 20});
}

// RunOptions::batch_invariant: a Gemm's rows (plain and transposed A) and a 2-D MatMul's rows
// are bit for bit the same whether the product has 8 rows or 1, and agree with the one-call product.
TEST(CpuKernels, BatchInvariantProductsDoNotDependOnTheRowCount) {
  const std::int64_t m = 8, k = 300, n = 130;
  std::vector<float> a(static_cast<std::size_t>(m * k)), w(static_cast<std::size_t>(k * n));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.37f * static_cast<float>(i)) * 0.9f;
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::cos(0.11f * static_cast<float>(i)) * 0.05f;
  core::RunOptions invariant;
  invariant.batch_invariant = true;
  for (const char* op : {"Gemm", "MatMul"})
    for (const bool trans_a : {false, true}) {
      if (trans_a && std::string(op) == "MatMul") continue;
      SCOPED_TRACE(std::string(op) + (trans_a ? " transA" : ""));
      // op(A) row r, stored as A's row r, or as A^T's column r.
      const auto input = [&](std::int64_t rows, std::int64_t first) {
        std::vector<float> v(static_cast<std::size_t>(rows * k));
        for (std::int64_t r = 0; r < rows; ++r)
          for (std::int64_t c = 0; c < k; ++c)
            v[static_cast<std::size_t>(trans_a ? c * rows + r : r * k + c)] = a[static_cast<std::size_t>((first + r) * k + c)];
        return v;
      };
      const auto product = [&](std::int64_t rows, std::int64_t first, const core::RunOptions& options) {
        OneNode t;
        t.input("a", trans_a ? std::vector<std::int64_t>{k, rows} : std::vector<std::int64_t>{rows, k}, input(rows, first));
        t.weight_f32("w", {k, n}, w);
        std::vector<Attribute> attrs;
        if (trans_a) attrs.push_back(one_int("transA", 1));
        auto r = t.run(op, attrs, options);
        return output_of(r, {rows, n});
      };
      const std::vector<float> all = product(m, 0, invariant);
      const std::vector<float> plain = product(m, 0, {});
      expect_near(all, plain, 1e-4f);
      for (std::int64_t r = 0; r < m; ++r) {
        const std::vector<float> row = product(1, r, invariant);
        ASSERT_EQ(row.size(), static_cast<std::size_t>(n));
        EXPECT_EQ(0, std::memcmp(row.data(), all.data() + r * n, static_cast<std::size_t>(n) * sizeof(float))) << "row " << r;
      }
    }
}

// MatMul broadcasts a 2-D right operand over the batch of the left one.
TEST(CpuKernels, MatMulBatchedBroadcast) {
  OneNode t;
  t.input("a", {2, 2, 3}, iota_f(12)).weight_f32("b", {3, 2}, {1, 0, 0, 1, 1, 1});
  auto r = t.run("MatMul");
  // rows [1 2 3] -> [1+3, 2+3]
  expect_near(output_of(r, {2, 2, 2}), {4, 5, 10, 11, 16, 17, 22, 23});
}

// Numpy broadcasting of a row over a matrix, and of a column.
TEST(CpuKernels, AddBroadcast) {
  OneNode t;
  t.input("a", {2, 3}, iota_f(6)).weight_f32("b", {2, 1}, {10, 20});
  auto r = t.run("Add");
  expect_near(output_of(r, {2, 3}), {11, 12, 13, 24, 25, 26});
}

// MaxPool 2x2 / 2 and AveragePool with and without counting pads.
TEST(CpuKernels, Pools) {
  OneNode m;
  m.input("x", {1, 1, 4, 4}, iota_f(16));
  auto rm = m.run("MaxPool", {ints("kernel_shape", {2, 2}), ints("strides", {2, 2})});
  expect_near(output_of(rm, {1, 1, 2, 2}), {6, 8, 14, 16});
  OneNode a;
  a.input("x", {1, 1, 4, 4}, iota_f(16));
  auto ra = a.run("AveragePool", {ints("kernel_shape", {3, 3}), ints("strides", {2, 2}), ints("pads", {1, 1, 1, 1})});
  // windows: rows 0-1 x cols 0-1 (4 px), rows 0-1 x cols 1-3 (6 px), rows 1-3 x cols 0-1, rows 1-3 x cols 1-3
  expect_near(output_of(ra, {1, 1, 2, 2}), {14.0f / 4, 30.0f / 6, 57.0f / 6, 99.0f / 9});
  OneNode c;
  c.input("x", {1, 1, 4, 4}, iota_f(16));
  auto rc = c.run("AveragePool", {ints("kernel_shape", {3, 3}), ints("strides", {2, 2}), ints("pads", {1, 1, 1, 1}),
                                   one_int("count_include_pad", 1)});
  expect_near(output_of(rc, {1, 1, 2, 2}), {14.0f / 9, 30.0f / 9, 57.0f / 9, 99.0f / 9});
}

// Softmax on the last axis sums to one and matches exp ratios.
TEST(CpuKernels, Softmax) {
  OneNode t;
  t.input("x", {1, 3}, {1, 2, 3});
  auto r = t.run("Softmax");
  const float s = std::exp(1.0f) + std::exp(2.0f) + std::exp(3.0f);
  expect_near(output_of(r, {1, 3}), {std::exp(1.0f) / s, std::exp(2.0f) / s, std::exp(3.0f) / s});
}

// Resize linear with half_pixel coordinates clamps at the borders.
TEST(CpuKernels, ResizeLinearHalfPixel) {
  OneNode t;
  t.input("x", {1, 1, 1, 2}, {1, 3}).skip().skip().weight_i64("sizes", {4}, {1, 1, 1, 4});
  auto r = t.run("Resize", {text("mode", "linear")});
  expect_near(output_of(r, {1, 1, 1, 4}), {1, 1.5f, 2.5f, 3});
}

// Resize nearest with asymmetric coordinates and floor rounding repeats pixels.
TEST(CpuKernels, ResizeNearestAsymmetric) {
  OneNode t;
  t.input("x", {1, 1, 2, 2}, {1, 2, 3, 4}).skip().weight_f32("scales", {4}, {1, 1, 2, 2});
  auto r = t.run("Resize", {text("coordinate_transformation_mode", "asymmetric"), text("nearest_mode", "floor")});
  expect_near(output_of(r, {1, 1, 4, 4}), {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
}

// Slice with a negative step walks backwards; Transpose swaps axes; Gather picks along axis 1.
TEST(CpuKernels, SliceTransposeGather) {
  OneNode s;
  s.input("x", {2, 4}, iota_f(8)).weight_i64("starts", {1}, {-1}).weight_i64("ends", {1}, {0}).weight_i64("axes", {1}, {1}).weight_i64(
      "steps", {1}, {-2});
  auto rs = s.run("Slice");
  expect_near(output_of(rs, {2, 2}), {4, 2, 8, 6});
  OneNode tr;
  tr.input("x", {2, 3}, iota_f(6));
  auto rt = tr.run("Transpose");
  expect_near(output_of(rt, {3, 2}), {1, 4, 2, 5, 3, 6});
  OneNode g;
  g.input("x", {2, 3}, iota_f(6)).weight_i64("i", {2}, {2, -3});
  auto rg = g.run("Gather", {one_int("axis", 1)});
  expect_near(output_of(rg, {2, 2}), {3, 1, 6, 4});
}

// LayerNormalization normalises the last axis, then scales and shifts.
TEST(CpuKernels, LayerNormalization) {
  OneNode t;
  t.input("x", {1, 4}, {1, 2, 3, 4}).weight_f32("s", {4}, {1, 1, 2, 2}).weight_f32("b", {4}, {0, 0, 0, 1});
  auto r = t.run("LayerNormalization", {one_float("epsilon", 0.0f)});
  const float sd = std::sqrt(1.25f);
  expect_near(output_of(r, {1, 4}), {-1.5f / sd, -0.5f / sd, 2 * 0.5f / sd, 2 * 1.5f / sd + 1}, 1e-5f);
}

// ReduceMean over axes given as an input (opset 18) without keepdims.
TEST(CpuKernels, ReduceMeanAxesInput) {
  OneNode t;
  t.input("x", {2, 3}, iota_f(6)).weight_i64("axes", {1}, {1});
  auto r = t.run("ReduceMean", {one_int("keepdims", 0)});
  expect_near(output_of(r, {2}), {2, 5});
}

// An operator without a kernel is an InvalidInput error naming the node and the operator.
TEST(CpuKernels, UnsupportedOperatorNamesNodeAndOp) {
  OneNode t;
  t.input("x", {1, 3}, {1, 2, 3});
  auto r = t.run("FancyOp");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(r.error().message.find("node0"), std::string::npos);
  EXPECT_NE(r.error().message.find("FancyOp"), std::string::npos);
}

// The supported operator list is sorted and holds the model operators.
TEST(CpuKernels, SupportedOpsList) {
  const auto ops = core::cpu_supported_ops();
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
  for (const char* op : {"Conv", "ConvTranspose", "Gemm", "MatMul", "Resize", "HardSigmoid", "Clip", "Erf", "Softmax", "Where"})
    EXPECT_TRUE(std::binary_search(ops.begin(), ops.end(), std::string(op))) << op;
}

// docs/operators.md lists exactly the registered operators (regenerate it when adding kernels).
TEST(CpuKernels, OperatorsDocMatchesRegistry) {
  std::ifstream in(std::string(WEFT_TEST_DATA_DIR) + "/../../docs/operators.md");
  ASSERT_TRUE(in.good());
  std::vector<std::string> documented;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## Not supported", 0) == 0) break;  // the refusals table follows
    if (line.rfind("| `", 0) != 0) continue;
    const auto end = line.find('`', 3);
    documented.push_back(line.substr(3, end - 3));
  }
  std::sort(documented.begin(), documented.end());
  EXPECT_EQ(documented, core::cpu_supported_ops());
}

namespace {

core::HostTensor host_u16(DType dtype, std::vector<std::uint16_t> bits) {
  core::HostTensor h;
  h.dtype = dtype;
  h.shape = {static_cast<std::int64_t>(bits.size())};
  h.bytes.resize(bits.size() * 2);
  std::memcpy(h.bytes.data(), bits.data(), h.bytes.size());
  return h;
}

std::vector<std::uint16_t> bits_of(const core::HostTensor& h) {
  std::vector<std::uint16_t> v(h.bytes.size() / 2);
  std::memcpy(v.data(), h.bytes.data(), h.bytes.size());
  return v;
}

/// Runs one node `op` over graph inputs a (and b) of dtype `in`, writing y of dtype `out`.
core::Expected<core::RunResult> run_typed(const std::string& op, DType in, DType out, std::vector<core::HostTensor> values,
                                          std::vector<Attribute> attrs = {}) {
  core::GraphBuilder b;
  std::vector<std::string> names;
  core::RunOptions o;
  for (std::size_t i = 0; i < values.size(); ++i) {
    names.push_back(std::string(1, static_cast<char>('a' + i)));
    b.add_input(names.back(), in, {core::Dim{values[i].shape[0], {}}});
    o.inputs[names.back()] = values[i];
  }
  const std::vector<std::string> outs = {"y"};
  b.add_node("n", op, names, outs, std::move(attrs));
  b.set_shape("y", out, {values[0].shape[0]});
  b.mark_output("y");
  auto g = std::move(b).build();
  if (!g) return g.error();
  return test::run_sequential(*g, o);
}

}  // namespace

// float32 -> float16 / bfloat16 rounds to nearest, ties to even, with subnormals, overflow to
// infinity, signed zero and NaN; back to float32 is exact.
TEST(CpuKernels, HalfPrecisionCastsRoundToNearestEven) {
  const std::vector<float> x = {1.0f, 1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 65504.0f, 65520.0f, 0x1p-24f, 0x1p-25f,
                                0.75f * 0x1p-24f, -0.0f, std::nanf("")};
  core::HostTensor in = test::host_f32({static_cast<std::int64_t>(x.size())}, x);
  auto h = run_typed("Cast", DType::Float32, DType::Float16, {in}, {one_int("to", 10)});
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_EQ(bits_of(h->outputs.at("y")),
            (std::vector<std::uint16_t>{0x3C00, 0x3C00, 0x3C02, 0x7BFF, 0x7C00, 0x0001, 0x0000, 0x0001, 0x8000, 0x7E00}));
  const std::vector<float> xb = {1.0f, 1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, -2.5f};
  auto bf = run_typed("Cast", DType::Float32, DType::BFloat16, {test::host_f32({4}, xb)}, {one_int("to", 16)});
  ASSERT_TRUE(bf) << bf.error().message;
  EXPECT_EQ(bits_of(bf->outputs.at("y")), (std::vector<std::uint16_t>{0x3F80, 0x3F80, 0x3F82, 0xC020}));
  auto back = run_typed("Cast", DType::Float16, DType::Float32, {host_u16(DType::Float16, {0x3C02, 0x0001, 0xFBFF})},
                        {one_int("to", 1)});
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(test::as_f32(back->outputs.at("y")), (std::vector<float>{1.0f + 0x1p-9f, 0x1p-24f, -65504.0f}));
}

// Arithmetic on float16 runs in float32 and rounds each result once: 1 + 2^-11 is a tie that
// goes to 1 (even); (1 + 2^-10) + 2^-11 is a tie that goes to 1 + 2^-9.
TEST(CpuKernels, HalfPrecisionArithmeticRoundsOnce) {
  auto r = run_typed("Add", DType::Float16, DType::Float16,
                     {host_u16(DType::Float16, {0x3C00, 0x3C01}), host_u16(DType::Float16, {0x1000, 0x1000})});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(bits_of(r->outputs.at("y")), (std::vector<std::uint16_t>{0x3C00, 0x3C02}));
  auto s = run_typed("Sigmoid", DType::BFloat16, DType::BFloat16, {host_u16(DType::BFloat16, {0x0000})});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(bits_of(s->outputs.at("y")), (std::vector<std::uint16_t>{0x3F00}));  // 0.5
}
