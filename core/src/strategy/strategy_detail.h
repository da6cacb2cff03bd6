#pragma once
// Internals of the strategies: their shared inputs and the helpers that turn a stream
// assignment plus a topological order into a Schedule.
#include <vector>

#include "weft/core/strategy/registry.h"

namespace weft::core::detail {

using core::StrategyInput;

/// Registers the strategy files listed in core/src/strategy/CMakeLists.txt (generated).
void register_builtin_strategies();

/// StrategyInput for `options` on `graph`: granularity resolved, per-node times from `costs`.
StrategyInput make_input(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                         const StrategyOptions& options);

/// Streams from an assignment: stream s lists its nodes in `order` (a topological order of the
/// graph, so every stream order agrees with it and data ∪ stream order stays acyclic). Empty
/// streams are dropped and the rest renumbered by first appearance in `order`. O(V).
Schedule from_assignment(std::vector<int> stream_of, const std::vector<NodeId>& order);

/// Granularity: a node predicted shorter than options.granularity_us whose stream holds none of
/// its producers moves to the stream of its latest-finishing producer (an event would cost
/// about as much as the overlap could gain). O(V + E).
void keep_small_on_producer_stream(const StrategyInput& in, std::vector<int>& stream_of);

/// Cost-weighted earliest start of every node (ASAP in time). O(V + E).
std::vector<double> earliest_start(const StrategyInput& in);
/// Upward rank (HEFT): time of v plus the longest rank among its successors, each successor
/// edge charged `edge_us`. O(V + E).
std::vector<double> upward_rank(const StrategyInput& in, double edge_us);
/// Nodes sorted by key ascending (descending when `descending`), ties by topological rank; a
/// topological order whenever the key never decreases (increases) along an edge. O(V log V).
std::vector<NodeId> order_by(const Graph& graph, const std::vector<double>& key, bool descending);

}  // namespace weft::core::detail
