#pragma once
// The Run menu: real runs of the current schedule and the sequential one off the GUI thread (CPU
// reference executor, or CUDA where available), progress and cancel in the status area, the
// measured timelines into the document and the summary panel; calibration with measured times.
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <functional>
#include <optional>

#include "weft/core/study/run_comparison.h"
#include "weft/core/schedule/timeline.h"
#include "weft/ui/run_job.h"

class QAction;
class QMenu;
class QMenuBar;

namespace weft::ui {

class StatusArea;
class StudioDocument;
class SummaryPanel;

class RunController : public QObject {
  Q_OBJECT
 public:
  RunController(StudioDocument* doc, SummaryPanel* summary, StatusArea* status, QObject* parent = nullptr);
  ~RunController() override;

  /// Builds the Run menu (before Help when there is one). `loading` says whether a model load
  /// is in progress (runs wait for it).
  QMenu* createMenu(QMenuBar* bar, std::function<bool()> loading);

  /// Starts a run; false (with the reason in the status area) when refused or unavailable.
  bool runOnCpu();
  bool runOnCuda();
  void cancelRun();
  /// From the start of a run until runFinished is emitted.
  bool isRunning() const { return m_run_active; }
  /// Timed iterations per run (the median is kept); default 3.
  void setRunIterations(int iterations) { m_run_iterations = iterations; }
  /// Threads of each stream's library team in CPU runs (Run ▸ Threads per stream); 0: the
  /// schedule's own (1 unless a strategy chose more).
  void setThreadsPerStream(int threads);
  int threadsPerStream() const { return m_threads_per_stream; }
  /// Hybrid teams in CPU runs (Run ▸ Hybrid teams, as `weft run --hybrid`): the nodes that run
  /// alone on a team of every core the streams hold. Off by default.
  void setHybrid(bool on);
  bool hybrid() const { return m_hybrid; }
  QAction* hybridAction() const { return m_hybrid_action; }
  /// Calibrates the cost model with the latest measured run.
  bool useMeasuredTimes();
  /// The ONNX test data (a test_data_set_N folder or a folder of them) the next runs take their
  /// inputs from and check their outputs against, shown beside the timings; empty: seeded inputs.
  void setTestData(const QString& folder);
  QString testData() const { return m_test_data; }
  /// Enables and disables the actions from the document's and the controller's state.
  void updateActions();

  QAction* runCpuAction() const { return m_run_cpu; }
  QAction* runCudaAction() const { return m_run_cuda; }
  QAction* useMeasuredAction() const { return m_use_measured; }
  QAction* resetCostsAction() const { return m_reset_costs; }
  QAction* testDataAction() const { return m_choose_test_data; }

 signals:
  /// After every run attempt: ok, and the message shown.
  void runFinished(bool ok, const QString& message);

 private:
  bool startRun(Backend backend);
  void onRunFinished();
  bool refuse(const QString& why);

  StudioDocument* m_doc;
  SummaryPanel* m_summary;
  StatusArea* m_status;
  std::function<bool()> m_loading;
  QAction* m_run_cpu = nullptr;
  QAction* m_run_cuda = nullptr;
  QString m_cuda_unavailable;  ///< why Run on CUDA cannot run here; empty when it can
  QAction* m_cancel_run = nullptr;
  QAction* m_use_measured = nullptr;
  QAction* m_reset_costs = nullptr;
  QAction* m_choose_test_data = nullptr;
  QAction* m_clear_test_data = nullptr;
  QString m_test_data;  ///< setTestData()
  QFutureWatcher<RunReport> m_watcher;
  RunJob m_job;
  int m_run_iterations = core::kDefaultRunIterations;  ///< as weft run and Python
  int m_threads_per_stream = 0;
  QMenu* m_threads_menu = nullptr;
  bool m_hybrid = false;
  QAction* m_hybrid_action = nullptr;
  bool m_run_active = false;    ///< from the start of a run until its result (or cancel) is handled
  /// The latest measured schedule run (Use measured times), by identity.
  std::optional<core::RunIdentity> m_last_measured;
};

}  // namespace weft::ui
