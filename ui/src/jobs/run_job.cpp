#include "weft/ui/run_job.h"
#include "weft/ui/worker_pool.h"

#include <QPromise>

#include "weft/core/exec/cpu_executor.h"
#include "weft/core/schedule/node_teams.h"
#include "weft/core/study/cpu_calibration.h"
#include "weft/core/study/run_comparison.h"
#include "weft/gpu/cuda_executor.h"
#include "weft/gpu/devices.h"

namespace weft::ui {

namespace {

// The request's test data, if it names some, with the first set's inputs in `run` (the runs made
// before the comparison, a CPU calibration, take the set's path through the model).
core::Expected<std::optional<core::TestData>> read_test_data(const RunRequest& request, core::RunOptions& run) {
  if (request.test_data.empty()) return std::optional<core::TestData>{};
  WEFT_TRY_ASSIGN(core::TestData data, core::read_test_data(request.test_data));
  WEFT_TRY_ASSIGN(auto first, core::first_set_inputs(*request.graph, data));
  run.inputs = std::move(first.values);
  return std::optional<core::TestData>{std::move(data)};
}

// The run comparison, on the test data when there is some (each set's outputs checked).
core::Expected<core::RunComparison> compare(core::Executor& executor, const RunRequest& request, const core::Schedule& schedule,
                                            const std::optional<core::TestData>& test_data,
                                            const core::RunComparisonOptions& options, std::optional<TestDataReport>& tested) {
  if (!test_data) return core::compare_runs(executor, *request.graph, schedule, options);
  const core::TestData& data = *test_data;
  const core::Tolerance tolerance = data.tolerance.value_or(core::Tolerance{});
  WEFT_TRY_ASSIGN(auto t, core::compare_test_data(executor, *request.graph, schedule, data, options, tolerance));
  const bool passed = t.passed();
  tested = TestDataReport{request.test_data, tolerance, std::move(t.sets), passed};
  return std::move(t.compared);
}

void run_on_backend(QPromise<RunReport>& promise, const RunRequest& request, QString* error) {
  const core::Graph& graph = *request.graph;
  auto fail = [error](const std::string& why) { *error = QString::fromStdString(why); };
  promise.setProgressRange(0, 100);
  promise.setProgressValueAndText(1, QObject::tr("Checking operators"));
  if (auto ok = check_supported(request.backend, graph); !ok) return fail(ok.error().message);
  std::unique_ptr<core::Executor> executor;
  if (request.backend == Backend::Cuda) {
    executor = gpu::make_cuda_executor();  // eager launches with per-node timing: a measured timeline
  } else {
    executor = core::make_cpu_executor();
  }
  // The run comparison `weft run` makes: reference and schedule, the studies' planning, outputs compared.
  core::RunComparisonOptions options;
  options.run.iterations = request.iterations;
  options.run.warmup = request.warmup;
  options.run.seed = request.seed;
  if (request.backend == Backend::Cpu) {
    if (request.threads_per_stream > 0)
      if (auto ok = core::check_threads_per_stream(request.threads_per_stream); !ok) return fail(ok.error().message);
    auto threads = core::cpu_run_threads(request.threads_per_stream, request.schedule);
    if (!threads) return fail(threads.error().message);
    options.run.threads_per_stream = *threads;
  }
  options.reference_graph = request.reference_graph.get();
  options.progress = [&promise](int percent, std::string_view stage) {
    promise.setProgressValueAndText(percent, QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size())));
    return !promise.isCanceled();
  };
  auto test_data = read_test_data(request, options.run);
  if (!test_data) return fail(test_data.error().message);
  // The schedule is made for the machine that runs it (core::schedule_for_cpu): where the
  // document's schedule is exactly its strategy's answer for a GPU preset, the CPU runs that
  // strategy's answer for the CPU.
  core::Schedule schedule = request.schedule;
  // The device and node times the schedule was made with: hybrid teams leave the nodes too
  // short for a team (by a CPU's times) on their stream's team.
  const core::DeviceSpec* made_device = request.made_with ? &request.made_with->device : nullptr;
  const core::CostTable* made_costs = request.made_with ? &request.made_with->costs : nullptr;
  std::optional<core::CpuSchedule> made;
  QString made_for = QObject::tr("%1, as it is").arg(request.made_with ? QString::fromStdString(request.made_with->device.name)
                                                                       : QObject::tr("the document's device"));
  if (request.backend == Backend::Cpu && request.made_with && request.made_with->device.kind != core::DeviceKind::Cpu &&
      core::remade_for_cpu(schedule.strategy)) {
    const auto& with = *request.made_with;
    auto as_made = core::make_schedule(schedule.strategy, graph, with.costs, with.device, with.options);
    if (as_made && as_made->streams == schedule.streams) {
      promise.setProgressValueAndText(2, QObject::tr("Calibrating the CPU to schedule for it"));
      auto remade = core::schedule_for_cpu(graph, schedule.strategy, with.options, options.run);
      if (!remade) return fail(remade.error().message);
      if (promise.isCanceled()) return;
      made = std::move(*remade);
      schedule = std::move(made->schedule);
      made_for = QString::fromStdString(made->made_for.summary);
      made_device = &made->made_for.device;
      made_costs = &made->made_for.costs;
    }
  }
  if (request.backend == Backend::Cpu && request.hybrid) {
    // Without a schedule made for the CPU no CPU times are known: every alone node gets the wide team.
    if (auto ok = made_device ? core::make_hybrid_for_cpu(graph, schedule, options.run.threads_per_stream, *made_device, *made_costs)
                              : core::make_hybrid(graph, schedule, options.run.threads_per_stream, core::cpu_count());
        !ok)
      return fail(ok.error().message);
  }
  std::optional<TestDataReport> tested;
  auto compared = compare(*executor, request, schedule, *test_data, options, tested);
  if (!compared) return fail(compared.error().message);
  if (compared->cancelled) return;

