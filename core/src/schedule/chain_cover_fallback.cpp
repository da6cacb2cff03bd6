// TEMPORARY stand-in for analysis.h's min_chain_cover until the analysis pass lands on main;
// delete this file when merging it. Exact (Fulkerson's reduction: V − maximum matching on the
// reachability relation, Kuhn's augmenting paths, direct edges tried first), but with a V²/8-byte
// closure, so only for small graphs.
#include <algorithm>

#include "weft/core/analysis.h"
#include "weft/core/bitset.h"

namespace weft::core {

ChainCover min_chain_cover(const Graph& graph) {
  const std::size_t n = graph.node_count();
  std::vector<Bitset> reach(n, Bitset(n));
  const auto topo = graph.topo_order();
  for (auto it = topo.rbegin(); it != topo.rend(); ++it)
    for (NodeId w : graph.successors(*it)) {
      reach[static_cast<std::size_t>(*it)].set(static_cast<std::size_t>(w));
      reach[static_cast<std::size_t>(*it)] |= reach[static_cast<std::size_t>(w)];
    }
  std::vector<std::vector<NodeId>> adj(n);
  for (std::size_t u = 0; u < n; ++u) {
    const auto direct = graph.successors(static_cast<NodeId>(u));
    adj[u].assign(direct.begin(), direct.end());
    reach[u].for_each([&](std::size_t v) {
      if (!std::binary_search(direct.begin(), direct.end(), static_cast<NodeId>(v))) adj[u].push_back(static_cast<NodeId>(v));
    });
  }
  std::vector<NodeId> match_right(n, kNoNode), match_left(n, kNoNode);
  std::vector<int> visited(n, -1);
  auto augment = [&](auto&& self, NodeId u, int round) -> bool {
    for (NodeId v : adj[static_cast<std::size_t>(u)]) {
      if (visited[static_cast<std::size_t>(v)] == round) continue;
      visited[static_cast<std::size_t>(v)] = round;
      if (match_right[static_cast<std::size_t>(v)] == kNoNode || self(self, match_right[static_cast<std::size_t>(v)], round)) {
        match_right[static_cast<std::size_t>(v)] = u;
        match_left[static_cast<std::size_t>(u)] = v;
        return true;
      }
    }
    return false;
  };
  for (std::size_t u = 0; u < n; ++u) augment(augment, static_cast<NodeId>(u), static_cast<int>(u));
  ChainCover cover;
  for (NodeId s : topo) {
    if (match_right[static_cast<std::size_t>(s)] != kNoNode) continue;
    std::vector<NodeId> chain;
    for (NodeId v = s; v != kNoNode; v = match_left[static_cast<std::size_t>(v)]) chain.push_back(v);
    cover.chains.push_back(std::move(chain));
  }
  return cover;
}

}  // namespace weft::core
