#pragma once
// One line of advice per model: what to do and how much it gains, derived from the analysis and
// the predictions of every fixed strategy in both launch modes. `weft analyze` prints it and the
// studio's summary panel shows it; both call advise().
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weft/core/analysis/analyze.h"
#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/split_study.h"

namespace weft::core {

struct AdviceOptions {
  StrategyOptions strategy;  ///< stream cap and granularity the strategies are tried with
  bool memory = true;        ///< plan the best schedule's memory (one greedy planner) for its price
  bool merging = true;       ///< also try the default layering's horizontal merges (GPU devices, up to kMergeAdviceNodes)
  /// On a split model (graph.info().micro_batches > 1): the unsplit model's baselines
  /// (AppliedSplit::unsplit). Speedups are then quoted over the unsplit sequential run, as the
  /// split's own summary is, and no further split is tried.
  std::optional<UnsplitBaseline> unsplit;
  /// Polled between strategies (may be empty; called from two threads at once, so it must be
  /// thread-safe): true stops the advice with a Runtime error "cancelled" (the studio advises
  /// large models in its worker and drops an answer a newer model or cost table superseded).
  std::function<bool()> cancelled;
};

/// The advice and the evidence it rests on.
struct Advice {
  std::string line;            ///< e.g. "width 4: cp-list on 4 streams predicts 1.80x over the sequential CUDA Graph at batch 1, using 1.30x the memory"
  enum class Kind : std::uint8_t { Chain, LittleToGain, Concurrency } kind = Kind::Chain;
  double parallelism = 1;      ///< work / span of the analysis
  std::size_t width = 1;       ///< antichain width
  bool launch_bound = false;   ///< eager launches cost ≥ 20% over CUDA Graph replay of the sequential run
  double launch_share = 0;     ///< 1 − sequential graph / sequential eager (0 on a CPU device)
  std::string best_strategy;   ///< the fastest predicted schedule among strategies × launch modes
  LaunchMode best_mode = LaunchMode::Graph;
  int best_streams = 1;
  double best_speedup = 1;     ///< over the sequential baseline quoted (CUDA Graph; eager on a CPU device)
  double memory_ratio = 0;     ///< best schedule's arena / the reference's (0 when not planned)
  /// Chains: the batch at which half a batch still fills the device with the typical kernel,
  /// where micro-batch splitting could start to pay (0 when it cannot be derived).
  std::int64_t split_batch = 0;
  /// Why the batch cannot be split (check_batch_split's reason), empty when it can.
  std::string split_refusal;
  /// The micro-batch split choose_split() finds for chains and little-to-gain graphs (CUDA Graph
  /// replay; eager on a CPU device): k (1: splitting does not pay) and its predicted speedup over
  /// the same baseline as best_speedup. When k > 1 the line names it.
  int split_k = 1;
  double split_speedup = 1;
  /// True when the speedups are quoted over the unsplit model's sequential run (options.unsplit).
  bool over_unsplit = false;
  /// Horizontal merging (merge_model: the default layering's groups), tried on GPU devices: the
  /// operators before and after (equal when nothing merges; 0 when not tried) and the best
  /// configuration on the merged model, quoted over the same unmerged baseline as best_speedup.
  std::size_t merge_operators_before = 0, merge_operators_after = 0;
  std::string merge_strategy;
  LaunchMode merge_mode = LaunchMode::Graph;
  int merge_streams = 1;
  double merge_speedup = 0;       ///< 0: not tried or nothing merges
  double merge_memory_ratio = 0;  ///< its arena / the unmerged reference's (0 when not planned)
  bool merge_advised = false;     ///< merging beats the best unmerged schedule by kWorthwhileSpeedup: the line leads with it
  /// Operators whose cost is a launch-only guess (AnalysisReport::unknown_costs). Where they are a
  /// tenth of the model or more, the line ends in a caution that names the symbolic input
  /// dimensions to bind, if any.
  std::size_t unknown_costs = 0;
  /// A CPU calibrated at several team sizes (DeviceSpec::cpu_teams): the threads of each stream
  /// in the best configuration (intra-operator parallelism), and per team size the best
  /// predicted speedup over the sequential run at the device's own team size; otherwise 1 and empty.
  int best_threads_per_stream = 1;
  std::vector<std::pair<int, double>> team_speedups;
  /// Such a CPU where the best configuration runs on several streams: the same schedule with
  /// hybrid teams (the nodes that run alone on a team of every core, `--hybrid`) predicted
  /// faster, its nodes on the wide team and threads (0 when not advised), and its speedup over
  /// the same sequential run as best_speedup (0 when not tried).
  std::size_t hybrid_nodes = 0;
  int hybrid_threads = 0;
  double hybrid_speedup = 0;
};

/// Largest model whose merges advise() tries (merge_model and the strategies again on the merged model).
inline constexpr std::size_t kMergeAdviceNodes = 20000;

/// "chain", "little-to-gain" or "concurrency" (`weft analyze --json`'s advice_evidence.kind).
std::string_view advice_kind_name(Advice::Kind kind);

/// On a CPU device calibrated at several team sizes, the advice is taken at each (the team's
/// device and node times, no more streams than teams fit the cores) and the fastest against the
/// sequential run at the device's own size leads, naming its threads per stream.
///
/// Tries every fixed strategy in eager and CUDA Graph modes (eager only on a CPU device; a
/// schedule on more streams than options.strategy.max_streams is not advised) and
/// words the result with verdict.h's wording and threshold: chains get "chain: concurrency cannot
/// help at batch B (width 1); ..." with the batch from which micro-batch splitting could pay (or
/// why the split is refused: check_batch_split), or, where split-overlap predicts a gain at this
/// batch, "split-overlap k=K predicts X.XXx at batch B"; graphs where no schedule gains
/// kWorthwhileSpeedup get "little to gain"; the rest name the best configuration, its predicted
/// speedup and its memory price, led by "launch-bound in eager mode: replay as a CUDA Graph;"
/// where launches dominate; "; caution: N of M operators have unknown cost, counted as launches
/// only (bind the symbolic dimension 'batch' for real figures)" ends the line where a tenth of the
/// operators or more have unknown cost. Errors: a strategy's or the planner's (InvalidInput). Cost:
/// 2 × strategies × (make_schedule + 2 simulations) + one memory plan.
Expected<Advice> advise(const Graph& graph, const AnalysisReport& analysis, const DeviceSpec& device,
                        const AdviceOptions& options = {});

}  // namespace weft::core
