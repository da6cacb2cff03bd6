#pragma once
// Internals of the strategies: their shared inputs and the helpers that turn a stream
// assignment plus a topological order into a Schedule.
#include <vector>

#include "weft/core/strategies.h"

namespace weft::core::detail {

/// What every strategy gets: the graph, costs, device and resolved options (granularity ≥ 0).
struct StrategyInput {
  const Graph& graph;
  const CostTable& costs;
  const DeviceSpec& device;
  StrategyOptions options;
  std::vector<double> time_us;  ///< per node (1 µs where the table has no entry)
  double event_us = 0;          ///< one record + one wait
};

Schedule sequential(const StrategyInput& in);
Schedule seed_greedy(const StrategyInput& in);
Schedule level_rr(const StrategyInput& in);
Schedule chains(const StrategyInput& in);
Schedule cp_list(const StrategyInput& in);
Schedule resource_aware(const StrategyInput& in);

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
