// Vertical fusion: the chains find_fusion_chains finds and refuses, the fused graph fuse_graph
// builds (labels, costs, no intermediates), fused runs against the unfused sequential run on the
// library and the reference kernels, fewer tensors in the memory plan, and fusions recorded in
// schedule JSON and reopened by open_model.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/strategy/reference.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/open_model.h"
#include "weft/core/study/run_comparison.h"
#include "weft/core/transform/batch_split.h"
#include "weft/core/transform/vertical_fusion.h"

namespace weft::core {
namespace {

Attribute ints_attr(const std::string& name, std::vector<std::int64_t> v) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::Ints;
  a.ints = std::move(v);
  return a;
}

WeightData scalar(float v) {
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(sizeof(float));
  std::memcpy(bytes->data(), &v, sizeof(float));
  return WeightData{bytes, {}, 0, -1};
}

// x -> conv1 -> relu1 -> conv2 -> add(+x) -> relu2 -> y; x -> conv3 -> c3 read by relu3 and by
// sig3 (not fusable); x -> conv4 -> clip4 -> leaky4 -> z. Every tensor float32 [1, 4, 6, 6].
Graph chains_graph() {
  GraphBuilder b;
  b.add_input("x", DType::Float32, {Dim{1, {}}, Dim{4, {}}, Dim{6, {}}, Dim{6, {}}});
  const std::vector<std::int64_t> shape{1, 4, 6, 6};
  const auto conv = [&](const std::string& name, const std::string& in, const std::string& out) {
    b.add_weight(name + "_w", DType::Float32, {4, 4, 3, 3});
    b.add_weight(name + "_b", DType::Float32, {4});
    const std::vector<std::string> ins{in, name + "_w", name + "_b"}, outs{out};
    b.add_node(name, "Conv", ins, outs, {ints_attr("pads", {1, 1, 1, 1}), ints_attr("kernel_shape", {3, 3})});
    b.set_shape(out, DType::Float32, shape);
  };
  const auto unary = [&](const std::string& name, const std::string& op, std::vector<std::string> ins, const std::string& out) {
    const std::vector<std::string> outs{out};
    b.add_node(name, op, ins, outs);
    b.set_shape(out, DType::Float32, shape);
  };
  conv("conv1", "x", "c1");
  unary("relu1", "Relu", {"c1"}, "r1");
  conv("conv2", "r1", "c2");
  unary("add2", "Add", {"c2", "x"}, "a2");
  unary("relu2", "Relu", {"a2"}, "y");
  conv("conv3", "x", "c3");
  unary("relu3", "Relu", {"c3"}, "r3");
  unary("sig3", "Sigmoid", {"c3"}, "s3");
  conv("conv4", "x", "c4");
  b.add_weight("lo", DType::Float32, {}, scalar(-0.5f));
  b.add_weight("hi", DType::Float32, {}, scalar(0.75f));
  unary("clip4", "Clip", {"c4", "lo", "hi"}, "k4");
  unary("leaky4", "LeakyRelu", {"k4"}, "z");
  for (const char* out : {"y", "r3", "s3", "z"}) b.mark_output(out);
  auto g = std::move(b).build();
  if (!g) ADD_FAILURE() << g.error().message;
  return std::move(*g);
}

std::vector<std::string> keys(const Graph& g, const std::vector<NodeId>& ids) {
  std::vector<std::string> out;
  for (NodeId v : ids) out.push_back(g.key(v));
  return out;
}

Graph load(const std::string& name) {
  ImportOptions o;
  o.dims["batch"] = 1;
  auto g = import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/" + name, o);
  if (!g) ADD_FAILURE() << g.error().message;
  return std::move(*g);
}

OpenRequest googlenet_request() {
  OpenRequest r;
  r.path = std::string(WEFT_TEST_DATA_DIR) + "/models/googlenet.onnx";
  r.import.dims["batch"] = 1;
  return r;
}

// A Conv-Relu chain, a Conv-Add-Relu chain (the residual x) and a Conv-Clip-LeakyRelu chain are
// found; conv3, whose output two nodes read, leads none, and a chain through it is refused by name.
TEST(VerticalFusion, FindsChainsAndLeavesASharedIntermediate) {
  const Graph g = chains_graph();
  const auto chains = find_fusion_chains(g);
  ASSERT_EQ(chains.size(), 3u);
  EXPECT_EQ(keys(g, chains[0]), (std::vector<std::string>{"conv1", "relu1"}));
  EXPECT_EQ(keys(g, chains[1]), (std::vector<std::string>{"conv2", "add2", "relu2"}));
  EXPECT_EQ(keys(g, chains[2]), (std::vector<std::string>{"conv4", "clip4", "leaky4"}));
  const std::vector<NodeId> through_shared{*g.find_node("conv3"), *g.find_node("relu3")};
  auto refused = check_fusion_chain(g, through_shared);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("'conv3' is read by another node"), std::string::npos) << refused.error().message;
  const std::vector<NodeId> no_producer{*g.find_node("relu1"), *g.find_node("conv2")};
  EXPECT_FALSE(check_fusion_chain(g, no_producer));
}

