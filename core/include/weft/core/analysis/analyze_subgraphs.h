#pragma once
// The parallelism inside control-flow nodes: analyze() of each body.
#include <string>
#include <utility>
#include <vector>

#include "weft/core/analysis/analyze.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/graph/graph.h"

namespace weft::core {

/// The parallelism inside a control-flow node: analyze() of each body it holds (If's branches,
/// Loop's or Scan's body; node_subgraphs order), with costs estimated for `device`. The node
/// itself stays one node of its graph (its body runs inside it); this reports what a body
/// alone could overlap. Empty for ordinary nodes. O(body size) per body.
std::vector<std::pair<std::string, AnalysisReport>> analyze_subgraphs(const Graph& graph, NodeId node, const DeviceSpec& device);

}  // namespace weft::core
