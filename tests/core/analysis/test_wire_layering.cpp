// Wire layering by the head rule and horizontal merge groups: the seed's cases, schedule and user
// wires, properties on random DAGs, and the grouped-MLP and 4-head transformer models.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "test_graphs.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/transform/horizontal_merge.h"
#include "weft/core/analysis/levels.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/schedule/sync.h"
#include "weft/core/transform/wire_layering.h"

namespace weft::core {
namespace {

// m independent chains of length L: depth L, every layer m wide (seed 002's first check).
TEST(WireLayering, IndependentChainsGiveDepthLAndParallelismM) {
  for (const auto& [m, len] : {std::pair{1, 5}, std::pair{3, 4}, std::pair{6, 7}}) {
    std::vector<std::pair<int, int>> edges;
    for (int c = 0; c < m; ++c)
      for (int i = 1; i < len; ++i) edges.emplace_back(c * len + i - 1, c * len + i);
    const Graph g = test::make_dag(m * len, edges);
    const Wires w = wires_from_graph(g);
    EXPECT_EQ(w.names.size(), static_cast<std::size_t>(m));
    auto l = layer_by_wires(g, w);
    ASSERT_TRUE(l) << l.error().message;
    EXPECT_EQ(l->depth(), static_cast<std::size_t>(len)) << m << "x" << len;
    for (const auto& layer : l->layers) EXPECT_EQ(layer.size(), static_cast<std::size_t>(m));
  }
}

// A long path beside a short side branch: depth max(critical, side), not their sum.
TEST(WireLayering, SideBranchDepthIsTheLongerOne) {
  // n0..n6 a chain of 7; n7..n9 a side chain of 3 hanging off n1 and joining n5.
  const Graph g = test::make_dag(10, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {1, 7}, {7, 8}, {8, 9}, {9, 5}});
  auto l = layer_by_wires(g, wires_from_graph(g));
  ASSERT_TRUE(l) << l.error().message;
  EXPECT_EQ(l->depth(), 7u);
  EXPECT_EQ(l->depth(), static_cast<std::size_t>(compute_levels(g).depth));
}

// Operators on a common wire keep their order even without a data edge; disjoint ones commute.
TEST(WireLayering, OverlappingSupportsKeepTheirOrder) {
  const Graph g = test::make_dag(3, {});  // three independent nodes reading x
  const std::string json = R"({"format": "weft-wires", "version": 1, "wires": [
      {"name": "a", "nodes": ["n0", "n1"]}, {"name": "b", "nodes": ["n1"]}, {"name": "c", "nodes": ["n2"]}]})";
  auto w = parse_wires_json(g, json, "test.json");
  ASSERT_TRUE(w) << w.error().message;
  auto l = layer_by_wires(g, *w);
  ASSERT_TRUE(l) << l.error().message;
  ASSERT_EQ(l->depth(), 2u);
  EXPECT_EQ(l->layers[0], (std::vector<NodeId>{0, 2}));
  EXPECT_EQ(l->layers[1], (std::vector<NodeId>{1}));
}

// Data edges order the layers whatever the wires say: a chain split over two wires still runs
// in order, one node per layer.
TEST(WireLayering, DataEdgesHoldAcrossWires) {
  const Graph g = test::make_chain(3);
  auto split = parse_wires_json(
      g, R"({"format":"weft-wires","version":1,"wires":[{"nodes":["n0","n2"]},{"nodes":["n1"]}]})", "w.json");
  ASSERT_TRUE(split) << split.error().message;
  auto l = layer_by_wires(g, *split);
  ASSERT_TRUE(l) << l.error().message;
  EXPECT_EQ(l->layer_of, (std::vector<int>{0, 1, 2}));
}

// User wires that name unknown nodes, miss a node or are not a wires file are refused with the
// reason.
TEST(WireLayering, BadUserWiresAreRefusedWithTheReason) {
  const Graph g = test::make_chain(3);
  auto unknown = parse_wires_json(g, R"({"format":"weft-wires","version":1,"wires":[{"nodes":["n0","zz"]}]})", "w.json");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown node 'zz'"), std::string::npos);
  auto missing = parse_wires_json(g, R"({"format":"weft-wires","version":1,"wires":[{"nodes":["n0","n1"]}]})", "w.json");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("'n2' is on no wire"), std::string::npos);
  EXPECT_FALSE(parse_wires_json(g, "{", "w.json"));
  EXPECT_FALSE(parse_wires_json(g, R"({"format":"other","version":1,"wires":[]})", "w.json"));
}

