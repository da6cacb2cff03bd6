#pragma once
// How a merged node looks in a graph (transform/merge_graph.h makes them): operator "Merged" in
// domain "weft", its members in its body. Below the transformation, so that the layers that only
// recognise merged nodes (schedule files, the executors) need not depend on it.
#include <algorithm>

#include "weft/core/graph/graph.h"

namespace weft::core {

inline constexpr const char* kMergedDomain = "weft";
inline constexpr const char* kMergedOp = "Merged";

/// True for a node merge_graph() made. O(1).
inline bool is_merged_node(const Node& node) { return node.domain == kMergedDomain && node.op_type == kMergedOp; }

/// The merged nodes of `graph`. O(V).
inline std::size_t count_merged_nodes(const Graph& graph) {
  return static_cast<std::size_t>(std::count_if(graph.nodes().begin(), graph.nodes().end(), is_merged_node));
}

}  // namespace weft::core
