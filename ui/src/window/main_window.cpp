#include "weft/ui/main_window.h"

#include <QCheckBox>
#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>
#include <algorithm>

#include "weft/core/onnx/dim_binding.h"
#include "weft/core/base/file_io.h"
#include "weft/core/base/project_file.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/ui/dim_dialog.h"
#include "weft/ui/graph_view.h"
#include "weft/ui/sweep_view.h"
#include "weft/ui/lanes_view.h"
#include "weft/ui/export_actions.h"
#include "weft/ui/help_menu.h"
#include "weft/ui/load_controller.h"
#include "weft/ui/memory_view.h"
#include "weft/ui/node_table_model.h"
#include "weft/ui/preferences.h"
#include "weft/ui/properties_panel.h"
#include "weft/ui/recovery_store.h"
#include "weft/ui/run_controller.h"
#include "weft/ui/status_area.h"
#include "weft/ui/strategy_panel.h"
#include "weft/ui/summary_panel.h"
#include "weft/ui/timeline_panel.h"
#include "weft/ui/timeline_view.h"

namespace weft::ui {

namespace {
constexpr int kLayoutVersion = 2;  // 2: the timeline dock
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), m_doc(new StudioDocument(this)) {
  setWindowTitle(tr("Weft Studio"));
  setAcceptDrops(true);
  setDockNestingEnabled(true);
  m_status = new StatusArea(statusBar(), this);
  m_preferences = new Preferences(this);
  createDocks();
  createMemoryDock();
  createTimelineDock();
  m_loads = new LoadController(m_doc, m_strategy, m_lanes, m_preferences, m_status, this);
  m_runs = new RunController(m_doc, m_summary, m_status, this);
  m_exports = new ExportActions(m_doc, this, m_memory, m_status);
  m_help = new HelpMenu(this);
  createMenus();
  m_runs->createMenu(menuBar(), [this] { return isLoading(); });

  connect(m_status, &StatusArea::cancelRequested, m_runs, &RunController::cancelRun);
  connect(m_runs, &RunController::runFinished, this, &MainWindow::runFinished);
  connect(m_loads, &LoadController::loadStarting, m_runs, &RunController::cancelRun);
  connect(m_loads, &LoadController::loadingChanged, m_runs, &RunController::updateActions);
  connect(m_loads, &LoadController::loadFinished, this, &MainWindow::loadFinished);
  connect(m_loads, &LoadController::documentStateChanged, this, &MainWindow::updateTitleAndStatus);
  connect(m_doc, &StudioDocument::scheduleChanged, this, &MainWindow::updateTitleAndStatus);
  connect(m_doc, &StudioDocument::studyChanged, this, &MainWindow::updateTitleAndStatus);  // the speedup's reference
  connect(m_doc, &StudioDocument::predictionChanged, this, &MainWindow::updateTitleAndStatus);
  connect(m_doc, &StudioDocument::editRefused, this, [this](const QString& why) { showMessage(tr("Edit refused: %1").arg(why), true); });
  connect(m_doc->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitleAndStatus);

  resize(1400, 900);
  QSettings settings;
  if (settings.value("layout/version").toInt() == kLayoutVersion) {
    restoreGeometry(settings.value("layout/geometry").toByteArray());
    restoreState(settings.value("layout/state").toByteArray(), kLayoutVersion);
  }
}

MainWindow::~MainWindow() {
  // The document's undo stack clears as it goes: nothing of this window may hear it.
  disconnect(m_doc->undoStack(), nullptr, this, nullptr);
  // Before the document goes (children are deleted in the order they were made, the document
  // first): the controller waits for its load and disconnects from the document's undo stack.
  delete m_loads;
  m_loads = nullptr;
}

void MainWindow::createDocks() {
  auto dock = [this](const QString& title, const char* name, QWidget* w, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(w);
    addDockWidget(area, d);
    return d;
  };
  m_lanes = new LanesView(m_doc, this);
  m_graph = new GraphView(m_doc, this);
  m_properties = new PropertiesPanel(m_doc, this);
  m_strategy = new StrategyPanel(m_doc, this);
  connect(m_strategy, &StrategyPanel::mergeRequested, this, [this](bool merge) {
    if (m_doc->hasModel() && merge != m_doc->isMerged()) m_loads->reopen(m_doc->dimBindings(), merge);
  });
  connect(m_strategy, &StrategyPanel::fuseRequested, this, [this](bool fuse) {
    if (m_doc->hasModel() && fuse != m_doc->isFused()) m_loads->reopenFused(fuse);
  });
  m_summary = new SummaryPanel(m_doc, this);
  // The advice's "apply" link: its strategy and launch mode through the Strategy panel (one
  // undoable edit, as if chosen there), with the panel's stream cap, which the advice kept to.
  // A merge or a split re-opens the model so, with that strategy first (as the load follows the
  // advice): the configuration is chosen, so the re-opened model is not advised into another.
  connect(m_summary, &SummaryPanel::applyAdviceRequested, this, [this](const AdviceAction& action) {
    m_strategy->strategyBox()->setCurrentText(action.strategy);
    m_strategy->launchMode()->setCurrentIndex(action.cuda_graph ? 1 : 0);
    const QString mode = action.cuda_graph ? tr("CUDA Graph replay") : tr("eager launches");
    if (!action.reopens()) {
      if (m_strategy->apply()) showMessage(tr("Applied the advice: %1, %2").arg(action.strategy, mode));
      return;
    }
    m_loads->reopenAsAdvised(action, mode);
  });
  m_node_model = new NodeTableModel(m_doc, this);
  auto* proxy = new QSortFilterProxyModel(this);
  proxy->setSourceModel(m_node_model);
  proxy->setFilterKeyColumn(-1);
  proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
  proxy->setSortRole(Qt::DisplayRole);
  auto* nodes = new QWidget(this);
  auto* filter = new QLineEdit(nodes);
  filter->setPlaceholderText(tr("Filter by name or operator"));
  filter->setClearButtonEnabled(true);
  m_node_table = new QTableView(nodes);
  m_node_table->setModel(proxy);
  m_node_table->setSortingEnabled(true);
  m_node_table->sortByColumn(-1, Qt::AscendingOrder);
  m_node_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_node_table->verticalHeader()->hide();
  m_node_table->verticalHeader()->setDefaultSectionSize(20);
  m_node_table->horizontalHeader()->setStretchLastSection(true);
  auto* nl = new QVBoxLayout(nodes);
  nl->setContentsMargins(0, 0, 0, 0);
  nl->addWidget(filter);
  nl->addWidget(m_node_table);
  connect(filter, &QLineEdit::textChanged, proxy, &QSortFilterProxyModel::setFilterFixedString);
  connect(m_node_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
    const auto n = static_cast<core::NodeId>(index.data(NodeTableModel::kNodeIdRole).toInt());
    m_doc->setSelection({n});
    m_graph->centerOn(n);
    m_lanes->ensureNodeVisible(n);
  });