// On random DAGs, graph wires and random schedules' wires: every data edge goes to a later layer,
// a layer's supports are pairwise disjoint, every node is placed once, and schedule wires keep
// each stream's order and every event.
TEST(WireLayering, PropertiesOnRandomDagsAndSchedules) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const Graph g = test::make_random_dag(40 + static_cast<int>(seed % 7) * 10, 0.08, seed);
    Schedule s = test::random_schedule(g, 1 + static_cast<int>(seed % 4), seed * 7);
    s.events = compute_events(g, s);
    auto from_schedule = wires_from_schedule(g, s);
    ASSERT_TRUE(from_schedule) << from_schedule.error().message;
    for (const Wires& w : {wires_from_graph(g), *from_schedule}) {
      auto l = layer_by_wires(g, w);
      ASSERT_TRUE(l) << l.error().message;
      std::size_t placed = 0;
      for (const auto& layer : l->layers) {
        placed += layer.size();
        std::set<WireId> used;
        for (NodeId v : layer)
          for (WireId x : w.support[static_cast<std::size_t>(v)]) EXPECT_TRUE(used.insert(x).second) << "seed " << seed;
      }
      EXPECT_EQ(placed, g.node_count());
      for (std::size_t u = 0; u < g.node_count(); ++u)
        for (NodeId v : g.successors(static_cast<NodeId>(u)))
          EXPECT_LT(l->layer_of[u], l->layer_of[static_cast<std::size_t>(v)]) << "seed " << seed;
      EXPECT_GE(l->depth(), static_cast<std::size_t>(compute_levels(g).depth));
      if (&w == &*from_schedule || w.origin.rfind("schedule", 0) == 0) {
        for (const auto& stream : s.streams)
          for (std::size_t i = 1; i < stream.size(); ++i)
            EXPECT_LT(l->layer_of[static_cast<std::size_t>(stream[i - 1])], l->layer_of[static_cast<std::size_t>(stream[i])]);
        for (const Event& e : s.events)
          EXPECT_LT(l->layer_of[static_cast<std::size_t>(e.from)], l->layer_of[static_cast<std::size_t>(e.to)]);
      }
    }
  }
}

// A schedule whose stream order contradicts the data edges deadlocks: refused, not layered.
TEST(WireLayering, DeadlockingScheduleIsRefused) {
  const Graph g = test::make_chain(2);
  Schedule s;
  s.streams = {{1, 0}};
  auto w = wires_from_schedule(g, s);
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().message.find("deadlock"), std::string::npos);
}

Graph load(const std::string& name, std::int64_t batch) {
  ImportOptions o;
  o.dims["batch"] = batch;
  auto g = import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/" + name, o);
  if (!g) ADD_FAILURE() << g.error().message;
  return std::move(*g);
}

// The seed's grouped MLP: 12 layers of four Gemms; each layer merges into one launch (48 -> 12),
// at batch 1 and 32, and the merged prediction is faster than the unmerged one.
TEST(HorizontalMerge, GroupedMlpMergesEachLayer) {
  const DeviceSpec device = *load_device("h200");
  for (const std::int64_t batch : {1, 32}) {
    const Graph g = load("grouped_mlp.onnx", batch);
    const CostTable costs = estimate_costs(g, device);
    auto l = layer_by_wires(g, wires_from_graph(g));
    ASSERT_TRUE(l) << l.error().message;
    EXPECT_EQ(l->depth(), 12u);
    const MergePlan m = find_merge_groups(g, *l, costs, device);
    EXPECT_EQ(m.groups.size(), 12u);
    EXPECT_EQ(m.launches_before, 48u);
    EXPECT_EQ(m.launches_after, 12u);
    for (const MergeGroup& grp : m.groups) {
      EXPECT_EQ(grp.nodes.size(), 4u);
      EXPECT_FALSE(grp.shared_input);
      double separate = 0;
      for (NodeId n : grp.nodes) separate += costs[n].time_us;
      EXPECT_LT(grp.time_us, separate);
    }
    EXPECT_GT(m.time_before_us / m.time_after_us, 3.0) << "batch " << batch;
  }
}

