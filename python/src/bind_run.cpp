// Model.run (a schedule run for real beside the sequential reference), Model.chrome_trace and weft.sweep.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "weft/core/sim/chrome_trace.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/analysis/critical_path.h"
#include "weft/core/cost/device.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/base/file_io.h"
#include "weft/core/transform/horizontal_merge.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/transform/micro_batch.h"
#include "weft/core/schedule/schedule_edit.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/strategy/strategy_external.h"
#include "weft/core/study/cpu_calibration.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/study/run_comparison.h"
#include "weft/core/study/schedule_study.h"
#include "weft/core/study/split_study.h"
#include "weft/core/study/batch_sweep.h"
#include "weft/core/study/test_data.h"
#include "weft/core/schedule/sync.h"
#include "weft/core/sim/timeline_json.h"
#include "weft/gpu/cuda_executor.h"
#include "weft_python.h"

namespace weft::python {

namespace {

/// Model.run's arguments, as given.
struct RunArgs {
  std::string backend;
  bool graph = false;
  int iterations = 0;
  int warmup = 0;
  int rounds = 0;
  std::uint64_t seed = 0;
  std::string planner;
  int max_streams = 0;
  std::optional<py::dict> inputs;
  std::optional<py::object> test_data;
  std::optional<double> rtol;
  std::optional<double> atol;
  std::optional<int> threads_per_stream;  ///< None: 1, or the schedule's
  bool hybrid = false;
};

/// threads_per_stream= of a CPU call checked as the CLI's --threads-per-stream (core's check).
void check_threads_argument(const std::string& where, const std::optional<int>& threads, bool cpu) {
  if (!threads) return;
  if (!cpu) usage(where + "threads_per_stream= needs backend='cpu'");
  if (auto ok = core::check_threads_per_stream(*threads); !ok) usage(where + "threads_per_stream: " + ok.error().message);
}

/// The run's options checked, with the inputs it runs on: given arrays, or a test data folder's
/// sets (whose outputs are then checked with `tolerance`).
struct RunSetup {
  core::RunComparisonOptions options;
  std::optional<core::TestData> data;
  core::Tolerance tolerance;
};

RunSetup run_setup(const Model& mo, const RunArgs& a) {
  if (a.backend != "cpu" && a.backend != "cuda") usage("backend must be 'cpu' or 'cuda', got '" + a.backend + "'");
  if (a.graph && a.backend != "cuda") usage("graph=True (CUDA Graph replay) needs backend='cuda'");
  check_threads_argument("", a.threads_per_stream, a.backend == "cpu");
  if (a.hybrid && a.backend != "cpu") usage("hybrid=True (hybrid teams) needs backend='cpu'");
  if (auto ok = core::check_run_counts(a.iterations, a.warmup, a.rounds); !ok) usage(ok.error().message);
  if (!a.planner.empty()) check(core::check_planner(a.planner));
  if (a.inputs && a.test_data) usage("inputs= and test_data= both give the inputs: choose one");
  if ((a.rtol || a.atol) && !a.test_data) usage("rtol= and atol= need test_data=");
  for (const auto& v : {a.rtol, a.atol})
    if (v && !(*v >= 0)) usage("rtol= and atol= must be non-negative numbers");
  RunSetup setup;
  core::RunComparisonOptions& o = setup.options;
  o.run.iterations = a.iterations;
  o.run.warmup = a.warmup;
  o.rounds = a.rounds;
  o.run.seed = a.seed;
  o.run.threads_per_stream = a.threads_per_stream.value_or(1);
  o.planner = a.planner;
  if (a.inputs) {
    auto matched = take(core::match_inputs(mo.graph, given_arrays(*a.inputs)));
    for (const std::string& w : matched.warnings) py::module_::import("warnings").attr("warn")(w);
    o.run.inputs = std::move(matched.values);
  }
  if (a.test_data) {
    setup.data = take(core::read_test_data(py::cast<std::string>(py::module_::import("os").attr("fspath")(*a.test_data))));
    if (setup.data->tolerance) setup.tolerance = *setup.data->tolerance;
    if (a.rtol) setup.tolerance.rtol = *a.rtol;
    if (a.atol) setup.tolerance.atol = *a.atol;
    // The runs before the comparison (the CPU calibration) take the first set's inputs.
    o.run.inputs = take(core::first_set_inputs(mo.graph, *setup.data)).values;
  }
  // A merged model runs against the unmerged model's sequential run, as weft run --merge.
  if (mo.merged && mo.unmerged) o.reference_graph = &mo.unmerged->graph;
  return setup;
}

/// The schedule that runs, what it was made for, and the CPU it was made for where it was.
struct ScheduleToRun {
  core::Schedule schedule;
  std::string made_for;
  std::optional<core::CpuScheduleDevice> cpu;
};

/// The schedule that runs and what it was made for. A strategy's (by name, or a weft.Schedule
/// Model.schedule made) is made for the machine that runs it: on the CPU, for the CPU calibrated
/// from a short sequential run (core::schedule_for_cpu), unless weft.load(device=...) named a
/// device; anything else runs as given (weft run --backend cpu does the same).
ScheduleToRun schedule_to_run(const ModelPtr& mo, const py::object& spec, const RunArgs& a,
                                                       const core::RunOptions& run) {
  std::string strategy;
  core::StrategyOptions made_with;
  std::optional<core::Schedule> given;
  if (py::isinstance<py::str>(spec) && !py::cast<std::string>(spec).starts_with("{")) {
    strategy = py::cast<std::string>(spec);
    made_with.max_streams = a.max_streams;
    made_with.cuda_graph = a.graph;
    check(core::check_strategy(strategy, made_with));
  } else if (py::isinstance<PySchedule>(spec) && py::cast<const PySchedule&>(spec).made_with) {
    const auto& ps = py::cast<const PySchedule&>(spec);
    if (ps.model != mo) usage("the schedule belongs to another model (" + ps.model->graph.info().model_path + ")");
    strategy = ps.schedule.strategy;
    made_with = *ps.made_with;
    given = ps.schedule;
  } else {
    given = schedule_of(mo, spec);
  }
  const bool for_cpu = a.backend == "cpu" && !strategy.empty() && !mo->device_given &&
                       mo->device.kind != core::DeviceKind::Cpu && core::remade_for_cpu(strategy);
  if (for_cpu) {
    auto made = take(without_gil([&] { return core::schedule_for_cpu(mo->graph, strategy, made_with, run); }));
    std::string summary = made.made_for.summary;
    return {std::move(made.schedule), std::move(summary), std::move(made.made_for)};
  }
  if (given) return {std::move(*given), strategy.empty() ? "the schedule given" : mo->device.name, std::nullopt};
  return {take(without_gil([&] { return core::make_schedule(strategy, mo->graph, mo->costs, mo->device, made_with); })),
          mo->device.name, std::nullopt};
}

Run run_model(const ModelPtr& mo, const py::object& spec, const RunArgs& a) {
  RunSetup setup = run_setup(*mo, a);
  core::RunComparisonOptions& o = setup.options;
  ScheduleToRun to_run = schedule_to_run(mo, spec, a, o.run);
  if (a.backend == "cpu") {
    // A schedule made for streams of several threads runs so unless threads_per_stream= says
    // otherwise (as weft run).
    o.run.threads_per_stream = take(core::cpu_run_threads(a.threads_per_stream.value_or(0), to_run.schedule));
    // hybrid=True: the nodes that run alone on a team of every core the streams hold; by the
    // CPU's node times where the schedule was made for one, the short ones stay on their stream's.
    if (a.hybrid)
      check(core::make_hybrid_for_cpu(mo->graph, to_run.schedule, o.run.threads_per_stream,
                                      to_run.cpu ? to_run.cpu->device : mo->device, to_run.cpu ? to_run.cpu->costs : mo->costs));
  }
  Run r{mo, {}, std::nullopt, {}, to_run.made_for, std::move(to_run.schedule), std::nullopt, a.backend};
  check(without_gil([&]() -> core::Status {
    // The CUDA executor loads the CUDA module on first use; where it or a GPU is
    // missing, run() returns the Runtime error that says which.
    gpu::CudaRunOptions cuda;
    cuda.cuda_graph = a.graph;
    auto executor = a.backend == "cuda" ? gpu::make_cuda_executor(cuda) : core::make_cpu_executor();
    if (!setup.data) {
      WEFT_TRY_ASSIGN(r.c, core::compare_runs(*executor, mo->graph, r.schedule, o));
      return {};
    }
    WEFT_TRY_ASSIGN(auto tested, core::compare_test_data(*executor, mo->graph, r.schedule, *setup.data, o, setup.tolerance));
    r.c = std::move(tested.compared);
    r.tested = std::move(tested);
    return {};
  }));
  // An extra: where the prediction cannot be made, the measurement stands with the reason.
  // (A merged run's reference timed the unmerged graph, whose node times do not fit it.)
  if (a.backend == "cpu" && o.reference_graph) {
    r.prediction_unavailable = "the reference ran the unmerged model, whose node times do not fit the merged one";
  } else if (a.backend == "cpu") {
    auto p = without_gil([&] { return core::predict_cpu_run(mo->graph, r.schedule, r.c, o.run); });
    if (p) r.predicted = std::move(*p);
    else r.prediction_unavailable = p.error().message;
  }
  return r;
}

}  // namespace

void add_model_run(ModelClass& model) {
  model
      .def(
          "run",
          [](const std::shared_ptr<Model>& mo, const py::object& spec, const std::string& backend, bool graph, int iterations,
             int warmup, int rounds, std::uint64_t seed, const std::string& planner, int max_streams,
             std::optional<py::dict> inputs, std::optional<py::object> test_data, std::optional<double> rtol,
             std::optional<double> atol, std::optional<int> threads_per_stream, bool hybrid) {
            return run_model(mo, spec,
                             RunArgs{backend, graph, iterations, warmup, rounds, seed, planner, max_streams, std::move(inputs),
                                     std::move(test_data), rtol, atol, threads_per_stream, hybrid});
          },
          py::arg("schedule"), py::kw_only(), py::arg("backend") = "cpu", py::arg("graph") = false,
          py::arg("iterations") = core::kDefaultRunIterations, py::arg("warmup") = core::kDefaultRunWarmup,
          py::arg("rounds") = core::kDefaultRunRounds, py::arg("seed") = 42, py::arg("planner") = "",
          py::arg("max_streams") = core::kDefaultMaxStreams, py::arg("inputs") = py::none(), py::arg("test_data") = py::none(),
          py::arg("rtol") = py::none(), py::arg("atol") = py::none(), py::arg("threads_per_stream") = py::none(),
          py::arg("hybrid") = false,
          "Runs the reference and the schedule on the CPU executor (backend='cuda': the CUDA executor, graph=True: "
          "replayed as a CUDA Graph), alternating in `rounds` rounds that share the iterations; median times, speedup, "
          "outputs compared. The schedule is a strategy's name (max_streams caps it), a weft.Schedule, a dict or JSON "
          "text; on the CPU a strategy's schedule is made for the CPU calibrated from a short sequential run unless "
          "weft.load named a device (Run.schedule_made_for says which). inputs={name: array} runs on those inputs "
          "(each of the dtype and shape the model expects; others are an error, extras a warning) instead of seeded "
          "ones; test_data=PATH (a test_data_set_N folder or a folder of them) runs each set's inputs and checks every "
          "output against the set's (rtol=, atol=: the tolerance; default the folder's data.json, else the ONNX "
          "backend tests' 1e-3, 1e-7): Run.test_data. On the CPU, threads_per_stream=T makes each stream a team of T "
          "library threads (streams x T within the CPUs; default 1, or the schedule's), and hybrid=True runs the nodes "
          "that run alone in the schedule on a team of every core the streams hold (as weft run --hybrid; the reference "
          "runs them so too): Run.threads_per_stream, Run.hybrid_nodes. Either with backend='cuda', or T above the CPUs: "
          "UsageError. No GPU or CUDA module: RuntimeFailure.")
      .def(
          "chrome_trace",
          [](const std::shared_ptr<Model>& mo, const std::vector<PyTimeline>& runs, std::optional<std::string> path) -> py::object {
            std::vector<core::Timeline> ts;
            for (const PyTimeline& t : runs) {
              if (t.model != mo) usage("a timeline belongs to another model");
              ts.push_back(t.timeline);
            }
            core::TraceInfo info;
            info.model = mo->graph.info().model_path;
            info.sha256 = mo->graph.info().model_sha256;
            info.device = mo->device.name;
            if (path) {
              check(core::save_chrome_trace(*path, mo->graph, ts, &mo->costs, info));
              return py::none();
            }
            return py::str(core::chrome_trace_json(mo->graph, ts, &mo->costs, info));
          },
          py::arg("timelines"), py::arg("path") = py::none(),
          "Chrome trace JSON of the timelines (one process per run; opens in Perfetto); written atomically to path, "
          "or returned as text.")
      .def("__repr__", [](const Model& mo) {
        return "<weft.Model " + mo.graph.info().model_path + ": " + std::to_string(mo.graph.node_count()) + " operators, device " +
               mo.device.name + ">";
      });
}

void register_sweep(py::module_& m) {
  m.def(
      "sweep",
      [](const py::object& source, const std::vector<long long>& batches, std::optional<std::vector<std::string>> strategies,
         std::optional<std::map<std::string, long long>> dims, std::optional<std::string> device, bool graph, int max_streams,
         std::optional<std::string> batch_dim, std::optional<std::string> backend, int iterations, int warmup,
         std::optional<int> threads_per_stream, bool hybrid) {
        core::SweepOptions o;
        for (long long b : batches) {
          if (b <= 0) usage("sweep: batches must be positive, got " + std::to_string(b));
          o.batches.push_back(b);
        }
        if (o.batches.empty()) usage("sweep: batches is empty");
        if (strategies) o.strategies = *strategies;
        if (dims)
          for (const auto& [k, v] : *dims) o.import.dims[k] = v;
        const std::string device_name = device ? *device : std::string(core::default_device_name());
        check(core::check_device_name(device_name));
        o.device = take(core::load_device(device_name));
        o.mode = graph ? core::LaunchMode::Graph : core::LaunchMode::Eager;
        o.strategy = strategy_options(max_streams, std::nullopt, graph, {}, {}, {});
        for (const std::string& name : o.strategies) check(core::check_strategy(name, o.strategy));
        if (batch_dim) o.batch_dim = *batch_dim;
        if (iterations < 1) usage("sweep: iterations must be >= 1");
        if (warmup < 0) usage("sweep: warmup must be >= 0");
        o.run.iterations = iterations;
        o.run.warmup = warmup;
        // As weft sweep: threads per stream for the CPU's runs; hybrid teams on the CPU that runs
        // the points, or predicted on a CPU device.
        check_threads_argument("sweep: ", threads_per_stream, backend == "cpu");
        o.run.threads_per_stream = threads_per_stream.value_or(1);
        if (hybrid && (backend ? *backend != "cpu" : o.device.kind != core::DeviceKind::Cpu))
          usage("sweep: hybrid=True (hybrid teams) needs backend='cpu' or a CPU device, not " + (backend ? *backend : o.device.name));
        o.hybrid = hybrid;
        std::unique_ptr<core::Executor> executor;
        if (backend) {
          if (*backend == "cpu") {
            if (graph) usage("sweep: graph=True (CUDA Graph replay) needs backend='cuda'");
            executor = core::make_cpu_executor();
          } else if (*backend == "cuda") {
            // As weft sweep --backend cuda: the preset predicts; no per-node events in the timed runs.
            gpu::CudaRunOptions cuda;
            cuda.cuda_graph = graph;
            executor = gpu::make_cuda_executor(cuda);
            o.calibrate_cpu = false;
            o.output_tolerance = core::kSweepOutputTolerance;
            o.run.per_node_timing = false;
          } else {
            usage("sweep: backend must be 'cpu' or 'cuda', got '" + *backend + "'");
          }
          o.executor = executor.get();
        }
        const auto path = py::cast<std::string>(py::module_::import("os").attr("fspath")(source));
        if (auto read = core::read_file(path); !read) raise(core::make_error(core::ErrorKind::InvalidInput, read.error().message));
        const auto points = take(without_gil([&] { return core::sweep(path, o); }));
        // weft sweep --json's points, with the measured fields None where a point was not measured and
        // the hybrid ones 0 where it has no hybrid teams.
        py::list out = json_loads(core::sweep_json(points));
        for (py::handle point : out) {
          for (const char* key : {"measured_ms", "measured_sequential_ms", "measured_speedup"})
            point.attr("setdefault")(key, py::none());
          for (const char* key : {"hybrid_nodes", "hybrid_threads"}) point.attr("setdefault")(key, 0);
        }
        return out;
      },
      py::arg("model"), py::arg("batches"), py::kw_only(), py::arg("strategies") = py::none(), py::arg("dims") = py::none(),
      py::arg("device") = py::none(), py::arg("graph") = false, py::arg("max_streams") = core::kDefaultMaxStreams,
      py::arg("batch_dim") = py::none(), py::arg("backend") = py::none(), py::arg("iterations") = 3, py::arg("warmup") = 1,
      py::arg("threads_per_stream") = py::none(), py::arg("hybrid") = false,
      "As weft sweep: the model imported at each batch (its symbolic batch dimension bound), every strategy (or "
      "those given) scheduled and predicted; backend='cpu' or 'cuda' also runs each point. A list of dicts, one "
      "per point, with the fields of weft sweep's CSV (measured ones None without a backend). threads_per_stream=T "
      "(backend='cpu'): each stream a team of T threads. hybrid=True (backend='cpu', or a CPU device): each "
      "schedule with hybrid teams (as weft sweep --hybrid); a point with nodes on them has hybrid_nodes and "
      "hybrid_threads (0 elsewhere).");
}

}  // namespace weft::python
