#pragma once
// Parallelism analysis: critical path, work/span, maximum antichain (Dilworth), verdict.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "weft/core/cost_model.h"
#include "weft/core/critical_path.h"
#include "weft/core/graph.h"
#include "weft/core/levels.h"

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

/// Everything `weft analyze` reports, computed by one visible pipeline of the passes above.
struct AnalysisReport {
  Levels levels;
  CostTable costs;
  CriticalPath critical;
  std::size_t antichain_width = 0;
  std::vector<NodeId> antichain;
  std::size_t unknown_shapes = 0;  ///< tensors without a static shape
  std::size_t unknown_costs = 0;   ///< nodes whose cost is a launch-only guess (unknown op or shapes)
  std::string verdict;             ///< e.g. "chain: concurrency cannot help", "up to 2.0x from concurrency"
  std::vector<std::string> notes;  ///< what the figures do not account for (unknown costs, unresolved dims)
};

/// The verdict line from width and work/span: speedup of any schedule is at most
/// min(work/span, width).
std::string make_verdict(std::size_t width, const CriticalPath& critical);

/// levels → critical path → width → verdict and notes. O(V + E) plus compute_width().
AnalysisReport analyze(const Graph& graph, const CostTable& costs);

/// The parallelism inside a control-flow node: analyze() of each body it holds (If's branches,
/// Loop's or Scan's body; node_subgraphs order), with costs estimated for `device`. The node
/// itself stays one node of its graph (its body runs inside it); this reports what a body
/// alone could overlap. Empty for ordinary nodes. O(body size) per body.
std::vector<std::pair<std::string, AnalysisReport>> analyze_subgraphs(const Graph& graph, NodeId node, const DeviceSpec& device);

}  // namespace weft::core
