// Horizontal merges executed: merge_graph's merged nodes, its refusal of dependent members, merged
// runs bit-identical to the unmerged model on the CPU (every planner), the merged prediction
// against the unmerged sequential baselines, and merges recorded in schedule JSON.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "test_graphs.h"
#include "weft/core/transform/batch_split.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/cost/device.h"
#include "weft/core/base/file_io.h"
#include "weft/core/transform/horizontal_merge.h"
#include "weft/core/memory/memory_plan.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/memory/plan_checker.h"
#include "weft/core/transform/merge_graph.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/merge_study.h"
#include "weft/core/study/prediction.h"
#include "weft/core/strategy/reference.h"
#include "weft/core/study/run_comparison.h"
#include "weft/core/study/split_study.h"

namespace weft::core {
namespace {

Graph load(const std::string& name, std::int64_t batch) {
  ImportOptions o;
  o.dims["batch"] = batch;
  auto g = import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/" + name, o);
  if (!g) ADD_FAILURE() << g.error().message;
  return std::move(*g);
}

std::vector<std::string> output_names(const Graph& g) {
  std::vector<std::string> out;
  for (TensorId t : g.outputs()) out.push_back(g.tensor(t).name);
  return out;
}

// The grouped MLP's 12 layers of four Gemms become 12 merged nodes holding their members; inputs,
// outputs and the other nodes keep their names, and each merged node costs its group's launch.
TEST(MergeGraph, GroupedMlpBecomesTwelveMergedNodes) {
  const DeviceSpec device = *load_device("h200");
  const Graph g = load("grouped_mlp.onnx", 1);
  const CostTable costs = estimate_costs(g, device);
  auto m = merge_model(g, costs, device);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->graph.node_count(), g.node_count() - 36);
  EXPECT_EQ(m->members.size(), m->graph.node_count());
  EXPECT_EQ(m->costs.nodes.size(), m->graph.node_count());
  EXPECT_EQ(output_names(m->graph), output_names(g));
  std::size_t merged = 0;
  for (std::size_t i = 0; i < m->graph.node_count(); ++i) {
    const Node& node = m->graph.node(static_cast<NodeId>(i));
    const auto& members = m->members[i];
    if (!is_merged_node(node)) {
      ASSERT_EQ(members.size(), 1u);
      EXPECT_EQ(node.name, g.key(members.front()));
      continue;
    }
    ++merged;
    EXPECT_EQ(node.domain, "weft");
    EXPECT_EQ(node.attr_string("op", ""), "Gemm");
    EXPECT_EQ(node.attr_int("members", 0), 4);
    ASSERT_EQ(members.size(), 4u);
    const Attribute* body = node.attribute("body");
    ASSERT_TRUE(body && body->graph);
    ASSERT_EQ(body->graph->node_count(), 4u);
    for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(body->graph->node(static_cast<NodeId>(k)).name, g.key(members[k]));
    EXPECT_EQ(node.outputs.size(), 4u);
    double separate = 0;
    for (NodeId v : members) separate += costs[v].time_us;
    EXPECT_LT(m->costs.nodes[i].time_us, separate);
    EXPECT_GT(m->costs.nodes[i].time_us, device.launch_us);
  }
  EXPECT_EQ(merged, 12u);
}

// A merged node's outputs lie side by side: views, in member order, of one block that only the
// merged node writes (one writer, so liveness and the concurrent bound treat it as one tensor),
// planned as one block by every planner; outputs that are graph outputs keep the caller's
// buffers. A block may not be read directly.
TEST(MergeGraph, MergedOutputsLieSideBySide) {
  const DeviceSpec device = *load_device("h200");
  const Graph g = load("grouped_mlp.onnx", 2);
  const CostTable costs = estimate_costs(g, device);
  auto m = merge_model(g, costs, device);
  ASSERT_TRUE(m) << m.error().message;
  const Graph& mg = m->graph;
  std::size_t blocks = 0;
  for (std::size_t i = 0; i < mg.node_count(); ++i) {
    const Node& node = mg.node(static_cast<NodeId>(i));
    if (!is_merged_node(node)) continue;
    const Tensor& first = mg.tensor(node.outputs.front());
    if (first.kind == TensorKind::Output) {  // the last layer: y0..y3, the caller's buffers
      for (TensorId t : node.outputs) EXPECT_FALSE(mg.tensor(t).is_view()) << mg.tensor(t).name;
      continue;
    }
    ++blocks;
    ASSERT_TRUE(first.is_view()) << first.name;
    const TensorId block = first.view_of;
    EXPECT_EQ(mg.tensor(block).name, node.name + "/outputs");
    EXPECT_EQ(mg.tensor(block).producer, kNoNode);
    ASSERT_EQ(mg.writers(block).size(), 1u);
    EXPECT_EQ(mg.writers(block).front(), static_cast<NodeId>(i));
    std::int64_t offset = 0;
    for (TensorId t : node.outputs) {
      EXPECT_EQ(mg.tensor(t).view_of, block);
      EXPECT_EQ(mg.tensor(t).view_offset, offset) << mg.tensor(t).name;
      EXPECT_EQ(mg.tensor(t).producer, static_cast<NodeId>(i));
      offset = align_up(offset + mg.tensor(t).bytes(), kDefaultAlignment);
    }
    EXPECT_EQ(mg.tensor(block).bytes(), offset);
    EXPECT_EQ(mg.readers(block).size(), 1u);  // the next layer's merged node
  }
  EXPECT_EQ(blocks, 11u);
  EXPECT_FALSE(has_multi_writer_tensors(mg, false));
  auto s = make_schedule("level-rr", mg, m->costs, device);
  ASSERT_TRUE(s) << s.error().message;
  for (const std::string& planner : planner_names()) {
    auto plan = plan_memory(mg, *s, planner);
    ASSERT_TRUE(plan) << planner << ": " << plan.error().message;
    ASSERT_TRUE(check_plan(mg, *s, *plan)) << planner << ": " << check_plan(mg, *s, *plan).error().message;
    for (std::size_t t = 0; t < mg.tensor_count(); ++t) {
      const Tensor& x = mg.tensor(static_cast<TensorId>(t));
      if (!x.is_view() || x.kind != TensorKind::Intermediate) continue;
      const auto parent = static_cast<std::size_t>(x.view_of);
      ASSERT_NE(plan->offset[parent], kNotPlanned) << planner;
      EXPECT_EQ(plan->offset[t], plan->offset[parent] + x.view_offset) << planner << " " << x.name;
    }
  }

  // Written through its views only: a node reading the block itself is refused.
  GraphBuilder b;
  b.add_input("x", DType::Float32, {Dim{4, {}}});
  b.add_node("a", "Relu", {"x"}, {"y0"});
  b.add_node("c", "Relu", {"block"}, {"z"});
  b.set_shape("y0", DType::Float32, {4});
  b.set_shape("z", DType::Float32, {8});
  b.set_shape("block", DType::Float32, {8});
  b.set_view("y0", "block", 0);
  b.mark_output("z");
  auto refused = std::move(b).build();
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("reads tensor 'block', which no node, input or initializer defines"), std::string::npos)
      << refused.error().message;
}

