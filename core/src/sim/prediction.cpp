// A schedule's prediction beside the sequential baselines, and the verdict that explains it.
#include <cstdio>

#include "weft/core/simulate.h"

namespace weft::core {

namespace {

std::string ratio(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fx", x);
  return buf;
}

// Below these the difference is noise of the model, not a finding.
constexpr double kNoGain = 1.02;        // a schedule under 2% faster than sequential gains nothing
constexpr double kMaterial = 0.95;      // a counterfactual at least 5% faster explains the loss

}  // namespace

std::string sim_verdict(const Graph& graph, const Schedule& schedule, const Prediction& p, bool cuda_graph) {
  if (is_chain(graph)) return "chain: no inter-operator parallelism (width 1)";
  const double baseline = cuda_graph ? p.sequential_graph_us : p.sequential_eager_us;
  const double reached = p.makespan_us > 0 ? baseline / p.makespan_us : 1.0;
  const std::string bound_text =
      "critical path bounds the speedup at " + ratio(p.work_span.bound()) + "; this schedule reaches " + ratio(reached);
  std::size_t used_streams = 0;
  for (const auto& s : schedule.streams) used_streams += s.empty() ? 0 : 1;
  if (used_streams <= 1) return "single stream: no concurrency in this schedule; " + bound_text;
  if (reached < kNoGain) {
    // Which counterfactual would have paid: free events means the sync overhead ate the overlap;
    // unshared bandwidth means the branches overlapped but fought over memory.
    if (!schedule.events.empty() && p.free_events_us < p.makespan_us * kMaterial)
      return "events cost more than the overlap gains: coarsen";
    if (p.no_bandwidth_sharing_us < p.makespan_us * kMaterial)
      return "branches are all bandwidth-bound: little to gain";
    if (p.no_compute_sharing_us < p.makespan_us * kMaterial) return "branches all fill the SMs: little to gain";
  }
  return bound_text;
}

Expected<Prediction> predict(const Graph& graph, const Schedule& schedule, const CostTable& costs,
                             const DeviceSpec& device, const SimOptions& options) {
  if (costs.nodes.size() != graph.node_count())
    return make_error(ErrorKind::InvalidInput, "cost table has " + std::to_string(costs.nodes.size()) +
                                                   " nodes, the model " + std::to_string(graph.node_count()));
  if (auto order = issue_order(graph, schedule, costs); !order) return order.error();
  Prediction p;
  p.timeline = simulate(graph, schedule, costs, device, options);
  const Schedule seq = sequential_schedule(graph);
  SimOptions base = options;
  base.label = "sequential eager";
  base.cuda_graph = false;
  base.share_compute = base.share_bandwidth = true;
  p.sequential_eager = simulate(graph, seq, costs, device, base);
  p.sequential_eager.kind = "sequential-eager";
  base.label = "sequential CUDA Graph";
  base.cuda_graph = true;
  p.sequential_graph = simulate(graph, seq, costs, device, base);
  p.sequential_graph.kind = "sequential-graph";
  p.makespan_us = p.timeline.makespan_us();
  p.sequential_eager_us = p.sequential_eager.makespan_us();
  p.sequential_graph_us = p.sequential_graph.makespan_us();
  p.speedup_vs_graph = p.makespan_us > 0 ? p.sequential_graph_us / p.makespan_us : 1.0;
  p.speedup_vs_eager = p.makespan_us > 0 ? p.sequential_eager_us / p.makespan_us : 1.0;
  p.work_span = work_span(graph, costs);

  SimOptions counter = options;
  counter.plan = nullptr;
  DeviceSpec free_events = device;
  free_events.event_record_us = free_events.event_wait_us = 0;
  p.free_events_us = simulate(graph, schedule, costs, free_events, counter).makespan_us();
  counter.share_bandwidth = false;
  p.no_bandwidth_sharing_us = simulate(graph, schedule, costs, device, counter).makespan_us();
  counter.share_bandwidth = true;
  counter.share_compute = false;
  p.no_compute_sharing_us = simulate(graph, schedule, costs, device, counter).makespan_us();
  p.verdict = sim_verdict(graph, schedule, p, options.cuda_graph);
  return p;
}

}  // namespace weft::core
