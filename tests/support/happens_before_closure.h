#pragma once
// A test oracle: the happens-before closure of a schedule by brute force, straight from the
// definition (H = data edges ∪ stream order ∪ events), independent of the product's one
// execution order (core::ExecutionOrder, vector clocks). Property tests check the clocks,
// liveness and bounds against it on small random schedules.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "weft/core/base/bitset.h"
#include "weft/core/base/check.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"

namespace weft::test {

class HappensBeforeClosure {
 public:
  /// Reachability by a depth-first search from every node: O(V·(V + E)) time, V²/8 bytes (small
  /// graphs only). Precondition: every stream and event names nodes of `graph` (WEFT_CHECK).
  /// Without `data_edges`, H is stream order ∪ events alone (what a device enforces).
  HappensBeforeClosure(const core::Graph& graph, const core::Schedule& schedule, bool data_edges = true)
      : m_reach(graph.node_count(), core::Bitset(graph.node_count())) {
    const std::size_t n = graph.node_count();
    const auto in_graph = [n](core::NodeId v) { return v >= 0 && static_cast<std::size_t>(v) < n; };
    std::vector<std::vector<core::NodeId>> succ(n);
    if (data_edges)
      for (std::size_t u = 0; u < n; ++u)
        for (core::NodeId v : graph.successors(static_cast<core::NodeId>(u))) succ[u].push_back(v);
    for (const auto& stream : schedule.streams)
      for (std::size_t i = 0; i < stream.size(); ++i) {
        WEFT_CHECK(in_graph(stream[i]));
        if (i > 0) succ[static_cast<std::size_t>(stream[i - 1])].push_back(stream[i]);
      }
    for (const core::Event& e : schedule.events) {
      WEFT_CHECK(in_graph(e.from) && in_graph(e.to));
      succ[static_cast<std::size_t>(e.from)].push_back(e.to);
    }
    std::vector<core::NodeId> stack;
    for (std::size_t a = 0; a < n; ++a) {
      core::Bitset& r = m_reach[a];
      stack.assign(succ[a].begin(), succ[a].end());
      while (!stack.empty()) {
        const auto v = static_cast<std::size_t>(stack.back());
        stack.pop_back();
        if (r.test(v)) continue;
        r.set(v);
        stack.insert(stack.end(), succ[v].begin(), succ[v].end());
      }
    }
  }

  /// a happens strictly before b on every interleaving.
  bool before(core::NodeId a, core::NodeId b) const {
    return m_reach[static_cast<std::size_t>(a)].test(static_cast<std::size_t>(b));
  }
  bool ordered(core::NodeId a, core::NodeId b) const { return before(a, b) || before(b, a); }
  /// False when some node happens before itself: the schedule would deadlock.
  bool acyclic() const {
    for (std::size_t a = 0; a < m_reach.size(); ++a)
      if (m_reach[a].test(a)) return false;
    return true;
  }
  /// A topological order of H (precondition: acyclic()): a node reaches strictly more nodes than
  /// any node it happens before, so the nodes by descending reach count, ties by id.
  std::vector<core::NodeId> order() const {
    WEFT_CHECK(acyclic());
    std::vector<core::NodeId> order(m_reach.size());
    std::iota(order.begin(), order.end(), core::NodeId{0});
    std::vector<std::size_t> count(m_reach.size());
    for (std::size_t a = 0; a < m_reach.size(); ++a) count[a] = m_reach[a].count();
    std::stable_sort(order.begin(), order.end(), [&](core::NodeId x, core::NodeId y) {
      return count[static_cast<std::size_t>(x)] > count[static_cast<std::size_t>(y)];
    });
    return order;
  }

 private:
  std::vector<core::Bitset> m_reach;
};

}  // namespace weft::test
