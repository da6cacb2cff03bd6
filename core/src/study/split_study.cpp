// The micro-batch split chosen by prediction: split-overlap on each k against the unsplit
// sequential baseline, in one launch mode.
#include "weft/core/study/split_study.h"

#include <charconv>
#include <cstdio>

#include "weft/core/transform/batch_split.h"
#include "weft/core/base/check.h"
#include "weft/core/transform/micro_batch.h"
#include "weft/core/strategy/reference.h"
#include "weft/core/study/schedule_study.h"

namespace weft::core {
namespace {

double predict_us(const Graph& graph, const Schedule& schedule, const CostTable& costs, const DeviceSpec& device,
                  LaunchMode mode) {
  SimOptions sim;
  sim.cuda_graph = mode == LaunchMode::Graph;
  return simulate(graph, schedule, costs, device, sim).makespan_us();
}

}  // namespace

Expected<SplitChoice> choose_split(const Graph& graph, const DeviceSpec& device, const SplitOptions& options) {
  if (!can_simulate(device))
    return make_error(ErrorKind::InvalidInput, "device '" + device.name + "' has no rates to predict a split with");
  StrategyOptions strategy = options.strategy;
  strategy.cuda_graph = options.mode == LaunchMode::Graph;
  const CostTable unsplit_costs = estimate_costs(graph, device);
  SplitChoice choice;
  choice.sequential_us = predict_us(graph, reference_schedule(graph), unsplit_costs, device, options.mode);

  std::vector<int> ks;
  if (options.k > 0) {
    ks.push_back(options.k);
  } else {
    const BatchSplitCheck check = check_batch_split(graph);
    if (!check.splittable) choice.refused = check.reason;
    ks = check.splittable ? split_factors(graph_batch(graph), options.max_k) : std::vector<int>{1};
  }
  bool have = false;
  for (int k : ks) {
    auto split = split_batch(graph, k);
    if (!split) {
      if (options.k > 0) return split.error();
      continue;  // e.g. a tensor whose dim 0 is not the batch: keep the smaller k
    }
    CostTable costs = estimate_costs(*split, device);
    WEFT_TRY_ASSIGN(auto schedule, make_schedule(kSplitOverlap, *split, costs, device, strategy));
    SplitCandidate c{k, predict_us(*split, schedule, costs, device, options.mode), 0};
    c.speedup = c.predicted_us > 0 ? choice.sequential_us / c.predicted_us : 1.0;
    choice.candidates.push_back(c);
    if (!have || c.predicted_us < choice.predicted_us * (1.0 - options.min_gain)) {
      have = true;
      choice.k = k;
      choice.predicted_us = c.predicted_us;
      choice.graph.emplace(std::move(*split));
      choice.costs = std::move(costs);
    }
  }
  return choice;
}

Expected<AppliedSplit> apply_split(const Graph& graph, const DeviceSpec& device, const SplitOptions& options) {
  if (!can_simulate(device) && options.k > 0) {
    WEFT_TRY_ASSIGN(auto split, split_batch(graph, options.k));
    AppliedSplit out{std::move(split), {}, "", std::nullopt};
    out.costs = estimate_costs(out.graph, device);
    out.summary = "split: k=" + std::to_string(options.k) + " of batch " + std::to_string(graph_batch(graph)) +
                  " (not predicted: device '" + device.name + "' has no rates)";
    return out;
  }
  WEFT_TRY_ASSIGN(auto choice, choose_split(graph, device, options));
  char speedup[32];
  std::snprintf(speedup, sizeof speedup, "%.2f", choice.speedup());
  std::string summary = "split: k=" + std::to_string(choice.k) + " of batch " + std::to_string(graph_batch(graph)) +
                        " (split-overlap predicts " + speedup + "x over the unsplit sequential " +
                        std::string(launch_mode_name(options.mode)) + " run)";
  if (!choice.refused.empty()) summary += "; cannot split: " + choice.refused;
  WEFT_CHECK(choice.graph.has_value());
  UnsplitBaseline unsplit;
  unsplit.k = choice.k;
  unsplit.batch = graph_batch(graph);
  const LaunchMode other = options.mode == LaunchMode::Graph ? LaunchMode::Eager : LaunchMode::Graph;
  (options.mode == LaunchMode::Graph ? unsplit.sequential_graph_us : unsplit.sequential_eager_us) = choice.sequential_us;
  (other == LaunchMode::Graph ? unsplit.sequential_graph_us : unsplit.sequential_eager_us) =
      predict_us(graph, reference_schedule(graph), estimate_costs(graph, device), device, other);
  return AppliedSplit{std::move(*choice.graph), std::move(choice.costs), std::move(summary), unsplit};
}

Expected<int> parse_split(std::string_view text) {
  if (text == "auto") return 0;
  int k = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), k);
  if (ec != std::errc() || end != text.data() + text.size() || k < 1 || k > 4096)
    return make_error(ErrorKind::InvalidInput,
                      "split '" + std::string(text) + "': needs K (micro-batches, a positive integer up to 4096) or auto");
  return k;
}

}  // namespace weft::core
