#pragma once
// The memory report of a schedule: its arena (every planner, or one), the reference schedule's
// arena with the same planning, the bounds, growth along the run and the price of concurrency.
// `weft plan`, `weft schedule`, `weft simulate` and the studio's memory view all read it.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "weft/core/memory/allocation_problem.h"
#include "weft/core/memory/bounds.h"
#include "weft/core/graph/graph.h"
#include "weft/core/memory/memory_growth.h"
#include "weft/core/memory/memory_plan.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/strategy/reference.h"
#include "weft/core/schedule/timeline.h"

namespace weft::core {

class ExecutionOrder;

struct MemoryReportOptions {
  /// One planner, or kReferencePlanner ("") for every planner with the smallest arena kept.
  std::string planner{kReferencePlanner};
  PlanOptions plan = reference_plan_options();
  /// Growth per step (and over time where timelines are given) for both schedules.
  bool growth = false;
  const Timeline* timeline = nullptr;            ///< the schedule's (predicted) run, for growth over time
  const Timeline* reference_timeline = nullptr;  ///< the reference schedule's run
  /// Re-check every plan with check_plan (an independent liveness); a failure is Internal.
  bool verify = false;
  /// The reference schedule's plan from an earlier report with the same options (it depends only
  /// on the graph): reused instead of planned again, e.g. by the studio after every edit.
  const MemoryPlan* reference_plan = nullptr;
  /// reference_schedule(graph), when the caller already has it (else it is built here). Not read
  /// by the memory_report() that takes execution orders.
  const Schedule* reference = nullptr;
  /// Polled between the report's stages (bound, plan, the reference's plan, linear bounds,
  /// growth; optional): true stops it with a Runtime error "cancelled" (a newer edit in the studio).
  /// It may be called from the second thread too (see `parallel`).
  std::function<bool()> cancelled;
  /// On models of 1000 nodes or more, plan the reference schedule's side (its plan, the linear
  /// bounds, its growth) on a second thread beside the schedule's (Beside): the same report, in
  /// about the time of the longer side on two cores. False: one thread.
  bool parallel = true;
};

/// One planner's arena for the schedule.
struct PlannerArena {
  std::string planner;
  std::int64_t arena_bytes = 0;
};

struct MemoryReport {
  PlanOptions options;                 ///< the options planned with
  std::size_t planned_tensors = 0;
  std::vector<PlannerArena> planners;  ///< every planner tried, in planner_names() order
  MemoryPlan plan;                     ///< the schedule's plan: the smallest arena found
  MemoryPlan reference_plan;           ///< reference_schedule()'s plan, planned the same way
  ConcurrentBound bound;               ///< the schedule's concurrent lower bound
  std::int64_t linear_bound_bytes = 0;             ///< linear lower bound of the reference order
  std::int64_t file_order_linear_bound_bytes = 0;  ///< the same for the file's topological order
  std::int64_t no_reuse_bytes = 0;                 ///< every planned tensor in its own bytes
  MemoryGrowth growth, reference_growth;           ///< when asked for
  /// Made by repaired_memory_report: `plan` is an earlier schedule's plan repaired for this one
  /// (repair_plan), not planned afresh; memory_report's complete plan may be smaller.
  bool repaired = false;
  std::size_t repair_moved = 0;  ///< when repaired: tensors the repair gave a new offset

  std::int64_t arena_bytes() const { return plan.arena_bytes; }
  std::int64_t reference_arena_bytes() const { return reference_plan.arena_bytes; }
  /// Arena / concurrent bound (0 when the bound is 0).
  double bound_ratio() const;
  /// Arena / reference arena: the memory price of the schedule's concurrency (1 when either is 0).
  double price_of_concurrency() const;
};

/// The study's plan of `schedule`: every planner (or `planner` alone) on one liveness, the
/// smallest arena kept (ties: the earlier planner). `lower_bound` < 0: computed (the interval
/// bound for one stream, else concurrent_lower_bound); `best` stops when it reaches it. Each
/// planner's arena goes to `arenas` when given; `verify` re-checks every plan (Internal error).
Expected<MemoryPlan> study_plan(const Graph& graph, const Schedule& schedule, std::string_view planner = kReferencePlanner,
                                const PlanOptions& options = reference_plan_options(), std::int64_t lower_bound = -1,
                                std::vector<PlannerArena>* arenas = nullptr, bool verify = false);
/// The same from the schedule's execution order already built (with clocks: build or validate):
/// one order for the liveness, the bound and the checks.
Expected<MemoryPlan> study_plan(const Graph& graph, const ExecutionOrder& order, std::string_view planner = kReferencePlanner,
                                const PlanOptions& options = reference_plan_options(), std::int64_t lower_bound = -1,
                                std::vector<PlannerArena>* arenas = nullptr, bool verify = false);

/// Adds growth over time to a report made with `growth`: live and high-water bytes along the
/// schedule's run and the reference's (either may be null: that series stays empty). Studies
/// call it once the prediction they plan for exists. O(V + E + T log T) per run.
Status add_growth_over_time(const Graph& graph, MemoryReport& report,
                            const Timeline* timeline, const Timeline* reference_timeline);

/// Plans `schedule` and the reference schedule, computes the bounds and (optionally) growth.
/// Errors: InvalidInput for an unknown planner, a bad alignment, an invalid schedule or a graph
/// with unresolved dimensions ("the memory plan needs every tensor's size; unresolved: x: dim 0
/// 'batch' (bind the dimension)": its tensors would plan as zero bytes); Internal
/// when `verify` finds a planner's plan invalid. Cost: liveness and bound O((V + E)·S + T·S log V
/// + C log C), then the planners (the search is bounded by options.plan.search_steps).
Expected<MemoryReport> memory_report(const Graph& graph, const Schedule& schedule,
                                     const MemoryReportOptions& options = {});

/// The same from the execution orders (with clocks: build or validate) of the schedule and of the
/// reference schedule, built once by the caller (study_schedule reads them in every pass);
/// options.reference is not read.
Expected<MemoryReport> memory_report(const Graph& graph, const ExecutionOrder& order, const ExecutionOrder& reference,
                                     const MemoryReportOptions& options = {});

/// A provisional report of `order`'s schedule from an earlier report of the same graph and
/// planning options (the schedule's before an edit, complete or itself repaired): its plan
/// repaired for this schedule (repair_plan: valid, every offset that does not clash kept), this
/// schedule's concurrent bound and (with options.growth) growth per step; the reference's plan
/// and growth, the linear bounds and the no-reuse total are the earlier report's (they depend on
/// the graph only). `planners` holds one entry, "repaired". What the studio shows within a frame
/// of an edit while memory_report plans the schedule afresh. Empty when the repair would move more
/// than `max_moved` tensors (a new strategy rather than an edit: planning afresh is the tool).
/// Errors (InvalidInput): `previous` planned with another alignment or outputs setting than
/// options.plan, or repair_plan's (a report of another model). Cost: repair_plan +
/// concurrent_lower_bound + memory_growth, no planner search and no conflict list.
Expected<std::optional<MemoryReport>> repaired_memory_report(const Graph& graph, const ExecutionOrder& order,
                                                             const MemoryReport& previous,
                                                             const MemoryReportOptions& options = {},
                                                             std::size_t max_moved = static_cast<std::size_t>(-1));

}  // namespace weft::core