  QDockWidget* graph = dock(tr("Graph"), "graphDock", m_graph, Qt::LeftDockWidgetArea);
  QDockWidget* lanes = dock(tr("Stream lanes"), "lanesDock", m_lanes, Qt::RightDockWidgetArea);
  QDockWidget* strategy = dock(tr("Strategy"), "strategyDock", m_strategy, Qt::RightDockWidgetArea);
  QDockWidget* summary = dock(tr("Summary"), "summaryDock", m_summary, Qt::RightDockWidgetArea);
  QDockWidget* props = dock(tr("Properties"), "propertiesDock", m_properties, Qt::RightDockWidgetArea);
  QDockWidget* table = dock(tr("Nodes"), "nodesDock", nodes, Qt::RightDockWidgetArea);
  // Lanes across the top right; below them strategy | summary | properties side by side.
  splitDockWidget(lanes, strategy, Qt::Vertical);
  splitDockWidget(strategy, summary, Qt::Horizontal);
  splitDockWidget(summary, props, Qt::Horizontal);
  tabifyDockWidget(props, table);
  props->raise();
  resizeDocks({graph, lanes}, {520, 880}, Qt::Horizontal);
  resizeDocks({strategy, summary, props}, {280, 340, 260}, Qt::Horizontal);
  resizeDocks({lanes, strategy}, {560, 340}, Qt::Vertical);
  // Sizes set before the window has its size do not stick (the summary got ~150 px, its advice
  // wrapped into a narrow column): set them again once the loop runs, unless a saved layout does.
  if (QSettings().value("layout/version").toInt() != kLayoutVersion)
    QTimer::singleShot(0, this, [this, strategy, summary, props] {
      resizeDocks({strategy, summary, props}, {280, 340, 260}, Qt::Horizontal);
    });
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open model..."), QKeySequence::Open, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open model"), {}, tr("ONNX models (*.onnx);;All files (*)"));
    if (!path.isEmpty()) openModel(path);
  });
  m_recent_menu = file->addMenu(tr("Open &recent"));
  connect(m_recent_menu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
  file->addSeparator();
  file->addAction(tr("Open &project..."), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open project"), {}, tr("Weft projects (*.weft)"));
    if (!path.isEmpty()) openProject(path);
  });
  file->addAction(tr("Open &schedule..."), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open schedule"), {}, tr("Schedule JSON (*.json);;All files (*)"));
    if (!path.isEmpty()) openSchedule(path);
  });
  auto* open_profile = file->addAction(tr("Open pro&file..."), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open profile"), {},
                                                      tr("Profiles: ONNX Runtime JSON, PyTorch or Weft Chrome trace (*.json);;All files (*)"));
    if (!path.isEmpty()) m_loads->openProfile(path);
  });
  open_profile->setObjectName("openProfile");
  open_profile->setToolTip(tr("Measured node times from ONNX Runtime's or PyTorch's profiler replace the predictions"));
  auto* close_profile = file->addAction(tr("&Close profile"), this, [this] { m_loads->closeProfile(); });
  close_profile->setObjectName("closeProfile");
  const auto update_profile_actions = [this, open_profile, close_profile] {
    open_profile->setEnabled(m_doc->hasModel());
    close_profile->setEnabled(m_doc->profile() != nullptr);
  };
  connect(m_doc, &StudioDocument::modelChanged, this, update_profile_actions);
  update_profile_actions();
  file->addAction(tr("&Save project..."), QKeySequence::Save, this, [this] {
    if (!m_doc->hasModel()) return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Save project"), {}, tr("Weft projects (*.weft)"));
    if (!path.isEmpty()) saveProject(path.endsWith(".weft") ? path : path + ".weft");
  });
  file->addAction(tr("Bind &dimensions..."), this, [this] { m_loads->showDimDialog(); });
  m_exports->createMenu(file);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = m_doc->undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = m_doc->undoStack()->createRedoAction(this, tr("&Redo"));
  redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence::Redo});
  edit->addAction(undo);
  edit->addAction(redo);
  edit->addSeparator();
  edit->addAction(tr("&Add stream"), this, [this] { m_doc->addStream(); });
  edit->addAction(tr("Remove &empty streams"), this, [this] {
    for (int s = static_cast<int>(m_doc->schedule().stream_count()); s-- > 0;)
      if (m_doc->schedule().streams[static_cast<std::size_t>(s)].empty()) m_doc->removeStream(s);
  });
  edit->addAction(tr("Select &none"), QKeySequence(Qt::Key_Escape), this, [this] { m_doc->setSelection({}); });

  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(tr("&Fit graph"), QKeySequence(Qt::CTRL | Qt::Key_0), m_graph, &GraphView::fit);
  QToolBar* bar = addToolBar(tr("Find"));
  bar->setObjectName("findToolBar");
  m_find = new QLineEdit(bar);
  m_find->setPlaceholderText(tr("Find node by name or operator (Ctrl+F, Enter: next)"));
  m_find->setClearButtonEnabled(true);
  m_find->setMaximumWidth(360);
  bar->addWidget(m_find);
  view->addAction(tr("&Find..."), QKeySequence::Find, this, [this] {
    m_find->setFocus();
    m_find->selectAll();
  });
  connect(m_find, &QLineEdit::returnPressed, this, [this] { findNode(m_find->text()); });
  QMenu* widths = view->addMenu(tr("Lane box &widths"));
  widths->addAction(tr("By predicted time"), this, [this] { m_lanes->setWidthMode(LanesView::WidthMode::PredictedTime); });
  widths->addAction(tr("Uniform"), this, [this] { m_lanes->setWidthMode(LanesView::WidthMode::Uniform); });
  m_preferences->createMenus(edit, view);
  view->addSeparator();
  for (QDockWidget* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());

  m_help->createMenu();
}

