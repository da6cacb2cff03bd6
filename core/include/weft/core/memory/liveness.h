#pragma once
// Which planned tensors may share bytes under a schedule: partial-order liveness as an
// allocation problem.
#include <cstdint>
#include <span>
#include <vector>

#include "weft/core/memory/allocation_problem.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"

namespace weft::core {

/// The planned tensors of a graph under a schedule as an allocation problem: block i is tensor
/// tensors[i]. Tensor a is dead-before b iff every reader of a (its producer when it has none)
/// happens-before b's producer; a and b conflict iff neither is dead-before the other.
struct Liveness {
  std::vector<TensorId> tensors;  ///< planned tensors, in TensorId order
  std::vector<std::int32_t> block_of;  ///< per TensorId: block index, or -1
  AllocationProblem problem;
};

/// Builds the liveness of `schedule`. One stream: interval overlap by a sweep, O(T log T + C).
/// Several streams (S): vector clocks (the schedule's ExecutionOrder); each tensor's dead-from frontier (per
/// stream, the first node after all its readers) by binary search, and its conflicts as one index
/// range per stream: O((V + E)·S + T·S log V + C log C), no V² closure and no pair tests.
/// Errors: InvalidInput when the schedule deadlocks or misplaces nodes.
Expected<Liveness> compute_liveness(const Graph& graph, const Schedule& schedule, const PlanOptions& options = {});

/// The same from the schedule's execution order already built (with clocks when it has several
/// streams: build or validate), for pipelines that read one order in several passes.
Liveness compute_liveness(const Graph& graph, const ExecutionOrder& order, const PlanOptions& options = {});

/// Liveness for one linear order of all nodes (a one-stream schedule). O(V + E + T log T + C).
Liveness compute_linear_liveness(const Graph& graph, std::span<const NodeId> order, const PlanOptions& options = {});

}  // namespace weft::core
