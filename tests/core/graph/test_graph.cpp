#include <gtest/gtest.h>

#include "test_graphs.h"

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
