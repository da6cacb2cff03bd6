#pragma once
// The studio's main window: docks for the views and panels, File / Edit / View menus, recent
// files, projects, and loading off the GUI thread with progress and cancel. The other roles live
// in their own classes (RunController, ExportActions, Preferences, HelpMenu, StatusArea); the
// window keeps thin forwards to them so callers have one entry point.
#include <QFutureWatcher>
#include <QMainWindow>
#include <QPointer>
#include <QString>

#include "weft/ui/load_job.h"
#include "weft/ui/project_file.h"
#include "weft/ui/studio_document.h"
#include "weft/ui/theme.h"

class QDockWidget;
class QLineEdit;
class QMenu;
class QMessageBox;
class QTableView;

namespace weft::ui {

class DimDialog;
class ExportActions;
class GraphView;
class HelpMenu;
class LanesView;
class MemoryView;
class NodeTableModel;
class Preferences;
class PropertiesPanel;
class RecoveryStore;
class RunController;
class StatusArea;
class StrategyPanel;
class SummaryPanel;
class SweepView;
class TimelineView;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Starts loading an ONNX model (or, for *.weft, a project; for *.json, a schedule) off the GUI thread.
  void openPath(const QString& path);
  void openModel(const QString& path);
  /// Opens schedule JSON (`weft schedule -o FILE`, an external strategy's, a hand-written one;
  /// docs/schedule-format.md). Onto the open model as it is, when the schedule loads there: one
  /// undo step. When it records another micro-batch split or merges than the open model has, the
  /// model is re-opened split and merged as it records, with the schedule (edits are dropped with
  /// the graph they were made on); with no model open, the model it names is opened (its path as
  /// written, or beside the schedule file), or `model` when given (`weft-studio MODEL --schedule
  /// FILE`). A schedule that does not load changes nothing and says why (the CLI's refusals:
  /// another model, unknown or missing nodes, a deadlock, ...).
  void openSchedule(const QString& path, const QString& model = {});
  /// Starts loading a graph produced by `source` in the worker (tests, --synthetic).
  void openGraph(const QString& label, GraphSource source);
  void openProject(const QString& path);
  bool saveProject(const QString& path);
  bool exportSchedule(const QString& path);
  /// Chrome trace of the runs at `runs` (indices into exportable_runs(*document()): predicted
  /// runs first, then measured).
  bool exportChromeTrace(const QString& path, const std::vector<int>& runs);
  /// Per-node times of the schedule and of every run as CSV.
  bool exportNodeTimes(const QString& path);
  /// PNG or SVG (by suffix) of the view named `view` (one of exportableViews()).
  bool exportViewImage(const QString& view, const QString& path);
  /// Views that File > Export > Image offers: every dock's widget, the memory chart, the offset
  /// map and the whole window.
  QStringList exportableViews() const;
  QWidget* exportableView(const QString& view) const;
  /// Raises the dock whose object name is `name` + "Dock" (e.g. "memory"); false when none.
  bool showView(const QString& name);
  void cancelLoading();

  // Symbolic dims (the CLI's --dim): models open with these bindings. A model file that loads
  // with dims still unbound gets the dim dialog (non-modal; setAskForDims(false) turns it off),
  // whose OK re-opens the model with the dims it binds added to these.
  void setDimBindings(std::map<std::string, std::int64_t> dims) { m_dim_bindings = std::move(dims); }
  const std::map<std::string, std::int64_t>& dimBindings() const { return m_dim_bindings; }
  /// Models opened from files from now on are re-batched to `batch` (0: their own, as weft's
  /// --batch) and split into `split` micro-batch copies (-1: not split, 0: auto; weft's --split).
  void setBatchSplit(std::int64_t batch, int split) {
    m_batch = batch;
    m_split = split;
  }
  void setAskForDims(bool ask) { m_ask_dims = ask; }
  /// Models open as advised (LoadRequest::follow_advice: the advice's strategy and launch mode,
  /// or the split it names) while Edit > Open models as advised is on, until this is called: from
  /// then on the strategy panel's settings open every model (the command line's --strategy,
  /// --graph, --granularity and --split call it).
  void pinOpeningConfiguration() { m_pinned_opening = true; }
  /// Whether the next model opened follows its advice.
  bool opensAsAdvised() const;
  Preferences* preferences() const { return m_preferences; }
  /// Opens the dim dialog for the current model's unbound dims; false (and a message) when none.
  bool showDimDialog();
  /// The dim dialog while it is open, else null.
  DimDialog* dimDialog() const;
  /// Re-opens the current model (the last load request) with `dims` bound and merging on or off.
  /// Schedule edits are dropped: the graph they were made on is replaced.
  void reopen(std::map<std::string, std::int64_t> dims, bool merge);
  /// Selects the next node matching `text` (name or operator), shows it in both views; match count.
  int findNode(const QString& text);
  bool isLoading() const;

  StudioDocument* document() const { return m_doc; }
  GraphView* graphView() const { return m_graph; }
  LanesView* lanesView() const { return m_lanes; }
  MemoryView* memoryView() const { return m_memory; }
  StrategyPanel* strategyPanel() const { return m_strategy; }
  SummaryPanel* summaryPanel() const { return m_summary; }
  SweepView* sweepView() const { return m_sweep; }
  NodeTableModel* nodeModel() const { return m_node_model; }
  TimelineView* timelineView() const { return m_timeline; }
  QDockWidget* timelineDock() const { return m_timeline_dock; }

