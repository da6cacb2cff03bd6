#pragma once
// Multi-stream simulator: a host issue thread and a fluid device model.
//
// Host: one issuing thread. Eager mode pays launch_us per kernel (nodes predicted at 0 µs launch none), event_record_us per event
// record (after its producer's launch) and event_wait_us per wait (before its consumer's launch),
// in issue_order(). CUDA Graph mode pays launch_us once for the whole graph, then releases the
// nodes in issue order one per graph_launch_per_node_us; events are graph edges and cost nothing.
// Device: a discrete-event fluid model. A kernel starts when it has been issued, its stream
// predecessor has finished and every event it waits on has fired. A running kernel has a compute
// demand and a bandwidth demand (kernel_demand()); while the demands of the running kernels on a
// resource sum to more than 1, each kernel using it progresses at 1/sum of its isolated rate.
// A CPU device (DeviceKind::Cpu, the CPU executor's model): no host thread (each stream thread
// runs its own operators, the per-operator overhead included in their time); each running
// operator holds one core (demand 1/cores); an event wakes its consumer event_record_us +
// event_wait_us after its producer ends (latch store and wake-up). Launch modes do not apply.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"
#include "weft/core/memory/memory_plan.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/schedule/timeline.h"

namespace weft::core {

class ExecutionOrder;

/// What a kernel asks of the device while it runs at its isolated speed, each in 0..1.
struct KernelDemand {
  double compute = 0;    ///< min(occupancy, flops / (device time · peak_fp32)); occupancy when nothing is known
  double bandwidth = 0;  ///< bytes / (device time · memory_bandwidth), capped at 1
  double occupancy = 0;  ///< min(1, blocks / sm_count), blocks = ceil(output elements / 256)
};

struct SimOptions {
  bool cuda_graph = false;             ///< the whole schedule launched as one CUDA Graph
  const MemoryPlan* plan = nullptr;    ///< when set, the timeline carries arena bytes over time
  bool share_compute = true;           ///< false: concurrent kernels never slow each other on the SMs
  bool share_bandwidth = true;         ///< false: ... nor on memory bandwidth (counterfactuals for verdicts)
  std::string label;                   ///< Timeline::label; default "predicted <strategy>"
  RunKind kind = RunKind::Predicted;   ///< Timeline::kind (Timeline::strategy is the schedule's)
  /// kernel_demands(graph, costs, device) when the caller has it (several simulations of one
  /// graph and cost model share it; a device that differs only in event costs shares it too);
  /// null: computed per node as it starts.
  const std::vector<KernelDemand>* demands = nullptr;
};

/// Device-side duration of a node, µs. Measured times are used as they are. Predicted times
/// carry one launch (the cost model's convention: roofline + launch_us), which the simulator
/// charges on the host instead, so the device runs for max(kernel_min_us, time_us − launch_us).
/// A node whose time is 0 (metadata-only, e.g. Reshape) launches no kernel: 0.
double device_time_us(const NodeCost& cost, const DeviceSpec& device);

/// Demand of node `n` with cost `cost` on `device`. O(outputs of n).
KernelDemand kernel_demand(const Graph& graph, NodeId n, const NodeCost& cost, const DeviceSpec& device);
/// kernel_demand of every node, by NodeId. O(V + outputs).
std::vector<KernelDemand> kernel_demands(const Graph& graph, const CostTable& costs, const DeviceSpec& device);

/// The order in which the host issues the nodes: a topological order of data edges ∪ stream
/// order ∪ events, earliest ideal start first (ties: lower stream, then position). Errors
/// (InvalidInput) for a node placed twice or never, an event naming an unknown node, or a cycle
/// (the schedule would deadlock). O((V + E) log V).
Expected<std::vector<NodeId>> issue_order(const Graph& graph, const Schedule& schedule, const CostTable& costs);

/// issue_order() of a schedule's execution order already built (with its events: build,
/// validate or build_unclocked), for callers that read it several times. O((V + E) log V).
std::vector<NodeId> issue_order(const ExecutionOrder& order, const CostTable& costs);

/// Predicted timeline of `schedule` (its events included) on `device` with `costs`. Items are
/// in node-id order. Precondition: issue_order() succeeds (WEFT_CHECK aborts otherwise); the device
/// honours only stream order and events, so a schedule missing an event races (as a GPU
/// would). O((V + E) log V + V · S) for S streams.
Timeline simulate(const Graph& graph, const Schedule& schedule, const CostTable& costs, const DeviceSpec& device,
                  const SimOptions& options = {});

/// simulate() of the schedule an execution order was built from (with its events: build,
/// validate or build_unclocked; an order without events aborts), for callers that simulate one
/// schedule several times (predict: the schedule and its counterfactuals, the baselines). The
/// order is the precondition: nothing is rebuilt. O((V + E) log V + V · S).
Timeline simulate(const Graph& graph, const ExecutionOrder& order, const CostTable& costs, const DeviceSpec& device,
                  const SimOptions& options = {});

/// A CPU schedule's costs with each node on its own team (Schedule::team_of): a node whose team
/// differs from `device`'s threads_per_stream takes that team's fitted rates (cpu_team_costs
/// from `device` to cpu_team_device(device, team)); a team size the device was not calibrated at
/// leaves its nodes' costs as they are (`uncalibrated`, when given, counts them). `costs` as is
/// for a GPU device or a schedule without node teams. O(V · distinct teams).
CostTable cpu_node_team_costs(const Graph& graph, const Schedule& schedule, const CostTable& costs, const DeviceSpec& device,
                              std::size_t* uncalibrated = nullptr);

/// Sets `timeline.arena_bytes` (what SimOptions::plan does during simulate()): the bytes of `plan`
/// in use over the timeline's time, a tensor from its producer's start to its last reader's end.
/// `timeline` is a simulated run of `graph` (items in node-id order). O(V + E + T log T).
void add_arena_counter(const Graph& graph, const MemoryPlan& plan, Timeline& timeline);

/// How the host launches a schedule: one launch per node (eager) or one CUDA Graph replay.
enum class LaunchMode : std::uint8_t { Eager, Graph };
/// "eager" / "graph".
std::string_view launch_mode_name(LaunchMode mode);

/// The simulator's per-node weight in a launch mode: device time plus the launch (eager) or the
/// per-node graph cost (CUDA Graph) of every node that launches a kernel, 0 for the others. The
/// critical path over these weights bounds any schedule's speedup in that mode. O(V).
std::vector<double> launch_weights(const CostTable& costs, const DeviceSpec& device, LaunchMode mode);

}  // namespace weft::core
