#pragma once
// The calibrated CPU device: per-node times of a sequential run on the CPU executor, fitted into
// the cost model's per-device parameters (a DeviceSpec of kind Cpu), so that the simulator
// predicts the CPU executor's runs. `weft calibrate`, `weft run --backend cpu` (its predicted
// speedup) and `weft sweep --backend cpu` all take their CPU device from here.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/exec/executor.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/run_comparison.h"
#include "weft/core/schedule/timeline.h"

namespace weft::core {

struct CpuFitOptions {
  int cores = 0;          ///< the resource concurrent operators share; 0: the host's hardware threads
  double latch_us = -1;   ///< one-way latch latency; < 0: measured (cpu_latch_latency_us(streams))
  /// DeviceSpec::cross_core_us_per_mib; < 0: measured (cpu_cross_core_us_per_mib(streams)).
  double cross_core_us_per_mib = -1;
  /// The streams of the schedules the device will predict: the executor's waits spin when each
  /// has a CPU of its own and sleep otherwise, and the measured latch waits the same way.
  std::size_t streams = 2;
  /// DeviceSpec::concurrent_slowdown of the device (measure_cpu_contention); 1: none.
  double concurrent_slowdown = 1;
  std::string name = "cpu";
  /// The threads of each stream's library team in the run the node times come from
  /// (RunOptions::threads_per_stream): the device's threads_per_stream, its sm_count cores /
  /// threads_per_stream.
  int threads_per_stream = 1;
  /// calibrate_cpu: the team sizes to fit besides the run's (each a sequential run at that size)
  /// into DeviceSpec::cpu_teams; empty: none (cpu_calibration_teams() lists every useful one).
  std::vector<int> teams;
};

/// The team sizes worth calibrating on `cores` cores: 1, 2, 4, ... up to `cores`, and `cores`
/// itself. O(log cores).
std::vector<int> cpu_calibration_teams(int cores);

/// Fails (InvalidInput) when `threads` threads per stream cannot run here: below 1 or more than
/// the CPUs this process may use (cpu_count()), naming both. Front ends check their option with it.
Status check_threads_per_stream(int threads);

struct CpuCalibration {
  DeviceSpec device;        ///< kind Cpu: fitted peak, bandwidth and per-operator overhead; cores; latch
  CostTable measured;       ///< the graph's costs with the run's per-node times (calibrate_costs)
  CostTable fitted;         ///< the graph's costs predicted by `device` from shapes alone
  std::size_t fitted_nodes = 0;  ///< nodes the fit used (known cost, measured time > 0)
  double median_node_error = 0;  ///< median over those of |fitted − measured| / measured
  double total_error = 0;        ///< |Σ fitted − Σ measured| / Σ measured over those nodes
};

/// Fits a CPU device to the per-node times of a sequential run (RunResult::node_median_us, or
/// node_times() of a timeline; -1: not measured), µs: per node
/// t = max(flops / peak, bytes / bandwidth) + overhead, the three parameters chosen to minimise
/// the squared log ratio of fitted to measured time (coordinate descent). Nodes of unknown cost
/// or no measured time are left out. Errors (InvalidInput) when fewer than 3 nodes remain.
/// O(V · iterations), iterations bounded (~10³).
Expected<CpuCalibration> fit_cpu_device(const Graph& graph, std::span<const double> sequential_node_us,
                                        const CpuFitOptions& options = {});

/// How much longer the graph's operators take while each of `cores` cores runs a copy of the
/// reference schedule (run_cpu_copies) than while one copy runs alone, pinned the same way: the
/// ratio of the sums of their per-node medians, at least 1 (DeviceSpec::concurrent_slowdown).
/// Two executor runs of `run`'s warm-up and iterations (3 to 7). Each copy holds its own arena,
/// weights and inputs: only as many run at once as half of `memory_bytes` holds (< 0: the
/// memory free now, available_memory_bytes()), and from fewer copies than cores the factor is
/// extrapolated linearly in the busy cores, as the simulator applies it. 1 without 2 cores or
/// room for 2 copies. Errors: the executor's.
Expected<double> measure_cpu_contention(const Graph& graph, const RunOptions& run, int cores, std::int64_t memory_bytes = -1);

/// The contention factors of compute-bound and of memory-bound operators apart.
struct CpuContention {
  double compute = 1;  ///< DeviceSpec::concurrent_slowdown
  double memory = 1;   ///< DeviceSpec::concurrent_slowdown_memory
};
/// measure_cpu_contention's probe, its ratio taken over the nodes `memory_bound` marks (per node,
/// non-zero: memory-bound) and over the others apart (a class without a timed node gets the
/// other's factor). Faster kernels make the difference: with oneDNN, RandWire-WS's
/// batch normalisations ran 1.71x slower beside a second stream, its convolutions 1.09x.
Expected<CpuContention> measure_cpu_contention_by_bound(const Graph& graph, const RunOptions& run, int cores,
                                                        std::span<const char> memory_bound, std::int64_t memory_bytes = -1);

/// fit_cpu_device, then the contention measured (measure_cpu_contention_by_bound with `run`'s
/// iterations on options.cores, else every hardware thread, each node's bound from the fitted
/// device) unless options.concurrent_slowdown is above 1 already. Errors: both's.
Expected<CpuCalibration> fit_cpu_device_with_contention(const Graph& graph, std::span<const double> sequential_node_us,
                                                        const RunOptions& run, CpuFitOptions options = {});

/// What the calibrated CPU device predicts for a CPU run comparison's schedule (`weft run
/// --backend cpu` and the studio's Run on CPU report it beside the measured speedup).
struct CpuRunPrediction {
  double predicted = 0;         ///< with the sequential run's own node medians as the node costs
  double predicted_fitted = 0;  ///< with the fitted device's node costs from shapes alone
  double error = 0;             ///< |predicted − measured| / measured
  DeviceSpec device;            ///< the device fitted (cores, latch, concurrent_slowdown)
};

/// The device fitted to `compared`'s sequential node medians, its latch measured for the
/// schedule's streams and its contention measured (measure_cpu_contention with `run`'s
/// iterations, every hardware thread), then the schedule and the reference simulated on it.
/// Errors (InvalidInput): a comparison whose reference ran another graph (merged or split), and
/// fit_cpu_device's; the executor's.
Expected<CpuRunPrediction> predict_cpu_run(const Graph& graph, const Schedule& schedule, const RunComparison& compared,
                                           const RunOptions& run);

/// The CPU device a run on the CPU makes its schedule for when the schedule comes from a strategy
/// and no device was chosen (`weft run --backend cpu`, the studio's Run on CPU, Python's
/// Model.run with backend "cpu"): a schedule made for a GPU preset judges every operator by a
/// GPU's event costs and kernel times, and on the CPU puts a branchy model on one stream.
struct CpuScheduleDevice {
  DeviceSpec device;    ///< kind Cpu: fitted rates, the latch measured for the schedule's streams
  CostTable costs;      ///< every node's measured time (the reference run's node medians)
  std::string summary;  ///< what the schedule is made for, as reports say it
};

/// Runs the reference schedule once per node-timed iteration (`run`'s warm-up, at most 3
/// iterations), measures the latch for `streams` and fits the device to the node times
/// (fit_cpu_device; no contention probe: scheduling needs the node times and the event cost,
/// whose double is the automatic granularity). Where no fit is possible (fewer than 3 nodes of
/// known cost, such as a top-level If holding the network) the device keeps the measured latch
/// and node times, and the summary says why it has no fitted rates. Errors: the executor's.
Expected<CpuScheduleDevice> cpu_schedule_device(const Graph& graph, const RunOptions& run, std::size_t streams);

/// A strategy's schedule made for the CPU that will run it: cpu_schedule_device for the options'
/// stream cap, then make_schedule with its device and measured node times (the options'
/// granularity where one is given, else the device's automatic one). What the studio's Run on CPU
/// and Python's Model.run(strategy, backend="cpu") do where the model's device is a GPU preset
/// nobody chose; `weft run --backend cpu` does the same through its schedule options (memory
/// budget, merges). Errors: the executor's, make_schedule's.
struct CpuSchedule {
  Schedule schedule;
  CpuScheduleDevice made_for;
};
Expected<CpuSchedule> schedule_for_cpu(const Graph& graph, std::string_view strategy, const StrategyOptions& options,
                                       const RunOptions& run);

/// The threads per stream of a CPU run of `schedule`: `given` where it is above 0 (checked by
/// the front end), else the schedule's own (Schedule::threads_per_stream: search on a CPU
/// calibrated at several team sizes may choose more than 1). Errors (InvalidInput): the
/// schedule's team does not fit here (check_threads_per_stream), naming it. O(1).
Expected<int> cpu_run_threads(int given, const Schedule& schedule);

/// Hybrid teams for a run on this machine's CPUs (`weft run --hybrid`, the studio's Run ▸ Hybrid
/// teams, Python's Model.run(hybrid=True)): make_hybrid with `threads_per_stream` on cpu_count()
/// cores. Where `device` is a CPU, `costs` are its node times and an alone node shorter than
/// kHybridMinNodeUs stays on its stream's team; other devices' times say nothing of the CPU and
/// are not read. Errors: make_hybrid's. O((V + E)·S).
Status make_hybrid_for_cpu(const Graph& graph, Schedule& schedule, int threads_per_stream, const DeviceSpec& device,
                           const CostTable& costs);

/// Whether a run on the CPU makes a schedule of this strategy again for the CPU (schedule_for_cpu):
/// every registered strategy but search (its answer depends on a time budget), external (a user's
/// program) and split-overlap (it schedules the split model the split study made). O(1).
bool remade_for_cpu(std::string_view strategy);

/// Physical memory free now, bytes (0 when the system does not say).
std::int64_t available_memory_bytes();

/// Runs the reference schedule on the CPU executor (options.warmup warm-up runs, the median of
/// options.iterations) with run.threads_per_stream threads per stream, measures the contention
/// between its streams (measure_cpu_contention, unless options.concurrent_slowdown is above 1
/// already) and fits the device to both; then, for every other team size in options.teams, the
/// reference again at that size, fitted into DeviceSpec::cpu_teams (the device's own size among
/// them). Errors: the executor's and fit_cpu_device's.
Expected<CpuCalibration> calibrate_cpu(const Graph& graph, const RunOptions& run, const CpuFitOptions& options = {});

/// Predicted speedup of `schedule` over the reference schedule on a CPU device: both simulated
/// with `costs` (measured or fitted). `costs_at_node_teams`: the costs were measured in a run
/// where each node ran on its team of the schedule's hybrid teams (Schedule::node_threads), and
/// so did the reference (compare_runs); otherwise nodes on other teams take their team's rates
/// (predict). `plan`, when given (the plan the schedule ran with): a node writing arena bytes a
/// node of another stream wrote last pays the device's cross-core rate on them (simulate).
/// Errors (InvalidInput): a schedule that misplaces nodes or deadlocks, a cost table of another
/// size.
Expected<double> predicted_cpu_speedup(const Graph& graph, const Schedule& schedule, const CostTable& costs,
                                       const DeviceSpec& device, bool costs_at_node_teams = false, const MemoryPlan* plan = nullptr);

}  // namespace weft::core
