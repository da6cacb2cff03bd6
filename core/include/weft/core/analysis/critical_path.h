#pragma once
// The cost-weighted critical path and work/span: one longest-path DP for every weighting (the
// cost model's node times for `weft analyze`, a launch mode's per-node weights for predictions).
#include <span>
#include <vector>

#include "weft/core/graph/graph.h"

namespace weft::core {

struct CriticalPath {
  std::vector<NodeId> nodes;  ///< source → sink, the longest cost-weighted path
  double span_us = 0;         ///< its length (sum of its node times)
  double work_us = 0;         ///< sum of all node times
  /// work / span: no schedule beats it (Brent); 1 for an empty graph.
  double parallelism() const { return span_us > 0 ? work_us / span_us : 1.0; }
};

/// Longest node-weighted path. O(V + E).
CriticalPath find_critical_path(const Graph& graph, std::span<const double> node_time_us);

/// True when the graph is a chain (width 1: its topological order is unique). O(V + E).
bool is_chain(const Graph& graph);

}  // namespace weft::core