int MainWindow::findNode(const QString& text) {
  const int matches = m_graph->find(text);
  if (matches > 0 && !m_doc->selection().empty()) m_lanes->ensureNodeVisible(m_doc->selection().front());
  showMessage(matches > 0 ? tr("%1 matches for '%2'").arg(matches).arg(text) : tr("No node matches '%1'").arg(text),
              matches == 0);
  return matches;
}

void MainWindow::showMessage(const QString& text, bool error) { m_status->showMessage(text, error); }

const QString& MainWindow::lastMessage() const { return m_status->lastMessage(); }

void MainWindow::updateTitleAndStatus() {
  if (!m_doc->hasModel()) return;
  const QString name = QFileInfo(m_doc->modelPath()).fileName();
  const bool unsaved = !m_doc->undoStack()->isClean() || m_loads->recovered();
  setWindowTitle(tr("%1%2%3 — Weft Studio").arg(name, m_loads->recovered() ? tr(" (recovered)") : QString(), unsaved ? " *" : ""));
  const core::Graph& g = m_doc->graph();
  const auto& an = m_doc->analysis();
  const auto& f = m_doc->figures();
  m_status->setSummary(tr("%1 · %2 operators · %3 edges · %4 levels · width %5 · %6 streams · %7 events · "
                               "ideal %8 µs (%9×)")
                                .arg(name)
                                .arg(g.node_count())
                                .arg(g.edge_count())
                                .arg(an.levels.depth)
                                .arg(an.antichain_width)
                                .arg(f.streams)
                                .arg(f.events)
                                .arg(f.ideal_us, 0, 'f', 1)
                                .arg(f.speedup, 0, 'f', 2));
}

