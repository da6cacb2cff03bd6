// The parallelism of a control-flow node's bodies: each body is a Graph of its own, so the
// whole analysis pipeline applies to it unchanged.
#include "weft/core/analysis/analyze_subgraphs.h"

#include "weft/core/analysis/analyze.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"

namespace weft::core {

std::vector<std::pair<std::string, AnalysisReport>> analyze_subgraphs(const Graph& graph, NodeId node, const DeviceSpec& device) {
  std::vector<std::pair<std::string, AnalysisReport>> out;
  for (const auto& [attr, body] : node_subgraphs(graph.node(node))) out.emplace_back(attr, analyze(*body, estimate_costs(*body, device)));
  return out;
}

}  // namespace weft::core
