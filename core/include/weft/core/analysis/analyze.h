#pragma once
// What `weft analyze` reports: levels, critical path, width and the verdict, from one pipeline
// of the analysis passes.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "weft/core/analysis/antichain.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/analysis/critical_path.h"
#include "weft/core/graph/graph.h"
#include "weft/core/analysis/levels.h"

namespace weft::core {

/// Everything `weft analyze` reports, computed by one visible pipeline of the passes above.
struct AnalysisReport {
  Levels levels;
  CostTable costs;
  CriticalPath critical;
  std::size_t antichain_width = 0;
  std::vector<NodeId> antichain;
  /// The minimum chain cover found with the width (min_chain_cover()), for the strategies that
  /// start from it (StrategyOptions::chain_cover).
  std::shared_ptr<const ChainCover> chain_cover;
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

}  // namespace weft::core