void MainWindow::rebuildRecentMenu() {
  m_recent_menu->clear();
  const QStringList files = m_loads->recentFiles();
  QSettings().setValue("recentFiles", files);  // drop the missing ones for good
  for (const QString& f : files) m_recent_menu->addAction(QFileInfo(f).fileName(), this, [this, f] { openPath(f); })->setToolTip(f);
  if (files.isEmpty()) m_recent_menu->addAction(tr("(none)"))->setEnabled(false);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue("layout/version", kLayoutVersion);
  settings.setValue("layout/geometry", saveGeometry());
  settings.setValue("layout/state", saveState(kLayoutVersion));
  QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  for (const QUrl& url : event->mimeData()->urls())
    if (url.isLocalFile() && (url.path().endsWith(".onnx", Qt::CaseInsensitive) || url.path().endsWith(".weft", Qt::CaseInsensitive) ||
                              url.path().endsWith(".json", Qt::CaseInsensitive))) {
      event->acceptProposedAction();
      return;
    }
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls())
    if (url.isLocalFile()) {
      openPath(url.toLocalFile());
      event->acceptProposedAction();
      return;
    }
}

void MainWindow::createTimelineDock() {
  auto* panel = new TimelinePanel(m_doc, this);
  m_timeline = panel->view();
  m_timeline_dock = new QDockWidget(tr("Timeline"), this);
  m_timeline_dock->setObjectName("timelineDock");
  m_timeline_dock->setWidget(panel);
  addDockWidget(Qt::BottomDockWidgetArea, m_timeline_dock);
  // Dock sizes set before the window has its size do not stick: size it once the loop runs,
  // unless a saved layout (restored in the constructor) already does.
  if (QSettings().value("layout/version").toInt() != kLayoutVersion)
    QTimer::singleShot(0, this, [this] { resizeDocks({m_timeline_dock}, {height() * 3 / 10}, Qt::Vertical); });
}

void MainWindow::showTimeline() {
  m_timeline_dock->show();
  m_timeline_dock->raise();
  resizeDocks({m_timeline_dock}, {height() * 3 / 5}, Qt::Vertical);
  m_timeline->fit();
}

