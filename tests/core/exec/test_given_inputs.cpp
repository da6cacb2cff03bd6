// Given inputs against a graph (core::match_inputs, dims_from_inputs) and outputs against
// expected ones (core::check_outputs): matched by name, else by position; every mismatch named
// with what the model expects; the tolerance judged as numpy.testing.assert_allclose judges it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "weft/core/exec/given_inputs.h"
#include "weft/core/exec/output_check.h"

namespace {

using namespace weft;

/// a [batch, 4] and b [batch, 4] (float32, the symbol shared) -> Add -> c, plus an int64 scalar k
/// -> Identity -> kk.
core::Graph two_inputs() {
  core::GraphBuilder g;
  g.add_input("a", core::DType::Float32, {core::Dim{-1, "batch"}, core::Dim{4, {}}});
  g.add_input("b", core::DType::Float32, {core::Dim{-1, "batch"}, core::Dim{4, {}}});
  g.add_input("k", core::DType::Int64, {});
  g.add_node("add", "Add", {"a", "b"}, {"c"});
  g.add_node("id", "Identity", {"k"}, {"kk"});
  g.mark_output("c");
  g.mark_output("kk");
  auto built = std::move(g).build();
  EXPECT_TRUE(built) << built.error().message;
  return std::move(*built);
}

core::HostTensor floats(std::vector<std::int64_t> shape, std::vector<float> v) {
  core::HostTensor t{core::DType::Float32, std::move(shape), std::vector<std::uint8_t>(v.size() * 4)};
  if (!v.empty()) std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

core::HostTensor int64_scalar(std::int64_t v) {
  core::HostTensor t{core::DType::Int64, {}, std::vector<std::uint8_t>(8)};
  std::memcpy(t.bytes.data(), &v, 8);
  return t;
}

core::TensorFile file(std::string name, int position, core::HostTensor value) {
  return core::TensorFile{name, position, "given/" + (name.empty() ? "#" + std::to_string(position) : name), std::move(value)};
}

core::TensorFiles given(std::vector<core::TensorFile> files) { return core::TensorFiles{"given", core::TensorFormat::Pb, std::move(files)}; }

std::string error_of(const core::Expected<core::GivenInputs>& r) { return r ? std::string("matched") : r.error().message; }

}  // namespace

// By name wherever a name is an input's; unnamed tensors fill the remaining inputs by position;
// a named tensor that names no input feeds by position too, with a warning; leftovers are warned
// about and ignored.
TEST(GivenInputs, ByNameThenPosition) {
  const core::Graph g = two_inputs();
  const auto row = floats({1, 4}, {1, 2, 3, 4});
  auto r = core::match_inputs(g, given({file("k", 0, int64_scalar(3)), file("", 0, row), file("bee", 1, row), file("extra", -1, row)}));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->values.size(), 3u);
  EXPECT_EQ(r->values.at("a").bytes, row.bytes);
  EXPECT_EQ(r->values.at("k").dtype, core::DType::Int64);
  ASSERT_EQ(r->warnings.size(), 2u);
  EXPECT_NE(r->warnings[0].find("names 'bee', which is no input of the model: it feeds input 'b' by its position"), std::string::npos)
      << r->warnings[0];
  EXPECT_NE(r->warnings[1].find("ignored 'extra' (given/extra): every input of the model has its value"), std::string::npos)
      << r->warnings[1];
}

// Each refusal names the input, what was given and what the model expects.
TEST(GivenInputs, RefusalsNameTheInput) {
  const core::Graph g = two_inputs();
  const auto row = floats({1, 4}, {1, 2, 3, 4});
  EXPECT_EQ(error_of(core::match_inputs(g, given({file("a", -1, row), file("k", -1, int64_scalar(1))}))),
            "no value for input 'b' (float32 batchx4) in given");
  EXPECT_EQ(error_of(core::match_inputs(g, given({file("a", -1, row), file("bb", -1, row), file("k", -1, int64_scalar(1))}))),
            "no value for input 'b' (float32 batchx4) in given; given 'bb' (given/bb), which names no input of the model "
            "(its inputs: a, b, k)");
  EXPECT_EQ(error_of(core::match_inputs(g, given({file("a", -1, row), file("b", -1, row), file("k", -1, floats({}, {1}))}))),
            "input 'k' (given/k): given float32 scalar, the model expects int64 scalar (wrong dtype)");
  EXPECT_EQ(error_of(core::match_inputs(g, given({file("a", -1, floats({4}, {1, 2, 3, 4})), file("b", -1, row), file("k", -1, int64_scalar(1))}))),
            "input 'a' (given/a): given float32 4, the model expects float32 batchx4 (wrong shape)");
  EXPECT_EQ(error_of(core::match_inputs(g, given({file("a", -1, floats({1, 2}, {1, 2})), file("b", -1, row), file("k", -1, int64_scalar(1))}))),
            "input 'a' (given/a): given float32 1x2, the model expects float32 batchx4 (wrong shape)");
  EXPECT_EQ(error_of(core::match_inputs(g, given({file("a", 0, row), file("a", 1, row)}))),
            "input 'a' is given twice: given/a and given/a");
}

