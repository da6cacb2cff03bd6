#include <gtest/gtest.h>

#include <algorithm>

#include "test_graphs.h"
#include "test_models.h"
#include "weft/core/transform/micro_batch.h"

using namespace weft;

// Edges are distinct producer→consumer pairs; topo order respects them.
TEST(Graph, DiamondEdgesAndTopoOrder) {
  const core::Graph g = test::make_diamond();
  EXPECT_EQ(g.node_count(), 4u);
  EXPECT_EQ(g.edge_count(), 4u);
  ASSERT_EQ(g.successors(0).size(), 2u);
  EXPECT_EQ(g.predecessors(3).size(), 2u);
  std::vector<int> pos(4);
  for (std::size_t i = 0; i < g.topo_order().size(); ++i) pos[static_cast<std::size_t>(g.topo_order()[i])] = static_cast<int>(i);
  for (core::NodeId u = 0; u < 4; ++u)
    for (core::NodeId v : g.successors(u)) EXPECT_LT(pos[static_cast<std::size_t>(u)], pos[static_cast<std::size_t>(v)]);
}

// A node reading one tensor twice gives one edge, not two.
TEST(Graph, DuplicateReadsMakeOneEdge) {
  core::GraphBuilder b;
  b.add_input("x", core::DType::Float32, {core::Dim{4, {}}});
  b.add_node("a", "Relu", {"x"}, {"y"});
  b.add_node("b", "Mul", {"y", "y"}, {"z"});
  b.mark_output("z");
  auto g = std::move(b).build();
  ASSERT_TRUE(g);
  EXPECT_EQ(g->edge_count(), 1u);
  EXPECT_EQ(g->tensor(*g->find_tensor("y")).consumers.size(), 1u);
  EXPECT_EQ(g->tensor(*g->find_tensor("z")).kind, core::TensorKind::Output);
}