void MainWindow::createMemoryDock() {
  m_memory = new MemoryView(m_doc, this);
  auto* d = new QDockWidget(tr("Memory"), this);
  d->setObjectName("memoryDock");
  d->setWidget(m_memory);
  addDockWidget(Qt::RightDockWidgetArea, d);
  // A tab beside the lanes: it re-plans only while visible.
  if (auto* lanes = findChild<QDockWidget*>("lanesDock")) {
    tabifyDockWidget(lanes, d);
    lanes->raise();
  }
  // The batch sweep (weft sweep's chart), a third tab there: it runs only when asked.
  m_sweep = new SweepView(m_doc, this);
  auto* sweep = new QDockWidget(tr("Sweep"), this);
  sweep->setObjectName("sweepDock");
  sweep->setWidget(m_sweep);
  addDockWidget(Qt::RightDockWidgetArea, sweep);
  if (auto* lanes = findChild<QDockWidget*>("lanesDock")) {
    tabifyDockWidget(d, sweep);
    lanes->raise();
  }
}

bool MainWindow::showView(const QString& name) {
  auto* d = findChild<QDockWidget*>(name + "Dock");
  if (!d) return false;
  d->show();
  d->raise();
  return true;
}

// ---- forwards to the role classes -----------------------------------------------------------

void MainWindow::openPath(const QString& path) { m_loads->openPath(path); }
void MainWindow::openModel(const QString& path) { m_loads->openModel(path); }
void MainWindow::openSchedule(const QString& path, const QString& model) { m_loads->openSchedule(path, model); }
void MainWindow::openGraph(const QString& label, GraphSource source) { m_loads->openGraph(label, std::move(source)); }
void MainWindow::openProject(const QString& path) { m_loads->openProject(path); }
bool MainWindow::saveProject(const QString& path) { return m_loads->saveProject(path); }
bool MainWindow::isLoading() const { return m_loads->isLoading(); }

bool MainWindow::runOnCpu() { return m_runs->runOnCpu(); }
bool MainWindow::runOnCuda() { return m_runs->runOnCuda(); }
void MainWindow::cancelRun() { m_runs->cancelRun(); }
bool MainWindow::isRunning() const { return m_runs->isRunning(); }
QAction* MainWindow::runCpuAction() const { return m_runs->runCpuAction(); }
QAction* MainWindow::runCudaAction() const { return m_runs->runCudaAction(); }
QAction* MainWindow::useMeasuredAction() const { return m_runs->useMeasuredAction(); }
QAction* MainWindow::resetCostsAction() const { return m_runs->resetCostsAction(); }
void MainWindow::setRunIterations(int iterations) { m_runs->setRunIterations(iterations); }
void MainWindow::setThreadsPerStream(int threads) { m_runs->setThreadsPerStream(threads); }
bool MainWindow::useMeasuredTimes() { return m_runs->useMeasuredTimes(); }

bool MainWindow::exportSchedule(const QString& path) { return m_exports->exportSchedule(path); }
bool MainWindow::exportChromeTrace(const QString& path, const std::vector<int>& runs) {
  return m_exports->exportChromeTrace(path, runs);
}
bool MainWindow::exportNodeTimes(const QString& path) { return m_exports->exportNodeTimes(path); }
bool MainWindow::exportViewImage(const QString& view, const QString& path) { return m_exports->exportViewImage(view, path); }
QStringList MainWindow::exportableViews() const { return m_exports->exportableViews(); }
QWidget* MainWindow::exportableView(const QString& view) const { return m_exports->exportableView(view); }
QString MainWindow::lastExportFolder() const { return m_exports->lastExportFolder(); }

const QString& MainWindow::devicePreset() const { return m_preferences->devicePreset(); }
void MainWindow::setDevicePreset(const QString& name) { m_preferences->setDevicePreset(name); }
Theme MainWindow::theme() const { return m_preferences->theme(); }
void MainWindow::setTheme(Theme theme) { m_preferences->setTheme(theme); }

QList<QPair<QString, QString>> MainWindow::shortcutList() const { return m_help->shortcutList(); }
QString MainWindow::aboutText() const { return m_help->aboutText(); }

}  // namespace weft::ui
