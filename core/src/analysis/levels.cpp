#include "weft/core/analysis/levels.h"

#include <algorithm>

namespace weft::core {

Levels compute_levels(const Graph& graph) {
  const std::size_t n = graph.node_count();
  Levels lv;
  lv.asap.assign(n, 0);
  lv.alap.assign(n, 0);
  lv.slack.assign(n, 0);
  if (n == 0) return lv;
  const auto order = graph.topo_order();
  for (NodeId u : order)
    for (NodeId p : graph.predecessors(u))
      lv.asap[static_cast<std::size_t>(u)] = std::max(lv.asap[static_cast<std::size_t>(u)], lv.asap[static_cast<std::size_t>(p)] + 1);
  lv.depth = 1 + *std::max_element(lv.asap.begin(), lv.asap.end());
  // Longest path (in edges) to any sink, then mirrored into the last level.
  std::vector<int> to_sink(n, 0);
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    for (NodeId s : graph.successors(*it))
      to_sink[static_cast<std::size_t>(*it)] = std::max(to_sink[static_cast<std::size_t>(*it)], to_sink[static_cast<std::size_t>(s)] + 1);
  lv.width.assign(static_cast<std::size_t>(lv.depth), 0);
  for (std::size_t i = 0; i < n; ++i) {
    lv.alap[i] = lv.depth - 1 - to_sink[i];
    lv.slack[i] = lv.alap[i] - lv.asap[i];
    ++lv.width[static_cast<std::size_t>(lv.asap[i])];
  }
  lv.widest_level = *std::max_element(lv.width.begin(), lv.width.end());
  return lv;
}

}  // namespace weft::core
