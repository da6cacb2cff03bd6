// weft simulate: the predicted timeline of a schedule, its speedup against both sequential
// baselines, per-stream busy time and the verdict; optional Chrome trace.
#include <cstdio>
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "weft/core/chrome_trace.h"
#include "weft/core/memory_planner.h"
#include "weft/core/schedule_json.h"
#include "weft/core/simulate.h"
#include "weft/core/strategies.h"
#include "weft/core/timeline.h"

namespace weft::cli {

namespace {

constexpr std::string_view kCommand = "simulate";
constexpr std::string_view kDefaultStrategy = "cp-list";


}  // namespace

int cmd_simulate(Args& args) {
  if (auto ok = args.parse({"schedule=", "strategy=", "streams=", "granularity=", "graph", "calibrate=", "trace=", "json"}, true);
      !ok)
    return usage_error(kCommand, ok.error().message);
  if (args.positional().size() != 1) return usage_error(kCommand, "expected exactly one MODEL (an .onnx file)");
  auto choice = schedule_choice(args, kDefaultStrategy, args.flag("graph"));
  if (!choice) return usage_error(kCommand, choice.error().message);

  auto model = load_model(args);
  if (!model) return report(kCommand, model.error());
  const core::Graph& graph = model->graph;
  const core::DeviceSpec& device = model->device;
  core::CostTable costs = std::move(model->costs);

  std::size_t calibrated = 0;
  if (const auto cal = args.value("calibrate")) {
    auto measured = core::load_timeline(*cal, graph);
    if (!measured) return report(kCommand, measured.error());
    costs = core::calibrate_costs(costs, *measured);
    for (const core::NodeCost& c : costs.nodes) calibrated += c.measured ? 1 : 0;
    if (calibrated < graph.node_count())
      std::cerr << "weft simulate: warning: " << *cal << " times " << calibrated << " of " << graph.node_count()
                << " nodes; the others keep their predicted times\n";
  }

  auto obtained = obtain_schedule(kCommand, *choice, graph, costs, device);
  if (!obtained) return report(kCommand, obtained.error());
  const core::Schedule schedule = std::move(*obtained);

  // The arena counter needs a plan for this schedule; a planning failure only loses that track.
  std::optional<core::MemoryPlan> plan;
  if (auto planned = core::plan_memory(graph, schedule); planned)
    plan = std::move(*planned);
  else
    std::cerr << "weft simulate: warning: no memory plan (" << planned.error().message << "); no arena track\n";

  core::SimOptions sim;
  sim.cuda_graph = args.flag("graph");
  sim.plan = plan ? &*plan : nullptr;
  auto prediction = core::predict(graph, schedule, costs, device, sim);
  if (!prediction) return report(kCommand, prediction.error());
  const core::Prediction& p = *prediction;

  if (const auto trace = args.value("trace")) {
    const std::vector<core::Timeline> runs = {p.timeline, p.sequential_graph, p.sequential_eager};
    core::TraceInfo info{graph.info().model_path, graph.info().model_sha256, device.name, schedule.strategy};
    if (auto saved = core::save_chrome_trace(*trace, graph, runs, &costs, info); !saved) return report(kCommand, saved.error());
  }

  const std::vector<double> busy = p.timeline.stream_busy_us();
  std::size_t events = schedule.events.size();
  const std::string mode = sim.cuda_graph ? "graph" : "eager";
  if (args.flag("json")) {
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
    j["work_us"] = p.work_span.work_us;
    j["span_us"] = p.work_span.span_us;
    j["speedup_bound"] = p.work_span.bound();
    j["calibrated_nodes"] = calibrated;
    j["verdict"] = p.verdict;
    j["stream_busy_us"] = busy;
    if (plan) j["arena_bytes"] = plan->arena_bytes;
    nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
    for (const core::TimelineItem& it : p.timeline.items)
      nodes.push_back({{"name", graph.key(it.node)}, {"op", graph.node(it.node).op_type}, {"stream", it.stream},
                       {"start_us", it.start_us}, {"end_us", it.end_us}});
    j["nodes"] = std::move(nodes);
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return 0;
  }

  std::cout << "model     " << graph.info().model_path << " (" << graph.node_count() << " nodes)\n"
            << "device    " << device.name << (calibrated ? ", " + std::to_string(calibrated) + " nodes calibrated" : "")
            << "\n"
            << "schedule  " << schedule.strategy << (schedule.options.empty() ? "" : " (" + schedule.options + ")") << ", "
            << schedule.stream_count() << " streams, " << events << " events, "
            << (sim.cuda_graph ? "launched as a CUDA Graph" : "eager launches") << "\n"
            << "makespan  " << fixed(p.makespan_us) << " us\n"
            << "speedup   " << fixed(p.speedup_vs_graph, 2) << "x vs sequential CUDA Graph (" << fixed(p.sequential_graph_us)
            << " us), " << fixed(p.speedup_vs_eager, 2) << "x vs sequential eager (" << fixed(p.sequential_eager_us) << " us)\n"
            << "bound     work " << fixed(p.work_span.work_us) << " us / span " << fixed(p.work_span.span_us)
            << " us = " << fixed(p.work_span.bound(), 2) << "x\n";
  std::cout << "streams   busy";
  for (std::size_t s = 0; s < busy.size(); ++s)
    std::cout << (s ? ", " : " ") << "s" << s << " " << fixed(busy[s]) << " us ("
              << fixed(p.makespan_us > 0 ? 100.0 * busy[s] / p.makespan_us : 0.0, 0) << "%)";
  std::cout << "\nverdict   " << p.verdict << "\n";
  if (const auto trace = args.value("trace")) std::cout << "trace     " << *trace << " (3 runs: predicted, sequential graph, sequential eager)\n";
  return 0;
}

}  // namespace weft::cli
