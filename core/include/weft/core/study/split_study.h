#pragma once
// Choosing the micro-batch split: for each k that divides the batch (1, 2, 4, ...), the model
// split k ways and scheduled by split-overlap, its prediction against the unsplit model's
// sequential baseline in the same launch mode; the fastest k wins, and k = 1 (no split) is always
// a candidate. `weft schedule/plan/simulate/run --split`, `weft sweep`, `weft advise` and the
// studio take their split from here.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/strategy/strategies.h"

namespace weft::core {

/// The strategy name of micro-batch splitting.
inline constexpr const char* kSplitOverlap = "split-overlap";

struct SplitOptions {
  int k = 0;                           ///< 0: choose (auto); > 0: this k (refused when it cannot split)
  int max_k = 8;                       ///< auto tries 1, 2, 4, ... up to this
  LaunchMode mode = LaunchMode::Graph; ///< the launch mode predictions are made in
  StrategyOptions strategy;            ///< stream cap etc. for split-overlap (cuda_graph follows mode)
  /// A larger k must predict at least this much faster than the best smaller one (a guard against
  /// splitting for a rounding-level gain): 2%.
  double min_gain = 0.02;
};

struct SplitCandidate {
  int k = 1;
  double predicted_us = 0;  ///< split-overlap on the model split k ways, in the options' mode
  double speedup = 0;       ///< unsplit sequential / predicted
};

struct SplitChoice {
  int k = 1;
  std::optional<Graph> graph;  ///< the model split k ways (k = 1: rebuilt unchanged)
  CostTable costs; ///< estimate_costs(graph, device)
  double sequential_us = 0;  ///< the unsplit model's reference schedule, same device and mode
  double predicted_us = 0;   ///< split-overlap on `graph`
  double speedup() const { return predicted_us > 0 ? sequential_us / predicted_us : 1.0; }
  std::vector<SplitCandidate> candidates;  ///< every k tried, ascending
  std::string refused;  ///< why the model cannot split (check_batch_split's reason), "" when it can
};

/// Splits `graph` (options.k) or chooses k by prediction (options.k = 0). Auto never fails on a
/// model that mixes the batch: it returns k = 1 with `refused` set. Errors (InvalidInput): a
/// given k that split_batch refuses (the node and reason), a device without rates to predict.
/// Cost: per k tried a split, a cost table and split-overlap's search (about a dozen simulations).
Expected<SplitChoice> choose_split(const Graph& graph, const DeviceSpec& device, const SplitOptions& options = {});

/// The unsplit model's sequential baselines, which a split model's figures are quoted against
/// (the split graph's own sequential run already overlaps nothing but is not the model the user
/// opened).
struct UnsplitBaseline {
  int k = 1;                       ///< the split's micro-batch count
  std::int64_t batch = 0;          ///< the unsplit model's batch
  double sequential_eager_us = 0;  ///< reference_schedule of the unsplit model, a launch per node
  double sequential_graph_us = 0;  ///< the same replayed as one CUDA Graph
  double sequential_us(LaunchMode mode) const {
    return mode == LaunchMode::Graph ? sequential_graph_us : sequential_eager_us;
  }
  /// A split schedule's predicted makespan against the unsplit model's sequential run in `mode`
  /// (what the split's own summary quotes); 0 when either is unknown.
  double speedup(LaunchMode mode, double makespan_us) const {
    return makespan_us > 0 && sequential_us(mode) > 0 ? sequential_us(mode) / makespan_us : 0.0;
  }
};

/// A model split as a user asks for it (`--split K|auto` in weft and weft-studio): the graph, its
/// costs and one line saying what was done, e.g. "split: k=4 of batch 8 (split-overlap predicts
/// 1.22x over the unsplit sequential graph run)".
struct AppliedSplit {
  Graph graph;
  CostTable costs;
  std::string summary;
  /// The unsplit model's baselines (absent where the device has no rates to predict with).
  std::optional<UnsplitBaseline> unsplit;
};
/// options.k = 0 chooses by prediction; k > 0 splits that many ways, predicted where the device
/// has rates (choose_split), unpredicted where it has none. Errors as choose_split.
Expected<AppliedSplit> apply_split(const Graph& graph, const DeviceSpec& device, const SplitOptions& options);

/// Parses a `--split` value: "auto" (0) or K in 1..4096. Otherwise InvalidInput quoting the value
/// (front ends report it as a usage error of their option).
Expected<int> parse_split(std::string_view text);

}  // namespace weft::core
