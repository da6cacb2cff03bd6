// The batch sweep: every strategy's predicted (and measured) speedup at each batch size.
#include "weft/core/study/batch_sweep.h"

#include "weft/core/profile/profile.h"

#include "weft/core/study/split_study.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <cmath>
#include <set>
#include <sstream>

#include "weft/core/exec/compare_outputs.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/schedule/node_teams.h"
#include "weft/core/sim/calibrate.h"
#include "weft/core/base/csv.h"
#include "weft/core/transform/micro_batch.h"
#include "weft/core/strategy/registry.h"
#include "weft/core/study/cpu_calibration.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/study/prediction.h"
#include "weft/core/strategy/reference.h"

namespace weft::core {

namespace {

constexpr const char* kCsvHeader =
    "model,batch,strategy,device,mode,streams,events,predicted_us,predicted_sequential_us,predicted_speedup,"
    "measured_ms,measured_sequential_ms,measured_speedup";

bool is_float(DType t) { return t == DType::Float32 || t == DType::Float16 || t == DType::Float64 || t == DType::BFloat16; }

// Every output that is not floating point has the same bytes in both runs.
bool exact_outputs_match(const RunResult& a, const RunResult& b) {
  for (const auto& [name, t] : a.outputs) {
    if (is_float(t.dtype)) continue;
    const auto other = b.outputs.find(name);
    if (other == b.outputs.end() || other->second.bytes != t.bytes) return false;
  }
  return true;
}

// The largest |x| over a run's float32 outputs (0 when it has none).
double largest_output(const RunResult& run) {
  double largest = 0;
  for (const auto& [name, t] : run.outputs) {
    if (t.dtype != DType::Float32) continue;
    for (std::size_t i = 0; i + sizeof(float) <= t.bytes.size(); i += sizeof(float)) {
      float x;
      std::memcpy(&x, t.bytes.data() + i, sizeof x);
      if (std::isfinite(x)) largest = std::max(largest, static_cast<double>(std::fabs(x)));
    }
  }
  return largest;
}

std::string number(double v) {
  std::ostringstream o;
  o.precision(10);
  o << v;
  return o.str();
}

std::optional<double> parse_number(const std::string& s) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

Expected<std::string> find_batch_dim(const Graph& graph) {
  std::set<std::string> symbols;
  for (TensorId t : graph.inputs()) {
    const Tensor& tensor = graph.tensor(t);
    if (tensor.dims.empty() || tensor.dims[0].known()) continue;
    // An unnamed dim is bound by position (ImportOptions: "INPUT:AXIS").
    symbols.insert(tensor.dims[0].symbol.empty() ? tensor.name + ":0" : tensor.dims[0].symbol);
  }
  if (symbols.size() == 1) return *symbols.begin();
  if (symbols.empty())
    return make_error(ErrorKind::InvalidInput, graph.info().model_path +
                                                   ": no unbound symbolic batch dimension (dim 0 of an input) to sweep; "
                                                   "the model's batch is static or already bound");
  std::string names;
  for (const std::string& s : symbols) names += (names.empty() ? "'" : ", '") + s + "'";
  return make_error(ErrorKind::InvalidInput, graph.info().model_path + ": several symbolic dims at dim 0 of the inputs (" +
                                                 names + "); name the batch dimension");
}

namespace {

/// The reference schedule with a hybrid schedule's teams, its run and the node times it measured
/// (each node's at its own team).
struct TeamReference {
  Schedule schedule;
  RunResult run;
  CostTable costs;
};

Expected<TeamReference> run_team_reference(const Graph& graph, const Schedule& schedule, const CostTable& costs, Executor& executor,
                                           const RunOptions& run) {
  TeamReference out;
  out.schedule = reference_schedule_with_teams(graph, schedule);
  WEFT_TRY_ASSIGN(auto plan, study_plan(graph, out.schedule, "greedy-by-size"));
  WEFT_TRY_ASSIGN(out.run, executor.run(graph, out.schedule, plan, run));
  out.costs = out.run.node_median_us.size() == graph.node_count() ? calibrate_costs(costs, out.run.node_median_us) : costs;
  return out;
}

/// The point's schedule run on the executor beside `base` (the batch's sequential run, or the
/// reference with the schedule's hybrid teams): outputs checked, the times kept in `pt`.
Status measure_point(const Graph& graph, const Schedule& schedule, const RunResult& base, const SweepOptions& options,
                     SweepPoint& pt) {
  WEFT_TRY_ASSIGN(auto plan, study_plan(graph, schedule, "greedy-by-size"));
  WEFT_TRY_ASSIGN(auto run, options.executor->run(graph, schedule, plan, options.run));
  const OutputDiff diff = compare_outputs(base, run);
  const double allowed = options.output_tolerance * std::max(1.0, largest_output(base));
  // NaN: a missing or misshapen output; integer outputs (argmax, ...) must match exactly.
  if (!diff.identical && (!(diff.max_abs_diff <= allowed) || !exact_outputs_match(base, run)))
    return make_error(ErrorKind::Internal, "batch " + std::to_string(pt.batch) + ", " + pt.strategy +
                                               ": the scheduled outputs differ from the sequential run (max abs diff " +
                                               number(diff.max_abs_diff) + ")");
  pt.measured_ms = run.wall_ms;
  pt.measured_sequential_ms = base.wall_ms;
  pt.measured_speedup = run.wall_ms > 0 ? base.wall_ms / run.wall_ms : 0.0;
  return {};
}

/// A sweep's profile: the batch it measured and the device fitted to it.
struct SweepProfile {
  std::int64_t batch = 0;
  DeviceSpec fitted;
  std::string note;
};

/// The profile mapped onto the model at the batch it was taken at (the exported batch; batch 1
/// for a symbolic one) and the device fitted to it.
Expected<std::optional<SweepProfile>> sweep_profile(const std::string& model_path, const SweepOptions& options,
                                                    const std::string& batch_dim, bool rebatch) {
  if (options.profile.empty()) return std::optional<SweepProfile>();
  if (options.executor)
    return make_error(ErrorKind::InvalidInput, options.profile + ": a profile predicts from measured times; a sweep with an executor measures its own");
  ImportOptions io = options.import;
  if (!rebatch && !batch_dim.empty() && !io.dims.count(batch_dim)) io.dims[batch_dim] = 1;
  WEFT_TRY_ASSIGN(const Graph graph, import_onnx(model_path, io));
  WEFT_TRY_ASSIGN(const Profile profile, load_profile(graph, estimate_costs(graph, options.device), options.profile));
  SweepProfile out;
  out.batch = graph_batch(graph);
  WEFT_TRY_ASSIGN(out.fitted, fit_device_to_profile(graph, profile, options.device, options.device.name + "-profile"));
  out.note = "batch " + std::to_string(out.batch) + " from measured times (" + profile.source + ", " + options.profile +
             "); every batch predicted on " + options.device.name + " fitted to them";
  return std::optional<SweepProfile>(std::move(out));
}

}  // namespace

Expected<std::vector<SweepPoint>> sweep(const std::string& model_path, const SweepOptions& options) {
  std::vector<std::string> strategies = options.strategies.empty() ? fixed_strategy_names() : options.strategies;
  for (const std::string& s : strategies) WEFT_TRY(check_strategy(s, options.strategy));
  for (std::int64_t b : options.batches)
    if (b <= 0) return make_error(ErrorKind::InvalidInput, "batch sizes must be positive, got " + std::to_string(b));
  const auto note = [&](const std::string& text) {
    if (options.on_note) options.on_note(text);
  };
  // Hybrid teams are a CPU's: the CPU executor's (calibrated at each batch) or a CPU device's.
  if (options.hybrid && !(options.executor ? options.calibrate_cpu : options.device.kind == DeviceKind::Cpu))
    return make_error(ErrorKind::InvalidInput, options.executor ? "hybrid teams need the CPU executor (this sweep runs on another)"
                                                                : "hybrid teams need a CPU device, not " + options.device.name);
  if (options.hybrid && std::find(strategies.begin(), strategies.end(), kSplitOverlap) != strategies.end())
    note(std::string(kSplitOverlap) + " runs without hybrid teams: its baseline runs the unsplit model");
  std::string batch_dim = options.batch_dim;
  bool rebatch = false;  // a static batch: each point re-batches dim 0 of the inputs
  if (batch_dim.empty()) {
    WEFT_TRY_ASSIGN(auto probe, import_onnx(model_path, options.import));
    auto found = find_batch_dim(probe);
    bool symbolic = false;
    for (TensorId t : probe.inputs())
      symbolic = symbolic || (!probe.tensor(t).dims.empty() && !probe.tensor(t).dims[0].known());
    if (found) {
      batch_dim = *found;
    } else if (!symbolic && graph_batch(probe) > 0) {
      rebatch = true;
      note(model_path + " has a static batch (" + std::to_string(graph_batch(probe)) +
           "): each point re-batches dim 0 of the inputs, as --batch does");
    } else {
      return found.error();
    }
  }

  WEFT_TRY_ASSIGN(const std::optional<SweepProfile> profiled, sweep_profile(model_path, options, batch_dim, rebatch));
  if (profiled) note(profiled->note);

  std::vector<SweepPoint> points;
  for (std::int64_t batch : options.batches) {
    ImportOptions io = options.import;
    if (rebatch) io.batch = batch;
    else io.dims[batch_dim] = batch;
    auto imported = import_onnx(model_path, io);
    if (!imported)
      return make_error(imported.error().kind, "batch " + std::to_string(batch) + ": " + imported.error().message);
    const Graph& graph = *imported;
    // A re-batched model that keeps the exported batch computes something else: no point.
    if (!graph.info().rebatch_kept.empty())
      return make_error(ErrorKind::InvalidInput, "batch " + std::to_string(batch) + ": re-batched, output '" +
                                                     graph.info().rebatch_kept.front() +
                                                     "' keeps the exported batch at dim 0: the model fixes its batch "
                                                     "(a Reshape to a constant shape?), so it cannot be swept by re-batching");
    for (const std::string& w : graph.info().warnings) note("batch " + std::to_string(batch) + ": " + w);
    if (!graph.info().unresolved_dims.empty())
      return make_error(ErrorKind::InvalidInput, "batch " + std::to_string(batch) + ": unresolved dimension " +
                                                     graph.info().unresolved_dims.front() + " (bind it with a dim option)");

    // Without an executor: the cost model on the given device. With one: a CPU device calibrated
    // from this batch's reference run predicts, and every schedule is also run for real.
    DeviceSpec device = profiled ? profiled->fitted : options.device;
    CostTable costs = estimate_costs(graph, device);
    if (profiled && batch == profiled->batch) {
      WEFT_TRY_ASSIGN(const Profile mapped, load_profile(graph, costs, options.profile));
      costs = apply_profile(costs, mapped);
    }
    LaunchMode mode = options.mode;
    std::optional<RunResult> sequential;
    if (options.executor) {
      const Schedule reference = reference_schedule(graph);
      // Any valid plan runs the same kernels; the quickest planner keeps each point short.
      WEFT_TRY_ASSIGN(auto plan, study_plan(graph, reference, "greedy-by-size"));
      WEFT_TRY_ASSIGN(sequential, options.executor->run(graph, reference, plan, options.run));
      if (options.calibrate_cpu) {
        CpuFitOptions fit;
        fit.streams = static_cast<std::size_t>(std::max(options.strategy.max_streams, 1));
        fit.threads_per_stream = options.run.threads_per_stream;
        WEFT_TRY_ASSIGN(auto cal, fit_cpu_device_with_contention(graph, sequential->node_median_us, options.run, fit));
        device = cal.device;
        costs = std::move(cal.measured);
        mode = LaunchMode::Eager;
      }
    }
    StrategyOptions so = options.strategy;
    so.cuda_graph = mode == LaunchMode::Graph;
    // Streams of several threads: no more streams than the teams the cores hold.
    if (options.executor && options.run.threads_per_stream > 1) so.max_streams = std::min(so.max_streams, std::max(device.sm_count, 1));
    // The cores a hybrid run's wide nodes share: the executor's where it runs, else the device's.
    const int hybrid_cores = options.executor ? cpu_count() : device_cores(device);
    for (const std::string& name : strategies) {
      // split-overlap runs on the model split at this batch (k chosen by prediction, k = 1 where
      // splitting does not pay), against the unsplit model's sequential baseline.
      std::optional<SplitChoice> split;
      if (name == kSplitOverlap) {
        SplitOptions sp;
        sp.mode = mode;
        sp.strategy = so;
        WEFT_TRY_ASSIGN(split, choose_split(graph, device, sp));
      }
      const Graph& g = split ? *split->graph : graph;
      const CostTable& c = split ? split->costs : costs;
      WEFT_TRY_ASSIGN(auto schedule, make_schedule(name, g, c, device, so));
      if (options.hybrid && !split) WEFT_TRY(make_hybrid(g, schedule, schedule.threads_per_stream, hybrid_cores, node_times(c)));
      PredictOptions po;
      po.mode = mode;
      po.counterfactuals = false;
      // Measured with hybrid teams: the reference again with the schedule's teams (compare_runs'
      // rule), whose node times, each at its own team, the prediction takes.
      std::optional<TeamReference> teamed;
      if (options.executor && schedule.has_node_teams()) {
        WEFT_TRY_ASSIGN(teamed, run_team_reference(g, schedule, c, *options.executor, options.run));
        po.reference = &teamed->schedule;
        po.costs_at_node_teams = true;
      }
      WEFT_TRY_ASSIGN(auto p, predict(g, schedule, teamed ? teamed->costs : c, device, po));
      if (split) {
        // The baseline is the unsplit model's reference schedule, on the same costs as the others.
        WEFT_TRY_ASSIGN(auto base, predict(graph, reference_schedule(graph), costs, device, po));
        p.sequential_eager_us = base.sequential_eager_us;
        p.sequential_graph_us = base.sequential_graph_us;
        p.speedup_vs_eager = p.makespan_us > 0 ? base.sequential_eager_us / p.makespan_us : 0.0;
        p.speedup_vs_graph = p.makespan_us > 0 ? base.sequential_graph_us / p.makespan_us : 0.0;
      }
      SweepPoint pt;
      pt.model = model_path;
      pt.batch = batch;
      pt.strategy = name;
      pt.device = device.name;
      pt.mode = device.kind == DeviceKind::Cpu ? "cpu" : std::string(launch_mode_name(mode));
      pt.streams = static_cast<int>(schedule.stream_count());
      pt.events = schedule.events.size();
      pt.predicted_us = p.makespan_us;
      pt.predicted_sequential_us = p.sequential_us();
      pt.predicted_speedup = p.speedup();
      const NodeTeamCount teams = count_node_teams(schedule);
      pt.hybrid_nodes = teams.nodes;
      pt.hybrid_threads = teams.threads;
      if (options.executor) WEFT_TRY(measure_point(g, schedule, teamed ? teamed->run : *sequential, options, pt));
      points.push_back(pt);
      if (options.on_point && !options.on_point(points.back())) return points;
    }
  }
  return points;
}

std::string sweep_json(const std::vector<SweepPoint>& points) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const SweepPoint& p : points) {
    nlohmann::ordered_json e;
    e["model"] = p.model;
    e["batch"] = p.batch;
    e["strategy"] = p.strategy;
    e["device"] = p.device;
    e["mode"] = p.mode;
    e["streams"] = p.streams;
    e["events"] = p.events;
    e["predicted_us"] = p.predicted_us;
    e["predicted_sequential_us"] = p.predicted_sequential_us;
    e["predicted_speedup"] = p.predicted_speedup;
    if (p.measured_speedup) {
      e["measured_ms"] = *p.measured_ms;
      e["measured_sequential_ms"] = *p.measured_sequential_ms;
      e["measured_speedup"] = *p.measured_speedup;
    }
    if (p.hybrid_nodes > 0) {
      e["hybrid_nodes"] = p.hybrid_nodes;
      e["hybrid_threads"] = p.hybrid_threads;
    }
    j.push_back(std::move(e));
  }
  return j.dump(2);
}

