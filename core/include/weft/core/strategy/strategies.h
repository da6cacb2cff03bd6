#pragma once
// Scheduling strategies: pure functions of graph, costs and options, found by name.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/analysis/antichain.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"

namespace weft::core {

inline constexpr int kDefaultMaxStreams = 8;  ///< the hardware's default number of work queues

struct StrategyOptions {
  int max_streams = kDefaultMaxStreams;
  /// Operators predicted shorter than this stay on a producer's stream. < 0: automatic
  /// (eager launches: two event costs of the device, 2 × (record + wait); CUDA Graph replay: 0).
  double granularity_us = -1;
  /// The schedule will be replayed as a CUDA Graph: cross-stream dependencies become graph
  /// edges that cost the host nothing, so the automatic granularity splits at every operator.
  bool cuda_graph = false;

  /// `search`: stop after this much wall time (anytime: the best schedule so far is returned) ...
  double search_budget_ms = 2000;
  /// ... or after this many simulated candidates (> 0; with a large time budget the result then
  /// depends only on the seed, not on the machine's speed).
  std::int64_t search_evaluations = 0;
  std::uint64_t seed = 1;  ///< seeds randomised strategies (search)
  /// Called by long strategies now and then with the fraction done (0..1) and the best predicted
  /// makespan so far (µs); returning false stops them early (they still return their best).
  std::function<bool(double fraction, double best_us)> progress;
  /// The scheduled graph's min_chain_cover() where a pipeline already has it (analyze(), or made
  /// once for several strategies): chains and resource-aware take it instead of computing it
  /// again (the same cover, so the same schedules). It must be of the graph being scheduled.
  std::shared_ptr<const ChainCover> chain_cover;
};

/// A search given a count of candidates and no time limit runs to the count, whatever the time.
inline constexpr double kUnlimitedSearchMs = 1e12;

/// Strategy options as a front end takes them (`--streams`, `--granularity`, `--budget-ms`,
/// `--search-evals`, `--search-seed`; Python's keywords): what is not given keeps its default.
struct StrategyRequest {
  std::optional<std::int64_t> max_streams;
  std::optional<double> granularity_us;  ///< absent: automatic
  bool cuda_graph = false;
  std::optional<double> search_budget_ms;
  std::optional<std::int64_t> search_evaluations;
  std::optional<std::int64_t> seed;
};

/// The options a request means, checked: a stream cap in 1..kMaxScheduleStreams, a granularity
/// >= 0, a search budget > 0, a count of candidates > 0 (alone: no time limit, so the result
/// depends on the seed only), a seed >= 0. Errors (InvalidInput) name the option and the value;
/// the front ends report them as usage errors. O(1).
Expected<StrategyOptions> strategy_options_for(const StrategyRequest& request);

/// The granularity threshold the options mean on `device`: granularity_us, or when automatic
/// 2 × (event record + event wait) for eager launches and 0 under CUDA Graph replay.
double resolved_granularity_us(const StrategyOptions& options, const DeviceSpec& device);

/// Warnings for people about a schedule made with `options` (a stream cap above the device's
/// hardware work queues, a strategy that opened more streams than the cap). Empty when none.
std::vector<std::string> schedule_warnings(const Schedule& schedule, const StrategyOptions& options,
                                           const DeviceSpec& device);

/// Checks a strategy request before any work: a registered name and a stream cap in
/// 1..kMaxScheduleStreams. Errors (InvalidInput) name the problem; an unknown name lists the
/// known ones. Front ends call it to refuse a bad option early (the CLI reports it as usage). O(1).
Status check_strategy(std::string_view strategy, const StrategyOptions& options = {});

/// Runs a strategy; the result is validated and carries its minimal events (compute_events).
/// Errors: as check_strategy() (InvalidInput).
/// Cost: O((V + E) · streams) for every strategy but chains and resource-aware, which add
/// min_chain_cover's cost unless options.chain_cover holds it. Only seed-greedy ignores the stream cap (as the seed's algorithm does).
Expected<Schedule> make_schedule(std::string_view strategy, const Graph& graph, const CostTable& costs,
                                 const DeviceSpec& device, const StrategyOptions& options = {});

}  // namespace weft::core
