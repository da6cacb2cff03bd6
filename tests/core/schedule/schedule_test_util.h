#pragma once
// Helpers for the schedule tests: random stream assignments and brute-force reference answers.
#include <random>
#include <vector>

#include "test_graphs.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"

namespace weft::test {

/// Costs with the given time for every node (bound: memory unless listed in compute).
inline core::CostTable uniform_costs(const core::Graph& g, double time_us, const std::vector<core::NodeId>& compute = {}) {
  core::CostTable t;
  t.nodes.assign(g.node_count(), core::NodeCost{0, 0, time_us, 0, core::Bound::Memory, true, false});
  for (core::NodeId v : compute) t.nodes[static_cast<std::size_t>(v)].bound = core::Bound::Compute;
  return t;
}

/// Reachability by DFS on data edges (reference for brute force).
inline std::vector<std::vector<bool>> reachability(const core::Graph& g) {
  const std::size_t n = g.node_count();
  std::vector<std::vector<bool>> r(n, std::vector<bool>(n, false));
  const auto topo = g.topo_order();
  for (auto it = topo.rbegin(); it != topo.rend(); ++it)
    for (core::NodeId w : g.successors(*it)) {
      r[static_cast<std::size_t>(*it)][static_cast<std::size_t>(w)] = true;
      for (std::size_t x = 0; x < n; ++x)
        if (r[static_cast<std::size_t>(w)][x]) r[static_cast<std::size_t>(*it)][x] = true;
    }
  return r;
}

/// Width of the largest antichain, by trying every subset (n ≤ ~16).
inline std::size_t brute_force_width(const core::Graph& g) {
  const auto r = reachability(g);
  const std::size_t n = g.node_count();
  std::size_t best = 0;
  for (std::uint32_t mask = 1; mask < (1u << n); ++mask) {
    bool ok = true;
    for (std::size_t a = 0; a < n && ok; ++a)
      for (std::size_t b = 0; b < n && ok; ++b)
        if ((mask >> a & 1u) && (mask >> b & 1u) && r[a][b]) ok = false;
    if (ok) best = std::max<std::size_t>(best, static_cast<std::size_t>(__builtin_popcount(mask)));
  }
  return best;
}

}  // namespace weft::test