// Members that depend on each other cannot run as one launch: a direct read, a path through
// another node, and two groups that would wait on each other are each refused with the reason.
TEST(MergeGraph, RefusesGroupsThatAreNotIndependent) {
  const DeviceSpec device = *load_device("h200");
  {
    const Graph g = test::make_chain(3);
    const CostTable costs = estimate_costs(g, device);
    auto direct = merge_model(g, costs, device, {{0, 1}});
    ASSERT_FALSE(direct);
    EXPECT_EQ(direct.error().kind, ErrorKind::InvalidInput);
    EXPECT_NE(direct.error().message.find("'n1' reads the output of 'n0'"), std::string::npos) << direct.error().message;
    auto path = merge_model(g, costs, device, {{0, 2}});
    ASSERT_FALSE(path);
    EXPECT_NE(path.error().message.find("'n2' depends on 'n0' ('n0' -> 'n1' -> 'n2')"), std::string::npos)
        << path.error().message;
  }
  {
    // n0 -> n3 and n2 -> n1: {n0, n1} and {n2, n3} are each independent, but not both.
    const Graph g = test::make_dag(4, {{0, 3}, {2, 1}});
    const CostTable costs = estimate_costs(g, device);
    auto crossed = merge_model(g, costs, device, {{0, 1}, {2, 3}});
    ASSERT_FALSE(crossed);
    EXPECT_NE(crossed.error().message.find("depend on each other both ways"), std::string::npos) << crossed.error().message;
    EXPECT_TRUE(merge_model(g, costs, device, {{0, 1}}));
    EXPECT_TRUE(merge_model(g, costs, device, {{0, 2}, {1, 3}}));
  }
  const Graph g = test::make_fan_out(3);
  const CostTable costs = estimate_costs(g, device);
  auto twice = merge_model(g, costs, device, {{1, 2}, {2, 3}});
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message.find("'n2' is in two merge groups"), std::string::npos) << twice.error().message;
}