  RunReport r;
  r.graph = request.graph;
  r.backend = request.backend;
  r.max_abs_diff = compared->diff.max_abs_diff;
  r.identical = compared->diff.identical;
  r.wall_ms = compared->scheduled.wall_ms;
  r.sequential_ms = compared->sequential.wall_ms;
  r.speedup = compared->speedup();
  r.random_weights = compared->scheduled.random_weights;
  r.iterations = request.iterations;
  r.unmerged_reference = request.reference_graph != nullptr;
  r.schedule_made_for = made_for;
  r.streams = static_cast<int>(schedule.stream_count());
  r.test_data = std::move(tested);
  r.threads_per_stream = compared->scheduled.threads_per_stream;
  r.hybrid = request.backend == Backend::Cpu && request.hybrid;
  r.hybrid_nodes = compared->scheduled.node_team_nodes;
  r.hybrid_threads = compared->scheduled.node_team_threads;
  if (request.backend == Backend::Cpu) r.kernels = QString::fromStdString(core::kernel_paths_text(compared->scheduled));
  if (request.backend == Backend::Cpu && !r.unmerged_reference) {
    // What the CPU device calibrated from this run predicts (a fit and two short runs that
    // measure the cores' contention), as `weft run --backend cpu` reports it. An extra: where it
    // cannot be made the measurement stands, with the reason.
    promise.setProgressValueAndText(99, QObject::tr("Predicting from the sequential run"));
    if (auto predicted = core::predict_cpu_run(graph, schedule, *compared, options.run)) {
      r.predicted_speedup = predicted->predicted;
      r.prediction_error = predicted->error;
      r.cpu_cores = predicted->device.sm_count;
    } else {
      r.prediction_unavailable = QString::fromStdString(predicted.error().message);
      r.cpu_cores = core::cpu_count();
    }
  }
  if (promise.isCanceled()) return;
  r.measured = std::move(compared->scheduled.timeline);
  r.sequential = std::move(compared->sequential.timeline);
  promise.addResult(std::move(r));
}

}  // namespace

const char* backend_name(Backend backend) { return backend == Backend::Cuda ? "cuda" : "cpu"; }

core::Status check_supported(Backend backend, const core::Graph& graph) {
  return backend == Backend::Cuda ? gpu::cuda_check_supported(graph) : core::cpu_check_supported(graph);
}

RunJob start_run(RunRequest request) {
  return start_worker_job<RunReport>([request = std::move(request)](QPromise<RunReport>& promise, QString& error) {
    run_on_backend(promise, request, &error);
  });
}

QString cuda_unavailable_reason() {
  if (!gpu::built_with_cuda()) return QObject::tr("This build has no CUDA support (built without the CUDA toolkit).");
  auto gpus = gpu::list_gpus();
  if (!gpus) return QString::fromStdString(gpus.error().message);
  if (gpus->empty()) return QObject::tr("No CUDA GPU was detected.");
  return {};
}

}  // namespace weft::ui