// Cycles are rejected with a message naming nodes on the cycle.
TEST(Graph, CycleIsRejected) {
  core::GraphBuilder b;
  b.add_input("x", core::DType::Float32, {core::Dim{4, {}}});
  b.add_node("a", "Add", {"x", "c_out"}, {"a_out"});
  b.add_node("b", "Relu", {"a_out"}, {"b_out"});
  b.add_node("c", "Relu", {"b_out"}, {"c_out"});
  auto g = std::move(b).build();
  ASSERT_FALSE(g);
  EXPECT_EQ(g.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(g.error().message.find("cycle"), std::string::npos);
  EXPECT_NE(g.error().message.find("'b'"), std::string::npos);
}

// Reading a tensor nobody defines names the node and the tensor.
TEST(Graph, UndefinedTensorIsRejected) {
  core::GraphBuilder b;
  b.add_node("a", "Relu", {"ghost"}, {"y"});
  auto g = std::move(b).build();
  ASSERT_FALSE(g);
  EXPECT_NE(g.error().message.find("ghost"), std::string::npos);
  EXPECT_NE(g.error().message.find("'a'"), std::string::npos);
}

// Two producers for one tensor are rejected.
TEST(Graph, DuplicateProducerIsRejected) {
  core::GraphBuilder b;
  b.add_input("x", core::DType::Float32, {core::Dim{4, {}}});
  b.add_node("a", "Relu", {"x"}, {"y"});
  b.add_node("b", "Relu", {"x"}, {"y"});
  auto g = std::move(b).build();
  ASSERT_FALSE(g);
  EXPECT_NE(g.error().message.find("two nodes"), std::string::npos);
}

// Unnamed nodes get stable, unique keys.
TEST(Graph, UnnamedNodesGetKeys) {
  core::GraphBuilder b;
  b.add_input("x", core::DType::Float32, {core::Dim{4, {}}});
  b.add_node("", "Relu", {"x"}, {"y"});
  b.add_node("", "Relu", {"y"}, {"z"});
  auto g = std::move(b).build();
  ASSERT_TRUE(g);
  EXPECT_EQ(g->key(0), "#0:Relu");
  EXPECT_EQ(g->find_node("#1:Relu"), std::optional<core::NodeId>(1));
}

// Tensor bytes come from dtype and static shape; unknown dims give -1.
TEST(Graph, TensorBytes) {
  core::Tensor t;
  t.dtype = core::DType::Float32;
  t.rank_known = true;
  t.dims = {core::Dim{2, {}}, core::Dim{3, {}}};
  EXPECT_EQ(t.bytes(), 24);
  t.dims.push_back(core::Dim{-1, "batch"});
  EXPECT_EQ(t.bytes(), -1);
  EXPECT_EQ(core::format_shape(t), "2x3xbatch");
}

namespace {

// Graph's flat access lists against their definitions, derived here from the nodes' input and
// output lists and the tensors' view links (not from the builder's derived producer/consumers).
void expect_flat_lists_match_records(const core::Graph& g) {
  std::vector<std::vector<core::NodeId>> consumers(g.tensor_count()), producers(g.tensor_count());
  for (std::size_t v = 0; v < g.node_count(); ++v) {
    const core::Node& node = g.node(static_cast<core::NodeId>(v));
    std::vector<core::TensorId> reads;
    for (core::TensorId t : node.inputs)
      if (t != core::kNoTensor && std::find(reads.begin(), reads.end(), t) == reads.end()) reads.push_back(t);
    const auto flat = g.reads(static_cast<core::NodeId>(v));
    EXPECT_EQ(std::vector<core::TensorId>(flat.begin(), flat.end()), reads) << "node " << v;
    for (core::TensorId t : reads) consumers[static_cast<std::size_t>(t)].push_back(static_cast<core::NodeId>(v));
    for (core::TensorId t : node.outputs)
      if (t != core::kNoTensor) producers[static_cast<std::size_t>(t)].push_back(static_cast<core::NodeId>(v));
  }
  for (std::size_t t = 0; t < g.tensor_count(); ++t) {
    const auto id = static_cast<core::TensorId>(t);
    const core::Tensor& tensor = g.tensor(id);
    const auto flat_consumers = g.consumers(id);
    EXPECT_EQ(std::vector<core::NodeId>(flat_consumers.begin(), flat_consumers.end()), consumers[t]) << tensor.name;
    std::vector<core::NodeId> readers(consumers[t]), writers(producers[t]);
    for (core::TensorId view : tensor.views) {
      const auto v = static_cast<std::size_t>(view);
      readers.insert(readers.end(), consumers[v].begin(), consumers[v].end());
      writers.insert(writers.end(), producers[v].begin(), producers[v].end());
    }
    std::sort(readers.begin(), readers.end());
    readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
    std::sort(writers.begin(), writers.end());
    const auto flat_readers = g.readers(id), flat_writers = g.writers(id);
    EXPECT_EQ(std::vector<core::NodeId>(flat_readers.begin(), flat_readers.end()), readers) << tensor.name;
    EXPECT_EQ(std::vector<core::NodeId>(flat_writers.begin(), flat_writers.end()), writers) << tensor.name;
    EXPECT_EQ(g.bytes(id), tensor.bytes()) << tensor.name;
  }
}

}  // namespace

// Duplicate reads, an omitted optional input, an unknown shape and a tensor nobody reads.
TEST(Graph, FlatAccessListsOfASmallGraph) {
  core::GraphBuilder b;
  b.add_input("x", core::DType::Float32, {core::Dim{4, {}}});
  b.add_input("s", core::DType::Float32, {core::Dim{-1, "n"}});
  b.add_node("a", "Relu", {"x"}, {"y"});
  b.add_node("b", "Clip", {"y", "", "y"}, {"z"});
  b.add_node("c", "Add", {"z", "s"}, {"w"});
  b.add_node("d", "Relu", {"y"}, {"unused"});
  b.mark_output("w");
  auto g = std::move(b).build();
  ASSERT_TRUE(g) << g.error().message;
  const auto b_reads = g->reads(*g->find_node("b"));
  ASSERT_EQ(b_reads.size(), 1u);
  EXPECT_EQ(b_reads[0], *g->find_tensor("y"));
  const auto y_readers = g->readers(*g->find_tensor("y"));
  EXPECT_EQ(std::vector<core::NodeId>(y_readers.begin(), y_readers.end()),
            (std::vector<core::NodeId>{*g->find_node("b"), *g->find_node("d")}));
  EXPECT_TRUE(g->readers(*g->find_tensor("unused")).empty());
  EXPECT_EQ(g->bytes(*g->find_tensor("s")), -1);
  EXPECT_EQ(g->bytes(*g->find_tensor("x")), 16);
  expect_flat_lists_match_records(*g);
}

// Real models, and a micro-batch split whose inputs and outputs are written and read through views.
TEST(Graph, FlatAccessListsMatchTheRecords) {
  for (const char* stem : {"googlenet", "randwire_ws", "transformer4h"}) {
    SCOPED_TRACE(stem);
    expect_flat_lists_match_records(test::load_with_batch(stem, 2));
  }
  auto split = core::split_batch(test::load_with_batch("randwire_ws", 4), 2);
  ASSERT_TRUE(split) << split.error().message;
  std::size_t parents = 0;
  for (const core::Tensor& t : split->tensors()) parents += !t.views.empty();
  ASSERT_GT(parents, 0u);
  expect_flat_lists_match_records(*split);
}
