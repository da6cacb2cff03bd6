#pragma once
// The memory-aware sequential order: a topological order that keeps peak live bytes low.
#include <vector>

#include "weft/core/graph/graph.h"

namespace weft::core {

/// A topological order whose peak live bytes is no higher than the file order's (memory-aware
/// sequential order): greedy list scheduling that, among ready nodes, runs the one with the
/// smallest net allocation (bytes it allocates minus bytes it frees), tried with a few tie
/// rules; the file order is kept when nothing beats it. Ready nodes sit in a priority queue
/// keyed by their net allocation, re-keyed lazily when a tensor's last pending reader changes:
/// O(k · (V + E) log V).
std::vector<NodeId> memory_aware_order(const Graph& graph);

}  // namespace weft::core
