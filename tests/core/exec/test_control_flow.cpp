// Control flow on the CPU executor: silero_vad_v5 (an If whose branches hold nested Ifs and an
// LSTM) runs with its unnamed dims bound by position, deterministically under any schedule; the
// If stays one node while its branches can be analysed on their own; an unbound dim is named.
#include <gtest/gtest.h>

#include <cmath>

#include "exec_test_util.h"
#include "test_graphs.h"
#include "weft/core/analysis/analyze_subgraphs.h"
#include "weft/core/cost/device.h"
#include "weft/core/onnx/onnx_import.h"

using namespace weft;

namespace {

std::string model(const std::string& name) { return std::string(WEFT_TEST_DATA_DIR) + "/models/" + name + ".onnx"; }

core::Expected<core::Graph> silero() {
  core::ImportOptions o;
  // The seeded sr input is 0, so the 8 kHz branch runs: 256-sample chunks.
  o.dims = {{"input:0", 1}, {"input:1", 256}, {"state:1", 1}};
  return core::import_onnx(model("silero_vad_v5"), o);
}

}  // namespace

// Silero's If (and the Ifs and LSTM inside its branches) runs; outputs are finite, and equal bit
// for bit under a random two-stream schedule.
TEST(ControlFlow, SileroRunsOnTheCpu) {
  auto g = silero();
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_TRUE(g->info().unresolved_dims.empty());
  ASSERT_TRUE(core::cpu_check_supported(*g)) << core::cpu_check_supported(*g).error().message;
  auto seq = test::run_sequential(*g);
  ASSERT_TRUE(seq) << seq.error().message;
  ASSERT_EQ(seq->outputs.size(), 2u);
  const auto prob = test::as_f32(seq->outputs.at("output"));
  ASSERT_EQ(prob.size(), 1u);
  EXPECT_TRUE(prob[0] >= 0.0f && prob[0] <= 1.0f) << prob[0];  // a sigmoid
  EXPECT_EQ(seq->outputs.at("stateN").shape, (std::vector<std::int64_t>{2, 1, 128}));
  for (float v : test::as_f32(seq->outputs.at("stateN"))) ASSERT_TRUE(std::isfinite(v));
  core::RunOptions o;
  o.warmup = 0;
  auto r = core::make_cpu_executor()->run(*g, test::random_schedule(*g, 2, 5, {.events_for_cross_edges = true}),
                                          core::plan_no_reuse(*g), o);
  ASSERT_TRUE(r) << r.error().message;
  for (const auto& [name, t] : seq->outputs) EXPECT_TRUE(t.bytes == r->outputs.at(name).bytes) << name;
}

// The If is one node of the main graph; each branch is a graph of its own whose parallelism the
// analysis reports.
TEST(ControlFlow, BranchesAreAnalysedOnTheirOwn) {
  auto g = silero();
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->node_count(), 4u);
  const auto if_node = g->find_node("If_0");
  ASSERT_TRUE(if_node);
  auto device = core::load_device(core::default_device_name());
  ASSERT_TRUE(device);
  const auto bodies = core::analyze_subgraphs(*g, *if_node, *device);
  ASSERT_EQ(bodies.size(), 2u);
  for (const auto& [attr, report] : bodies) {
    EXPECT_TRUE(attr == "then_branch" || attr == "else_branch") << attr;
    EXPECT_GT(report.critical.work_us, 0) << attr;
    EXPECT_GE(report.critical.work_us, report.critical.span_us) << attr;
    EXPECT_GE(report.antichain_width, 2u) << attr << ": the branches hold independent work";
  }
  // Each branch reads the outer inputs it captures by name.
  const auto subgraphs = core::node_subgraphs(g->node(*if_node));
  ASSERT_EQ(subgraphs.size(), 2u);
  const auto& captures = subgraphs[0].second->info().captures;
  EXPECT_NE(std::find(captures.begin(), captures.end(), "input"), captures.end());
  for (core::NodeId n : g->topo_order())
    if (g->node(n).op_type != "If") {
      EXPECT_TRUE(core::analyze_subgraphs(*g, n, *device).empty());
    }
}

// Running with a dim left unbound names every missing dim and the --dim that binds it.
TEST(ControlFlow, UnboundDimsAreNamed) {
  auto g = core::import_onnx(model("ppocr_v4_det"));
  ASSERT_TRUE(g) << g.error().message;
  auto r = test::run_sequential(*g);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("dim 2 'p2o.DynamicDimension.1' (--dim p2o.DynamicDimension.1=VALUE)"), std::string::npos)
      << r.error().message;
  auto s = core::import_onnx(model("silero_vad_v5"));
  ASSERT_TRUE(s) << s.error().message;
  auto rs = test::run_sequential(*s);
  ASSERT_FALSE(rs);
  EXPECT_NE(rs.error().message.find("(unnamed; --dim input:1=VALUE)"), std::string::npos) << rs.error().message;
}