std::string sweep_csv(const std::vector<SweepPoint>& points, bool header) {
  std::string out = header ? std::string(kCsvHeader) + "\n" : std::string();
  const auto opt = [](const std::optional<double>& v) { return v ? number(*v) : std::string(); };
  for (const SweepPoint& p : points) {
    out += csv_field(p.model) + "," + std::to_string(p.batch) + "," + csv_field(p.strategy) + "," + csv_field(p.device) +
           "," + csv_field(p.mode) + "," + std::to_string(p.streams) + "," + std::to_string(p.events) + "," +
           number(p.predicted_us) + "," + number(p.predicted_sequential_us) + "," + number(p.predicted_speedup) + "," +
           opt(p.measured_ms) + "," + opt(p.measured_sequential_ms) + "," + opt(p.measured_speedup) + "\n";
  }
  return out;
}

Expected<std::vector<SweepPoint>> sweep_from_csv(std::string_view text, std::string_view origin) {
  std::vector<SweepPoint> points;
  std::size_t line_no = 0;
  bool seen_header = false;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto where = std::string(origin) + ":" + std::to_string(line_no) + ": ";
    if (line == kCsvHeader) {
      seen_header = true;
      continue;
    }
    if (!seen_header) return make_error(ErrorKind::InvalidInput, where + "expected the sweep CSV header (" + kCsvHeader + ")");
    const auto f = split_csv_record(line);
    if (f.size() != 13)
      return make_error(ErrorKind::InvalidInput, where + "expected 13 fields, found " + std::to_string(f.size()));
    SweepPoint p;
    p.model = f[0];
    p.strategy = f[2];
    p.device = f[3];
    p.mode = f[4];
    const char* names[] = {"batch", "streams", "events", "predicted_us", "predicted_sequential_us", "predicted_speedup"};
    const std::size_t cols[] = {1, 5, 6, 7, 8, 9};
    double v[6];
    for (int i = 0; i < 6; ++i) {
      const auto x = parse_number(f[cols[i]]);
      if (!x || *x < 0) return make_error(ErrorKind::InvalidInput, where + std::string(names[i]) + " '" + f[cols[i]] + "' is not a non-negative number");
      v[i] = *x;
    }
    p.batch = static_cast<std::int64_t>(v[0]);
    p.streams = static_cast<int>(v[1]);
    p.events = static_cast<std::size_t>(v[2]);
    p.predicted_us = v[3];
    p.predicted_sequential_us = v[4];
    p.predicted_speedup = v[5];
    std::optional<double>* opts[] = {&p.measured_ms, &p.measured_sequential_ms, &p.measured_speedup};
    for (int i = 0; i < 3; ++i) {
      const std::string& s = f[10 + static_cast<std::size_t>(i)];
      if (s.empty()) continue;
      const auto x = parse_number(s);
      if (!x || *x < 0) return make_error(ErrorKind::InvalidInput, where + "measured field '" + s + "' is not a non-negative number");
      *opts[i] = *x;
    }
    points.push_back(std::move(p));
  }
  return points;
}

}  // namespace weft::core