  // Runs (Run menu, RunController): the CPU reference executor runs the current schedule and the
  // sequential one off the GUI thread; progress and cancel in the status bar; the measured
  // timelines land in the document's runs and the summary panel. Run on CUDA does the same on the
  // CUDA executor; it is disabled, with the reason, in a build without CUDA or where no GPU is detected.
  RunController* runController() const { return m_runs; }
  /// Starts a CPU run; false (with the reason in the status bar) when refused.
  bool runOnCpu();
  /// Starts a CUDA run; false (with the reason) when refused or unavailable.
  bool runOnCuda();
  void cancelRun();
  /// From runOnCpu() until runFinished is emitted.
  bool isRunning() const;
  QAction* runCpuAction() const;
  QAction* runCudaAction() const;
  QAction* useMeasuredAction() const;
  QAction* resetCostsAction() const;
  /// Timed iterations per run (the median is kept); default core::kDefaultRunIterations.
  void setRunIterations(int iterations);
  /// CPU runs' threads per stream (RunController::setThreadsPerStream; 0: the schedule's).
  void setThreadsPerStream(int threads);
  /// Calibrates the cost model with the latest measured run (Run ▸ Use measured times).
  bool useMeasuredTimes();
  /// Raises the timeline dock and makes it the largest (for --show timeline screenshots).
  void showTimeline();
  /// Recent files as stored (most recent first, missing files dropped).
  QStringList recentFiles() const;
  /// The last message shown in the status bar (refusals, errors, progress).
  const QString& lastMessage() const;

  // Settings (QSettings): recent files, device preset, theme, window layout, last export folder.
  /// The device preset used for the next load (empty: the default preset).
  const QString& devicePreset() const;
  /// Chooses the device preset, stores it and reloads the open model file with it.
  void setDevicePreset(const QString& name);
  Theme theme() const;
  void setTheme(Theme theme);
  QString lastExportFolder() const;
  /// Every action that has a shortcut: (menu path and name, shortcuts), from the actions themselves.
  QList<QPair<QString, QString>> shortcutList() const;
  /// The About box's text: versions of Weft, Qt, protobuf, ONNX, CUDA.
  QString aboutText() const;

  // Crash recovery (docs/reliability.md): unsaved edits are autosaved by recoveryStore(); files
  // left by crashed sessions are offered back.
  enum class RecoveryChoice { Ask, Accept, Discard };
  /// Looks for recovery files crashed sessions left (newest first). Ask: a non-modal prompt for
  /// the newest (recoveryPrompt(): Yes recovers, No discards); Accept: recovers it at once;
  /// Discard: deletes them all. $WEFT_RECOVER=accept|discard turns Ask into the other two.
  /// Returns how many were found.
  int offerRecovery(RecoveryChoice choice = RecoveryChoice::Ask);
  /// Reopens a recovery file's model with its schedule and settings, marked unsaved; the file
  /// is deleted once the model has loaded.
  void recoverSession(const QString& file);
  QMessageBox* recoveryPrompt() const;
  RecoveryStore* recoveryStore() const { return m_recovery; }

 signals:
  /// After every load attempt: ok, and the message shown (error or summary).
  void loadFinished(bool ok, const QString& message);
  /// After every run attempt: ok, and the message shown.
  void runFinished(bool ok, const QString& message);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void startLoad(LoadRequest request);
  void onLoaded();
  void showMessage(const QString& text, bool error = false);
  void updateTitleAndStatus();
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void createMenus();
  void createDocks();
  void createMemoryDock();
  void createTimelineDock();
  void onDevicePresetChanged();
  ProjectSettings currentSettings() const;

  StudioDocument* m_doc;
  StatusArea* m_status = nullptr;
  Preferences* m_preferences = nullptr;
  GraphView* m_graph = nullptr;
  LanesView* m_lanes = nullptr;
  MemoryView* m_memory = nullptr;
  PropertiesPanel* m_properties = nullptr;
  StrategyPanel* m_strategy = nullptr;
  SummaryPanel* m_summary = nullptr;
  SweepView* m_sweep = nullptr;
  NodeTableModel* m_node_model = nullptr;
  QTableView* m_node_table = nullptr;
  QLineEdit* m_find = nullptr;
  QMenu* m_recent_menu = nullptr;
  TimelineView* m_timeline = nullptr;
  QDockWidget* m_timeline_dock = nullptr;
  RunController* m_runs = nullptr;
  ExportActions* m_exports = nullptr;
  HelpMenu* m_help = nullptr;
  QFutureWatcher<LoadedModel> m_watcher;
  LoadJob m_job;
  QString m_loading_path;
  bool m_loading_is_file = false;
  /// Schedule and settings to apply once the project's model has loaded.
  std::optional<Project> m_pending_project;
  LoadRequest m_last_request;  ///< the latest load asked for (reopen repeats it)
  /// The request reopen() makes: the last load's, with `dims`, merging, the panel's settings now.
  LoadRequest reopenRequest(std::map<std::string, std::int64_t> dims, bool merge);
  /// The request the open document came from: a load that fails leaves the document as it was,
  /// and m_last_request goes back to this (a refused schedule's split or batch must not stick).
  std::optional<LoadRequest> m_document_request;
  std::map<std::string, std::int64_t> m_dim_bindings;
  std::int64_t m_batch = 0;
  int m_split = -1;
  bool m_ask_dims = true;
  bool m_pinned_opening = false;
  QPointer<DimDialog> m_dim_dialog;
  void openProjectFile(const QString& path, bool recovering);
  /// The request openModel makes: the panel's settings, the dims, batch, split, merging and advice.
  LoadRequest modelRequest(const QString& path) const;
  void updateRecoveryState();
  RecoveryStore* m_recovery = nullptr;
  QPointer<QMessageBox> m_recovery_prompt;
  QString m_recovering_file;  // the recovery file being loaded
  bool m_recovered = false;   // the document came from a recovery file and is not saved yet
};

}  // namespace weft::ui
