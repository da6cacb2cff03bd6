#pragma once
// Memory planning under concurrency: partial-order liveness, planners, bounds, checker,
// growth over a run, and raw interval instances (MiniMalloc's CSV format).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/execution_order.h"
#include "weft/core/graph.h"
#include "weft/core/memory_plan.h"
#include "weft/core/schedule.h"
#include "weft/core/timeline.h"

namespace weft::core {

struct PlanOptions {
  std::int64_t alignment = kDefaultAlignment;
  bool outputs_in_arena = false;
  /// Work budget of the `exact` planner's canonical search (one unit: a search node or a placement
  /// tried), and again of `best`'s iterated greedy, local search and, on interval structure, skyline
  /// restarts when the exact search did not prove optimality (there a decoded visiting order costs
  /// 1 + (blocks + conflicts) / 64). Results depend only on the budget and the seed. Both stop
  /// when they reach the lower bound. 0: greedy seeds only.
  std::int64_t search_steps = 200'000;
  /// Wall-clock cap on each of the same searches, ms (a guard for huge instances or starved
  /// machines; when it, not search_steps, ends a search, the result depends on timing). 0: greedy
  /// seeds only.
  double search_ms = 1000;
  std::uint64_t seed = 1;  ///< the search's random seed (results are deterministic for a seed)
};

// ---------------------------------------------------------------------------------------------
// Allocation instances: the common ground of tensors under a schedule and raw intervals.

/// Blocks to place in one arena. Two blocks that conflict may not share bytes. start/end is a
/// closed position interval in some linear order (tensors: producer and last reader in a
/// linearisation of the schedule); planners use it only as an ordering hint, never for validity.
struct AllocationProblem {
  std::vector<std::int64_t> size;               ///< per block, > 0, multiple of alignment
  std::vector<std::int64_t> start, end;         ///< per block, start <= end
  std::vector<std::vector<std::int32_t>> conflicts;  ///< symmetric adjacency, sorted, no self
  std::int64_t alignment = 1;
  /// True when conflicts are exactly the overlaps of [start, end] (one stream, raw intervals):
  /// the exact skyline search and the interval bound apply.
  bool conflicts_are_overlaps = false;
  std::size_t block_count() const { return size.size(); }
};

/// Offsets of the blocks of an AllocationProblem.
struct Placement {
  std::string planner;
  std::vector<std::int64_t> offset;  ///< per block
  std::int64_t arena_bytes = 0;      ///< max over blocks of offset + size
};

/// Planner names: greedy-by-size, greedy-by-breadth, best-fit, exact, best. `exact` is a search
/// over canonical placements after MiniMalloc (Moffitt, ASPLOS 2023), generalised to any conflict
/// graph: optimal when it meets the lower bound within its budget, the best found otherwise.
/// `best` is `exact`, then (unless that was proven optimal) the iterated greedy and skyline search,
/// keeping the smaller arena.
std::vector<std::string> planner_names();

/// Fails (InvalidInput, listing the known names) for a name planner_names() lacks. O(planners).
Status check_planner(std::string_view planner);

/// Places the blocks with the named planner (see planner_names()). `lower_bound` (optional, 0:
/// unknown) lets `best` stop as soon as it is reached. Errors: as check_planner().
Expected<Placement> place_blocks(const AllocationProblem& problem, std::string_view planner,
                                 const PlanOptions& options = {}, std::int64_t lower_bound = 0);

/// Every block placed at an aligned, non-negative offset, no two conflicting blocks overlap,
/// arena_bytes covers every block. O(Σ degree).
Status check_placement(const AllocationProblem& problem, const Placement& placement);

/// Largest weight of a clique of the conflict graph found by the positions: the max over
/// positions of the sizes of blocks whose [start, end] contains it. A lower bound on any arena
/// when conflicts are exactly position-interval overlaps (one stream, raw intervals). O(B log B).
std::int64_t interval_lower_bound(const AllocationProblem& problem);

// ---------------------------------------------------------------------------------------------
// Liveness under a schedule.

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

// ---------------------------------------------------------------------------------------------
// Planners.

/// Plans the arena for `schedule` (liveness over its happens-before partial order).
/// Errors (InvalidInput): an unknown planner, a non-positive alignment, an invalid schedule.
/// Every placement passes check_placement (always checked); Debug builds also re-check the plan
/// with check_plan.
Expected<MemoryPlan> plan_memory(const Graph& graph, const Schedule& schedule, std::string_view planner = "best",
                                 const PlanOptions& options = {});

/// The same from a precomputed liveness (the CLI runs every planner on one liveness).
Expected<MemoryPlan> plan_memory(const Graph& graph, const Liveness& liveness, std::string_view planner,
                                 const PlanOptions& options = {}, std::int64_t lower_bound = 0);

/// Every planner of planner_names() on one liveness, in that order: the same plans as
/// plan_memory() per name, with the greedy decodings the `best` search starts from done once.
Expected<std::vector<MemoryPlan>> plan_memory_all(const Graph& graph, const Liveness& liveness,
                                                  const PlanOptions& options = {}, std::int64_t lower_bound = 0);

/// Verifies: every planned tensor placed, offsets aligned, no two conflicting tensors overlap
/// (conflict = neither dead-before the other under the schedule's happens-before).
/// The error names the two tensors (or the unplaced one).
Status check_plan(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan);
/// The same under an execution order already built (with clocks: build or validate).
Status check_plan(const Graph& graph, const ExecutionOrder& order, const MemoryPlan& plan);

// ---------------------------------------------------------------------------------------------
// Bounds.

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
/// and needs no closure. An initial flow along the stream chains (O(V + T·S)) leaves Dinic's max
/// flow little to do (100k nodes on 4 streams: ~0.3 s). One stream: the busiest step, exactly,
/// O(V + E + T). Past 250k planned tensors on several streams: the busiest step of a
/// linearisation (exact = false).
/// Errors: InvalidInput when the schedule deadlocks or misplaces nodes.
Expected<ConcurrentBound> concurrent_lower_bound(const Graph& graph, const Schedule& schedule,
                                                 const PlanOptions& options = {});
/// The same from the schedule's execution order already built (with clocks: build or validate).
ConcurrentBound concurrent_lower_bound(const Graph& graph, const ExecutionOrder& order, const PlanOptions& options = {});

/// A topological order whose peak live bytes is no higher than the file order's (memory-aware
/// sequential order): greedy list scheduling that, among ready nodes, runs the one with the
/// smallest net allocation (bytes it allocates minus bytes it frees), tried with a few tie
/// rules; the file order is kept when nothing beats it. Ready nodes sit in a priority queue
/// keyed by their net allocation, re-keyed lazily when a tensor's last pending reader changes:
/// O(k · (V + E) log V).
std::vector<NodeId> memory_aware_order(const Graph& graph);

// ---------------------------------------------------------------------------------------------
// Growth (for the studio's chart and the CLI).

/// Live bytes and arena high-water along a run. Steps follow a linearisation of the schedule's
/// happens-before (or the timeline's start times when given).
struct MemoryGrowth {
  std::vector<NodeId> steps;                 ///< node run at each step
  std::vector<std::int64_t> live_bytes;      ///< per step: planned bytes live during the step
  std::vector<std::int64_t> high_water;      ///< per step: max offset+size of any tensor allocated so far
  std::vector<CounterSample> live_over_time;       ///< with a timeline: step function samples
  std::vector<CounterSample> high_water_over_time; ///< with a timeline
};

/// Growth of `plan` under `schedule`; with `timeline`, also over time (a tensor lives from its
/// producer's start to its last reader's end). O(V + E + T + items log items).
Expected<MemoryGrowth> memory_growth(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan,
                                     const Timeline* timeline = nullptr);
/// The same along the steps of an execution order already built (any build; unused with a
/// timeline). Errors (InvalidInput): a plan or timeline that does not match the model.
Expected<MemoryGrowth> memory_growth(const Graph& graph, const ExecutionOrder& order, const MemoryPlan& plan,
                                     const Timeline* timeline = nullptr);

// ---------------------------------------------------------------------------------------------
// Raw interval instances (MiniMalloc CSV: `id,lower,upper,size`, half-open [lower, upper)).

struct IntervalInstance {
  std::vector<std::string> ids;
  std::vector<std::int64_t> lower, upper, size;
};

/// Parses the CSV (header line first; blank lines ignored). Errors: InvalidInput naming the
/// source and line (bad number, upper <= lower, size <= 0, duplicate id, wrong column count,
/// a time over 2^40, a size over 2^48 bytes or sizes totalling over 2^60: planners add them).
Expected<IntervalInstance> parse_minimalloc_csv(std::string_view text, std::string_view source_name = "csv");

/// Blocks = intervals; conflict iff the half-open lifetimes overlap. Alignment 1. O(n log n + C).
AllocationProblem interval_problem(const IntervalInstance& instance);

}  // namespace weft::core
