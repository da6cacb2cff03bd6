#pragma once
// What merge_graph and fuse_graph share: a copy of a graph in which each group of nodes becomes
// one node (its members in a body graph), every other node, tensor, weight, input, output and
// view kept as it was.
#include <functional>
#include <string>
#include <vector>

#include "weft/core/cost/cost_model.h"
#include "weft/core/graph/graph.h"
#include "weft/core/transform/merge_graph.h"

namespace weft::core::detail {

/// Declares tensor `t` of `from` in `b` with its dtype, dims and kind (data for weights); as a
/// graph input where `as_input`. O(rank), plus the weight's bytes (shared, not copied).
void copy_tensor(GraphBuilder& b, const Graph& from, TensorId t, bool as_input);

/// The names of `ids` in `g` ("" for an omitted tensor). O(|ids|).
std::vector<std::string> tensor_names(const Graph& g, const std::vector<TensorId>& ids);

/// `nodes` of `graph` as a body graph: the tensors they read that none of them writes are its
/// inputs (first occurrence order, returned in `inputs`), the nodes keep their keys, and
/// `outputs` (tensors the nodes write) are its outputs. Errors (Internal) when the body does not
/// build. O(Σ inputs and outputs of `nodes`).
Expected<Graph> body_graph(const Graph& graph, const std::vector<NodeId>& nodes, const std::vector<TensorId>& outputs,
                           std::vector<TensorId>& inputs);

/// Emits the node of group g into `b` and returns its cost. Called once per group, where the node
/// at groups[g]'s `at` position would have been.
using AddGroupNode = std::function<Expected<NodeCost>(std::size_t g, GraphBuilder& b)>;

/// The contracted graph: node ids in the original order, each group's node placed at its member
/// `at[g]` (the first member for a merge, the last of a chain for a fusion: a chain's last member
/// comes after every tensor the chain reads in a topological order) and its other members
/// dropped; `members` of the result as MergedModel says. `group_of` gives each node's group (-1:
/// none). Tensors marked in `hidden` (by TensorId; empty: none) live only inside a group's body
/// and are left out of the contracted graph. Errors: add_group's, or Internal when the graph does
/// not build. O(V + E + tensors).
Expected<MergedModel> contract_graph(const Graph& graph, const CostTable& costs, const std::vector<int>& group_of,
                                     const std::vector<std::vector<NodeId>>& groups, const std::vector<NodeId>& at,
                                     const std::vector<char>& hidden, const AddGroupNode& add_group, const char* pass);

}  // namespace weft::core::detail