// The 4-head transformer: head-local operators merge across heads (equal signatures only), the
// Q/K/V projections read the same input, and launches drop.
TEST(HorizontalMerge, TransformerHeadsMerge) {
  const DeviceSpec device = *load_device("h200");
  const Graph g = load("transformer4h.onnx", 1);
  const CostTable costs = estimate_costs(g, device);
  auto l = layer_by_wires(g, wires_from_graph(g));
  ASSERT_TRUE(l) << l.error().message;
  const MergePlan m = find_merge_groups(g, *l, costs, device);
  ASSERT_FALSE(m.groups.empty());
  EXPECT_LT(m.launches_after, m.launches_before);
  bool shared = false;
  for (const MergeGroup& grp : m.groups) {
    shared = shared || grp.shared_input;
    const Node& first = g.node(grp.nodes.front());
    for (NodeId n : grp.nodes) {
      EXPECT_EQ(g.node(n).op_type, first.op_type);
      EXPECT_EQ(l->layer_of[static_cast<std::size_t>(n)], l->layer_of[static_cast<std::size_t>(grp.nodes.front())]);
      EXPECT_EQ(format_shape(g.tensor(g.node(n).outputs[0])), format_shape(g.tensor(first.outputs[0])));
    }
  }
  EXPECT_TRUE(shared) << "the projections of x should merge as a shared-input group";
}

// Nodes with different shapes or attributes never share a group; metadata-only nodes never merge.
TEST(HorizontalMerge, OnlyEqualSignaturesMerge) {
  GraphBuilder b;
  b.add_input("x", DType::Float32, {Dim{1, {}}, Dim{8, {}}});
  b.add_input("y", DType::Float32, {Dim{1, {}}, Dim{16, {}}});
  b.add_node("r0", "Relu", {"x"}, {"r0_out"});
  b.add_node("r1", "Relu", {"x"}, {"r1_out"});
  b.add_node("r2", "Relu", {"y"}, {"r2_out"});  // other shape
  b.add_node("s0", "Sigmoid", {"x"}, {"s0_out"});  // other operator
  b.add_node("f0", "Flatten", {"x"}, {"f0_out"});  // metadata only
  b.add_node("f1", "Flatten", {"x"}, {"f1_out"});
  for (const char* t : {"r0_out", "r1_out", "s0_out", "f0_out", "f1_out"}) b.set_shape(t, DType::Float32, {1, 8});
  b.set_shape("r2_out", DType::Float32, {1, 16});
  for (const char* t : {"r0_out", "r1_out", "r2_out", "s0_out", "f0_out", "f1_out"}) b.mark_output(t);
  auto g = std::move(b).build();
  ASSERT_TRUE(g) << g.error().message;
  const DeviceSpec device = *load_device("h200");
  const CostTable costs = estimate_costs(*g, device);
  auto l = layer_by_wires(*g, wires_from_graph(*g));
  ASSERT_TRUE(l);
  ASSERT_EQ(l->depth(), 1u);
  const MergePlan m = find_merge_groups(*g, *l, costs, device);
  ASSERT_EQ(m.groups.size(), 1u);
  EXPECT_EQ(m.groups[0].nodes, (std::vector<NodeId>{0, 1}));
  EXPECT_TRUE(m.groups[0].shared_input);
  EXPECT_EQ(m.launches_before, 4u);  // the Flattens launch nothing
  EXPECT_EQ(m.launches_after, 3u);
}

