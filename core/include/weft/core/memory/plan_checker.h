#pragma once
// Checks of placements and memory plans: aligned, placed, no two conflicting blocks overlap.

#include "weft/core/memory/allocation_problem.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/graph/graph.h"
#include "weft/core/memory/liveness.h"
#include "weft/core/memory/memory_plan.h"
#include "weft/core/schedule/schedule.h"

namespace weft::core {

/// Every block placed at an aligned, non-negative offset, no two conflicting blocks overlap,
/// arena_bytes covers every block. O(Σ degree).
Status check_placement(const AllocationProblem& problem, const Placement& placement);

/// Verifies: every planned tensor placed, offsets aligned, no two conflicting tensors overlap
/// (conflict = neither dead-before the other under the schedule's happens-before).
/// The error names the two tensors (or the unplaced one).
Status check_plan(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan);
/// The same under an execution order already built (with clocks: build or validate). Past
/// `max_conflict_pairs` possibly concurrent pairs (0: no limit) they are not listed: the check
/// sweeps the liveness's conservative ranges and tests by the clocks only the pairs that also share
/// bytes, with the same verdicts.
Status check_plan(const Graph& graph, const ExecutionOrder& order, const MemoryPlan& plan,
                  std::int64_t max_conflict_pairs = PlanOptions{}.max_conflict_pairs);

/// check_plan of several plans against one schedule (every planner's, say): the checker's own
/// liveness is built once for plans of one alignment and outputs_in_arena setting, and each
/// check() is then O(Σ degree) (or the range sweep past max_conflict_pairs). A plan of other
/// settings is checked with a liveness of its own. Holds references to graph and order.
class PlanChecker {
 public:
  PlanChecker(const Graph& graph, const ExecutionOrder& order, std::int64_t alignment, bool outputs_in_arena,
              std::int64_t max_conflict_pairs = PlanOptions{}.max_conflict_pairs);
  /// check_plan's verdicts and messages.
  Status check(const MemoryPlan& plan) const;

 private:
  const Graph& m_graph;
  const ExecutionOrder& m_order;
  std::int64_t m_max_conflict_pairs;
  bool m_outputs_in_arena = false;
  Liveness m_live;
};

}  // namespace weft::core