// A symbol left unbound takes the given shape's value; one given two values is refused, naming
// both; what --dim binds already is left out.
TEST(GivenInputs, DimsFromTheGivenShapes) {
  const core::Graph g = two_inputs();
  auto dims = core::dims_from_inputs(g, given({file("a", -1, floats({3, 4}, std::vector<float>(12))), file("b", -1, floats({3, 4}, std::vector<float>(12)))}));
  ASSERT_TRUE(dims) << dims.error().message;
  EXPECT_EQ(*dims, (std::map<std::string, std::int64_t>{{"batch", 3}}));
  auto bound = core::dims_from_inputs(g, given({file("a", -1, floats({3, 4}, std::vector<float>(12)))}), {{"batch", 3}});
  ASSERT_TRUE(bound);
  EXPECT_TRUE(bound->empty());
  auto clash = core::dims_from_inputs(g, given({file("a", -1, floats({2, 4}, std::vector<float>(8))), file("b", -1, floats({3, 4}, std::vector<float>(12)))}));
  ASSERT_FALSE(clash);
  EXPECT_EQ(clash.error().message, "dimension 'batch' is 2 in input 'a' (given/a) but 3 in input 'b' (given/b)");
}

// numpy's allclose per element: within atol + rtol·|expected| passes, just outside fails; the
// relative error is numpy's, the scaled error is against the output's largest magnitude.
TEST(OutputCheck, ToleranceAsAllclose) {
  const core::Graph g = two_inputs();
  core::RunResult got;
  got.outputs["c"] = floats({1, 4}, {1.0f, 100.0f, 0.0f, -2.0f});
  got.outputs["kk"] = int64_scalar(7);
  const core::TensorFiles want{"want", core::TensorFormat::Pb,
                               {file("c", 0, floats({1, 4}, {1.0005f, 100.09f, 1e-8f, -2.0f})), file("kk", 1, int64_scalar(7))}};
  const auto checks = core::check_outputs(g, got, want, core::Tolerance{});
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_TRUE(checks[0].passed) << checks[0].mismatched;
  EXPECT_NEAR(checks[0].max_abs_error, 0.09, 1e-4);
  EXPECT_NEAR(checks[0].max_rel_error, 1.0, 1e-6);  // the 1e-8 element: numpy's relative error
  EXPECT_NEAR(checks[0].max_scaled_error, 0.09 / 100.09, 1e-6);
  EXPECT_EQ(checks[0].elements, 4);
  EXPECT_TRUE(checks[1].passed);
  const auto tight = core::check_outputs(g, got, want, core::Tolerance{1e-4, 1e-7});
  EXPECT_FALSE(tight[0].passed);
  EXPECT_EQ(tight[0].mismatched, 2);  // 1.0005 and 100.09; 1e-8 is within atol
  EXPECT_FALSE(core::all_passed(tight));
}

// Integers must be equal, NaN agrees only with NaN, a wrong shape or an unknown output fails
// with the reason, and expected outputs match by position where their name is not an output's.
TEST(OutputCheck, ExactIntegersNanShapesAndPositions) {
  const core::Graph g = two_inputs();
  core::RunResult got;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  got.outputs["c"] = floats({1, 4}, {nan, 1, 2, 3});
  got.outputs["kk"] = int64_scalar(7);
  auto checks = core::check_outputs(
      g, got,
      core::TensorFiles{"want", core::TensorFormat::Pb,
                        {file("", 0, floats({1, 4}, {nan, 1, 2, 3})), file("", 1, int64_scalar(8)), file("zz", 5, int64_scalar(1))}},
      core::Tolerance{1.0, 1.0});
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_EQ(checks[0].name, "c");
  EXPECT_TRUE(checks[0].passed);
  EXPECT_EQ(checks[1].name, "kk");
  EXPECT_FALSE(checks[1].passed) << "integers are exact whatever the tolerance";
  EXPECT_EQ(checks[2].problem, "'zz' is no output of the model");
  EXPECT_FALSE(checks[2].passed);
  checks = core::check_outputs(g, got,
                               core::TensorFiles{"want", core::TensorFormat::Pb,
                                                 {file("c", -1, floats({1, 4}, {0, 1, 2, 3})), file("kk", -1, floats({1}, {7}))}},
                               core::Tolerance{});
  EXPECT_FALSE(checks[0].passed) << "NaN against a number";
  EXPECT_TRUE(std::isnan(checks[0].max_abs_error));
  EXPECT_EQ(checks[1].problem, "the run gave int64 scalar, expected float32 1");
}
