#include "weft/ui/run_job.h"

#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

#include "weft/core/cpu_executor.h"
#include "weft/core/memory_planner.h"
#include "weft/core/simulate.h"
#include "weft/gpu/cuda_executor.h"
#include "weft/gpu/devices.h"

namespace weft::ui {

namespace {
// The planner of the document's live figures: fast on every model size.
constexpr const char* kRunPlanner = "greedy-by-size";

void run_on_backend(QPromise<RunReport>& promise, const RunRequest& request, QString* error) {
  const core::Graph& graph = *request.graph;
  auto fail = [error](const std::string& why) { *error = QString::fromStdString(why); };
  promise.setProgressRange(0, 100);
  promise.setProgressValueAndText(2, QObject::tr("Checking operators"));
  if (auto ok = check_supported(request.backend, graph); !ok) return fail(ok.error().message);
  const core::Schedule sequential = core::sequential_schedule(graph);
  auto seq_plan = core::plan_memory(graph, sequential, kRunPlanner);
  if (!seq_plan) return fail(seq_plan.error().message);
  auto plan = core::plan_memory(graph, request.schedule, kRunPlanner);
  if (!plan) return fail(plan.error().message);
  if (promise.isCanceled()) return;

  core::RunOptions options;
  options.iterations = request.iterations;
  options.warmup = request.warmup;
  options.seed = request.seed;
  std::unique_ptr<core::Executor> executor;
  if (request.backend == Backend::Cuda) {
    executor = gpu::make_cuda_executor();  // eager launches with per-node timing: a measured timeline
  } else {
    executor = core::make_cpu_executor();
  }
  promise.setProgressValueAndText(10, QObject::tr("Running sequentially"));
  auto seq = executor->run(graph, sequential, *seq_plan, options);
  if (!seq) return fail(seq.error().message);
  // The executor cannot be interrupted mid-run: a cancel takes effect here, between the runs.
  if (promise.isCanceled()) return;
  promise.setProgressValueAndText(55, QObject::tr("Running %1").arg(QString::fromStdString(request.schedule.strategy)));
  auto run = executor->run(graph, request.schedule, *plan, options);
  if (!run) return fail(run.error().message);
  if (promise.isCanceled()) return;

  promise.setProgressValueAndText(98, QObject::tr("Comparing outputs"));
  RunReport r;
  r.graph = request.graph;
  r.backend = request.backend;
  const core::OutputDiff diff = core::compare_outputs(*seq, *run);
  r.max_abs_diff = diff.max_abs_diff;
  r.identical = diff.identical;
  r.wall_ms = run->wall_ms;
  r.sequential_ms = seq->wall_ms;
  r.random_weights = run->random_weights;
  r.iterations = request.iterations;
  r.measured = std::move(run->timeline);
  r.sequential = std::move(seq->timeline);
  const std::string backend = backend_name(request.backend);
  r.measured.label = "measured " + backend + " " + (request.schedule.strategy.empty() ? std::string("schedule") : request.schedule.strategy);
  r.sequential.label = "measured " + backend + " sequential";
  promise.setProgressValueAndText(100, QObject::tr("Done"));
  promise.addResult(std::move(r));
}

}  // namespace

const char* backend_name(Backend backend) { return backend == Backend::Cuda ? "cuda" : "cpu"; }

core::Status check_supported(Backend backend, const core::Graph& graph) {
  return backend == Backend::Cuda ? gpu::cuda_check_supported(graph) : core::cpu_check_supported(graph);
}

RunJob start_run(RunRequest request) {
  RunJob job;
  job.error = std::make_shared<QString>();
  auto error = job.error;
  job.future = QtConcurrent::run([request = std::move(request), error](QPromise<RunReport>& promise) {
    run_on_backend(promise, request, error.get());
  });
  return job;
}

QString cuda_unavailable_reason() {
  if (!gpu::built_with_cuda()) return QObject::tr("This build has no CUDA support (built without the CUDA toolkit).");
  auto gpus = gpu::list_gpus();
  if (!gpus) return QString::fromStdString(gpus.error().message);
  if (gpus->empty()) return QObject::tr("No CUDA GPU was detected.");
  return {};
}

}  // namespace weft::ui
