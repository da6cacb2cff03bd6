#pragma once
// Repairing a memory plan after the schedule changed: keep every offset that is still valid,
// move only the tensors that may now be live at once with a tensor sharing their bytes.
#include <cstddef>

#include "weft/core/schedule/execution_order.h"
#include "weft/core/base/expected.h"
#include "weft/core/graph/graph.h"
#include "weft/core/memory/memory_plan.h"

namespace weft::core {

struct PlanRepair {
  /// False when more than max_moved tensors would have to move: `plan` is then empty (`moved`
  /// says how many), and planning afresh is the better tool.
  bool complete = true;
  MemoryPlan plan;                ///< valid under the order it was repaired for (planner "repaired")
  std::size_t moved = 0;          ///< planned tensors given a new offset
  /// Pairs of planned tensors that share bytes in the old plan while their conservative live
  /// ranges under the new order overlap: each was tested by the clocks.
  std::size_t shared_pairs = 0;
  std::size_t conflicts = 0;      ///< of those, the pairs that may be live at once under the new order
};

/// Makes `previous` (a plan of the same graph, usually for the schedule before an edit) valid
/// under `order` (with clocks: build or validate) at the least disturbance: each pair of planned
/// tensors that share bytes in `previous` while their conservative live ranges overlap (a sweep;
/// no other pair can be live at once) is tested by the clocks (neither dead-before the other: the
/// liveness definition); a small vertex cover of the pairs that conflict now is taken out
/// (the tensor in more such pairs, then the smaller), and each taken tensor, largest first, goes
/// to the lowest aligned offset free of every placed tensor it conflicts with (first fit). Every
/// other offset is kept, so a plan already valid comes back unchanged and a local edit moves a
/// few tensors; the arena may grow, never shrinks. The result passes check_plan. Views are
/// placed inside their parents. Planned tensors `previous` left unplaced are placed the same way.
/// Errors (InvalidInput): a plan for another tensor count, with another alignment, or a tensor
/// given fewer bytes than it needs.
/// Cost: O((V + E)·S + T·R·S) for the dead-from frontiers and conservative ranges (T planned
/// tensors with R readers, S streams), O((T + P) log T) for the sweep meeting P pairs that share
/// bytes while their ranges overlap, O(T + k log k) per moved tensor with k
/// conflicting neighbours; no conflict list is built. `max_moved` bounds that last part: a repair
/// that would move more tensors stops before moving any (complete = false).
Expected<PlanRepair> repair_plan(const Graph& graph, const ExecutionOrder& order, const MemoryPlan& previous,
                                 std::size_t max_moved = static_cast<std::size_t>(-1));

}  // namespace weft::core
