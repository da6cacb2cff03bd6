#pragma once
// ASAP / ALAP levels, slack and level widths (one pass each over the topological order).
#include <vector>

#include "weft/core/graph/graph.h"

namespace weft::core {

struct Levels {
  std::vector<int> asap;   ///< longest path in edges from any source (sources: 0)
  std::vector<int> alap;   ///< depth-1 minus the longest path in edges to any sink
  std::vector<int> slack;  ///< alap - asap
  std::vector<int> width;  ///< nodes per ASAP level
  int depth = 0;           ///< number of ASAP levels (0 for an empty graph)
  int widest_level = 0;    ///< max of width
};

/// Computes ASAP, ALAP, slack and level widths. O(V + E), a few vectors of V ints.
Levels compute_levels(const Graph& graph);

}  // namespace weft::core