// The merged model's outputs equal the unmerged sequential run's bit for bit (the members run
// in their own summation order), under every planner, on one stream and on several.
TEST(MergedRun, BitIdenticalToTheUnmergedModelUnderEveryPlanner) {
  const DeviceSpec device = *load_device("h200");
  auto executor = make_cpu_executor();
  for (const auto& [name, batch] : {std::pair{"grouped_mlp.onnx", 1}, std::pair{"grouped_mlp.onnx", 32},
                                    std::pair{"transformer4h.onnx", 1}, std::pair{"transformer4h.onnx", 32}}) {
    const Graph g = load(name, batch);
    const CostTable costs = estimate_costs(g, device);
    auto m = merge_model(g, costs, device);
    ASSERT_TRUE(m) << m.error().message;
    ASSERT_LT(m->graph.node_count(), g.node_count()) << name;
    for (const char* strategy : {"sequential", "cp-list"}) {
      auto s = make_schedule(strategy, m->graph, m->costs, device);
      ASSERT_TRUE(s) << s.error().message;
      for (const std::string& planner : planner_names()) {
        RunComparisonOptions o;
        o.run.iterations = 1;
        o.run.warmup = 0;
        o.planner = planner;
        o.reference_graph = &g;
        auto c = compare_runs(*executor, m->graph, *s, o);
        ASSERT_TRUE(c) << name << " " << planner << ": " << c.error().message;
        EXPECT_EQ(c->sequential.outputs.size(), g.outputs().size());
        EXPECT_TRUE(c->diff.identical) << name << " batch " << batch << " " << strategy << " " << planner
                                       << ": max abs diff " << c->diff.max_abs_diff;
        EXPECT_EQ(c->scheduled.random_weights, c->sequential.random_weights);
      }
    }
  }
}

// Half-precision members widen and narrow each on its own inside the merge, as they do unmerged:
// two float16 MatMuls reading one input merge (concat, shared input) and match bit for bit.
TEST(MergedRun, HalfPrecisionMembersMatchTheUnmergedRun) {
  GraphBuilder b;
  b.add_input("x", DType::Float16, {Dim{4, {}}, Dim{8, {}}});
  for (const char* k : {"0", "1"}) {
    b.add_weight(std::string("w") + k, DType::Float16, {8, 6});
    b.add_node(std::string("mm") + k, "MatMul", {"x", std::string("w") + k}, {std::string("y") + k});
    b.set_shape(std::string("y") + k, DType::Float16, {4, 6});
    b.mark_output(std::string("y") + k);
  }
  auto g = std::move(b).build();
  ASSERT_TRUE(g) << g.error().message;
  const DeviceSpec device = *load_device("h200");
  const CostTable costs = estimate_costs(*g, device);
  auto m = merge_model(*g, costs, device, {{0, 1}});
  ASSERT_TRUE(m) << m.error().message;
  ASSERT_EQ(m->graph.node_count(), 1u);
  auto executor = make_cpu_executor();
  RunComparisonOptions o;
  o.run.iterations = 1;
  o.run.warmup = 0;
  o.reference_graph = &*g;
  auto c = compare_runs(*executor, m->graph, reference_schedule(m->graph), o);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->scheduled.outputs.size(), 2u);
  EXPECT_EQ(c->scheduled.outputs.at("y1").dtype, DType::Float16);
  EXPECT_TRUE(c->diff.identical) << c->diff.max_abs_diff;
}

