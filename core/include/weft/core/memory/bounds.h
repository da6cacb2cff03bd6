#pragma once
// Lower bounds on any arena: the busiest step of one order, the concurrent bound over the
// schedule's partial order, and the interval bound of raw instances.
#include <cstdint>
#include <span>
#include <vector>

#include "weft/core/memory/allocation_problem.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"

namespace weft::core {

/// Largest weight of a clique of the conflict graph found by the positions: the max over
/// positions of the sizes of blocks whose [start, end] contains it. A lower bound on any arena
/// when conflicts are exactly position-interval overlaps (one stream, raw intervals). O(B log B).
std::int64_t interval_lower_bound(const AllocationProblem& problem);

/// Max over steps of the live bytes when the nodes run one at a time in `order` (a tensor is
/// live from its producer's step through its last reader's step). O(V + E + T).
std::int64_t linear_lower_bound(const Graph& graph, std::span<const NodeId> order, const PlanOptions& options = {});

struct ConcurrentBound {
  std::int64_t bytes = 0;              ///< weight of a maximum-weight antichain of dead-before
  std::vector<TensorId> antichain;     ///< its tensors: pairwise conflicting, all live at once on some run
  /// False past the flow's size guard (250k planned tensors on several streams): then bytes is
  /// the busiest step of one linearisation of H, a valid bound that may be lower than the exact one.
  bool exact = true;
};

/// The concurrent lower bound, exactly: the maximum-weight antichain of the dead-before order,
/// as Σ size − max flow in the split network (weighted Dilworth / min flow). The network follows
/// H's generating edges (data, stream order, events); each tensor enters it at its dead-from
/// frontier (at most one node per stream, from the ExecutionOrder), so it is O(V + E + T·S) in size
/// and needs no closure. An initial flow along the stream chains (O(V + T·S)) leaves the max flow
/// little to do: a few shortest augmenting paths, then Dinic's phases if more remain. One stream: the busiest step, exactly,
/// O(V + E + T). Past 250k planned tensors on several streams: the busiest step of a
/// linearisation (exact = false).
/// Errors: InvalidInput when the schedule deadlocks or misplaces nodes.
Expected<ConcurrentBound> concurrent_lower_bound(const Graph& graph, const Schedule& schedule,
                                                 const PlanOptions& options = {});
/// The same from the schedule's execution order already built (with clocks: build or validate).
ConcurrentBound concurrent_lower_bound(const Graph& graph, const ExecutionOrder& order, const PlanOptions& options = {});

namespace detail {
/// Augmenting paths the max flow finds by plain breadth-first searches before Dinic's phases.
inline constexpr int kDirectAugmentingPaths = 8;
/// concurrent_lower_bound with another number of direct searches (the tests run Dinic's phases
/// alone with 0: the same bound and antichain).
ConcurrentBound concurrent_lower_bound(const Graph& graph, const ExecutionOrder& order, const PlanOptions& options,
                                       int direct_paths);
}  // namespace detail

}  // namespace weft::core
