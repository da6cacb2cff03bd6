#include "weft/core/transform/merge_graph.h"
#include "weft/core/memory/memory_plan.h"

#include "contract_graph.h"

#include <algorithm>
#include <memory>
#include <string>

namespace weft::core {
namespace {

// A merged node's outputs side by side, in member order: one block (`block`, an intermediate no
// node writes as a whole) whose views they are, so that the memory plan places them contiguously
// and one launch can write them all (a convolution over the members' concatenated filters, an
// elementwise operator over the concatenated range). Only where every output is an activation of
// the graph (not a graph output, which is the caller's buffer, nor already a view) of one dtype
// and a static size; otherwise each output keeps a block of its own. Each output starts on the
// plan's alignment (kDefaultAlignment), as a block of its own would, so libraries get aligned
// pointers; outputs whose sizes are multiples of it (most activations) are exactly adjacent.
void place_side_by_side(const Graph& graph, const std::vector<TensorId>& outputs, const std::string& block, GraphBuilder& b) {
  if (outputs.size() < 2 || graph.find_tensor(block)) return;
  const DType dtype = graph.tensor(outputs.front()).dtype;
  const std::int64_t element = std::max<std::int64_t>(graph.tensor(outputs.front()).elements(), 1);
  const std::int64_t element_bytes = graph.tensor(outputs.front()).bytes() / element;
  if (element_bytes <= 0 || kDefaultAlignment % element_bytes != 0) return;
  std::vector<std::int64_t> offsets;
  std::int64_t total = 0;
  for (TensorId t : outputs) {
    const Tensor& x = graph.tensor(t);
    if (x.kind != TensorKind::Intermediate || x.is_view() || !x.views.empty() || x.dtype != dtype || x.bytes() <= 0) return;
    offsets.push_back(total);
    total = align_up(total + x.bytes(), kDefaultAlignment);
  }
  b.set_shape(block, dtype, {total / element_bytes});
  for (std::size_t i = 0; i < outputs.size(); ++i) b.set_view(graph.tensor(outputs[i]).name, block, offsets[i]);
}

/// Each group's node ids: two or more, sorted, in the graph, in no other group. Returns every
/// node's group (-1: none).
Expected<std::vector<int>> group_of_nodes(const Graph& graph, const MergePlan& plan) {
  const std::size_t n = graph.node_count();
  std::vector<int> group_of(n, -1);
  for (std::size_t g = 0; g < plan.groups.size(); ++g) {
    if (plan.groups[g].nodes.size() < 2)
      return make_error(ErrorKind::InvalidInput, "merge_graph: a merge group needs two or more nodes");
    for (NodeId v : plan.groups[g].nodes) {
      if (v < 0 || static_cast<std::size_t>(v) >= n)
        return make_error(ErrorKind::InvalidInput, "merge_graph: node " + std::to_string(v) + " is not in the graph");
      if (group_of[static_cast<std::size_t>(v)] >= 0)
        return make_error(ErrorKind::InvalidInput, "merge_graph: node '" + graph.key(v) + "' is in two merge groups");
      group_of[static_cast<std::size_t>(v)] = static_cast<int>(g);
    }
    if (!std::is_sorted(plan.groups[g].nodes.begin(), plan.groups[g].nodes.end()))
      return make_error(ErrorKind::InvalidInput, "merge_graph: a merge group's nodes must be sorted by id");
  }
  return group_of;
}

/// Members must be independent, and the groups together must leave the graph acyclic once each
/// group is one node (Kahn's algorithm on the contracted graph). A direct read is the common
/// mistake and is named as such; otherwise the error names the path that closes the cycle.
Status check_contraction(const Graph& graph, const MergePlan& plan, const std::vector<int>& group_of) {
  const std::size_t n = graph.node_count();
  auto rep = [&](NodeId v) {
    const int g = group_of[static_cast<std::size_t>(v)];
    return g < 0 ? v : plan.groups[static_cast<std::size_t>(g)].nodes.front();
  };
  for (const MergeGroup& g : plan.groups)
    for (NodeId v : g.nodes)
      for (NodeId p : graph.predecessors(v))
        if (group_of[static_cast<std::size_t>(p)] == group_of[static_cast<std::size_t>(v)])
          return make_error(ErrorKind::InvalidInput, "merge_graph: the members of a merge group must be independent, but '" +
                                                         graph.key(v) + "' reads the output of '" + graph.key(p) +
                                                         "' in the same group");
  std::vector<int> indegree(n, 0);
  for (std::size_t u = 0; u < n; ++u)
    for (NodeId w : graph.successors(static_cast<NodeId>(u)))
      if (rep(static_cast<NodeId>(u)) != rep(w)) ++indegree[static_cast<std::size_t>(rep(w))];
  std::vector<NodeId> ready;
  for (std::size_t v = 0; v < n; ++v)
    if (rep(static_cast<NodeId>(v)) == static_cast<NodeId>(v) && indegree[v] == 0) ready.push_back(static_cast<NodeId>(v));
  std::vector<char> done(n, 0);
  while (!ready.empty()) {
    const NodeId r = ready.back();
    ready.pop_back();
    done[static_cast<std::size_t>(r)] = 1;
    const int g = group_of[static_cast<std::size_t>(r)];
    const std::vector<NodeId> single{r};
    for (NodeId u : g < 0 ? single : plan.groups[static_cast<std::size_t>(g)].nodes)
      for (NodeId w : graph.successors(u))
        if (rep(w) != r && --indegree[static_cast<std::size_t>(rep(w))] == 0) ready.push_back(rep(w));
  }
  for (const MergeGroup& g : plan.groups) {
    if (done[static_cast<std::size_t>(g.nodes.front())]) continue;
    // This group sits on a cycle: name a path from one member to another if there is one.
    for (NodeId from : g.nodes) {
      std::vector<NodeId> parent(n, kNoNode), queue{from};
      std::vector<char> seen(n, 0);
      seen[static_cast<std::size_t>(from)] = 1;
      for (std::size_t qi = 0; qi < queue.size(); ++qi)
        for (NodeId w : graph.successors(queue[qi])) {
          if (seen[static_cast<std::size_t>(w)]) continue;
          seen[static_cast<std::size_t>(w)] = 1;
          parent[static_cast<std::size_t>(w)] = queue[qi];
          queue.push_back(w);
          if (group_of[static_cast<std::size_t>(w)] != group_of[static_cast<std::size_t>(from)]) continue;
          std::string path = "'" + graph.key(w) + "'";
          for (NodeId x = parent[static_cast<std::size_t>(w)]; x != kNoNode; x = parent[static_cast<std::size_t>(x)])
            path = "'" + graph.key(x) + "' -> " + path;
          return make_error(ErrorKind::InvalidInput, "merge_graph: the members of a merge group must be independent, but '" +
                                                         graph.key(w) + "' depends on '" + graph.key(from) + "' (" + path + ")");
        }
    }
    return make_error(ErrorKind::InvalidInput, "merge_graph: the merge group of '" + graph.key(g.nodes.front()) +
                                                   "' and another group depend on each other both ways (merging both "
                                                   "would deadlock)");
  }

  return {};
}

/// `group` as one weft.Merged node in `b` (its body holds the members), its outputs side by side;
/// its cost: the members' flops and bytes, at the group's time.
Expected<NodeCost> add_merged_node(const Graph& graph, const CostTable& costs, const MergeGroup& group, GraphBuilder& b) {
  const NodeId v = group.nodes.front();
  const Node& node = graph.node(v);
  // The body: the union of the members' inputs as formal inputs (first occurrence order), then
  // the members themselves, their outputs as the body's outputs.
  std::vector<TensorId> inputs, outputs;
  NodeCost c;
  c.known = true;
  for (NodeId m : group.nodes) {
    for (TensorId t : graph.node(m).outputs)
      if (t != kNoTensor) outputs.push_back(t);
    c.flops += costs[m].flops;
    c.bytes += costs[m].bytes;
    c.known = c.known && costs[m].known;
  }
  auto built = detail::body_graph(graph, group.nodes, outputs, inputs);
  if (!built) return make_error(ErrorKind::Internal, "merge_graph: " + built.error().message);
  c.time_us = group.time_us;
  c.intensity = c.bytes > 0 ? c.flops / c.bytes : 0;
  c.bound = costs[v].bound;
  Attribute body_attr;
  body_attr.name = "body";
  body_attr.type = Attribute::Type::Graph;
  body_attr.i = 1;
  body_attr.graph = std::make_shared<const Graph>(std::move(*built));
  Attribute op_attr;
  op_attr.name = "op";
  op_attr.type = Attribute::Type::String;
  op_attr.s = node.op_type;
  Attribute count_attr;
  count_attr.name = "members";
  count_attr.type = Attribute::Type::Int;
  count_attr.i = static_cast<std::int64_t>(group.nodes.size());
  const std::string merged_name = "merged:" + graph.key(v) + "+" + std::to_string(group.nodes.size() - 1);
  b.add_node(merged_name, kMergedOp, detail::tensor_names(graph, inputs), detail::tensor_names(graph, outputs),
             {std::move(body_attr), std::move(op_attr), std::move(count_attr)}, kMergedDomain);
  place_side_by_side(graph, outputs, merged_name + "/outputs", b);
  return c;
}

}  // namespace

Expected<MergedModel> merge_graph(const Graph& graph, const CostTable& costs, const MergePlan& plan) {
  const std::size_t n = graph.node_count();
  if (costs.nodes.size() != n) return make_error(ErrorKind::InvalidInput, "merge_graph: the cost table is for another graph");
  WEFT_TRY_ASSIGN(const std::vector<int> group_of, group_of_nodes(graph, plan));
  WEFT_TRY(check_contraction(graph, plan, group_of));

  std::vector<std::vector<NodeId>> groups;
  std::vector<NodeId> at;
  for (const MergeGroup& g : plan.groups) {
    groups.push_back(g.nodes);
    at.push_back(g.nodes.front());
  }
  return detail::contract_graph(
      graph, costs, group_of, groups, at, {},
      [&](std::size_t g, GraphBuilder& b) { return add_merged_node(graph, costs, plan.groups[g], b); }, "merge_graph");
}

}  // namespace weft::core
