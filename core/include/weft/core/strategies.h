#pragma once
// Scheduling strategies: pure functions of graph, costs and options, found by name.
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/cost_model.h"
#include "weft/core/graph.h"
#include "weft/core/schedule.h"

namespace weft::core {

inline constexpr int kDefaultMaxStreams = 8;  ///< the hardware's default number of work queues

struct StrategyOptions {
  int max_streams = kDefaultMaxStreams;
  /// Operators predicted shorter than this stay on a producer's stream. < 0: automatic
  /// (two event costs of the device: 2 × (record + wait)).
  double granularity_us = -1;
};

/// Names of the registered strategies: sequential, seed-greedy, level-rr, chains, cp-list, resource-aware.
std::vector<std::string> strategy_names();

/// Runs a strategy; the result is validated and carries its minimal events (compute_events).
/// Errors: Usage for an unknown name (the message lists the known ones).
Expected<Schedule> make_schedule(std::string_view strategy, const Graph& graph, const CostTable& costs,
                                 const DeviceSpec& device, const StrategyOptions& options = {});

}  // namespace weft::core