// The fused graph: three weft.Fused nodes labelled by their chains, the intermediates gone, the
// other nodes and every output kept; a fused node costs its chain's flops and only its inputs'
// and output's bytes.
TEST(VerticalFusion, FusedGraphHasLabelledNodesAndNoIntermediates) {
  const Graph g = chains_graph();
  const DeviceSpec device = *load_device("h200");
  const CostTable costs = estimate_costs(g, device);
  auto f = fuse_graph(g, costs, device, find_fusion_chains(g));
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->graph.node_count(), g.node_count() - 5);
  for (const char* gone : {"c1", "c2", "a2", "c4", "k4"}) EXPECT_FALSE(f->graph.find_tensor(gone)) << gone;
  for (const char* kept : {"r1", "c3", "y", "z"}) EXPECT_TRUE(f->graph.find_tensor(kept)) << kept;
  ASSERT_EQ(f->graph.outputs().size(), g.outputs().size());
  const auto v = f->graph.find_node("fused:conv2");
  ASSERT_TRUE(v);
  const Node& node = f->graph.node(*v);
  EXPECT_TRUE(is_fused_node(node));
  EXPECT_EQ(node_label(node), "Conv+Add+Relu");
  EXPECT_EQ(node_label(f->graph.node(*f->graph.find_node("fused:conv4"))), "Conv+Clip+LeakyRelu");
  EXPECT_EQ(fused_residual_input(node), 3);  // x, after conv2's r1, weight and bias
  const auto& members = f->members[static_cast<std::size_t>(*v)];
  EXPECT_EQ(keys(g, members), (std::vector<std::string>{"conv2", "add2", "relu2"}));
  double flops = 0;
  for (NodeId m : members) flops += costs[m].flops;
  const NodeCost& c = f->costs[*v];
  EXPECT_DOUBLE_EQ(c.flops, flops);
  const double io = 4.0 * (144 + 144 + 4 + 144 + 144);  // r1, the weight, the bias, x, y (float32)
  EXPECT_DOUBLE_EQ(c.bytes, io);
  EXPECT_EQ(summarize_fusion(f->graph).text(), "3 chains of 8 operators (Conv+Relu 1, Conv+Add+Relu 1, Conv+Clip+LeakyRelu 1)");
  // A fused model is split before it is fused (the pipeline's order): the split check says so.
  const BatchSplitCheck split = check_batch_split(f->graph);
  ASSERT_FALSE(split.splittable);
  EXPECT_NE(split.reason.find("a fused chain: split the model before fusing it (--split K with --fuse)"), std::string::npos)
      << split.reason;
}

