// The graph copy with groups contracted to one node each, shared by merge_graph and fuse_graph.
#include "contract_graph.h"

#include <algorithm>

namespace weft::core::detail {

void copy_tensor(GraphBuilder& b, const Graph& from, TensorId t, bool as_input) {
  const Tensor& src = from.tensor(t);
  // A split's micro-batch slice of an input is an input itself but stays a view (set_view), not a
  // graph input: declared here by dtype and dims like an activation.
  if (as_input || (src.kind == TensorKind::Input && !src.is_view())) {
    b.add_input(src.name, src.dtype, src.dims);
    return;
  }
  if (src.kind == TensorKind::Weight) {
    b.add_weight(src.name, src.dtype, src.shape_known() ? src.shape() : std::vector<std::int64_t>{}, src.data);
    return;
  }
  Tensor& dst = b.tensor_ref(b.tensor(src.name));
  dst.dtype = src.dtype;
  dst.dims = src.dims;
  dst.rank_known = src.rank_known;
}

std::vector<std::string> tensor_names(const Graph& g, const std::vector<TensorId>& ids) {
  std::vector<std::string> out;
  for (TensorId t : ids) out.push_back(t == kNoTensor ? std::string() : g.tensor(t).name);
  return out;
}

Expected<Graph> body_graph(const Graph& graph, const std::vector<NodeId>& nodes, const std::vector<TensorId>& outputs,
                           std::vector<TensorId>& inputs) {
  GraphBuilder body;
  inputs.clear();
  std::vector<TensorId> written;
  for (NodeId m : nodes) {
    for (TensorId t : graph.node(m).inputs)
      if (t != kNoTensor && std::find(written.begin(), written.end(), t) == written.end() &&
          std::find(inputs.begin(), inputs.end(), t) == inputs.end())
        inputs.push_back(t);
    for (TensorId t : graph.node(m).outputs)
      if (t != kNoTensor) written.push_back(t);
  }
  for (TensorId t : inputs) copy_tensor(body, graph, t, true);
  for (NodeId m : nodes) {
    const Node& member = graph.node(m);
    body.add_node(member.name, member.op_type, tensor_names(graph, member.inputs), tensor_names(graph, member.outputs),
                  member.attributes, member.domain);
    for (TensorId t : member.outputs)
      if (t != kNoTensor) copy_tensor(body, graph, t, false);
  }
  for (TensorId t : outputs) body.mark_output(graph.tensor(t).name);
  auto built = std::move(body).build();
  if (!built) return make_error(ErrorKind::Internal, "body of '" + graph.key(nodes.front()) + "': " + built.error().message);
  return std::move(*built);
}

Expected<MergedModel> contract_graph(const Graph& graph, const CostTable& costs, const std::vector<int>& group_of,
                                     const std::vector<std::vector<NodeId>>& groups, const std::vector<NodeId>& at,
                                     const std::vector<char>& hidden, const AddGroupNode& add_group, const char* pass) {
  const std::size_t n = graph.node_count();
  GraphBuilder b;
  b.info() = graph.info();
  for (TensorId t : graph.inputs()) copy_tensor(b, graph, t, true);
  for (std::size_t t = 0; t < graph.tensor_count(); ++t)
    if (const Tensor& x = graph.tensor(static_cast<TensorId>(t));
        (x.kind != TensorKind::Input || x.is_view()) && !(t < hidden.size() && hidden[t]))
      copy_tensor(b, graph, static_cast<TensorId>(t), false);
  // A split graph's micro-batch slices stay views of the full input and output buffers.
  for (std::size_t t = 0; t < graph.tensor_count(); ++t)
    if (const Tensor& view = graph.tensor(static_cast<TensorId>(t)); view.is_view())
      b.set_view(view.name, graph.tensor(view.view_of).name, view.view_offset);

  std::vector<std::vector<NodeId>> members;
  std::vector<NodeCost> new_costs;
  for (std::size_t i = 0; i < n; ++i) {
    const NodeId v = static_cast<NodeId>(i);
    const Node& node = graph.node(v);
    const int g = group_of[i];
    if (g < 0) {
      b.add_node(node.name, node.op_type, tensor_names(graph, node.inputs), tensor_names(graph, node.outputs), node.attributes,
                 node.domain);
      members.push_back({v});
      new_costs.push_back(costs.nodes[i]);
      continue;
    }
    if (at[static_cast<std::size_t>(g)] != v) continue;  // emitted once, at its chosen member
    WEFT_TRY_ASSIGN(NodeCost c, add_group(static_cast<std::size_t>(g), b));
    members.push_back(groups[static_cast<std::size_t>(g)]);
    new_costs.push_back(c);
  }
  for (TensorId t : graph.outputs()) b.mark_output(graph.tensor(t).name);
  auto built = std::move(b).build();
  if (!built) return make_error(ErrorKind::Internal, std::string(pass) + ": " + built.error().message);
  CostTable table;
  table.device = costs.device;
  table.nodes = std::move(new_costs);
  return MergedModel{std::move(*built), std::move(table), std::move(members)};
}

}  // namespace weft::core::detail
