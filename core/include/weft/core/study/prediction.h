#pragma once
// The prediction of a schedule under a launch mode, beside both sequential baselines (the
// reference schedule launched eagerly and as one CUDA Graph), with the verdict that explains it.
#include <cstdint>
#include <string>
#include <string_view>

#include "weft/core/cost/cost_model.h"
#include "weft/core/analysis/critical_path.h"
#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"
#include "weft/core/memory/memory_plan.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/schedule/timeline.h"

namespace weft::core {

class ExecutionOrder;

struct PredictOptions {
  LaunchMode mode = LaunchMode::Eager;
  const MemoryPlan* plan = nullptr;  ///< when set, the schedule's timeline carries arena bytes over time
  /// Simulate the three counterfactuals the verdict needs (events free, no bandwidth sharing, no
  /// SM sharing). Off: 3 simulations instead of 6, and the verdict judges without them.
  bool counterfactuals = true;
  /// reference_schedule(graph), when the caller already has it (else it is built here). Not read
  /// by the predict() that takes execution orders.
  const Schedule* reference = nullptr;
  /// The sequential baselines' own costs and device where they differ from the schedule's (a CPU
  /// schedule of streams of several threads against the one-thread sequential run); null: the
  /// schedule's. Read by the predict() that takes execution orders.
  const CostTable* baseline_costs = nullptr;
  const DeviceSpec* baseline_device = nullptr;
  /// A CPU schedule with hybrid teams (Schedule::node_threads): the costs are each node's time
  /// on the team it runs on already (measured in a run with those teams), not on the device's
  /// team size, so they are not moved by cpu_node_team_costs. Read by the predict() that takes
  /// a schedule.
  bool costs_at_node_teams = false;
};

/// A schedule's prediction beside the sequential baselines of the same graph and cost model.
struct Prediction {
  LaunchMode mode = LaunchMode::Eager;
  Timeline timeline;           ///< the schedule in `mode` (kind Predicted)
  Timeline sequential_eager;   ///< reference_schedule() with a launch per node (kind BaselineEager)
  Timeline sequential_graph;   ///< the same as one CUDA Graph (kind BaselineGraph)
  double makespan_us = 0;
  double sequential_eager_us = 0;
  double sequential_graph_us = 0;
  double speedup_vs_graph = 0;  ///< sequential_graph_us / makespan_us (quoted first)
  double speedup_vs_eager = 0;  ///< sequential_eager_us / makespan_us
  /// The baseline in the schedule's own mode and the speedup against it.
  double sequential_us() const { return mode == LaunchMode::Graph ? sequential_graph_us : sequential_eager_us; }
  double speedup() const { return mode == LaunchMode::Graph ? speedup_vs_graph : speedup_vs_eager; }
  /// The critical path over launch_weights(costs, device, mode): its parallelism() bounds the
  /// speedup of any schedule in `mode`.
  CriticalPath critical;
  /// Makespans of the counterfactual runs used by the verdict (0 when not simulated).
  double free_events_us = 0;
  double no_bandwidth_sharing_us = 0;
  double no_compute_sharing_us = 0;
  std::string verdict;
};

/// Simulates the schedule and both baselines (and the counterfactuals) and judges the result
/// (prediction_verdict). A CPU schedule made for another team size than the device's own
/// (Schedule::threads_per_stream, a device calibrated at several: cpu_team_device) is simulated
/// on that team's device and node times (cpu_team_costs); the baselines stay on the device's.
/// Hybrid teams (Schedule::node_threads) move each node to its team's rates
/// (cpu_node_team_costs) unless options.costs_at_node_teams; the simulator gives such a node
/// the cores of its team. Errors (InvalidInput): a cost table of another size, or a schedule that
/// misplaces nodes or deadlocks. O(simulations · simulate()).
Expected<Prediction> predict(const Graph& graph, const Schedule& schedule, const CostTable& costs,
                             const DeviceSpec& device, const PredictOptions& options = {});

/// The same from the execution orders (with their events: any build but build_without_events)
/// of the schedule and of the reference schedule, built once by the caller (study_schedule);
/// options.reference is not read. Errors (InvalidInput): a cost table of another size.
Expected<Prediction> predict(const Graph& graph, const ExecutionOrder& order, const ExecutionOrder& reference,
                             const CostTable& costs, const DeviceSpec& device, const PredictOptions& options = {});

/// The verdict from a prediction's figures: "chain: ...", "single stream: ...", "events cost more
/// than the overlap gains: coarsen", "branches are all bandwidth-bound: little to gain",
/// "branches all fill the SMs: little to gain", or the bound line ("the critical path bounds the
/// speedup at 1.8x; this schedule reaches 1.6x"), in the same words as analyze's verdict.
std::string prediction_verdict(const Graph& graph, const Schedule& schedule, const Prediction& p);

}  // namespace weft::core
