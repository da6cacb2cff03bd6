#pragma once
// The speed-versus-memory front of a model: predicted time against planned arena over every
// strategy, several stream caps and budget-constrained variants (fit_memory_budget), with the
// Pareto-optimal points marked. `weft frontier` prints it; the studio's memory view plots it and
// applies a point on click.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/memory_budget.h"

namespace weft::core {

struct FrontierOptions {
  /// Granularity and launch mode (cuda_graph) of every strategy; max_streams is replaced by each cap.
  StrategyOptions strategy;
  std::vector<int> stream_caps{1, 2, 4, 8};
  /// Budgets spread evenly between the sequential arena and the fastest schedule's arena (both
  /// ends excluded, plus the sequential arena itself); the unconstrained front's points and the six
  /// fastest schedules are each fitted to every budget below their arena.
  int budget_levels = 3;
  std::string planner{kReferencePlanner};
  PlanOptions plan = reference_plan_options();
  /// Polled between schedules and inside budget fits (may be empty): true stops with a Runtime
  /// error "cancelled".
  std::function<bool()> cancelled;
};

/// One schedule on the plane.
struct FrontierPoint {
  std::string strategy;
  int stream_cap = 0;
  std::int64_t budget_bytes = 0;  ///< 0: unconstrained
  Schedule schedule;
  std::int64_t arena_bytes = 0;
  double predicted_us = 0;  ///< predicted_makespan_us() in the options' launch mode
  double speedup = 1;       ///< sequential_us / predicted_us
  bool on_front = false;
  /// "cp-list, 4 streams" or "cp-list, 4 streams, budget 3.20 MiB".
  std::string label() const;
};

struct Frontier {
  LaunchMode mode = LaunchMode::Eager;
  double sequential_us = 0;               ///< the reference schedule's prediction
  std::int64_t sequential_arena_bytes = 0;
  std::vector<FrontierPoint> points;      ///< distinct schedules, by arena then predicted time
  /// Indices into points of the Pareto front, by arena ascending: predicted time strictly
  /// decreases along it (more memory never predicts slower).
  std::vector<std::size_t> front;
};

/// The points' Pareto front (indices by arena ascending; a point is kept when it predicts faster
/// than every point with no more memory; of equal points the first). O(P log P).
std::vector<std::size_t> pareto_front(const std::vector<FrontierPoint>& points);

/// Every fixed strategy (fixed_strategy_names()) × stream cap (distinct schedules only), planned and predicted, then the
/// budget-constrained variants (of the front's points and the fastest six), then the front.
/// Errors: the strategies', planners' and fit_memory_budget's (InvalidInput), and unresolved dimensions
/// (tensor sizes unknown: require_bound_dims). Cost: (strategies ×
/// caps) plans and predictions plus (front + 6) × (budget_levels + 1) fits.
Expected<Frontier> memory_frontier(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                                   const FrontierOptions& options = {});

/// The front as CSV (RFC 4180): every point, with an on_front column. O(P).
std::string frontier_csv(const Frontier& frontier);

/// The front as an SVG plot: every point (grey), the front as a step line, the sequential point
/// and axes with MiB and µs ticks. `current` (when >= 0 bytes) marks a schedule not in the set.
std::string frontier_svg(const Frontier& frontier, std::string_view title, std::int64_t current_arena = -1,
                         double current_us = 0);

}  // namespace weft::core
