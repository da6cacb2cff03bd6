#pragma once
// Schedules under a memory budget: a schedule whose planned arena exceeds the budget is made to
// fit by serialising concurrent live ranges (ordering events: every reader of one tensor before
// the producer of the other, so the two may share bytes) and, failing that, by merging streams,
// always choosing the change that costs the least predicted time. `weft schedule/plan/simulate/run
// --memory-budget` and the studio's strategy panel all call fit_memory_budget().
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "weft/core/memory/allocation_problem.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"
#include "weft/core/memory/memory_plan.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/strategy/reference.h"

namespace weft::core {

class ExecutionOrder;

/// Parses a byte count: digits with an optional unit B, KB/MB/GB (powers of 1000) or KiB/MiB/GiB
/// (powers of 1024), case-insensitive, optional space before the unit and a decimal fraction
/// ("4MiB", "1.5 GB", "4194304"). Errors (InvalidInput) name the text; the value must be > 0.
Expected<std::int64_t> parse_byte_size(std::string_view text);

struct BudgetOptions {
  std::int64_t budget_bytes = 0;  ///< > 0
  LaunchMode mode = LaunchMode::Eager;  ///< the launch mode predictions are made in
  std::string planner{kReferencePlanner};  ///< the planning the arena is judged by (as the study's)
  PlanOptions plan = reference_plan_options();
  /// Most serialisations tried on one set of streams before a merge of two streams is tried.
  int max_serialisations = 64;
  /// Polled between steps (may be empty): true stops the fit with a Runtime error "cancelled"
  /// (the studio cancels a front it no longer needs).
  std::function<bool()> cancelled;
};

/// A schedule that fits the budget and what fitting it cost.
struct BudgetFit {
  Schedule schedule;                 ///< valid; its planned arena is within the budget
  MemoryPlan plan;                   ///< schedule's plan with the options' planning
  std::int64_t budget_bytes = 0;
  std::int64_t original_arena_bytes = 0;    ///< the schedule as given
  std::int64_t sequential_arena_bytes = 0;  ///< reference_schedule()'s (0 when not needed: it fitted as given)
  double original_us = 0;  ///< predicted makespan of the schedule as given (ideal makespan without device rates)
  double fitted_us = 0;    ///< the same for `schedule`
  std::size_t ordering_events = 0;  ///< events added beyond the data dependencies' minimal set
  std::size_t serialised_pairs = 0; ///< live-range pairs serialised
  std::size_t merged_streams = 0;   ///< streams merged away
  bool sequential = false;          ///< fell back to the reference schedule
  /// make_budgeted_schedule only: the strategy was made again with at most this many streams
  /// before fitting, which lost less time than fitting its schedule as asked (0: as asked).
  int stream_cap = 0;
  bool changed() const { return serialised_pairs > 0 || merged_streams > 0 || sequential || stream_cap > 0; }
  /// fitted_us - original_us: what the budget cost in predicted time (µs, >= 0 unless the
  /// reference happened to predict faster).
  double cost_us() const { return fitted_us - original_us; }
  /// One line for people: "fits as it is (arena A <= budget B)" or "arena A -> A' within budget B:
  /// serialised 3 live-range pairs (4 events), merged 1 stream; predicted T -> T' us (+x%)".
  std::string summary() const;
};

/// Predicted makespan of `schedule` in `mode` (simulate()), or its ideal makespan plus the
/// events' host cost when the device has no rates. O(simulate()).
double predicted_makespan_us(const Graph& graph, const Schedule& schedule, const CostTable& costs,
                             const DeviceSpec& device, LaunchMode mode);
/// The same from the schedule's execution order already built (with its events).
double predicted_makespan_us(const Graph& graph, const ExecutionOrder& order, const CostTable& costs,
                             const DeviceSpec& device, LaunchMode mode);

/// Makes `schedule` fit `options.budget_bytes`. When its arena already fits it is returned as it
/// is. Otherwise, repeatedly: among pairs of conflicting tensors that hold the arena up (those of
/// the maximum-weight antichain while the concurrent bound exceeds the budget, else a tensor
/// placed above the budget and a neighbour), each orderable without a cycle, the ordering that
/// predicts fastest is added as events (reader of a -> producer of b), until the plan fits; when
/// serialising stalls, the two streams whose merge predicts fastest are merged and serialising
/// resumes. The reference schedule is the last resort, and is also taken when it predicts faster
/// than the fitted schedule. Errors: InvalidInput for a budget <= 0, an invalid schedule, unresolved
/// dimensions (tensor sizes unknown: require_bound_dims), or a
/// budget below the reference schedule's arena (even the sequential order does not fit; the
/// message gives both figures). Cost: a plan and a few simulations per step, at most
/// max_serialisations steps per stream count.
Expected<BudgetFit> fit_memory_budget(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                                      Schedule schedule, const BudgetOptions& options);

/// make_schedule(strategy, ...) then fit_memory_budget(): the strategy's schedule under a budget.
/// Where that fit changed the schedule and the strategy is a fixed one (not `search`), the
/// strategy is also made under halved stream caps (the schedule's stream count halved, rounding
/// up, down to 2) and each is fitted: the fastest fit wins (ties: the larger cap), with
/// `stream_cap` set and `original_*` still the schedule as asked; a cap whose schedule or fit
/// fails is skipped.
/// The schedule's options text gains "memory_budget=B". Cost: up to 1 + log2(streams) fits.
Expected<BudgetFit> make_budgeted_schedule(std::string_view strategy, const Graph& graph, const CostTable& costs,
                                           const DeviceSpec& device, const StrategyOptions& strategy_options,
                                           const BudgetOptions& options);
/// The same for a schedule already made from `strategy` with `strategy_options` (so the caller
/// may warn about it first).
Expected<BudgetFit> fit_strategy_schedule(std::string_view strategy, const Graph& graph, const CostTable& costs,
                                          const DeviceSpec& device, const StrategyOptions& strategy_options,
                                          Schedule made, const BudgetOptions& options);

}  // namespace weft::core
