// One line of advice per model, from the analysis and the predictions of every fixed strategy.
#include "weft/core/study/advice.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "weft/core/analysis/analyze.h"
#include "weft/core/transform/batch_split.h"
#include "weft/core/base/beside.h"
#include "weft/core/base/check.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/onnx/dim_binding.h"
#include "weft/core/transform/merge_graph.h"
#include "weft/core/transform/micro_batch.h"
#include "weft/core/schedule/node_teams.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/strategy/registry.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/study/merge_study.h"
#include "weft/core/study/prediction.h"
#include "weft/core/strategy/reference.h"
#include "weft/core/study/split_study.h"
#include "weft/core/base/text_format.h"
#include "weft/core/analysis/verdict.h"

namespace weft::core {

namespace {

constexpr double kLaunchBound = 0.20;  // eager launches add this share or more: replay as a graph
// From this many nodes the two launch modes' strategies are tried on two threads.
constexpr std::size_t kBesideAdviceNodes = 1000;

// Time-weighted median fill of the device by one kernel: its threads (one per output element)
// over the threads the device holds at once. At fill o < 1 at batch b, a kernel fills the device
// at about b / o; half a batch still fills it from twice that, where splitting stops costing fill.
std::int64_t split_batch(const Graph& graph, const CostTable& costs, const DeviceSpec& device, std::int64_t batch) {
  if (device.kind == DeviceKind::Cpu || batch <= 0 || device.sm_count <= 0) return 0;
  const double capacity = static_cast<double>(device.sm_count) * std::max(1, device.max_threads_per_sm);
  std::vector<std::pair<double, double>> fill;  // (fill, time)
  double total = 0;
  for (std::size_t v = 0; v < graph.node_count(); ++v) {
    const double t = device_time_us(costs.nodes[v], device);
    if (t <= 0) continue;
    double elems = 0;
    for (TensorId o : graph.node(static_cast<NodeId>(v)).outputs)
      if (o != kNoTensor) elems += static_cast<double>(std::max<std::int64_t>(0, graph.tensor(o).elements()));
    fill.emplace_back(std::min(1.0, elems / capacity), t);
    total += t;
  }
  if (fill.empty()) return 0;
  std::sort(fill.begin(), fill.end());
  double acc = 0, median = fill.back().first;
  for (const auto& [f, t] : fill) {
    acc += t;
    if (acc >= total / 2) {
      median = f;
      break;
    }
  }
  if (median <= 0) return 0;
  const double full = static_cast<double>(batch) / median;
  std::int64_t n = 1;
  while (static_cast<double>(n) < 2 * full && n < (std::int64_t{1} << 40)) n *= 2;
  return std::max<std::int64_t>(n, 2 * batch);
}

}  // namespace

std::string_view advice_kind_name(Advice::Kind kind) {
  return kind == Advice::Kind::Chain ? "chain" : kind == Advice::Kind::LittleToGain ? "little-to-gain" : "concurrency";
}

namespace {

/// The best schedule's arena over the reference's (both planned greedy by size, side by side):
/// a.memory_ratio, and the reference's arena in `reference_arena`. O(two plans).
Status price_memory(Advice& a, const Graph& graph, const Schedule& reference, const Schedule& best, const PlanOptions& plan,
                    std::int64_t& reference_arena) {
  Beside<Expected<MemoryPlan>> reference_plan([&] { return study_plan(graph, reference, "greedy-by-size", plan, 0); },
                                              graph.node_count() >= kBesideAdviceNodes);
  WEFT_TRY_ASSIGN(auto mine, study_plan(graph, best, "greedy-by-size", plan, 0));
  WEFT_TRY_ASSIGN(auto ref, reference_plan.get());
  reference_arena = ref.arena_bytes;
  a.memory_ratio = ref.arena_bytes > 0 ? static_cast<double>(mine.arena_bytes) / static_cast<double>(ref.arena_bytes) : 0;
  return {};
}

/// What advise_figures knows before it words the advice.
struct AdviceContext {
  const Graph& graph;
  const AnalysisReport& analysis;
  const DeviceSpec& device;
  const AdviceOptions& options;
  bool cpu;          ///< the device is a CPU: eager launches only
  bool split_model;  ///< the graph is a split of options.unsplit
  std::int64_t batch;
  const BatchSplitCheck& split;
};

/// Words the advice: a chain, a merge, little to gain or concurrency, with the split predicted
/// where concurrency has little to work with (choose_split: O(k simulations)).
Status word_advice(Advice& a, const AdviceContext& c) {
  const Graph& graph = c.graph;
  const AnalysisReport& analysis = c.analysis;
  const DeviceSpec& device = c.device;
  const AdviceOptions& options = c.options;
  const bool cpu = c.cpu, split_model = c.split_model;
  const std::int64_t batch = c.batch;
  const BatchSplitCheck& split = c.split;
  const std::string baseline_name = std::string(split_model ? "the unsplit " : "the ") +
                                    (cpu ? "sequential run" : "sequential CUDA Graph");
  const std::string at_batch = batch > 0 ? " at batch " + std::to_string(batch) : std::string();
  std::string launch;
  if (split_model) launch = "split k=" + std::to_string(graph.info().micro_batches) + ": ";
  if (a.launch_bound)
    launch += "launch-bound in eager mode (launches are " + fixed_text(100 * a.launch_share, 0) +
             "% of the sequential run): replay as a CUDA Graph; ";
  // Where concurrency has nothing to work with, micro-batch splitting is the lever left.
  const auto split_hint = [&](bool why) -> std::string {
    if (split_model) return "";
    if (!a.split_refusal.empty()) return "; micro-batch splitting is refused: " + a.split_refusal;
    if (a.split_k > 1)
      return "; split-overlap k=" + std::to_string(a.split_k) + " predicts " + fixed_text(a.split_speedup, 2) + "x over " +
             baseline_name + at_batch;
    if (a.split_batch <= 0) return "";
    return "; try micro-batch splitting at batch >= " + std::to_string(a.split_batch) +
           (why ? " (half a batch then still fills the device)" : "");
  };
  // Chains and graphs with little to gain: the split, predicted, is the lever left.
  const auto try_split = [&]() -> Status {
    if (split_model || !split.splittable || batch < 2) return {};
    if (c.options.cancelled && c.options.cancelled()) return make_error(ErrorKind::Runtime, "cancelled");
    SplitOptions so;
    so.mode = cpu ? LaunchMode::Eager : LaunchMode::Graph;
    so.strategy = options.strategy;
    WEFT_TRY_ASSIGN(auto choice, choose_split(graph, device, so));
    a.split_k = choice.k;
    a.split_speedup = choice.speedup();
    return {};
  };
  if (a.width <= 1 || a.best_speedup < kWorthwhileSpeedup) WEFT_TRY(try_split());
  if (a.width <= 1) {
    a.kind = Advice::Kind::Chain;
    if (split.splittable && !split_model) a.split_batch = split_batch(graph, analysis.costs, device, batch);
    a.line = launch + chain_verdict(a.width, at_batch) + split_hint(true);
    return {};
  }
  if (a.merge_advised && a.merge_speedup >= kWorthwhileSpeedup) {
    // Merging leads where it beats every unmerged schedule.
    a.kind = Advice::Kind::Concurrency;
    a.line = launch + "width " + std::to_string(a.width) + ": merge equal operators (" + std::to_string(a.merge_operators_before) +
             " -> " + std::to_string(a.merge_operators_after) + " launches), then " + a.merge_strategy + " on " +
             std::to_string(a.merge_streams) + " stream" + (a.merge_streams == 1 ? "" : "s") + " (" +
             std::string(launch_mode_name(a.merge_mode)) + ") predicts " + fixed_text(a.merge_speedup, 2) + "x over " + baseline_name +
             at_batch + " (unmerged, " + a.best_strategy + ": " + fixed_text(a.best_speedup, 2) + "x)";
    if (a.merge_memory_ratio > 0) a.line += ", using " + fixed_text(a.merge_memory_ratio, 2) + "x the memory";
    return {};
  }
  if (a.best_speedup < kWorthwhileSpeedup) {
    a.kind = Advice::Kind::LittleToGain;
    if (split.splittable && !split_model) a.split_batch = split_batch(graph, analysis.costs, device, batch);
    const std::string why = "the best schedule (" + a.best_strategy + ") predicts " + fixed_text(a.best_speedup, 2) + "x over " +
                            baseline_name;
    a.line = launch + little_to_gain_verdict(why, a.parallelism, a.width, at_batch) + split_hint(false);
    return {};
  }
  a.kind = Advice::Kind::Concurrency;
  a.line = launch + "width " + std::to_string(a.width) + ": " + a.best_strategy + " on " + std::to_string(a.best_streams) +
           " streams" + (cpu ? "" : std::string(" (") + std::string(launch_mode_name(a.best_mode)) + ")") + " predicts " +
           fixed_text(a.best_speedup, 2) + "x over " + baseline_name + at_batch;
  if (a.memory_ratio > 0) a.line += ", using " + fixed_text(a.memory_ratio, 2) + "x the memory";
  return {};
}

/// The advice from the predictions alone (advise() adds what the figures cannot see).
Expected<Advice> advise_figures(const Graph& graph, const AnalysisReport& analysis, const DeviceSpec& device,
                                const AdviceOptions& options) {
  Advice a;
  a.parallelism = analysis.critical.parallelism();
  a.width = analysis.antichain_width;
  const bool cpu = device.kind == DeviceKind::Cpu;
  const bool split_model = options.unsplit && graph.info().micro_batches > 1;
  a.over_unsplit = split_model;
  const std::int64_t batch = split_model ? options.unsplit->batch : graph_batch(graph);
  const BatchSplitCheck split = check_batch_split(graph);
  if (!split.splittable && !split_model) a.split_refusal = split.reason;
  if (!(device.peak_fp32_flops > 0 && device.memory_bandwidth > 0)) {
    a.line = analysis.verdict + " (no prediction: the device has no rates)";
    return a;
  }

  const auto stopped = [&] { return options.cancelled && options.cancelled(); };
  const auto cancelled_error = [] { return make_error(ErrorKind::Runtime, "cancelled"); };
  // The reference in both modes (predict() simulates both baselines with every schedule).
  const Schedule reference = reference_schedule(graph);
  PredictOptions po;
  po.counterfactuals = false;
  po.reference = &reference;
  WEFT_TRY_ASSIGN(auto base, predict(graph, reference, analysis.costs, device, po));
  // The split model's own sequential order is where the search starts; its speedups are quoted
  // over the unsplit model's sequential run (what the user opened).
  const double own_sequential_us = cpu ? base.sequential_eager_us : base.sequential_graph_us;
  const double baseline_us =
      split_model ? options.unsplit->sequential_us(cpu ? LaunchMode::Eager : LaunchMode::Graph) : own_sequential_us;
  if (!cpu && base.sequential_eager_us > 0) a.launch_share = 1 - base.sequential_graph_us / base.sequential_eager_us;
  a.launch_bound = a.launch_share >= kLaunchBound;

  // The fastest configuration among strategies × launch modes, against the sequential baseline.
  a.best_strategy = "sequential";
  a.best_mode = cpu ? LaunchMode::Eager : LaunchMode::Graph;
  double best_us = own_sequential_us;
  Schedule best_schedule = reference;
  // Each launch mode's strategies are made and simulated on a thread of their own (the graph
  // mode's beside the eager one's), then judged in one order: the same choice as one thread.
  struct Tried {
    std::string name;
    Schedule schedule;
    double us = 0;
  };
  // Every fixed strategy on `g` in one launch mode (with the sequential schedule too where it is
  // not the baseline: a merged model on one stream).
  const auto try_mode = [&](const Graph& g, const CostTable& costs, const std::vector<KernelDemand>& demands, LaunchMode mode,
                            bool with_sequential) -> Expected<std::vector<Tried>> {
    std::vector<Tried> tried;
    if (cpu && mode == LaunchMode::Graph) return tried;
    StrategyOptions so = options.strategy;
    so.cuda_graph = mode == LaunchMode::Graph;
    // The analysis found the graph's chain cover already (not the merged model's).
    if (&g == &graph && !so.chain_cover) so.chain_cover = analysis.chain_cover;
    for (const std::string& name : fixed_strategy_names()) {
      if (stopped()) return cancelled_error();
      // split-overlap on a model that is not split is the sequential schedule: the baseline.
      if ((name == "sequential" && !with_sequential) || (name == "split-overlap" && g.info().micro_batches <= 1)) continue;
      WEFT_TRY_ASSIGN(auto s, make_schedule(name, g, costs, device, so));
      // Only what keeps to the stream cap is advised (seed-greedy, the naive baseline, opens
      // as many streams as it needs).
      if (s.stream_count() > static_cast<std::size_t>(so.max_streams)) continue;
      SimOptions sim;
      sim.cuda_graph = mode == LaunchMode::Graph;
      sim.demands = &demands;
      const double us = simulate(g, s, costs, device, sim).makespan_us();
      tried.push_back({name, std::move(s), us});
    }
    return tried;
  };
  // Both launch modes' best on `g`, against `bar_us` (lowered as better ones are found).
  struct Best {
    std::string strategy;
    LaunchMode mode = LaunchMode::Graph;
    Schedule schedule;
    bool found = false;
  };
  const auto best_of = [&](const Graph& g, const CostTable& costs, bool with_sequential, double& bar_us) -> Expected<Best> {
    const std::vector<KernelDemand> demands = kernel_demands(g, costs, device);
    Beside<Expected<std::vector<Tried>>> graph_mode([&] { return try_mode(g, costs, demands, LaunchMode::Graph, with_sequential); },
                                                    !cpu && g.node_count() >= kBesideAdviceNodes);
    auto eager_tried = try_mode(g, costs, demands, LaunchMode::Eager, with_sequential);
    auto graph_tried = graph_mode.get();
    Best best;
    for (auto* tried : {&eager_tried, &graph_tried}) {
      if (!*tried) return tried->error();
      const LaunchMode mode = tried == &eager_tried ? LaunchMode::Eager : LaunchMode::Graph;
      for (Tried& t : **tried)
        if (t.us < bar_us * 0.999) {
          bar_us = t.us;
          best = Best{t.name, mode, std::move(t.schedule), true};
        }
    }
    return best;
  };
  {
    WEFT_TRY_ASSIGN(auto unmerged, best_of(graph, analysis.costs, false, best_us));
    if (unmerged.found) {
      a.best_strategy = unmerged.strategy;
      a.best_mode = unmerged.mode;
      best_schedule = std::move(unmerged.schedule);
    }
  }
  a.best_streams = static_cast<int>(best_schedule.stream_count());
  a.best_speedup = best_us > 0 ? baseline_us / best_us : 1.0;
  // Memory prices are arenas over the reference's (greedy by size: no lower bound needed, 0),
  // which is planned once for the best unmerged and the best merged schedule.
  const PlanOptions plan = reference_plan_options();
  std::int64_t reference_arena = -1;
  // Unresolved dimensions: tensor sizes are unknown, so there is no memory price to quote.
  const bool plan_memory = options.memory && graph.info().unresolved_dims.empty();
  if (plan_memory && a.best_streams > 1) WEFT_TRY(price_memory(a, graph, reference, best_schedule, plan, reference_arena));

  // Horizontal merging: the default layering's merges, and the same strategies on the merged
  // model (on one stream too), quoted over the same unmerged baseline.
  bool merged_already = false;
  for (const Node& node : graph.nodes()) merged_already = merged_already || is_merged_node(node);
  if (stopped()) return cancelled_error();
  if (!cpu && options.merging && !merged_already && a.width > 1 && graph.node_count() <= kMergeAdviceNodes) {
    WEFT_TRY_ASSIGN(auto merged, merge_model(graph, analysis.costs, device));
    a.merge_operators_before = graph.node_count();
    a.merge_operators_after = merged.graph.node_count();
    if (merged.graph.node_count() < graph.node_count()) {
      double merged_us = std::numeric_limits<double>::infinity();
      WEFT_TRY_ASSIGN(auto best, best_of(merged.graph, merged.costs, true, merged_us));
      if (best.found && merged_us > 0) {
        a.merge_strategy = best.strategy;
        a.merge_mode = best.mode;
        a.merge_streams = static_cast<int>(best.schedule.stream_count());
        a.merge_speedup = baseline_us / merged_us;
        // Merging leads only where it pays for changing the graph: a worthwhile gain over the
        // best unmerged schedule, not a tie (56 of 4,500 operators merged for 0.1%).
        a.merge_advised = merged_us * kWorthwhileSpeedup <= best_us;
        if (plan_memory && a.merge_advised) {
          WEFT_TRY_ASSIGN(auto mine, study_plan(merged.graph, best.schedule, "greedy-by-size", plan, 0));
          if (reference_arena < 0) {
            WEFT_TRY_ASSIGN(auto ref, study_plan(graph, reference, "greedy-by-size", plan, 0));
            reference_arena = ref.arena_bytes;
          }
          a.merge_memory_ratio =
              reference_arena > 0 ? static_cast<double>(mine.arena_bytes) / static_cast<double>(reference_arena) : 0;
        }
      }
    }
  }

  WEFT_TRY(word_advice(a, AdviceContext{graph, analysis, device, options, cpu, split_model, batch, split}));
  return a;
}

/// The sequential run's predicted makespan on `device` with `costs` (the reference, eager).
double sequential_us(const Graph& graph, const CostTable& costs, const DeviceSpec& device) {
  return simulate(graph, reference_schedule(graph), costs, device).makespan_us();
}

/// A team size's best configuration again with hybrid teams (make_hybrid), on the team device it
/// was found on: where the prediction beats `speedup` (the configuration's own, over
/// `own_sequential`) by a worthwhile margin, `best` records the teams and their speedup over
/// `own_sequential` and its line says so. Nothing where it runs one stream.
Status advise_hybrid(const Graph& graph, const AnalysisReport& analysis, const DeviceSpec& device, const DeviceSpec& own,
                     double own_sequential, double speedup, const AdviceOptions& options, Advice& best) {
  if (best.best_streams < 2 || own_sequential <= 0 || best.best_strategy.empty()) return {};
  const int threads = best.best_threads_per_stream;
  WEFT_TRY_ASSIGN(const DeviceSpec team, cpu_team_device(device, threads));
  const CostTable costs = cpu_team_costs(graph, analysis.costs, own, team);
  // The options the team's advice made it with.
  StrategyOptions so = options.strategy;
  so.max_streams = std::min(so.max_streams, std::max(team.sm_count, 1));
  if (!so.chain_cover) so.chain_cover = analysis.chain_cover;
  auto made = make_schedule(best.best_strategy, graph, costs, team, so);
  if (!made) return {};  // the advice stands without the hybrid figure
  Schedule hybrid = *made;
  WEFT_TRY(make_hybrid(graph, hybrid, threads, device_cores(device), node_times(costs)));
  if (!hybrid.has_node_teams()) return {};
  PredictOptions po;
  po.counterfactuals = false;
  WEFT_TRY_ASSIGN(const Prediction p, predict(graph, hybrid, costs, team, po));
  if (p.makespan_us <= 0) return {};
  best.hybrid_speedup = own_sequential / p.makespan_us;
  if (best.hybrid_speedup <= speedup * kWorthwhileSpeedup) return {};
  const NodeTeamCount teams = count_node_teams(hybrid);
  best.hybrid_nodes = teams.nodes;
  best.hybrid_threads = teams.threads;
  best.line += "; with hybrid teams (--hybrid: the " + std::to_string(teams.nodes) + " nodes that run alone on " +
               std::to_string(teams.threads) + " threads) it predicts " + fixed_text(best.hybrid_speedup, 2) + "x";
  return {};
}

/// advise_figures at every team size of a CPU calibrated at several, the fastest against the
/// sequential run at the device's own team size leading.
Expected<Advice> advise_teams(const Graph& graph, const AnalysisReport& analysis, const DeviceSpec& device,
                              const AdviceOptions& options) {
  const int own_threads = std::max(device.threads_per_stream, 1);
  WEFT_TRY_ASSIGN(const DeviceSpec own, cpu_team_device(device, own_threads));
  const double own_sequential = sequential_us(graph, analysis.costs, own);
  std::optional<Advice> best, at_own;
  double best_speedup = 0;
  std::vector<std::pair<int, double>> speedups;
  std::string others;
  for (int threads : cpu_team_sizes(device)) {
    WEFT_TRY_ASSIGN(const DeviceSpec team, cpu_team_device(device, threads));
    AnalysisReport at = analysis;
    at.costs = cpu_team_costs(graph, analysis.costs, own, team);
    AdviceOptions o = options;
    o.strategy.max_streams = std::min(o.strategy.max_streams, std::max(team.sm_count, 1));
    WEFT_TRY_ASSIGN(Advice a, advise_figures(graph, at, team, o));
    // a.best_speedup is over this team's own sequential run: re-quote it over the device's.
    const double team_sequential = sequential_us(graph, at.costs, team);
    const double speedup = own_sequential > 0 && team_sequential > 0 ? a.best_speedup * own_sequential / team_sequential : 1.0;
    speedups.emplace_back(threads, speedup);
    a.best_threads_per_stream = threads;
    WEFT_TRY(advise_hybrid(graph, analysis, device, own, own_sequential, speedup, options, a));
    // Ranked by the better of the configuration and its hybrid teams.
    const double ranked = a.hybrid_nodes > 0 ? std::max(speedup, a.hybrid_speedup) : speedup;
    if (threads == own_threads) at_own = a;
    else
      others += "; streams of " + std::to_string(threads) + " threads: " + a.best_strategy + " on " + std::to_string(a.best_streams) +
                " predicts " + fixed_text(speedup, 2) + "x";
    if (!best || ranked > best_speedup * kWorthwhileSpeedup) {
      best_speedup = ranked;
      a.best_speedup = speedup;
      best = std::move(a);
    }
  }
  WEFT_CHECK(best && at_own);
  best->team_speedups = std::move(speedups);
  const std::string per_stream = std::to_string(best->best_threads_per_stream) + " thread" + (best->best_threads_per_stream == 1 ? "" : "s");
  if (best->best_threads_per_stream == own_threads) {
    best->line += others;
  } else {
    // The team size leads: intra-operator parallelism beats what the streams alone reach.
    best->line = best->best_strategy + " on " + std::to_string(best->best_streams) + " stream" + (best->best_streams == 1 ? "" : "s") +
                 " of " + per_stream + " predicts " + fixed_text(best->best_speedup, 2) + "x" +
                 (best->hybrid_nodes > 0 ? ", with hybrid teams (--hybrid) " + fixed_text(best->hybrid_speedup, 2) + "x," : std::string()) +
                 " over the sequential run with " +
                 std::to_string(own_threads) + " thread" + (own_threads == 1 ? "" : "s") + " (" + at_own->line + ")";
  }
  return std::move(*best);
}

}  // namespace

Expected<Advice> advise(const Graph& graph, const AnalysisReport& analysis, const DeviceSpec& device,
                        const AdviceOptions& options) {
  const bool teams = device.kind == DeviceKind::Cpu && cpu_team_sizes(device).size() > 1;
  WEFT_TRY_ASSIGN(Advice a, teams ? advise_teams(graph, analysis, device, options) : advise_figures(graph, analysis, device, options));
  // Operators of unknown cost (symbolic input dimensions, unknown operators) count as launches
  // only, so the figures above may mean nothing: the line says so where they are a tenth or more
  // of the model, and names the dimensions to bind where those are the cause.
  a.unknown_costs = analysis.unknown_costs;
  if (a.unknown_costs > 0 && a.unknown_costs * 10 >= graph.node_count()) {
    a.line += "; caution: " + std::to_string(a.unknown_costs) + " of " + std::to_string(graph.node_count()) +
              " operators have unknown cost, counted as launches only";
    const std::vector<UnboundDim> unbound = unbound_dims(graph);  // one per key
    if (!unbound.empty()) {
      a.line += " (bind the symbolic dimension" + std::string(unbound.size() == 1 ? " " : "s ");
      for (std::size_t i = 0; i < unbound.size() && i < 3; ++i) a.line += (i ? ", '" : "'") + unbound[i].key() + "'";
      if (unbound.size() > 3) a.line += ", ...";
      a.line += " for real figures)";
    }
  }
  if (!analysis.costs.measured_from.empty()) a.line += "; computed from measured times (" + analysis.costs.measured_from + ")";
  return a;
}

}  // namespace weft::core
