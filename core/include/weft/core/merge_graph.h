#pragma once
// Horizontal merging as a graph transformation: each merge group becomes one node (operator
// "Merged" in domain "weft") whose body holds the members, so every pass downstream (strategies,
// events, memory plans, the simulator, the CPU executor) works on the merged graph unchanged and
// sees one launch per group.
#include <vector>

#include "weft/core/cost_model.h"
#include "weft/core/graph.h"
#include "weft/core/horizontal_merge.h"

namespace weft::core {

inline constexpr const char* kMergedDomain = "weft";
inline constexpr const char* kMergedOp = "Merged";

/// A merged graph and where its nodes came from.
struct MergedModel {
  Graph graph;
  /// Costs of the merged graph: the original node's for a node kept as it was, the group's merged
  /// launch (MergeGroup::time_us, summed flops and bytes) for a merged node.
  CostTable costs;
  /// By merged NodeId: the original nodes it runs (one for a kept node, the group's members in
  /// id order for a merged one).
  std::vector<std::vector<NodeId>> members;
};

/// Builds the merged graph of `graph` for `plan` (find_merge_groups on some layering). A merged
/// node is named "merged:<first member>+<k-1>", reads every input its members read (first
/// occurrence order), writes every output they write (member order), and holds the members in a
/// body graph (attribute "body"; its inputs are the node's inputs, in order) plus the members'
/// operator ("op") and count ("members"). Tensors, weights, inputs and outputs keep their names,
/// dtypes, shapes and data. Errors (InvalidInput) when a group's members depend on each other
/// (they must be one layer's). O(V + E + tensors).
Expected<MergedModel> merge_graph(const Graph& graph, const CostTable& costs, const MergePlan& plan);

/// True for a node merge_graph() made.
bool is_merged_node(const Node& node);

}  // namespace weft::core
