#pragma once
// Width: a minimum chain cover and a maximum antichain (Dilworth), by matching or min-flow.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "weft/core/graph/graph.h"

namespace weft::core {

/// A minimum chain cover: chains of nodes totally ordered by reachability (consecutive nodes
/// need not be joined by a direct edge, but direct edges are preferred). Its size equals the
/// maximum antichain width (Dilworth). Each chain is listed in topological order.
struct ChainCover {
  std::vector<std::vector<NodeId>> chains;
  std::size_t width() const { return chains.size(); }
};

/// How min_chain_cover / max_antichain compute. Both methods are exact; Auto picks Matching up
/// to kMatchingMaxNodes nodes and MinFlow above.
enum class WidthMethod : std::uint8_t {
  Auto,
  /// Hopcroft–Karp on bitset reachability closures (Fulkerson's reduction of Dilworth's theorem):
  /// O(V·E/64) closure, O(√V · V²/64) matching, V²/8 bytes.
  Matching,
  /// Minimum flow on the split-node DAG with lower bound 1 on every node arc, started from a
  /// greedy cover along direct edges and reduced by Dinic from sink to source: O(V + E) memory.
  /// Each phase costs O(V + E) and there is one per distinct augmenting path length; past 32
  /// phases every remaining path that runs forward along the edges (a chain's end continued by
  /// another's head through a shortcut) is spliced in one O(V + E + paths' length) pass first.
  MinFlow,
};
inline constexpr std::size_t kMatchingMaxNodes = 20000;

/// Exact minimum chain cover (minimum path cover with shortcuts = V − maximum matching on the
/// reachability relation, or min-flow on the DAG for large graphs).
ChainCover min_chain_cover(const Graph& graph, WidthMethod method = WidthMethod::Auto);

/// A maximum antichain (pairwise independent nodes, sorted by id); its size equals
/// min_chain_cover().width().
std::vector<NodeId> max_antichain(const Graph& graph, WidthMethod method = WidthMethod::Auto);

/// Both at once (one matching or flow computation), for callers that need the pair.
struct Width {
  ChainCover cover;
  std::vector<NodeId> antichain;
};
Width compute_width(const Graph& graph, WidthMethod method = WidthMethod::Auto);

}  // namespace weft::core
