// A schedule's prediction beside the sequential baselines of the reference schedule, and the
// verdict that explains it.
#include "weft/core/study/prediction.h"

#include <optional>

#include "weft/core/schedule/execution_order.h"
#include "weft/core/strategy/reference.h"
#include "weft/core/analysis/verdict.h"

namespace weft::core {

namespace {

// Below these the difference is noise of the model, not a finding.
constexpr double kNoGain = 1.02;    // a schedule under 2% faster than sequential gains nothing
constexpr double kMaterial = 0.95;  // a counterfactual at least 5% faster explains the loss

}  // namespace

std::string prediction_verdict(const Graph& graph, const Schedule& schedule, const Prediction& p) {
  if (is_chain(graph)) return chain_verdict(1);
  const double reached = p.makespan_us > 0 ? p.sequential_us() / p.makespan_us : 1.0;
  const std::string bound_text = reach_verdict(p.critical.parallelism(), reached);
  std::size_t used_streams = 0;
  for (const auto& s : schedule.streams) used_streams += s.empty() ? 0 : 1;
  if (used_streams <= 1) return "single stream: no concurrency in this schedule; " + bound_text;
  if (reached < kNoGain) {
    // Which counterfactual would have paid: free events means the sync overhead ate the overlap;
    // unshared bandwidth means the branches overlapped but fought over memory.
    const auto faster = [&](double us) { return us > 0 && us < p.makespan_us * kMaterial; };
    if (!schedule.events.empty() && faster(p.free_events_us)) return "events cost more than the overlap gains: coarsen";
    if (faster(p.no_bandwidth_sharing_us)) return "branches are all bandwidth-bound: little to gain";
    if (faster(p.no_compute_sharing_us)) return "branches all fill the SMs: little to gain";
  }
  return bound_text;
}

Expected<Prediction> predict(const Graph& graph, const Schedule& schedule, const CostTable& costs,
                             const DeviceSpec& device, const PredictOptions& options) {
  if (costs.nodes.size() != graph.node_count())
    return make_error(ErrorKind::InvalidInput, "cost table has " + std::to_string(costs.nodes.size()) +
                                                   " nodes, the model " + std::to_string(graph.node_count()));
  // Each schedule's execution order once, for all of its simulations.
  WEFT_TRY_ASSIGN(const ExecutionOrder order, ExecutionOrder::build_unclocked(graph, schedule));
  std::optional<Schedule> own_reference;
  const Schedule& reference = options.reference ? *options.reference : own_reference.emplace(reference_schedule(graph));
  WEFT_TRY_ASSIGN(const ExecutionOrder reference_order, ExecutionOrder::build_unclocked(graph, reference));
  if (device.kind == DeviceKind::Cpu && schedule.threads_per_stream != std::max(device.threads_per_stream, 1)) {
    if (auto team = cpu_team_device(device, schedule.threads_per_stream)) {
      CostTable team_costs = cpu_team_costs(graph, costs, device, *team);
      if (!options.costs_at_node_teams) team_costs = cpu_node_team_costs(graph, schedule, team_costs, *team);
      PredictOptions o = options;
      o.baseline_costs = &costs;
      o.baseline_device = &device;
      return predict(graph, order, reference_order, team_costs, *team, o);
    }
  }
  if (device.kind == DeviceKind::Cpu && schedule.has_node_teams() && !options.costs_at_node_teams) {
    const CostTable team_costs = cpu_node_team_costs(graph, schedule, costs, device);
    PredictOptions o = options;
    o.baseline_costs = options.baseline_costs ? options.baseline_costs : &costs;
    o.baseline_device = options.baseline_device ? options.baseline_device : &device;
    return predict(graph, order, reference_order, team_costs, device, o);
  }
  return predict(graph, order, reference_order, costs, device, options);
}

Expected<Prediction> predict(const Graph& graph, const ExecutionOrder& order, const ExecutionOrder& reference,
                             const CostTable& costs, const DeviceSpec& device, const PredictOptions& options) {
  if (costs.nodes.size() != graph.node_count())
    return make_error(ErrorKind::InvalidInput, "cost table has " + std::to_string(costs.nodes.size()) +
                                                   " nodes, the model " + std::to_string(graph.node_count()));
  Prediction p;
  p.mode = options.mode;
  // What each kernel asks of the device, once for every simulation below.
  const std::vector<KernelDemand> demands = kernel_demands(graph, costs, device);
  SimOptions sim;
  sim.cuda_graph = options.mode == LaunchMode::Graph;
  sim.plan = options.plan;
  sim.demands = &demands;
  p.timeline = simulate(graph, order, costs, device, sim);

  const CostTable& base_costs = options.baseline_costs ? *options.baseline_costs : costs;
  const DeviceSpec& base_device = options.baseline_device ? *options.baseline_device : device;
  std::vector<KernelDemand> base_demands;
  if (options.baseline_costs || options.baseline_device) base_demands = kernel_demands(graph, base_costs, base_device);
  SimOptions base;
  base.demands = base_demands.empty() ? &demands : &base_demands;
  base.kind = RunKind::BaselineEager;
  base.label = run_label({base.kind, "", reference.schedule().strategy});
  p.sequential_eager = simulate(graph, reference, base_costs, base_device, base);
  base.kind = RunKind::BaselineGraph;
  base.label = run_label({base.kind, "", reference.schedule().strategy});
  base.cuda_graph = true;
  p.sequential_graph = simulate(graph, reference, base_costs, base_device, base);

  p.makespan_us = p.timeline.makespan_us();
  p.sequential_eager_us = p.sequential_eager.makespan_us();
  p.sequential_graph_us = p.sequential_graph.makespan_us();
  p.speedup_vs_graph = p.makespan_us > 0 ? p.sequential_graph_us / p.makespan_us : 1.0;
  p.speedup_vs_eager = p.makespan_us > 0 ? p.sequential_eager_us / p.makespan_us : 1.0;
  p.critical = find_critical_path(graph, launch_weights(costs, device, options.mode));

  if (options.counterfactuals) {
    SimOptions counter;
    counter.cuda_graph = sim.cuda_graph;
    counter.demands = &demands;  // event costs do not enter the demands
    DeviceSpec free_events = device;
    free_events.event_record_us = free_events.event_wait_us = 0;
    p.free_events_us = simulate(graph, order, costs, free_events, counter).makespan_us();
    counter.share_bandwidth = false;
    p.no_bandwidth_sharing_us = simulate(graph, order, costs, device, counter).makespan_us();
    counter.share_bandwidth = true;
    counter.share_compute = false;
    p.no_compute_sharing_us = simulate(graph, order, costs, device, counter).makespan_us();
  }
  p.verdict = prediction_verdict(graph, order.schedule(), p);
  return p;
}

}  // namespace weft::core
