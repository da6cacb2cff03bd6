#pragma once
// Horizontal merging as a graph transformation: each merge group becomes one node (operator
// "Merged" in domain "weft") whose body holds the members, so every pass downstream (strategies,
// events, memory plans, the simulator, the CPU executor) works on the merged graph unchanged and
// sees one launch per group.
#include <vector>

#include "weft/core/cost/cost_model.h"
#include "weft/core/graph/graph.h"
#include "weft/core/graph/merged_node.h"
#include "weft/core/transform/horizontal_merge.h"

namespace weft::core {


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

/// Builds the merged graph of `graph` for `plan` (find_merge_groups on some layering, or
/// make_merge_plan of given groups). A merged node is named "merged:<first member>+<k-1>", reads
/// every input its members read (first occurrence order), writes every output they write (member
/// order), and holds the members in a body graph (attribute "body"; its inputs are the node's
/// inputs, in order; its nodes keep the members' keys as names) plus the members' operator ("op")
/// and count ("members"). Other nodes keep their keys; tensors, weights, inputs and outputs keep
/// their names, dtypes, shapes and data. The CPU executor runs a merged node with the "weft.Merged"
/// kernel (members in order, outputs written in place). Errors (InvalidInput) name the nodes: a
/// member that reads another's output or depends on it through a path, two groups that would wait
/// on each other, a node in two groups, a group of fewer than two nodes. O(V + E + tensors), plus
/// O(|group| · (V + E)) to name the path on an error.
Expected<MergedModel> merge_graph(const Graph& graph, const CostTable& costs, const MergePlan& plan);

}  // namespace weft::core
