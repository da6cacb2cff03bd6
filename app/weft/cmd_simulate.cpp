// weft simulate: the predicted timeline of a schedule, its speedup against both sequential
// baselines, per-stream busy time and the verdict; optional Chrome trace.
#include <cstdio>
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>


#include "cli.h"
#include "weft/core/sim/calibrate.h"
#include "weft/core/sim/chrome_trace.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/schedule_study.h"
#include "weft/core/base/text_format.h"
#include "weft/core/schedule/timeline.h"
#include "weft/core/sim/timeline_json.h"

namespace weft::cli {

namespace {

constexpr std::string_view kSimulate = "simulate";
constexpr std::string_view kDefaultStrategy = "cp-list";


/// What one `weft simulate` found, for its JSON and its text.
struct Simulated {
  const core::Graph& graph;
  const core::DeviceSpec& device;
  const core::Schedule& schedule;
  const core::Prediction& p;
  const core::MemoryReport* plan;
  const std::optional<core::MergeGain>& gain;
  const std::optional<core::UnsplitBaseline>& unsplit;
  const std::optional<core::BudgetFit>& fit;
  std::size_t calibrated;
  std::vector<double> busy;
  std::size_t events;
  std::string mode;
};

nlohmann::ordered_json simulate_json(const Simulated& r) {
  const core::Graph& graph = r.graph;
  const core::DeviceSpec& device = r.device;
  const core::Schedule& schedule = r.schedule;
  const core::Prediction& p = r.p;
  const auto& gain = r.gain;
  const auto& fit = r.fit;
  const core::MemoryReport* plan = r.plan;
  const std::size_t calibrated = r.calibrated, events = r.events;
  const std::vector<double>& busy = r.busy;
  const std::string& mode = r.mode;
  nlohmann::ordered_json j;
  j["model"] = graph.info().model_path;
  j["sha256"] = graph.info().model_sha256;
  j["device"] = device.name;
  j["strategy"] = schedule.strategy;
  j["options"] = schedule.options;
  j["mode"] = mode;
  j["streams"] = schedule.stream_count();
  j["events"] = events;
  j["makespan_us"] = p.makespan_us;
  j["sequential_eager_us"] = p.sequential_eager_us;
  j["sequential_graph_us"] = p.sequential_graph_us;
  j["speedup_vs_graph"] = p.speedup_vs_graph;
  j["speedup_vs_eager"] = p.speedup_vs_eager;
  j["work_us"] = p.critical.work_us;
  j["span_us"] = p.critical.span_us;
  j["speedup_bound"] = p.critical.parallelism();
  j["calibrated_nodes"] = calibrated;
  j["verdict"] = p.verdict;
  j["stream_busy_us"] = busy;
  if (gain) {
    // The baselines above are the merged model's own sequential runs; these are the unmerged model's.
    j["merge"] = {{"groups", gain->groups},
                  {"launches_before", gain->launches_before},
                  {"launches_after", gain->launches_after},
                  {"unmerged_sequential_eager_us", gain->unmerged_eager_us},
                  {"unmerged_sequential_graph_us", gain->unmerged_graph_us},
                  {"speedup_vs_unmerged_graph", gain->speedup_vs_graph},
                  {"speedup_vs_unmerged_eager", gain->speedup_vs_eager}};
  }
  if (const auto& u = r.unsplit) {
    // The baselines above are the split model's own sequential runs (its copies one after the
    // other); these are the unsplit model's, which the split is quoted against.
    j["split"] = {{"k", u->k},
                  {"batch", u->batch},
                  {"unsplit_sequential_eager_us", u->sequential_eager_us},
                  {"unsplit_sequential_graph_us", u->sequential_graph_us},
                  {"speedup_vs_unsplit_graph", u->speedup(core::LaunchMode::Graph, p.makespan_us)},
                  {"speedup_vs_unsplit_eager", u->speedup(core::LaunchMode::Eager, p.makespan_us)}};
  }
  if (plan) {
    j["arena_bytes"] = plan->arena_bytes();
    j["sequential_arena_bytes"] = plan->reference_arena_bytes();
    j["price_of_concurrency"] = plan->price_of_concurrency();
  }
  if (fit) j["memory_budget"] = budget_json(*fit);
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  for (const core::TimelineItem& it : p.timeline.items)
    nodes.push_back({{"name", graph.key(it.node)}, {"op", graph.node(it.node).op_type}, {"stream", it.stream},
                     {"start_us", it.start_us}, {"end_us", it.end_us}});
  j["nodes"] = std::move(nodes);
  return j;
}

void print_simulate_text(const Simulated& r, const std::optional<std::string>& trace) {
  const core::Graph& graph = r.graph;
  const core::DeviceSpec& device = r.device;
  const core::Schedule& schedule = r.schedule;
  const core::Prediction& p = r.p;
  const auto& gain = r.gain;
  const auto& fit = r.fit;
  const std::size_t calibrated = r.calibrated, events = r.events;
  const std::vector<double>& busy = r.busy;
  std::cout << "model     " << graph.info().model_path << " (" << graph.node_count() << " nodes)\n"
            << "device    " << device.name << (calibrated ? ", " + std::to_string(calibrated) + " nodes calibrated" : "")
            << "\n"
            << "schedule  " << schedule.strategy << (schedule.options.empty() ? "" : " (" + schedule.options + ")") << ", "
            << schedule.stream_count() << " streams, " << events << " events, "
            << (p.mode == core::LaunchMode::Graph ? "launched as a CUDA Graph" : "eager launches") << "\n"
            << (gain ? "merges    " + std::to_string(gain->groups) + " groups, launches " + std::to_string(gain->launches_before) +
                           " -> " + std::to_string(gain->launches_after) + "\n"
                     : std::string())
            << "makespan  " << core::fixed_text(p.makespan_us, 1) << " us\n";
  if (gain)
    std::cout << "merged    " << core::fixed_text(gain->speedup_vs_graph, 2) << "x vs the unmerged sequential CUDA Graph ("
              << core::fixed_text(gain->unmerged_graph_us, 1) << " us), " << core::fixed_text(gain->speedup_vs_eager, 2)
              << "x vs unmerged sequential eager (" << core::fixed_text(gain->unmerged_eager_us, 1) << " us)\n";
  if (const auto& u = r.unsplit)
    std::cout << "split     k=" << u->k << " of batch " << u->batch << ": "
              << core::fixed_text(u->speedup(core::LaunchMode::Graph, p.makespan_us), 2)
              << "x vs the unsplit sequential CUDA Graph (" << core::fixed_text(u->sequential_graph_us, 1) << " us), "
              << core::fixed_text(u->speedup(core::LaunchMode::Eager, p.makespan_us), 2) << "x vs unsplit sequential eager ("
              << core::fixed_text(u->sequential_eager_us, 1) << " us)\n";
  std::cout << "speedup   " << core::fixed_text(p.speedup_vs_graph, 2) << "x vs "
            << (gain ? "the merged model's " : r.unsplit ? "the split model's " : "")
            << "sequential CUDA Graph (" << core::fixed_text(p.sequential_graph_us, 1)
            << " us), " << core::fixed_text(p.speedup_vs_eager, 2) << "x vs sequential eager (" << core::fixed_text(p.sequential_eager_us, 1) << " us)\n"
            << "bound     work " << core::fixed_text(p.critical.work_us, 1) << " us / span " << core::fixed_text(p.critical.span_us, 1)
            << " us = " << core::fixed_text(p.critical.parallelism(), 2) << "x\n";
  std::cout << "streams   busy";
  for (std::size_t s = 0; s < busy.size(); ++s)
    std::cout << (s ? ", " : " ") << "s" << s << " " << core::fixed_text(busy[s], 1) << " us ("
              << core::fixed_text(p.makespan_us > 0 ? 100.0 * busy[s] / p.makespan_us : 0.0, 0) << "%)";
  std::cout << "\nverdict   " << p.verdict << "\n";
  if (fit) std::cout << "budget    " << fit->summary() << "\n";
  if (trace) std::cout << "trace     " << *trace << " (3 runs: predicted, sequential graph, sequential eager)\n";
}

}  // namespace

int cmd_simulate(Args& args) {
  if (auto ok = args.parse({"schedule=", "strategy=", "streams=", "granularity=", "memory-budget=", "graph", "calibrate=", "trace=", "json", "merge", "fuse", "profile="}, true);
      !ok)
    return usage_error(kSimulate, ok.error().message);
  if (args.positional().size() != 1) return usage_error(kSimulate, "expected exactly one MODEL (an .onnx file)");
  auto choice = schedule_choice(args, kDefaultStrategy, args.flag("graph"));
  if (!choice) return usage_error(kSimulate, choice.error().message);

  auto model = load_model(args);
  if (!model) return report(kSimulate, model.error());
  const core::Graph& unmerged = *model->graph;
  const core::DeviceSpec& device = model->device;

  std::size_t calibrated = 0;
  if (const auto cal = args.value("calibrate")) {
    auto measured = core::load_timeline(*cal, unmerged);
    if (!measured) return report(kSimulate, measured.error());
    model->costs = core::calibrate_costs(model->costs, *measured);
    for (const core::NodeCost& c : model->costs.nodes) calibrated += c.measured ? 1 : 0;
    if (calibrated < unmerged.node_count())
      std::cerr << "weft simulate: warning: " << *cal << " times " << calibrated << " of " << unmerged.node_count()
                << " nodes; the others keep their predicted times\n";
    if (model->fused) {
      // A fused node's cost is its chain's: priced again from the calibrated times. Merges on top
      // of a fusion name the fused model's nodes, which a timeline of the unfused model does not time.
      if (model->merged != model->fused)
        return usage_error(kSimulate, "--calibrate prices a fused or a merged model again, not one fused and merged");
      std::vector<std::vector<core::NodeId>> chains;
      for (const auto& members : model->fused->members)
        if (members.size() > 1) chains.push_back(members);
      auto refused = core::fuse_graph(unmerged, model->costs, device, chains);
      if (!refused) return report(kSimulate, refused.error());
      model->fused = std::make_shared<core::MergedModel>(std::move(*refused));
      model->merged = model->fused;
    } else if (model->merged) {
      // A merged node's cost is its members': priced again from the calibrated times.
      std::vector<std::vector<core::NodeId>> groups;
      for (const auto& members : model->merged->members)
        if (members.size() > 1) groups.push_back(members);
      auto remerged = core::merge_model(unmerged, model->costs, device, std::move(groups));
      if (!remerged) return report(kSimulate, remerged.error());
      model->merged = std::make_shared<core::MergedModel>(std::move(*remerged));
    }
  }
  const core::CostTable& unmerged_costs = model->costs;

  // With merges (--merge, or recorded in a loaded schedule) the schedule runs on the merged model;
  // the merge's gain is quoted against the unmerged model's sequential baselines.
  std::optional<core::BudgetFit> fit;
  auto obtained = obtain_merged_schedule(kSimulate, *choice, *model, &fit);
  if (!obtained) return report(kSimulate, obtained.error());
  const core::Schedule& schedule = obtained->schedule;
  const core::Graph& graph = obtained->graph(unmerged);
  const core::CostTable& costs = obtained->costs(unmerged_costs);

  // One study: the memory report (its plan gives the timeline an arena track) and the prediction
  // in the launch mode asked for, with both baselines and the verdict.
  core::StudyOptions options;
  options.mode = args.flag("graph") ? core::LaunchMode::Graph : core::LaunchMode::Eager;
  auto studied = core::study_schedule(graph, costs, device, schedule, options);
  if (!studied) return report(kSimulate, studied.error());
  if (!studied->prediction)
    return report(kSimulate, core::make_error(core::ErrorKind::InvalidInput, "device preset '" + device.name +
                                                                               "' has no peak rates to simulate with"));
  const core::Prediction& p = *studied->prediction;
  const core::MemoryReport* plan = studied->memory ? &*studied->memory : nullptr;
  std::optional<core::MergeGain> gain;
  if (obtained->merged) {
    auto g = core::merge_gain(unmerged, unmerged_costs, device, *obtained->merged, p);
    if (!g) return report(kSimulate, g.error());
    gain = *g;
  }

  if (const auto trace = args.value("trace")) {
    const std::vector<core::Timeline> runs = {p.timeline, p.sequential_graph, p.sequential_eager};
    core::TraceInfo info{graph.info().model_path, graph.info().model_sha256, device.name, schedule.strategy};
    if (auto saved = core::save_chrome_trace(*trace, graph, runs, &costs, info); !saved) return report(kSimulate, saved.error());
  }

  const Simulated result{graph, device, schedule, p, plan, gain, model->unsplit, fit, calibrated, p.timeline.stream_busy_us(),
                         schedule.events.size(), std::string(core::launch_mode_name(p.mode))};
  if (args.flag("json")) {
    std::cout << simulate_json(result).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return 0;
  }
  print_simulate_text(result, args.value("trace"));
  return 0;
}

}  // namespace weft::cli