// The prediction the issue sets as the goal: the grouped MLP merged (48 -> 12 launches) and
// replayed as a CUDA Graph on the H200 preset runs at least 3x faster than the unmerged sequential
// CUDA Graph (3.58x here: 12 launches of 2.5 us kernels against 48); the 4-head transformer 1.5x.
TEST(MergePrediction, GroupedMlpThreeTimesTheSequentialCudaGraph) {
  const DeviceSpec device = *load_device("h200");
  for (const auto& [name, goal] : {std::pair{"grouped_mlp.onnx", 3.0}, std::pair{"transformer4h.onnx", 1.5}}) {
    const Graph g = load(name, 1);
    const CostTable costs = estimate_costs(g, device);
    auto m = merge_model(g, costs, device);
    ASSERT_TRUE(m) << m.error().message;
    StrategyOptions so;
    so.cuda_graph = true;
    auto s = make_schedule("cp-list", m->graph, m->costs, device, so);
    ASSERT_TRUE(s) << s.error().message;
    PredictOptions po;
    po.mode = LaunchMode::Graph;
    auto p = predict(m->graph, *s, m->costs, device, po);
    ASSERT_TRUE(p) << p.error().message;
    auto gain = merge_gain(g, costs, device, *m, *p);
    ASSERT_TRUE(gain) << gain.error().message;
    EXPECT_GE(gain->speedup_vs_graph, goal) << name << ": " << gain->unmerged_graph_us << " us / " << p->makespan_us << " us";
    EXPECT_GT(gain->speedup_vs_eager, gain->speedup_vs_graph);
    EXPECT_LT(gain->launches_after, gain->launches_before);
    if (std::string(name) == "grouped_mlp.onnx") {
      EXPECT_EQ(gain->launches_before, 48u);
      EXPECT_EQ(gain->launches_after, 12u);
      EXPECT_EQ(gain->groups, 12u);
      EXPECT_LE(gain->speedup_vs_graph, 4.0 + 1e-9);  // 48 / 12 launches is the most merging can give
    }
  }
}

// GoogLeNet at batch 1 under CUDA Graph replay (docs/layers.md, "Why merging does not beat
// streams on GoogLeNet"): on the h200 preset the critical path is a chain of kernels at the
// 2.5 us floor that merging does not shorten, so merged + streams only ties streams alone; the
// fewer graph nodes merging leaves pay off once the graph's per-node release (1.5 us here) or a
// lower kernel floor (2.0 us) makes the node count, not the chain, the bound.
TEST(MergePrediction, GoogLeNetBeatsStreamsAloneOnlyWhereGraphNodesBind) {
  const Graph g = load("googlenet.onnx", 1);
  const auto makespans = [&](const DeviceSpec& device) {
    const CostTable costs = estimate_costs(g, device);
    StrategyOptions so;
    so.cuda_graph = true;
    PredictOptions po;
    po.mode = LaunchMode::Graph;
    auto s = make_schedule("cp-list", g, costs, device, so);
    auto m = merge_model(g, costs, device);
    EXPECT_TRUE(s && m);
    auto ms = make_schedule("cp-list", m->graph, m->costs, device, so);
    EXPECT_TRUE(ms);
    auto alone = predict(g, *s, costs, device, po);
    auto merged = predict(m->graph, *ms, m->costs, device, po);
    EXPECT_TRUE(alone && merged);
    return std::pair{alone->makespan_us, merged->makespan_us};
  };
  const DeviceSpec h200 = *load_device("h200");
  const auto [alone, merged] = makespans(h200);
  EXPECT_LE(merged, alone + 1e-6);
  EXPECT_GT(alone, h200.launch_us + 138 * h200.graph_launch_per_node_us) << "the chain, not the 138 nodes, bounds it";

  DeviceSpec slow_release = h200;
  slow_release.graph_launch_per_node_us = 1.5;
  const auto [alone_slow, merged_slow] = makespans(slow_release);
  EXPECT_LT(merged_slow, 0.9 * alone_slow) << merged_slow << " us merged, " << alone_slow << " us streams alone";

  DeviceSpec low_floor = h200;
  low_floor.kernel_min_us = 2.0;
  const auto [alone_low, merged_low] = makespans(low_floor);
  EXPECT_LT(merged_low, 0.95 * alone_low) << merged_low << " us merged, " << alone_low << " us streams alone";
}

// A merged graph is not split (its merged launches hold bodies the split does not copy): the
// refusal says to split first, which `--split K --merge` does; the unmerged model splits.
TEST(MergeSplit, SplitTheModelBeforeMergingIt) {
  const DeviceSpec device = *load_device("h200");
  const Graph g = load("grouped_mlp.onnx", 4);
  EXPECT_TRUE(check_batch_split(g).splittable);
  auto m = merge_model(g, estimate_costs(g, device), device);
  ASSERT_TRUE(m) << m.error().message;
  const auto refused = check_batch_split(m->graph);
  ASSERT_FALSE(refused.splittable);
  EXPECT_NE(refused.reason.find("split the model before merging it"), std::string::npos) << refused.reason;
}

