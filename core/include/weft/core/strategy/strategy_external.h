#pragma once
// External strategies: a program in any language reads the graph, costs, device and options as
// JSON on its standard input and writes a schedule JSON on its standard output
// (docs/strategy-protocol.md). Weft runs it directly (no shell) and validates what comes back
// like any imported schedule.
#include <string>
#include <vector>

#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/strategy/strategies.h"

namespace weft::core {

/// The strategy input ("weft-strategy-input", version 1): model, device, resolved options
/// (granularity as a number of µs), nodes with their costs and tensors, tensors, edges (distinct
/// producer -> consumer index pairs) and a topological order. O(V + E + tensors).
std::string strategy_input_json(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                                const StrategyOptions& options);

struct ExternalStrategy {
  std::vector<std::string> argv;  ///< the program and its arguments, passed as they are
  double timeout_s = 60;          ///< killed after this long
};

/// Runs the program on strategy_input_json(...) and imports its standard output as schedule JSON
/// (events may be omitted: the minimal ones are computed). The schedule's strategy is "external"
/// (or "external <name>" when the output names one) and its options name the program. Errors:
/// Runtime when the program cannot start, exits non-zero, dies of a signal or times out (with the
/// end of its stderr); InvalidInput when its output is not a valid schedule for the model (unknown,
/// missing or duplicate nodes, deadlocks: the import's reason). O(input + output + validation).
Expected<Schedule> run_external_strategy(const ExternalStrategy& program, const Graph& graph, const CostTable& costs,
                                         const DeviceSpec& device, const StrategyOptions& options);

}  // namespace weft::core
