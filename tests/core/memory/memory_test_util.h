#pragma once
// Helpers for the memory tests: random valid schedules and brute-force references.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "happens_before_closure.h"
#include "test_graphs.h"
#include "weft/core/memory/allocation_problem.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"

namespace weft::test {

inline core::Schedule one_stream(std::span<const core::NodeId> order) {
  core::Schedule s;
  s.streams.emplace_back(order.begin(), order.end());
  s.strategy = "sequential";
  return s;
}

/// dead-before straight from the definition, on the happens-before closure.
inline bool dead_before(const core::Graph& g, const HappensBeforeClosure& hb, core::TensorId a, core::TensorId b) {
  const core::Tensor& ta = g.tensor(a);
  const core::NodeId pb = g.tensor(b).producer;
  if (ta.consumers.empty()) return hb.before(ta.producer, pb);
  return std::all_of(ta.consumers.begin(), ta.consumers.end(), [&](core::NodeId r) { return hb.before(r, pb); });
}

/// Maximum-weight clique of the conflict graph by enumeration (small problems only).
inline std::int64_t brute_force_max_clique(const core::AllocationProblem& p) {
  const std::size_t n = p.block_count();
  std::vector<std::uint32_t> adj(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::int32_t j : p.conflicts[i]) adj[i] |= 1u << static_cast<unsigned>(j);
  std::int64_t best = 0;
  for (std::uint32_t mask = 1; mask < (1u << n); ++mask) {
    std::int64_t w = 0;
    bool clique = true;
    for (std::size_t i = 0; i < n && clique; ++i)
      if (mask >> i & 1u) {
        clique = (mask & ~(1u << i) & ~adj[i]) == 0;
        w += p.size[i];
      }
    if (clique) best = std::max(best, w);
  }
  return best;
}

}  // namespace weft::test
