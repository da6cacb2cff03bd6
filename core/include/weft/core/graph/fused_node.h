#pragma once
// How a fused node looks in a graph (transform/vertical_fusion.h makes them): operator "Fused" in
// domain "weft" (the domain of merged nodes), its chain in its body: a producer and the
// elementwise operators applied to its result, which a library runs as one primitive with
// post-ops. Below the transformation, so that the layers that only recognise fused nodes
// (schedule files, the executors, the front ends' labels) need not depend on it.
#include <string>

#include "weft/core/graph/graph.h"
#include "weft/core/graph/merged_node.h"

namespace weft::core {

inline constexpr const char* kFusedOp = "Fused";

/// True for a node fuse_graph() made. O(1).
inline bool is_fused_node(const Node& node) { return node.domain == kMergedDomain && node.op_type == kFusedOp; }

/// The fused nodes of `graph`. O(V).
inline std::size_t count_fused_nodes(const Graph& graph) {
  return static_cast<std::size_t>(std::count_if(graph.nodes().begin(), graph.nodes().end(), is_fused_node));
}

/// What a transformed graph is, for reports: "fused and merged", "fused", else "merged". O(V).
inline std::string transformed_word(const Graph& graph) {
  const bool fused = count_fused_nodes(graph) > 0, merged = count_merged_nodes(graph) > 0;
  return fused && merged ? "fused and merged" : fused ? "fused" : "merged";
}

/// The input of fused node `node` that its chain's Add reads beside the chain's result (the
/// residual), or -1 where the chain adds nothing. O(body size).
inline int fused_residual_input(const Node& node) {
  const Attribute* a = node.attribute("body");
  if (!is_fused_node(node) || !a || !a->graph) return -1;
  const Graph& body = *a->graph;
  for (const Node& member : body.nodes()) {
    if (member.op_type != "Add") continue;
    for (TensorId t : member.inputs)
      for (std::size_t i = 0; i < body.inputs().size(); ++i)
        if (body.inputs()[i] == t) return static_cast<int>(i);
  }
  return -1;
}

/// What front ends print for a node: its chain's operators for a fused node ("Conv+Add+Relu"),
/// "op ×k" for a merged one, else its operator. O(1) plus the label's length.
inline std::string node_label(const Node& node) {
  if (is_fused_node(node)) return node.attr_string("op", "Fused");
  if (is_merged_node(node)) return node.attr_string("op", "?") + " \u00d7" + std::to_string(node.attr_int("members", 0));
  return node.op_type;
}

}  // namespace weft::core
