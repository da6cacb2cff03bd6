// The calibrated CPU device: a sequential CPU run's node times fitted into a DeviceSpec.
#include "weft/core/study/cpu_calibration.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "weft/core/base/median.h"
#include "weft/core/sim/calibrate.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/schedule/node_teams.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/study/prediction.h"
#include "weft/core/strategy/reference.h"
#include "weft/core/study/split_study.h"
#include "weft/core/strategy/registry.h"

namespace weft::core {

namespace {

// The least time (ms) the contention probe times a copy for, alone and together.
constexpr double kProbeMs = 40;

struct Sample {
  double flops, bytes, us;
};

struct Fit {
  double peak, bandwidth, overhead;  // FLOP/µs, bytes/µs, µs
  double time(const Sample& s) const { return std::max(s.flops / peak, s.bytes / bandwidth) + overhead; }
};

double loss(const Fit& f, const std::vector<Sample>& samples) {
  double sum = 0;
  for (const Sample& s : samples) {
    const double r = std::log(f.time(s) / s.us);
    sum += r * r;
  }
  return sum;
}

// Coordinate descent on the logs of the three parameters, with shrinking multiplicative steps:
// the loss is smooth in each and the parameters differ by orders of magnitude.
Fit fit_roofline(const std::vector<Sample>& samples) {
  std::vector<double> rates, bws, times;
  for (const Sample& s : samples) {
    if (s.flops > 0) rates.push_back(s.flops / s.us);
    else if (s.bytes > 0) bws.push_back(s.bytes / s.us);
    times.push_back(s.us);
  }
  Fit f{};
  f.peak = rates.empty() ? 1e3 : median(rates);
  f.bandwidth = bws.empty() ? 1e3 : median(bws);
  f.overhead = std::max(1e-3, 0.5 * *std::min_element(times.begin(), times.end()));
  double best = loss(f, samples);
  for (double step : {8.0, 2.0, 1.3, 1.1, 1.03, 1.01, 1.003}) {
    for (int round = 0; round < 60; ++round) {
      bool improved = false;
      for (double Fit::*p : {&Fit::peak, &Fit::bandwidth, &Fit::overhead})
        for (double factor : {step, 1.0 / step}) {
          Fit g = f;
          g.*p *= factor;
          if (g.overhead < 1e-4) continue;
          const double l = loss(g, samples);
          if (l < best) {
            best = l;
            f = g;
            improved = true;
          }
        }
      if (!improved) break;
    }
  }
  return f;
}

}  // namespace

namespace {

/// A CPU device before its rates are fitted: cores, the latch as the event cost, contention.
DeviceSpec cpu_device_base(const Graph& graph, const CpuFitOptions& options) {
  DeviceSpec d;
  d.kind = DeviceKind::Cpu;
  d.name = options.name;
  const int cores = options.cores > 0 ? options.cores : cpu_count();
  d.threads_per_stream = std::clamp(options.threads_per_stream, 1, cores);
  // The simulator runs sm_count operators at once: one per team.
  d.sm_count = std::max(cores / d.threads_per_stream, 1);
  d.hardware_queues = d.sm_count;
  const double latch = options.latch_us >= 0 ? options.latch_us : cpu_latch_latency_us(options.streams);
  d.event_record_us = 0;  // a store: the producer's thread barely notices it
  d.event_wait_us = latch;
  // Only where streams run on cores of their own: one stream reads what its own core wrote.
  if (options.streams > 1 && cores / d.threads_per_stream > 1) {
    d.cross_core_us_per_mib =
        options.cross_core_us_per_mib >= 0 ? options.cross_core_us_per_mib : cpu_cross_core_us_per_mib(options.streams);
    d.cross_core_max_bytes = static_cast<double>(cpu_core_cache_bytes());
  }
  d.concurrent_slowdown = std::max(1.0, options.concurrent_slowdown);
  d.display_name = "CPU, " + std::to_string(cores) + " cores" +
                   (d.threads_per_stream > 1 ? ", streams of " + std::to_string(d.threads_per_stream) + " threads" : std::string()) +
                   " (calibrated)";
  d.source = "weft calibrate: " + std::string(graph.info().model_path);
  return d;
}

/// `d` with rates no operator notices (flops and bytes do not depend on them): the graph's costs
/// on it are its shapes' flops and bytes.
DeviceSpec unit_rates(DeviceSpec d) {
  d.peak_fp32_flops = d.peak_tf32_flops = d.peak_fp16_flops = d.memory_bandwidth = 1e12;
  d.launch_us = 0;
  return d;
}

}  // namespace

Expected<CpuCalibration> fit_cpu_device(const Graph& graph, std::span<const double> sequential_node_us, const CpuFitOptions& options) {
  CpuCalibration cal;
  DeviceSpec& d = cal.device;
  d = cpu_device_base(graph, options);
  const CostTable shapes = estimate_costs(graph, unit_rates(d));
  cal.measured = calibrate_costs(shapes, sequential_node_us);

  std::vector<Sample> samples;
  std::vector<std::size_t> used;
  for (std::size_t v = 0; v < shapes.nodes.size(); ++v) {
    const NodeCost& c = shapes.nodes[v];
    const NodeCost& m = cal.measured.nodes[v];
    if (!c.known || !m.measured || m.time_us <= 0 || (c.flops <= 0 && c.bytes <= 0)) continue;
    samples.push_back({c.flops, c.bytes, m.time_us});
    used.push_back(v);
  }
  if (samples.size() < 3)
    return make_error(ErrorKind::InvalidInput, "calibration: only " + std::to_string(samples.size()) +
                                                   " nodes with a known cost and a measured time (3 needed) in " +
                                                   graph.info().model_path);
  const Fit f = fit_roofline(samples);
  d.peak_fp32_flops = d.peak_tf32_flops = d.peak_fp16_flops = f.peak * 1e6;
  d.memory_bandwidth = f.bandwidth * 1e6;
  d.launch_us = f.overhead;
  d.kernel_min_us = 0;
  d.source += ", " + std::to_string(samples.size()) + " nodes";

  cal.fitted = estimate_costs(graph, d);
  // The measured table's bounds come from unit rates: take the fitted device's (the simulator
  // slows memory-bound operators by their own contention factor).
  for (std::size_t v = 0; v < cal.measured.nodes.size() && v < cal.fitted.nodes.size(); ++v)
    cal.measured.nodes[v].bound = cal.fitted.nodes[v].bound;
  std::vector<double> errors;
  double sum_fit = 0, sum_meas = 0;
  for (std::size_t i = 0; i < used.size(); ++i) {
    const double fit = cal.fitted.nodes[used[i]].time_us;
    errors.push_back(std::abs(fit - samples[i].us) / samples[i].us);
    sum_fit += fit;
    sum_meas += samples[i].us;
  }
  cal.fitted_nodes = used.size();
  cal.median_node_error = median(errors);
  cal.total_error = sum_meas > 0 ? std::abs(sum_fit - sum_meas) / sum_meas : 0;
  // The measured table gets the fitted device's name: it is that device's view of this graph.
  cal.measured.device = cal.fitted.device = d.name;
  return cal;
}

std::vector<int> cpu_calibration_teams(int cores) {
  std::vector<int> teams;
  for (int t = 1; t <= cores; t *= 2) teams.push_back(t);
  if (teams.empty() || teams.back() != cores) teams.push_back(std::max(cores, 1));
  return teams;
}

Status check_threads_per_stream(int threads) {
  const int cpus = cpu_count();
  if (threads >= 1 && threads <= cpus) return {};
  return make_error(ErrorKind::InvalidInput, "threads per stream must be 1 to " + std::to_string(cpus) + " (the CPUs this process may use), got " +
                                                 std::to_string(threads));
}

Expected<CpuCalibration> calibrate_cpu(const Graph& graph, const RunOptions& run, const CpuFitOptions& options) {
  const Schedule reference = reference_schedule(graph);
  // Any valid plan runs the same kernels; the quickest planner will do.
  WEFT_TRY_ASSIGN(auto plan, study_plan(graph, reference, "greedy-by-size"));
  auto executor = make_cpu_executor();
  const auto sequential = [&](int threads) {
    RunOptions ro = run;
    ro.per_node_timing = true;
    ro.threads_per_stream = threads;
    return executor->run(graph, reference, plan, ro);
  };
  CpuFitOptions own = options;
  own.threads_per_stream = run.threads_per_stream;
  WEFT_TRY_ASSIGN(auto result, sequential(run.threads_per_stream));
  WEFT_TRY_ASSIGN(CpuCalibration cal, fit_cpu_device_with_contention(graph, result.node_median_us, run, own));
  if (options.teams.empty()) return cal;
  // Every team size's rates, each from its own sequential run (the device's own from the run above).
  std::vector<int> teams = options.teams;
  teams.push_back(run.threads_per_stream);
  std::sort(teams.begin(), teams.end());
  teams.erase(std::unique(teams.begin(), teams.end()), teams.end());
  for (int threads : teams) {
    if (threads < 1 || threads > device_cores(cal.device)) continue;
    DeviceSpec::CpuTeam team{threads, cal.device.peak_fp32_flops, cal.device.memory_bandwidth, cal.device.launch_us};
    if (threads != run.threads_per_stream) {
      WEFT_TRY_ASSIGN(auto at, sequential(threads));
      CpuFitOptions fit = own;
      fit.threads_per_stream = threads;
      fit.latch_us = cal.device.event_wait_us;
      fit.cross_core_us_per_mib = cal.device.cross_core_us_per_mib;
      fit.concurrent_slowdown = cal.device.concurrent_slowdown;
      WEFT_TRY_ASSIGN(auto other, fit_cpu_device(graph, at.node_median_us, fit));
      team = {threads, other.device.peak_fp32_flops, other.device.memory_bandwidth, other.device.launch_us};
    }
    cal.device.cpu_teams.push_back(team);
  }
  cal.device.source += ", teams of";
  for (const DeviceSpec::CpuTeam& t : cal.device.cpu_teams) cal.device.source += " " + std::to_string(t.threads);
  return cal;
}

Expected<CpuCalibration> fit_cpu_device_with_contention(const Graph& graph, std::span<const double> sequential_node_us,
                                                        const RunOptions& run, CpuFitOptions options) {
  WEFT_TRY_ASSIGN(CpuCalibration cal, fit_cpu_device(graph, sequential_node_us, options));
  if (options.concurrent_slowdown > 1) return cal;
  const int cores = options.cores > 0 ? options.cores : cpu_count();
  RunOptions at = run;
  at.threads_per_stream = options.threads_per_stream;
  std::vector<char> memory_bound(graph.node_count(), 0);
  for (std::size_t v = 0; v < graph.node_count(); ++v) memory_bound[v] = cal.fitted.nodes[v].bound == Bound::Memory ? 1 : 0;
  WEFT_TRY_ASSIGN(const CpuContention c, measure_cpu_contention_by_bound(graph, at, cores, memory_bound));
  cal.device.concurrent_slowdown = c.compute;
  cal.device.concurrent_slowdown_memory = c.memory;
  return cal;
}

Expected<double> measure_cpu_contention(const Graph& graph, const RunOptions& run, int cores, std::int64_t memory_bytes) {
  WEFT_TRY_ASSIGN(const CpuContention c, measure_cpu_contention_by_bound(graph, run, cores, std::vector<char>(graph.node_count(), 0), memory_bytes));
  return c.compute;
}

Expected<CpuContention> measure_cpu_contention_by_bound(const Graph& graph, const RunOptions& run, int cores,
                                                        std::span<const char> memory_bound, std::int64_t memory_bytes) {
  // Streams of several threads: the teams that run at once contend, not the cores.
  cores /= std::max(run.threads_per_stream, 1);
  if (cores < 2) return CpuContention{};
  const Schedule reference = reference_schedule(graph);
  WEFT_TRY_ASSIGN(auto plan, study_plan(graph, reference, "greedy-by-size"));
  // Each copy holds its own arena, weights and inputs: as many copies as half the memory holds.
  std::int64_t per_copy = plan.arena_bytes;
  for (std::size_t t = 0; t < graph.tensor_count(); ++t)
    if (const Tensor& x = graph.tensor(static_cast<TensorId>(t)); x.producer == kNoNode && x.kind != TensorKind::Intermediate)
      per_copy += std::max<std::int64_t>(graph.bytes(static_cast<TensorId>(t)), 0);
  if (memory_bytes < 0) memory_bytes = available_memory_bytes();
  const std::int64_t fit = memory_bytes / 2 / std::max<std::int64_t>(per_copy, 1);
  const int copies = static_cast<int>(std::min<std::int64_t>(cores, fit));
  if (copies < 2) return CpuContention{};
  RunOptions ro = run;
  ro.per_node_timing = true;
  ro.iterations = std::clamp(run.iterations, 3, 7);
  WEFT_TRY_ASSIGN(auto alone, run_cpu_copies(graph, reference, plan, ro, 1));
  const double iteration_ms = alone.front().wall_ms;
  // A short model is timed for kProbeMs at least, alone and together: 7 iterations of
  // grouped_mlp (0.2 ms) gave factors from 1.00 to 1.49 run to run.
  if (iteration_ms > 0 && iteration_ms * ro.iterations < kProbeMs) {
    ro.iterations = static_cast<int>(std::min(std::ceil(kProbeMs / iteration_ms), 500.0));
    WEFT_TRY_ASSIGN(alone, run_cpu_copies(graph, reference, plan, ro, 1));
  }
  // Together the copies warm up by count (run_cpu_copies): as many iterations as last
  // warmup_ms alone.
  if (ro.warmup_ms > 0 && iteration_ms > 0)
    ro.warmup = std::max(ro.warmup, static_cast<int>(std::min(ro.warmup_ms / iteration_ms, 1000.0)) + 1);
  WEFT_TRY_ASSIGN(auto together, run_cpu_copies(graph, reference, plan, ro, static_cast<std::size_t>(copies)));
  // Per class of node, the sum over the nodes every run timed; the copies' sums are averaged.
  double sum_alone[2] = {0, 0}, sum_together[2] = {0, 0};
  const std::vector<double>& base = alone.front().node_median_us;
  for (std::size_t v = 0; v < base.size(); ++v) {
    if (base[v] <= 0) continue;
    const bool everywhere = std::all_of(together.begin(), together.end(), [&](const RunResult& r) {
      return v < r.node_median_us.size() && r.node_median_us[v] >= 0;
    });
    if (!everywhere) continue;
    const int k = v < memory_bound.size() && memory_bound[v] ? 1 : 0;
    sum_alone[k] += base[v];
    for (const RunResult& r : together) sum_together[k] += r.node_median_us[v] / static_cast<double>(together.size());
  }
  // Fewer copies than cores: the slowdown with every core busy, by the model the simulator
  // applies (linear in the busy cores).
  const auto factor = [&](int k) {
    const double measured = std::max(1.0, sum_together[k] / sum_alone[k]);
    return 1 + (measured - 1) * static_cast<double>(cores - 1) / static_cast<double>(copies - 1);
  };
  CpuContention out;
  if (sum_alone[0] > 0) out.compute = factor(0);
  if (sum_alone[1] > 0) out.memory = factor(1);
  if (sum_alone[0] <= 0) out.compute = out.memory;
  if (sum_alone[1] <= 0) out.memory = out.compute;
  return out;
}

Expected<CpuRunPrediction> predict_cpu_run(const Graph& graph, const Schedule& schedule, const RunComparison& compared,
                                           const RunOptions& run) {
  WEFT_TRY(check_node_times_fit(graph, compared.sequential, "CPU prediction"));
  CpuFitOptions fit;
  fit.streams = schedule.streams.size();
  fit.threads_per_stream = run.threads_per_stream;
  WEFT_TRY_ASSIGN(auto calibration, fit_cpu_device_with_contention(graph, compared.sequential.node_median_us, run, fit));
  CpuRunPrediction out;
  // The plan the schedule ran with: writes into bytes the other stream wrote last cost a transfer.
  const MemoryPlan* plan = compared.plan.offset.size() == graph.tensor_count() ? &compared.plan : nullptr;
  WEFT_TRY_ASSIGN(out.predicted, predicted_cpu_speedup(graph, schedule, calibration.measured, calibration.device, true, plan));
  WEFT_TRY_ASSIGN(out.predicted_fitted, predicted_cpu_speedup(graph, schedule, calibration.fitted, calibration.device, false, plan));
  const double measured = compared.speedup();
  out.error = measured > 0 ? std::abs(out.predicted - measured) / measured : 0.0;
  out.device = std::move(calibration.device);
  return out;
}

Expected<CpuScheduleDevice> cpu_schedule_device(const Graph& graph, const RunOptions& run, std::size_t streams) {
  const Schedule reference = reference_schedule(graph);
  // Any valid plan runs the same kernels; the quickest planner will do.
  WEFT_TRY_ASSIGN(auto plan, study_plan(graph, reference, "greedy-by-size"));
  RunOptions ro = run;
  ro.per_node_timing = true;
  ro.iterations = std::clamp(run.iterations, 1, 3);
  WEFT_TRY_ASSIGN(auto result, make_cpu_executor()->run(graph, reference, plan, ro));
  CpuFitOptions fit;
  fit.streams = std::max<std::size_t>(streams, 1);
  fit.threads_per_stream = run.threads_per_stream;
  fit.latch_us = cpu_latch_latency_us(fit.streams);
  fit.cross_core_us_per_mib = cpu_cross_core_us_per_mib(fit.streams);
  CpuScheduleDevice out;
  const auto latch_text = [&](const DeviceSpec& d) {
    std::ostringstream s;
    s.precision(3);
    s << device_cores(d) << " cores";
    if (d.threads_per_stream > 1) s << " as " << d.sm_count << " stream(s) of " << d.threads_per_stream << " threads";
    s << ", latch " << d.event_wait_us << " us";
    return s.str();
  };
  if (auto cal = fit_cpu_device(graph, result.node_median_us, fit)) {
    out.device = std::move(cal->device);
    out.costs = std::move(cal->measured);
    out.summary = "the CPU calibrated from a sequential run (" + latch_text(out.device) + ")";
  } else {
    // Still the CPU: the measured latch for the events, the measured node times for the nodes.
    out.device = unit_rates(cpu_device_base(graph, fit));
    out.device.source += " (node times only: " + cal.error().message + ")";
    out.costs = calibrate_costs(estimate_costs(graph, out.device), result.node_median_us);
    out.costs.device = out.device.name;
    out.summary = "the CPU's measured node times (" + latch_text(out.device) + "; no fitted rates: " + cal.error().message + ")";
  }
  return out;
}

Expected<CpuSchedule> schedule_for_cpu(const Graph& graph, std::string_view strategy, const StrategyOptions& options,
                                       const RunOptions& run) {
  WEFT_TRY(check_strategy(strategy, options));
  CpuSchedule out;
  WEFT_TRY_ASSIGN(out.made_for, cpu_schedule_device(graph, run, static_cast<std::size_t>(options.max_streams)));
  StrategyOptions o = options;
  o.cuda_graph = false;  // the CPU launches eagerly: no graph replay to schedule for
  // Streams of several threads: no more streams than teams fit the cores (streams x threads <= cores).
  if (run.threads_per_stream > 1) o.max_streams = std::min(o.max_streams, out.made_for.device.sm_count);
  WEFT_TRY_ASSIGN(out.schedule, make_schedule(strategy, graph, out.made_for.costs, out.made_for.device, o));
  return out;
}

Expected<int> cpu_run_threads(int given, const Schedule& schedule) {
  if (given > 0) return given;
  if (auto ok = check_threads_per_stream(schedule.threads_per_stream); !ok)
    return make_error(ErrorKind::InvalidInput, "the schedule runs streams of " + std::to_string(schedule.threads_per_stream) +
                                                   " threads: " + ok.error().message);
  return schedule.threads_per_stream;
}

Status make_hybrid_for_cpu(const Graph& graph, Schedule& schedule, int threads_per_stream, const DeviceSpec& device,
                           const CostTable& costs) {
  const std::vector<double> node_us =
      device.kind == DeviceKind::Cpu && costs.nodes.size() == graph.node_count() ? node_times(costs) : std::vector<double>{};
  return make_hybrid(graph, schedule, threads_per_stream, cpu_count(), node_us);
}

bool remade_for_cpu(std::string_view strategy) {
  return find_strategy(strategy) && strategy != "search" && strategy != "external" && strategy != kSplitOverlap;
}

std::int64_t available_memory_bytes() {
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::int64_t>(pages) * page : 0;
}

Expected<double> predicted_cpu_speedup(const Graph& graph, const Schedule& schedule, const CostTable& costs,
                                       const DeviceSpec& device, bool costs_at_node_teams, const MemoryPlan* plan) {
  PredictOptions po;
  po.counterfactuals = false;
  po.plan = plan;
  // Costs measured at the nodes' own teams: the reference ran each node on the same team (as
  // compare_runs runs it), so it is simulated so too.
  Schedule reference;
  if (costs_at_node_teams && schedule.has_node_teams()) {
    reference = reference_schedule_with_teams(graph, schedule);
    po.reference = &reference;
    po.costs_at_node_teams = true;
  }
  WEFT_TRY_ASSIGN(auto p, predict(graph, schedule, costs, device, po));
  return p.speedup_vs_eager;
}

}  // namespace weft::core
