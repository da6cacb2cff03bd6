#pragma once
// The studio's main window: docks for the views and panels, File / Edit / View menus. The roles
// live in their own classes (LoadController, RunController, ExportActions, Preferences, HelpMenu,
// StatusArea); the window keeps thin forwards to the entry points its menus use.
#include <QMainWindow>
#include <QString>

#include "weft/ui/load_job.h"
#include "weft/ui/studio_document.h"
#include "weft/ui/theme.h"

class QDockWidget;
class QLineEdit;
class QMenu;
class QTableView;

namespace weft::ui {

class ExportActions;
class GraphView;
class HelpMenu;
class LoadController;
class LanesView;
class MemoryView;
class NodeTableModel;
class Preferences;
class PropertiesPanel;
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

  // Opening and saving (LoadController: loads off the GUI thread with progress and cancel, the
  // dim dialog, reopening, recent files, projects, crash recovery). The window forwards the
  // entry points its menus and drops use; loads() has the rest.
  LoadController* loads() const { return m_loads; }
  void openPath(const QString& path);
  void openModel(const QString& path);
  /// LoadController::openSchedule.
  void openSchedule(const QString& path, const QString& model = {});
  /// Starts loading a graph produced by `source` in the worker (tests, --synthetic).
  void openGraph(const QString& label, GraphSource source);
  void openProject(const QString& path);
  bool saveProject(const QString& path);
  bool isLoading() const;
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
  Preferences* preferences() const { return m_preferences; }
  /// Selects the next node matching `text` (name or operator), shows it in both views; match count.
  int findNode(const QString& text);

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
  void showMessage(const QString& text, bool error = false);
  void updateTitleAndStatus();
  void rebuildRecentMenu();
  void createMenus();
  void createDocks();
  void createMemoryDock();
  void createTimelineDock();

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
  LoadController* m_loads = nullptr;
};

}  // namespace weft::ui
