// Cost-weighted critical path: longest node-weighted path by dynamic programming over the
// topological order (CLRS 24.2, DAG shortest paths with negated weights).
#include <algorithm>

#include "weft/core/base/check.h"
#include "weft/core/analysis/critical_path.h"

namespace weft::core {

CriticalPath find_critical_path(const Graph& graph, std::span<const double> node_time_us) {
  const std::size_t n = graph.node_count();
  WEFT_CHECK(node_time_us.size() == n);
  CriticalPath cp;
  if (n == 0) return cp;
  // finish[v] = longest path ending at v, including v; via[v] = its predecessor on that path.
  std::vector<double> finish(n, 0);
  std::vector<NodeId> via(n, kNoNode);
  for (NodeId v : graph.topo_order()) {
    const auto vi = static_cast<std::size_t>(v);
    double best = 0;
    for (NodeId p : graph.predecessors(v)) {
      const double f = finish[static_cast<std::size_t>(p)];
      // Strictly greater: ties go to the smallest predecessor id, so the path is deterministic.
      if (via[vi] == kNoNode || f > best) {
        best = f;
        via[vi] = p;
      }
    }
    finish[vi] = best + node_time_us[vi];
    cp.work_us += node_time_us[vi];
  }
  NodeId end = 0;
  for (std::size_t i = 1; i < n; ++i)
    if (finish[i] > finish[static_cast<std::size_t>(end)]) end = static_cast<NodeId>(i);
  cp.span_us = finish[static_cast<std::size_t>(end)];
  for (NodeId v = end; v != kNoNode; v = via[static_cast<std::size_t>(v)]) cp.nodes.push_back(v);
  std::reverse(cp.nodes.begin(), cp.nodes.end());
  return cp;
}

bool is_chain(const Graph& graph) {
  const auto order = graph.topo_order();
  for (std::size_t i = 1; i < order.size(); ++i) {
    const auto succ = graph.successors(order[i - 1]);
    if (!std::binary_search(succ.begin(), succ.end(), order[i])) return false;
  }
  return true;
}

}  // namespace weft::core
