#pragma once
// Real runs from the studio: the CPU reference executor (or the CUDA executor where a GPU is
// detected) runs the current schedule and the sequential one off the GUI thread (QtConcurrent); progress and cancellation go through the
// QFuture, the measured timelines land in the document's runs.
#include <QFuture>
#include <QString>
#include <memory>
#include <optional>
#include <string>

#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"
#include "weft/core/exec/output_check.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/run_comparison.h"
#include "weft/core/study/test_data.h"
#include "weft/core/schedule/timeline.h"
#include "weft/ui/worker_job.h"

namespace weft::ui {

enum class Backend { Cpu, Cuda };
/// "cpu" / "cuda": the executor's name, the backend of its measured runs.
const char* backend_name(Backend backend);

struct RunRequest {
  Backend backend = Backend::Cpu;
  std::shared_ptr<const core::Graph> graph;
  core::Schedule schedule;
  /// A merged model's unmerged graph: its sequential run is the reference the schedule is compared
  /// with, as `weft run --merge` compares it (null: the graph's own sequential run).
  std::shared_ptr<const core::Graph> reference_graph;
  int iterations = core::kDefaultRunIterations;  ///< timed iterations of each run (the median is kept)
  int warmup = core::kDefaultRunWarmup;
  std::uint64_t seed = 42;
  /// CPU runs: the threads of each stream's library team (core::RunOptions::threads_per_stream);
  /// 0: the schedule's own (Schedule::threads_per_stream).
  int threads_per_stream = 0;
  /// CPU runs: hybrid teams (core::make_hybrid_for_cpu, as `weft run --hybrid`): the nodes that
  /// run alone on a team of every core the streams hold. Not read by CUDA runs.
  bool hybrid = false;
  /// How `schedule` was made, where a CPU run may make it again for the CPU: the document's
  /// device, costs and strategy options. A CPU run on a GPU preset whose schedule is exactly what
  /// its strategy makes with these (not edited by hand, not fitted to a memory budget, a strategy
  /// core::remade_for_cpu accepts) runs the strategy's schedule made for the calibrated CPU instead
  /// (core::schedule_for_cpu), as `weft run --backend cpu` does; any other schedule runs as it is.
  struct MadeWith {
    core::DeviceSpec device;
    core::CostTable costs;
    core::StrategyOptions options;
  };
  std::optional<MadeWith> made_with;
  /// An ONNX test data set (a test_data_set_N folder or a folder of them): the runs take its
  /// inputs and their outputs are checked against its expected ones (core::compare_test_data,
  /// as `weft run --test-data`); empty: seeded inputs.
  std::string test_data;
};

/// What a run on test data found: per set, each run's outputs against the expected ones.
struct TestDataReport {
  std::string path;
  core::Tolerance tolerance;  ///< the folder's data.json, else the ONNX backend tests' defaults
  std::vector<core::TestDataSetResult> sets;
  bool passed = false;
};

/// What a finished run reports: both measured timelines and how the schedule compares.
struct RunReport {
  std::shared_ptr<const core::Graph> graph;  ///< the graph that ran (stale when the model changed since)
  Backend backend = Backend::Cpu;
  core::Timeline measured;    ///< the schedule: kind Measured, the backend, the schedule's strategy
  core::Timeline sequential;  ///< the reference schedule: kind Measured, the backend, "sequential"
  double wall_ms = 0;         ///< median iteration of the schedule
  double sequential_ms = 0;   ///< median iteration of the sequential run
  double speedup = 0;         ///< core::RunComparison::speedup(): sequential / schedule
  double max_abs_diff = 0;    ///< over every output vs the sequential run; NaN when shapes differ
  bool identical = false;     ///< outputs bit-identical to the sequential run's
  std::int64_t random_weights = 0;  ///< weights without data given seeded values
  int iterations = 0;
  /// CPU runs: the calibrated CPU device's prediction for the schedule (core::predict_cpu_run,
  /// as `weft run --backend cpu` reports it) and its error against `speedup`.
  std::optional<double> predicted_speedup;
  double prediction_error = 0;
  /// Why there is no prediction (a model with too few nodes of known cost to fit a device, ...):
  /// the measurement stands without it.
  QString prediction_unavailable;
  /// What the schedule that ran was made for: the calibrated CPU (made again for it), or the
  /// document's device (it ran as it is).
  QString schedule_made_for;
  int streams = 0;  ///< streams of the schedule that ran
  int threads_per_stream = 1;  ///< CPU runs: the team of each stream
  bool hybrid = false;         ///< CPU runs: hybrid teams were asked for (RunRequest::hybrid)
  /// CPU runs: the nodes that ran on a team other than their stream's (hybrid teams) and the
  /// largest such team (core::RunResult::node_team_nodes); 0 when none.
  std::int64_t hybrid_nodes = 0;
  int hybrid_threads = 0;
  QString kernels;  ///< CPU runs: what ran the nodes (core::kernel_paths_text)
  int cpu_cores = 0;  ///< CPU runs: the CPUs the run could use (its threads; streams beyond take turns)
  /// The reference ran the unmerged graph (RunRequest::reference_graph): `sequential` names that
  /// graph's nodes, not `graph`'s, and no calibrated prediction is made (its node times fit no schedule of `graph`).
  bool unmerged_reference = false;
  std::optional<TestDataReport> test_data;  ///< with RunRequest::test_data
};

/// Starts a run on request.backend. Refuses (no result, `error` set) a model with an operator the
/// backend lacks, a plan that fails or an executor error. Cancel with future.cancel(): the worker stops
/// at the next stage (an executor call in flight finishes first; its result is dropped).
using RunJob = WorkerJob<RunReport>;
RunJob start_run(RunRequest request);
/// The backend's operator check (cpu_check_supported / cuda_check_supported).
core::Status check_supported(Backend backend, const core::Graph& graph);

/// Why the CUDA entry is unavailable in this build / on this machine, or empty when it can run.
QString cuda_unavailable_reason();

}  // namespace weft::ui
