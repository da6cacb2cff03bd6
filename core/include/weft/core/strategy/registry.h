#pragma once
// The Strategy interface and its registry. A strategy is one file: it implements Strategy (or a
// function) and registers itself; `weft schedule --strategy`, `--compare`, the studio's strategy
// panel and every other front end list what the registry holds.
//
// In this library a strategy file strategy_<id>.cpp defines its registration with
// WEFT_STRATEGY_FILE(<id>) { ... } and names <id> in core/src/strategy/CMakeLists.txt, whose
// generated list calls it (a static archive would otherwise drop a file nothing references).
// Programs that embed Weft call register_strategy() at start-up.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/strategy/registry.h"

namespace weft::core {

/// What every strategy gets: the graph, costs, device and options with the granularity resolved
/// (>= 0, resolved_granularity_us()).
struct StrategyInput {
  const Graph& graph;
  const CostTable& costs;
  const DeviceSpec& device;
  StrategyOptions options;
  std::vector<double> time_us;  ///< per node (1 µs where the table has no entry)
  double event_us = 0;          ///< one record + one wait
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  /// The name front ends list and --strategy takes: lower case, no spaces, unique.
  virtual std::string name() const = 0;
  /// One line for help texts and the studio.
  virtual std::string description() const = 0;
  /// Where the strategy sits in lists (lower first; built-ins use 10..100, others default 1000).
  virtual int rank() const { return 1000; }
  /// True for strategies that search under a budget (time, evaluations, seed) rather than
  /// construct one schedule; they run the fixed ones, so they must not call each other.
  virtual bool iterative() const { return false; }
  /// Streams in order (make_schedule() adds the minimal events and validates). May set
  /// Schedule::options to extra key=value words. Errors are reported as they are.
  virtual Expected<Schedule> schedule(const StrategyInput& input) const = 0;
};

/// Adds `strategy` to the registry. Errors (InvalidInput): no name, a name with spaces, a name
/// already registered. Thread-safe.
Status register_strategy(std::shared_ptr<const Strategy> strategy);

/// A strategy from a plain function, for strategy files.
std::shared_ptr<const Strategy> make_strategy(std::string name, std::string description, int rank,
                                              std::function<Expected<Schedule>(const StrategyInput&)> run,
                                              bool iterative = false);

struct StrategyInfo {
  std::string name;
  std::string description;
  bool iterative = false;
};
/// Every registered strategy, by rank then registration order.
std::vector<StrategyInfo> strategy_list();

/// Names of the registered strategies: sequential, seed-greedy, level-rr, chains,
/// cp-list, resource-aware, search, then any a program registered.
std::vector<std::string> strategy_names();
/// The names of the strategies that are not iterative: each builds one schedule, deterministically
/// and quickly (what search starts from, and what property tests sweep).
std::vector<std::string> fixed_strategy_names();

/// The registered strategy named `name`, or null. Thread-safe.
std::shared_ptr<const Strategy> find_strategy(std::string_view name);

}  // namespace weft::core

/// Defines the registration function of strategy file strategy_<id>.cpp; its body registers the
/// file's strategies (WEFT_CHECK(register_strategy(make_strategy(...))): a built-in that cannot
/// register is a bug).
#define WEFT_STRATEGY_FILE(id) void weft_register_strategy_file_##id()