// An inception module's siblings: three 1x1 convolutions read one input, two of them of equal
// width. All three join one concat merge; batching only the equal pair left the third a launch.
TEST(HorizontalMerge, ConcatMergeTakesEqualWidthSiblingsToo) {
  GraphBuilder b;
  b.add_input("x", DType::Float32, {Dim{1, {}}, Dim{8, {}}, Dim{4, {}}, Dim{4, {}}});
  b.add_input("z", DType::Float32, {Dim{1, {}}, Dim{6, {}}, Dim{4, {}}, Dim{4, {}}});
  const std::vector<std::pair<std::string, std::int64_t>> convs = {{"c0", 4}, {"c1", 4}, {"c2", 2}};
  for (const auto& [name, m] : convs) {
    b.add_weight("w_" + name, DType::Float32, {m, 8, 1, 1});
    b.add_node(name, "Conv", {"x", "w_" + name}, {name + "_out"});
    b.set_shape(name + "_out", DType::Float32, {1, m, 4, 4});
    b.mark_output(name + "_out");
  }
  // A convolution of another input stays out of their concat merge.
  b.add_weight("w_d", DType::Float32, {4, 6, 1, 1});
  b.add_node("d", "Conv", {"z", "w_d"}, {"d_out"});
  b.set_shape("d_out", DType::Float32, {1, 4, 4, 4});
  b.mark_output("d_out");
  auto g = std::move(b).build();
  ASSERT_TRUE(g) << g.error().message;
  const DeviceSpec device = *load_device("h200");
  const CostTable costs = estimate_costs(*g, device);
  auto l = layer_by_wires(*g, wires_from_graph(*g));
  ASSERT_TRUE(l);
  ASSERT_EQ(l->depth(), 1u);
  const MergePlan m = find_merge_groups(*g, *l, costs, device);
  ASSERT_EQ(m.groups.size(), 1u);
  EXPECT_EQ(m.groups[0].nodes, (std::vector<NodeId>{0, 1, 2}));
  EXPECT_TRUE(m.groups[0].shared_input);
  EXPECT_EQ(m.launches_before, 4u);
  EXPECT_EQ(m.launches_after, 2u);
}

// GoogLeNet: in each of the nine inception modules the 1x1, 3x3-reduce and second-branch-reduce
// convolutions read the module's input and merge into one launch, whatever their widths.
TEST(HorizontalMerge, GoogLeNetMergesEveryInceptionModulesReduceConvolutions) {
  const DeviceSpec device = *load_device("h200");
  const Graph g = load("googlenet.onnx", 1);
  const CostTable costs = estimate_costs(g, device);
  auto l = layer_by_wires(g, wires_from_graph(g));
  ASSERT_TRUE(l) << l.error().message;
  const MergePlan m = find_merge_groups(g, *l, costs, device);
  std::size_t conv_triples = 0;
  for (const MergeGroup& grp : m.groups)
    if (g.node(grp.nodes.front()).op_type == "Conv") {
      EXPECT_TRUE(grp.shared_input);
      conv_triples += grp.nodes.size() == 3 ? 1 : 0;
    }
  EXPECT_EQ(conv_triples, 9u);
  EXPECT_EQ(m.launches_before, 138u);
  EXPECT_EQ(m.launches_after, 118u);
}

// A merged launch is priced as estimate_costs prices a lone kernel, grid fill included: a "merge"
// of one node costs that node's time (a small late-GoogLeNet convolution fills part of the SMs,
// and its merged price used to assume the whole device), and two small kernels merged fill the
// SMs their grids fill together.
TEST(HorizontalMerge, MergedLaunchFillsTheSmsOfItsMembersGrids) {
  const DeviceSpec device = *load_device("h200");
  const Graph g = load("googlenet.onnx", 1);
  const CostTable costs = estimate_costs(g, device);
  std::size_t partial = 0;
  for (std::size_t i = 0; i < g.node_count(); ++i) {
    const NodeId n = static_cast<NodeId>(i);
    if (!mergeable_op(g.node(n).op_type) || !costs[n].known || costs[n].time_us <= 0) continue;
    const std::vector<NodeId> one{n};
    EXPECT_NEAR(merged_time_us(g, costs, device, one), costs[n].time_us, 1e-9) << g.key(n);
    double elements = 0;
    for (TensorId t : g.node(n).outputs) elements += static_cast<double>(g.tensor(t).elements());
    partial += grid_fill(elements, device) < 1 ? 1 : 0;
  }
  EXPECT_GT(partial, 0u) << "some GoogLeNet kernels should fill less than one wave";
  // Two one-block kernels: each computes at 1/132 of the peak alone, the pair at 2/132.
  EXPECT_DOUBLE_EQ(grid_fill(kThreadsPerBlock, device), 1.0 / device.sm_count);
  EXPECT_DOUBLE_EQ(grid_fill(2.0 * kThreadsPerBlock, device), 2.0 / device.sm_count);
  EXPECT_DOUBLE_EQ(grid_fill(1e9, device), 1.0);
}

}  // namespace
}  // namespace weft::core
