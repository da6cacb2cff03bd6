#include "weft/ui/run_controller.h"

#include <QAction>
#include <QActionGroup>
#include <QDir>
#include <QFileDialog>
#include <QMenu>
#include <QMenuBar>
#include <algorithm>
#include <cmath>

#include "weft/core/sim/calibrate.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/schedule/node_teams.h"
#include "weft/core/sim/simulator.h"
#include "weft/ui/status_area.h"
#include "weft/ui/studio_document.h"
#include "weft/ui/summary_panel.h"

namespace weft::ui {

namespace {

// "passed (largest error 3.5e-07 of the output's scale; rtol 0.0001, atol 0.006)", or the first
// failing output: "FAILED: 'y' (scheduled), 4 of 4 elements outside rtol 0.001, atol 1e-07".
QString testDataText(const TestDataReport& t) {
  const QString tolerance = QObject::tr("rtol %1, atol %2").arg(t.tolerance.rtol, 0, 'g', 3).arg(t.tolerance.atol, 0, 'g', 3);
  double worst = 0;
  for (const core::TestDataSetResult& set : t.sets)
    for (const core::CheckedRun& run : core::checked_runs(set, "cpu"))
      for (const core::OutputCheck& c : *run.checks) {
        if (!c.passed) {
          const QString why = c.problem.empty() ? QObject::tr("%1 of %2 elements outside %3").arg(c.mismatched).arg(c.elements).arg(tolerance)
                                                : QString::fromStdString(c.problem);
          return QObject::tr("FAILED: '%1' (%2), %3").arg(QString::fromStdString(c.name), QString::fromStdString(run.run), why);
        }
        worst = std::max(worst, c.max_scaled_error);
      }
  return QObject::tr("passed (largest error %1 of the output's scale; %2)").arg(worst, 0, 'g', 2).arg(tolerance);
}

}  // namespace

RunController::RunController(StudioDocument* doc, SummaryPanel* summary, StatusArea* status, QObject* parent)
    : QObject(parent), m_doc(doc), m_summary(summary), m_status(status) {
  connect(&m_watcher, &QFutureWatcher<RunReport>::progressValueChanged, m_status, &StatusArea::setProgress);
  connect(&m_watcher, &QFutureWatcher<RunReport>::progressTextChanged, m_status, &StatusArea::setProgressText);
  connect(&m_watcher, &QFutureWatcher<RunReport>::finished, this, &RunController::onRunFinished);
  connect(m_doc, &StudioDocument::modelChanged, this, &RunController::updateActions);
  connect(m_doc, &StudioDocument::runsChanged, this, &RunController::updateActions);
  connect(m_doc, &StudioDocument::costsChanged, this, &RunController::updateActions);
}

RunController::~RunController() {
  if (isRunning() || m_watcher.isRunning()) {
    m_watcher.future().cancel();
    m_watcher.waitForFinished();
  }
}

QMenu* RunController::createMenu(QMenuBar* bar, std::function<bool()> loading) {
  m_loading = std::move(loading);
  auto* run = new QMenu(tr("&Run"), bar);
  QAction* before = nullptr;  // the Run menu goes before Help
  for (QAction* a : bar->actions())
    if (a->menu() && a->text() == tr("&Help")) before = a;
  bar->insertMenu(before, run);
  run->setToolTipsVisible(true);
  m_run_cpu = run->addAction(tr("Run on &CPU"), QKeySequence(Qt::Key_F5), this, [this] { runOnCpu(); });
  m_run_cpu->setStatusTip(tr("Run the current schedule and the sequential one on the CPU reference executor"));
  m_run_cuda = run->addAction(tr("Run on C&UDA"), this, [this] { runOnCuda(); });
  // Without CUDA in the build or a GPU on the machine the entry stays disabled and says why.
  m_cuda_unavailable = cuda_unavailable_reason();
  const QString cuda_tip = m_cuda_unavailable.isEmpty()
                               ? tr("Run the current schedule and the sequential one on the GPU (CUDA executor)")
                               : m_cuda_unavailable;
  m_run_cuda->setToolTip(cuda_tip);
  m_run_cuda->setStatusTip(cuda_tip);
  m_cancel_run = run->addAction(tr("C&ancel run"), this, &RunController::cancelRun);
  // Intra-operator parallelism: each stream a team of threads, streams x threads within the cores.
  m_threads_menu = run->addMenu(tr("&Threads per stream"));
  m_threads_menu->setToolTipsVisible(true);
  auto* group = new QActionGroup(m_threads_menu);
  const auto add_threads = [&](int threads, const QString& text, const QString& tip) {
    QAction* a = m_threads_menu->addAction(text, this, [this, threads] { setThreadsPerStream(threads); });
    a->setCheckable(true);
    a->setChecked(threads == m_threads_per_stream);
    a->setData(threads);
    a->setToolTip(tip);
    group->addAction(a);
  };
  add_threads(0, tr("As the schedule says"), tr("One thread per stream unless the schedule was made for more (search on a CPU calibrated at several)"));
  for (int t = 1; t <= core::cpu_count(); ++t)
    add_threads(t, tr("%n thread(s)", nullptr, t), tr("Each stream runs its operators on %n thread(s); streams beyond the cores' teams take turns", nullptr, t));
  // Hybrid parallelism: a node nothing runs beside (a stem, a block's join) on every core.
  m_hybrid_action = run->addAction(tr("&Hybrid teams"), this, [this](bool on) { setHybrid(on); });
  m_hybrid_action->setCheckable(true);
  m_hybrid_action->setChecked(m_hybrid);
  m_hybrid_action->setToolTip(tr("CPU runs: the operators that run alone in the schedule (nothing beside them) run on a team of "
                                 "every core the streams hold, the others on their stream's threads"));
  run->addSeparator();
  m_choose_test_data = run->addAction(tr("&Test data set..."), this, [this] {
    const QString folder = QFileDialog::getExistingDirectory(nullptr, tr("ONNX test data (a test_data_set_N folder or a folder of them)"), m_test_data);
    if (!folder.isEmpty()) setTestData(folder);
  });
  m_choose_test_data->setToolTip(tr("Run on the inputs of an ONNX test data set and check every output against its expected ones"));
  m_clear_test_data = run->addAction(tr("Seeded &inputs"), this, [this] { setTestData({}); });
  m_clear_test_data->setToolTip(tr("Run on seeded inputs again (no test data)"));
  setTestData(m_test_data);
  run->addSeparator();
  m_use_measured = run->addAction(tr("Use &measured times"), this, [this] { useMeasuredTimes(); });
  m_use_measured->setToolTip(tr("Calibrate the cost model with the node times of the latest measured run"));
  m_reset_costs = run->addAction(tr("&Reset cost model"), this, [this] {
    m_doc->resetCosts();
    m_status->showMessage(tr("Cost model reset to the estimates the model was loaded with"));
  });
  run->addSeparator();
  run->addAction(tr("Clear &runs"), m_doc, &StudioDocument::clearRuns)->setToolTip(tr("Forget the measured and imported runs"));

  updateActions();
  return run;
}

void RunController::updateActions() {
  const bool running = isRunning();
  const bool loading = m_loading && m_loading();
  m_run_cpu->setEnabled(m_doc->hasModel() && !running && !loading);
  m_run_cuda->setEnabled(m_cuda_unavailable.isEmpty() && m_doc->hasModel() && !running && !loading);
  m_cancel_run->setEnabled(running);
  const auto& runs = m_doc->runs();
  m_use_measured->setEnabled(!running && std::any_of(runs.begin(), runs.end(), [](const core::Timeline& r) { return r.kind == core::RunKind::Measured; }));
  m_reset_costs->setEnabled(m_doc->hasModel() && m_doc->costsCalibrated());
}

void RunController::setTestData(const QString& folder) {
  m_test_data = folder;
  if (!m_choose_test_data) return;
  m_choose_test_data->setText(folder.isEmpty() ? tr("&Test data set...") : tr("&Test data set: %1").arg(QDir(folder).dirName()));
  m_clear_test_data->setEnabled(!folder.isEmpty());
  if (!folder.isEmpty()) m_status->showMessage(tr("Runs take their inputs from %1 and check their outputs against it").arg(folder));
}

bool RunController::runOnCpu() { return startRun(Backend::Cpu); }

void RunController::setThreadsPerStream(int threads) {
  m_threads_per_stream = std::max(threads, 0);
  if (!m_threads_menu) return;
  for (QAction* a : m_threads_menu->actions()) a->setChecked(a->data().toInt() == m_threads_per_stream);
}

void RunController::setHybrid(bool on) {
  m_hybrid = on;
  if (m_hybrid_action) m_hybrid_action->setChecked(on);
}

bool RunController::runOnCuda() { return startRun(Backend::Cuda); }

bool RunController::refuse(const QString& why) {
  m_status->showMessage(why, true);
  emit runFinished(false, why);
  return false;
}

bool RunController::startRun(Backend backend) {
  const QString where = backend == Backend::Cuda ? tr("CUDA") : tr("the CPU");
  if (!m_doc->hasModel()) return refuse(tr("Open a model before running it"));
  if ((m_loading && m_loading()) || isRunning()) return refuse(tr("Busy: wait for the current load or run to finish"));
  if (backend == Backend::Cuda && !m_cuda_unavailable.isEmpty()) return refuse(tr("Cannot run on CUDA: %1").arg(m_cuda_unavailable));
  // Checked here too so an unsupported model is refused at once, with the operator named.
  if (auto ok = check_supported(backend, m_doc->graph()); !ok)
    return refuse(tr("Cannot run on %1: %2").arg(where, QString::fromStdString(ok.error().message)));
  RunRequest request;
  request.backend = backend;
  request.graph = m_doc->graphPtr();
  request.schedule = m_doc->schedule();
  // A merged model is compared with the unmerged model's sequential run, as `weft run --merge`.
  if (const auto& merge = m_doc->mergeState()) request.reference_graph = merge->unmerged;
  request.iterations = m_run_iterations;
  request.threads_per_stream = m_threads_per_stream;
  request.hybrid = backend == Backend::Cpu && m_hybrid;
  request.made_with = RunRequest::MadeWith{m_doc->device(), m_doc->analysis().costs, m_doc->strategyOptions()};
  request.test_data = m_test_data.toStdString();
  m_job = start_run(std::move(request));
  m_run_active = true;
  m_watcher.setFuture(m_job.future);
  m_status->startProgress(tr("Running %p%"));
  m_status->showMessage(tr("Running %1 on %2...").arg(QString::fromStdString(m_doc->schedule().strategy), where));
  updateActions();
  return true;
}

void RunController::cancelRun() {
  if (!isRunning()) return;
  // The executor finishes the pass in flight in the background; its result is dropped.
  m_watcher.future().cancel();
  m_status->showMessage(tr("Run cancelled"));
}

void RunController::onRunFinished() {
  m_run_active = false;
  if (!(m_loading && m_loading())) m_status->hideProgress();
  updateActions();
  QFuture<RunReport> future = m_watcher.future();
  if (future.isCanceled() || future.resultCount() == 0) {
    const QString why = future.isCanceled() ? tr("Run cancelled") : tr("Run refused: %1").arg(*m_job.error);
    m_status->showMessage(why, !future.isCanceled());
    emit runFinished(false, why);
    return;
  }
  const RunReport r = future.result();
  if (r.graph != m_doc->graphPtr()) {
    const QString why = tr("Run result dropped: the model changed while it ran");
    m_status->showMessage(why, true);
    emit runFinished(false, why);
    return;
  }
  m_last_measured = r.measured.identity();
  // The unmerged reference's timeline names another graph's nodes: only the schedule's is shown.
  if (!r.unmerged_reference) m_doc->addRun(r.sequential);
  m_doc->addRun(r.measured);

  const double speedup = r.speedup;
  const bool agree = r.identical || r.max_abs_diff == 0;
  const QString diff = std::isnan(r.max_abs_diff) ? tr("differ (shape or NaN)")
                       : r.identical          ? tr("bit-identical")
                                              : tr("max abs diff %1").arg(r.max_abs_diff, 0, 'g', 3);
  QString rows;
  auto add = [&rows](const QString& k, const QString& v) {
    rows += QString("<tr><td nowrap>%1</td><td nowrap align=right>&nbsp;<b>%2</b></td></tr>").arg(k, v);
  };
  const QString backend = QString::fromLatin1(backend_name(r.backend));
  add(tr("%1 run").arg(backend), tr("%1&nbsp;ms").arg(r.wall_ms, 0, 'f', 2));
  add(r.unmerged_reference ? tr("%1 sequential, unmerged").arg(backend) : tr("%1 sequential").arg(backend),
      tr("%1&nbsp;ms").arg(r.sequential_ms, 0, 'f', 2));
  add(r.unmerged_reference ? tr("vs unmerged seq. eager") : tr("vs seq. eager"), tr("%1× measured").arg(speedup, 0, 'f', 2));
  if (r.predicted_speedup)
    add(tr("calibrated cpu"), tr("%1× predicted (error %2%)").arg(*r.predicted_speedup, 0, 'f', 2).arg(100 * r.prediction_error, 0, 'f', 1));
  else if (!r.prediction_unavailable.isEmpty())
    add(tr("calibrated cpu"), tr("no prediction").toHtmlEscaped());
  add(tr("schedule made for"), r.schedule_made_for.toHtmlEscaped());
  // Studio runs launch eagerly (per-node timing): the graph baseline is the predicted one, the
  // study's speedup over it (`weft run --backend cuda` measures CUDA Graph replays). Only the
  // current schedule's prediction: while an edit's study runs it is the previous one's. A CPU
  // run has no graph baseline (the study's figure is the GPU device's, not this run's).
  const auto& study = m_doc->study();
  if (r.backend == Backend::Cuda) {
    if (!m_doc->predictionPending() && study && study->prediction)
      add(tr("vs seq. graph"), tr("%1× predicted").arg(study->prediction->speedup_vs_graph, 0, 'f', 2));
    else
      add(tr("vs seq. graph"), tr("n/a"));
  }
  add(tr("outputs"), diff);
  QString tested;  // the test data's verdict, for the status line too
  if (r.test_data) {
    tested = testDataText(*r.test_data);
    add(tr("test data"), tested.toHtmlEscaped());
  }
  if (r.random_weights > 0) add(tr("weights"), tr("%1 seeded").arg(r.random_weights));
  // More streams than CPUs: the CPU executor's threads (one per CPU) take the streams in turn.
  QString streams = r.cpu_cores > 0 && r.measured.stream_count > r.cpu_cores
                        ? tr("%1 streams on %2 threads").arg(r.measured.stream_count).arg(r.cpu_cores)
                        : tr("%1 stream(s)").arg(r.measured.stream_count);
  if (r.threads_per_stream > 1) streams += tr(" of %1 threads").arg(r.threads_per_stream);
  if (r.hybrid_nodes > 0)
    add(tr("hybrid teams"), tr("%n node(s) alone on teams of %1 threads", nullptr, static_cast<int>(r.hybrid_nodes)).arg(r.hybrid_threads));
  else if (r.hybrid)
    add(tr("hybrid teams"), tr("none: one stream, or no node alone for %1 µs or more").arg(core::kHybridMinNodeUs, 0, 'f', 0));
  if (!r.kernels.isEmpty()) add(tr("kernels"), r.kernels.toHtmlEscaped());
  const QString why_unpredicted =
      r.prediction_unavailable.isEmpty() ? QString() : tr("<p>No prediction: %1</p>").arg(r.prediction_unavailable.toHtmlEscaped());
  m_summary->setRunText(tr("<p><b>%1 run</b> · %2 · %3 · median of %4</p><table>%5</table>%6")
                            .arg(backend.toUpper())
                            .arg(QString::fromStdString(r.measured.strategy).toHtmlEscaped())
                            .arg(streams)
                            .arg(r.iterations)
                            .arg(rows)
                            .arg(why_unpredicted));
  QString msg = tr("Ran on %1: %2 ms vs %3 ms sequential%6 (%4×), outputs %5")
                    .arg(r.backend == Backend::Cuda ? tr("CUDA") : tr("the CPU"))
                    .arg(r.wall_ms, 0, 'f', 2)
                    .arg(r.sequential_ms, 0, 'f', 2)
                    .arg(speedup, 0, 'f', 2)
                    .arg(diff)
                    .arg(r.unmerged_reference ? tr(", unmerged") : QString());
  if (r.hybrid_nodes > 0) msg += tr("; %n node(s) on hybrid teams of %1 threads", nullptr, static_cast<int>(r.hybrid_nodes)).arg(r.hybrid_threads);
  if (r.test_data) msg += tr("; test data %1").arg(tested);
  m_status->showMessage(msg, !agree || (r.test_data && !r.test_data->passed));
  emit runFinished(true, msg);
}

bool RunController::useMeasuredTimes() {
  if (!m_doc->hasModel()) return false;
  // The latest run of the schedule; else the last measured run the document holds (an import).
  const auto& runs = m_doc->runs();
  auto last = std::find_if(runs.rbegin(), runs.rend(), [this](const core::Timeline& r) { return r.identity() == m_last_measured; });
  if (last == runs.rend())
    last = std::find_if(runs.rbegin(), runs.rend(), [](const core::Timeline& r) { return r.kind == core::RunKind::Measured; });
  if (last == runs.rend()) {
    m_status->showMessage(tr("No measured run yet: Run ▸ Run on CPU first"), true);
    return false;
  }
  const core::Timeline run = *last;  // setCosts() may not touch runs, but keep a copy regardless
  m_doc->setCosts(core::calibrate_costs(m_doc->analysis().costs, run), tr("measured (%1)").arg(QString::fromStdString(run.label)));
  m_status->showMessage(tr("Cost model calibrated with %1 measured node times from '%2' (Run ▸ Reset cost model reverts)")
                  .arg(run.items.size())
                  .arg(QString::fromStdString(run.label)));
  return true;
}

}  // namespace weft::ui
