#pragma once
// Parallelism analysis: critical path, work/span, maximum antichain (Dilworth), verdict.
#include <span>
#include <string>
#include <vector>

#include "weft/core/cost_model.h"
#include "weft/core/graph.h"
#include "weft/core/levels.h"

namespace weft::core {

struct CriticalPath {
  std::vector<NodeId> nodes;  ///< source → sink, the longest cost-weighted path
  double span_us = 0;         ///< its length (sum of its node times)
  double work_us = 0;         ///< sum of all node times
  double parallelism() const { return span_us > 0 ? work_us / span_us : 1.0; }
};

/// Longest node-weighted path. O(V + E).
CriticalPath find_critical_path(const Graph& graph, std::span<const double> node_time_us);

/// A minimum chain cover: chains of nodes totally ordered by reachability (consecutive nodes
/// need not be joined by a direct edge, but direct edges are preferred). Its size equals the
/// maximum antichain width (Dilworth). Each chain is listed in topological order.
struct ChainCover {
  std::vector<std::vector<NodeId>> chains;
  std::size_t width() const { return chains.size(); }
};

/// Exact minimum chain cover (minimum path cover with shortcuts = V − maximum matching on the
/// reachability relation, or min-flow on the DAG for large graphs).
ChainCover min_chain_cover(const Graph& graph);

/// A maximum antichain (pairwise independent nodes); its size equals min_chain_cover().width().
std::vector<NodeId> max_antichain(const Graph& graph);

/// Everything `weft analyze` reports, computed by one visible pipeline of the passes above.
struct AnalysisReport {
  Levels levels;
  CostTable costs;
  CriticalPath critical;
  std::size_t antichain_width = 0;
  std::vector<NodeId> antichain;
  std::size_t unknown_shapes = 0;  ///< tensors without a static shape
  std::string verdict;             ///< e.g. "chain: concurrency cannot help", "up to 2.0x from concurrency"
};

AnalysisReport analyze(const Graph& graph, const CostTable& costs);

}  // namespace weft::core