// A split model merges (weft --split K --merge): the copies' slices stay views of the input and
// output buffers in the merged graph, and its run equals the split model's sequential run bit for bit.
TEST(MergeSplit, ASplitModelMergesAndRunsBitIdentical) {
  const DeviceSpec device = *load_device("h200");
  const Graph g = load("grouped_mlp.onnx", 8);
  SplitOptions so;
  so.k = 2;
  auto split = apply_split(g, device, so);
  ASSERT_TRUE(split) << split.error().message;
  auto m = merge_model(split->graph, split->costs, device);
  ASSERT_TRUE(m) << m.error().message;
  std::size_t views = 0;
  for (std::size_t t = 0; t < m->graph.tensor_count(); ++t) views += m->graph.tensor(static_cast<TensorId>(t)).is_view() ? 1 : 0;
  EXPECT_GT(views, 0u);
  EXPECT_LT(m->graph.node_count(), split->graph.node_count());
  auto s = make_schedule("cp-list", m->graph, m->costs, device);
  ASSERT_TRUE(s) << s.error().message;
  auto executor = make_cpu_executor();
  RunComparisonOptions o;
  o.run.iterations = 1;
  o.run.warmup = 0;
  o.reference_graph = &split->graph;
  auto c = compare_runs(*executor, m->graph, *s, o);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->diff.identical) << c->diff.max_abs_diff;
}

// A schedule of a merged model records its merges; loading it onto the unmerged model re-applies
// them and gives back the same streams; without its merges it is refused, naming them.
TEST(MergeScheduleJson, RecordsAndReloadsMerges) {
  const DeviceSpec device = *load_device("h200");
  const Graph g = load("transformer4h.onnx", 1);
  const CostTable costs = estimate_costs(g, device);
  auto m = merge_model(g, costs, device);
  ASSERT_TRUE(m) << m.error().message;
  auto s = make_schedule("cp-list", m->graph, m->costs, device);
  ASSERT_TRUE(s) << s.error().message;
  const std::string text = schedule_to_json(m->graph, *s, device.name);
  EXPECT_NE(text.find("\"merges\""), std::string::npos);

  auto groups = schedule_merges_from_json(g, text);
  ASSERT_TRUE(groups) << groups.error().message;
  std::vector<std::vector<NodeId>> expected;
  for (const auto& members : m->members)
    if (members.size() > 1) expected.push_back(members);
  EXPECT_EQ(*groups, expected);

  const std::string path = ::testing::TempDir() + "weft_merged_schedule.json";
  ASSERT_TRUE(write_file_atomic(path, text));
  auto loaded = load_schedule_with_merges(path, g, costs, device);
  ASSERT_TRUE(loaded) << loaded.error().message;
  ASSERT_TRUE(loaded->merged);
  EXPECT_EQ(loaded->merged->graph.node_count(), m->graph.node_count());
  ASSERT_EQ(loaded->schedule.streams.size(), s->streams.size());
  for (std::size_t i = 0; i < s->streams.size(); ++i) EXPECT_EQ(loaded->schedule.streams[i], s->streams[i]);
  EXPECT_EQ(loaded->schedule.events, s->events);

  // What the studio reads before it has the model: the model, the merges, no split.
  auto header = schedule_header_from_json(text);
  ASSERT_TRUE(header) << header.error().message;
  EXPECT_EQ(header->merges, expected.size());
  EXPECT_EQ(header->split.k, 1);
  EXPECT_EQ(header->model_path, g.info().model_path);
  EXPECT_EQ(header->model_sha256, g.info().model_sha256);
  EXPECT_EQ(header->strategy, "cp-list");

  auto plain = schedule_from_json(g, text);
  ASSERT_FALSE(plain);
  EXPECT_NE(plain.error().message.find("merge group"), std::string::npos) << plain.error().message;

  // A member that is not in the model is refused by name.
  std::string tampered = text;
  const std::string first = g.key(expected.front().front());
  tampered.replace(tampered.find("\"" + first + "\"", tampered.find("\"merges\"")), first.size() + 2, "\"no_such_node\"");
  auto bad = schedule_merges_from_json(g, tampered);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("unknown node 'no_such_node'"), std::string::npos) << bad.error().message;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace weft::core