// Outputs of the fused model against the unfused sequential run, on the library kernels (one
// oneDNN primitive with post-ops per chain) and on the reference kernels (the members in turn):
// within the ONNX backend tests' tolerance (rtol 1e-3, atol 1e-7) and in fact bit-identical, on
// the hand-built chains and on real models; the memory plan has fewer tensors and an arena no larger.
TEST(FusedRun, MatchesTheUnfusedModelOnLibraryAndReferenceKernels) {
  const DeviceSpec device = *load_device("h200");
  auto executor = make_cpu_executor();
  std::vector<std::pair<std::string, Graph>> models;
  models.emplace_back("chains", chains_graph());
  for (const char* name : {"resnet50.onnx", "googlenet.onnx", "mobilenet_v3_large.onnx"}) models.emplace_back(name, load(name));
  for (const auto& [name, g] : models) {
    const CostTable costs = estimate_costs(g, device);
    auto f = fuse_graph(g, costs, device, find_fusion_chains(g));
    ASSERT_TRUE(f) << name << ": " << f.error().message;
    ASSERT_LT(f->graph.node_count(), g.node_count()) << name;
    EXPECT_LT(f->graph.tensor_count(), g.tensor_count()) << name;
    const Schedule seq = reference_schedule(f->graph);
    auto fused_plan = plan_memory(f->graph, seq);
    auto plain_plan = plan_memory(g, reference_schedule(g));
    ASSERT_TRUE(fused_plan && plain_plan);
    EXPECT_LE(fused_plan->arena_bytes, plain_plan->arena_bytes) << name;
    for (const KernelSet kernels : {KernelSet::Library, KernelSet::Reference}) {
      if (kernels == KernelSet::Reference && name == "resnet50.onnx") continue;  // the slowest on reference kernels; googlenet's chains cover it
      RunComparisonOptions o;
      o.run.iterations = 1;
      o.run.warmup = 0;
      o.run.kernels = kernels;
      o.reference_graph = &g;
      auto c = compare_runs(*executor, f->graph, seq, o);
      ASSERT_TRUE(c) << name << ": " << c.error().message;
      EXPECT_EQ(c->scheduled.outputs.size(), g.outputs().size()) << name;
      EXPECT_LE(c->diff.max_abs_diff, 1e-7 + 1e-3 * c->diff.max_abs_reference)
          << name << (kernels == KernelSet::Library ? " library" : " reference") << ": max abs diff " << c->diff.max_abs_diff;
      // In fact bit-identical: the reference chain runs the members as they run unfused, and the
      // library keeps each Conv's kernel with the chain as post-ops (the residual as a sum).
      EXPECT_TRUE(c->diff.identical) << name << (kernels == KernelSet::Library ? " library" : " reference");
    }
  }
}

// A schedule of a fused model records its fusions; open_model re-applies them from the file (no
// fuse asked for) and validates the schedule on the fused model; without them it is refused.
TEST(FusionScheduleJson, RecordsAndReopensFusions) {
  OpenRequest fused_request = googlenet_request();
  fused_request.fuse = true;
  auto m = open_model(fused_request);
  ASSERT_TRUE(m) << m.error().message;
  ASSERT_TRUE(m->fused);
  EXPECT_GT(m->fused_nodes(), 0u);
  auto s = make_schedule("cp-list", m->scheduled_graph(), m->scheduled_costs(), m->device);
  ASSERT_TRUE(s) << s.error().message;
  const std::string text = schedule_to_json(m->scheduled_graph(), *s, m->device.name);
  EXPECT_NE(text.find("\"fusions\""), std::string::npos);
  auto header = schedule_header_from_json(text);
  ASSERT_TRUE(header);
  EXPECT_EQ(header->fusions, m->fused_nodes());

  OpenRequest reopen = googlenet_request();
  reopen.schedule_text = text;
  auto again = open_model(reopen);
  ASSERT_TRUE(again) << again.error().message;
  ASSERT_TRUE(again->fused);
  ASSERT_TRUE(again->schedule);
  EXPECT_EQ(again->scheduled_graph().node_count(), m->scheduled_graph().node_count());
  EXPECT_EQ(again->schedule->streams, s->streams);

  auto plain = schedule_from_json(*m->graph, text);
  ASSERT_FALSE(plain);
  EXPECT_NE(plain.error().message.find("fused chain"), std::string::npos) << plain.error().message;
}

// Fusion comes before merging: the merges group unfused nodes only, the fused nodes stay, the
// open says so, and the members of every node name nodes of the model as imported.
TEST(FusionAndMerge, MergesLeaveFusedNodesAndSayHow) {
  OpenRequest r = googlenet_request();
  r.fuse = true;
  r.merge = true;
  auto m = open_model(r);
  ASSERT_TRUE(m) << m.error().message;
  ASSERT_TRUE(m->fused && m->merged);
  EXPECT_GT(m->fused_nodes(), 0u);
  EXPECT_EQ(count_fused_nodes(m->merged->graph), count_fused_nodes(m->fused->graph));
  bool said = false;
  for (const std::string& n : m->notes) said = said || n.find("fused nodes stay") != std::string::npos;
  EXPECT_TRUE(said);
  std::size_t members = 0;
  for (const auto& group : m->merged->members) {
    members += group.size();
    for (NodeId v : group) EXPECT_LT(static_cast<std::size_t>(v), m->graph->node_count());
  }
  EXPECT_EQ(members, m->graph->node_count());
}

}  // namespace
}  // namespace weft::core
