// The data every executor starts from (core::initial_value) and the checks every executor makes
// (core::check_run): both backends rely on them to compute on identical values and refuse alike.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "test_graphs.h"
#include "weft/core/exec/executor.h"
#include "weft/core/exec/initial_values.h"
#include "weft/core/memory/memory_plan.h"
#include "weft/core/exec/run_checks.h"

namespace {

using namespace weft;

std::vector<float> floats(const core::HostTensor& h) {
  std::vector<float> v(h.bytes.size() / 4);
  std::memcpy(v.data(), h.bytes.data(), h.bytes.size());
  return v;
}

/// x -> Conv(w[8,3,3,3], b[8]) -> y, with the tensors declared in the given order.
core::Graph conv_graph(bool weights_first) {
  core::GraphBuilder b;
  if (weights_first) {
    b.add_weight("w", core::DType::Float32, {8, 3, 3, 3});
    b.add_weight("b", core::DType::Float32, {8});
  }
  b.add_input("x", core::DType::Float32, {core::Dim{1, {}}, core::Dim{3, {}}, core::Dim{5, {}}, core::Dim{5, {}}});
  if (!weights_first) {
    b.add_weight("b", core::DType::Float32, {8});
    b.add_weight("w", core::DType::Float32, {8, 3, 3, 3});
  }
  b.add_node("conv", "Conv", {"x", "w", "b"}, {"y"});
  b.set_shape("y", core::DType::Float32, {1, 8, 3, 3});
  b.mark_output("y");
  auto g = std::move(b).build();
  EXPECT_TRUE(g) << g.error().message;
  return std::move(*g);
}

// Seeded values depend on the tensor's name and the seed, not on ids or declaration order.
TEST(InitialValue, SeededPerNameNotPerId) {
  const core::Graph a = conv_graph(true), b = conv_graph(false);
  core::RunOptions o;
  for (const char* name : {"w", "b", "x"}) {
    const core::TensorId ta = *a.find_tensor(name), tb = *b.find_tensor(name);
    bool seeded = false;
    auto va = core::initial_value(a, ta, o, &seeded);
    auto vb = core::initial_value(b, tb, o);
    ASSERT_TRUE(va && vb);
    EXPECT_EQ(va->bytes, vb->bytes) << name;
    EXPECT_EQ(seeded, std::string(name) != "x") << name;  // only absent weights count as seeded
  }
  o.seed = 43;
  auto other = core::initial_value(a, *a.find_tensor("w"), o);
  ASSERT_TRUE(other);
  EXPECT_NE(other->bytes, core::initial_value(a, *a.find_tensor("w"), core::RunOptions{})->bytes);
}

// Ranges: rank >= 2 weights within ±sqrt(3 / fan_in), 1-D weights in [0.5, 1), inputs in [-1, 1).
TEST(InitialValue, Ranges) {
  const core::Graph g = conv_graph(true);
  const core::RunOptions o;
  const float bound = std::sqrt(3.0f / 27.0f);
  for (float v : floats(*core::initial_value(g, *g.find_tensor("w"), o))) EXPECT_LE(std::fabs(v), bound);
  for (float v : floats(*core::initial_value(g, *g.find_tensor("b"), o))) {
    EXPECT_GE(v, 0.5f);
    EXPECT_LT(v, 1.0f);
  }
  const auto x = floats(*core::initial_value(g, *g.find_tensor("x"), o));
  EXPECT_EQ(x.size(), 75u);
  for (float v : x) EXPECT_LE(std::fabs(v), 1.0f);
}

// Given inputs are used as they are; a wrong shape is refused naming the input.
TEST(InitialValue, GivenInputs) {
  const core::Graph g = conv_graph(true);
  core::RunOptions o;
  core::HostTensor h;
  h.shape = {1, 3, 5, 5};
  h.bytes.assign(75 * 4, 0x3f);
  o.inputs["x"] = h;
  auto v = core::initial_value(g, *g.find_tensor("x"), o);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->bytes, h.bytes);
  o.inputs["x"].shape = {1, 3, 25, 1};
  auto bad = core::initial_value(g, *g.find_tensor("x"), o);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(bad.error().message.find("input 'x'"), std::string::npos) << bad.error().message;
}

// check_run refuses a node placed twice, a missing data edge and an event cycle; accepts a valid schedule.
TEST(CheckRun, RefusesBrokenSchedules) {
  const core::Graph g = test::make_diamond();  // 0 -> {1, 2} -> 3
  const core::MemoryPlan plan = core::plan_no_reuse(g);
  const core::RunOptions o;
  core::Schedule ok{{{0, 1, 3}, {2}}, {{0, 2}, {2, 3}}, "test", ""};
  EXPECT_TRUE(core::check_run(g, ok, plan, o));
  core::Schedule twice{{{0, 1, 2, 3}, {2}}, {}, "test", ""};
  auto e1 = core::check_run(g, twice, plan, o);
  ASSERT_FALSE(e1);
  EXPECT_NE(e1.error().message.find("placed twice"), std::string::npos) << e1.error().message;
  core::Schedule no_edge{{{0, 1, 3}, {2}}, {{0, 2}}, "test", ""};
  auto e2 = core::check_run(g, no_edge, plan, o);
  ASSERT_FALSE(e2);
  EXPECT_NE(e2.error().message.find("does not enforce"), std::string::npos) << e2.error().message;
  core::Schedule cycle{{{0, 1, 3}, {2}}, {{0, 2}, {2, 3}, {3, 2}}, "test", ""};
  auto e3 = core::check_run(g, cycle, plan, o);
  ASSERT_FALSE(e3);
  EXPECT_NE(e3.error().message.find("deadlock"), std::string::npos) << e3.error().message;
}

}  // namespace
