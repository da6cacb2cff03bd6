// The analysis pipeline behind `weft analyze`: each step is a pure pass, chained here in order.
#include "weft/core/analysis/analyze.h"
#include "weft/core/analysis/antichain.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/analysis/critical_path.h"
#include "weft/core/analysis/levels.h"
#include "weft/core/analysis/verdict.h"

namespace weft::core {

std::string make_verdict(std::size_t width, const CriticalPath& critical) {
  if (width <= 1) return chain_verdict(width);
  return concurrency_verdict(critical.parallelism(), width);
}

AnalysisReport analyze(const Graph& graph, const CostTable& costs) {
  AnalysisReport r;
  r.levels = compute_levels(graph);
  r.costs = costs;
  r.critical = find_critical_path(graph, node_times(costs));
  Width width = compute_width(graph);
  r.antichain_width = width.cover.width();
  r.antichain = std::move(width.antichain);
  r.chain_cover = std::make_shared<const ChainCover>(std::move(width.cover));
  r.verdict = make_verdict(r.antichain_width, r.critical);

  for (const Tensor& t : graph.tensors())
    if (!t.shape_known()) ++r.unknown_shapes;
  for (const NodeCost& c : costs.nodes)
    if (!c.known) ++r.unknown_costs;
  if (r.unknown_costs > 0)
    r.notes.push_back(std::to_string(r.unknown_costs) + " of " + std::to_string(graph.node_count()) +
                      " operators have unknown cost (unknown operator or shapes): counted as launch overhead only, "
                      "so work and span are lower bounds");
  if (r.unknown_shapes > 0)
    r.notes.push_back(std::to_string(r.unknown_shapes) + " tensors have no static shape");
  for (const std::string& d : graph.info().unresolved_dims) r.notes.push_back("unresolved dimension " + d);
  return r;
}

}  // namespace weft::core
