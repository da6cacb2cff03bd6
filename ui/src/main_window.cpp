#include "weft/ui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QCloseEvent>
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
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "weft/core/cpu_executor.h"
#include "weft/core/file_io.h"
#include "weft/core/project_file.h"
#include "weft/core/simulate.h"
#include "weft/ui/core_bridge.h"
#include "weft/ui/graph_view.h"
#include "weft/ui/lanes_view.h"
#include "weft/ui/node_table_model.h"
#include "weft/ui/panels.h"
#include "weft/ui/recovery_store.h"
#include "weft/ui/timeline_view.h"

namespace weft::ui {

namespace {
constexpr int kMaxRecent = 10;
constexpr int kLayoutVersion = 2;  // 2: the timeline dock
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), m_doc(new StudioDocument(this)) {
  setWindowTitle(tr("Weft Studio"));
  setAcceptDrops(true);
  setDockNestingEnabled(true);
  createDocks();
  createMemoryDock();
  {
    QSettings settings;
    m_device_preset = settings.value("device").toString();
    m_theme = theme_from_name(settings.value("view/theme").toString());
    if (m_theme != Theme::System || system_prefers_dark() != is_dark(QApplication::palette()))
      apply_theme(m_theme);
  }
  createTimelineDock();
  createMenus();
  createRunMenu();

  m_status_summary = new QLabel(tr("Open an ONNX model (Ctrl+O) or drop one on the window."), this);
  statusBar()->addWidget(m_status_summary, 1);
  m_progress = new QProgressBar(this);
  m_progress->setMaximumWidth(220);
  m_progress->setTextVisible(true);
  m_progress->hide();
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->hide();
  statusBar()->addPermanentWidget(m_progress);
  statusBar()->addPermanentWidget(m_cancel);
  connect(m_cancel, &QPushButton::clicked, this, &MainWindow::cancelLoading);
  connect(m_cancel, &QPushButton::clicked, this, &MainWindow::cancelRun);

  connect(&m_watcher, &QFutureWatcher<LoadedModel>::progressValueChanged, m_progress, &QProgressBar::setValue);
  connect(&m_watcher, &QFutureWatcher<LoadedModel>::progressTextChanged, this,
          [this](const QString& text) { m_progress->setFormat(text + " %p%"); });
  connect(&m_watcher, &QFutureWatcher<LoadedModel>::finished, this, &MainWindow::onLoaded);
  connect(m_doc, &StudioDocument::scheduleChanged, this, &MainWindow::updateTitleAndStatus);
  connect(m_doc, &StudioDocument::editRefused, this, [this](const QString& why) { showMessage(tr("Edit refused: %1").arg(why), true); });
  connect(m_doc->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitleAndStatus);

  // Unsaved edits are autosaved as a project document; a clean stack leaves nothing to recover.
  m_recovery = new RecoveryStore(this);
  m_recovery->setWriter([this](const QString& path) -> core::Status {
    if (!m_doc->hasModel()) return core::make_error(core::ErrorKind::Usage, "no model");
    return save_project(path, *m_doc, currentSettings());
  });
  connect(m_doc->undoStack(), &QUndoStack::indexChanged, this, &MainWindow::updateRecoveryState);
  connect(m_doc->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateRecoveryState);

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
  if (isLoading()) {
    m_watcher.future().cancel();
    m_watcher.waitForFinished();
  }
  if (isRunning() || m_run_watcher.isRunning()) {
    m_run_watcher.future().cancel();
    m_run_watcher.waitForFinished();
  }
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
  m_summary = new SummaryPanel(m_doc, this);
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
  resizeDocks({strategy, summary, props}, {250, 250, 380}, Qt::Horizontal);
  resizeDocks({lanes, strategy}, {560, 340}, Qt::Vertical);
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
  file->addAction(tr("&Save project..."), QKeySequence::Save, this, [this] {
    if (!m_doc->hasModel()) return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Save project"), {}, tr("Weft projects (*.weft)"));
    if (!path.isEmpty()) saveProject(path.endsWith(".weft") ? path : path + ".weft");
  });
  createExportMenu(file);
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
  createPreferenceMenus(edit, view);
  view->addSeparator();
  for (QDockWidget* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());

  createHelpMenu();
}

int MainWindow::findNode(const QString& text) {
  const int matches = m_graph->find(text);
  if (matches > 0 && !m_doc->selection().empty()) m_lanes->ensureNodeVisible(m_doc->selection().front());
  showMessage(matches > 0 ? tr("%1 matches for '%2'").arg(matches).arg(text) : tr("No node matches '%1'").arg(text),
              matches == 0);
  return matches;
}

void MainWindow::openPath(const QString& path) {
  if (path.endsWith(".weft", Qt::CaseInsensitive)) openProject(path);
  else openModel(path);
}

void MainWindow::openModel(const QString& path) {
  m_pending_project.reset();
  LoadRequest r;
  r.path = QFileInfo(path).absoluteFilePath();
  r.strategy = m_strategy->strategyBox()->currentText();
  r.options.max_streams = m_strategy->streamCap()->value();
  r.options.granularity_us = m_strategy->granularity()->value();
  r.options.cuda_graph = m_strategy->launchMode()->currentIndex() == 1;
  r.device = m_device_preset;
  m_loading_is_file = true;
  startLoad(std::move(r));
}

void MainWindow::openGraph(const QString& label, GraphSource source) {
  m_pending_project.reset();
  LoadRequest r;
  r.path = label;
  r.source = std::move(source);
  r.strategy = m_strategy->strategyBox()->currentText();
  r.options.max_streams = m_strategy->streamCap()->value();
  r.device = m_device_preset;
  m_loading_is_file = false;
  startLoad(std::move(r));
}

void MainWindow::openProject(const QString& path) { openProjectFile(path, false); }

void MainWindow::openProjectFile(const QString& path, bool recovering) {
  auto project = load_project(path);
  if (!project) {
    showMessage(QString::fromStdString(project.error().message), true);
    emit loadFinished(false, m_last_message);
    return;
  }
  LoadRequest r;
  r.path = project->model_path;
  r.strategy = project->settings.strategy;
  r.options.max_streams = project->settings.max_streams;
  r.options.granularity_us = project->settings.granularity_us;
  r.options.cuda_graph = project->settings.cuda_graph;
  r.device = m_device_preset;
  m_loading_is_file = true;
  startLoad(std::move(r));
  m_pending_project = std::move(*project);  // after startLoad, which clears nothing of it
  m_recovering_file = recovering ? path : QString();
  if (!recovering) addRecent(QFileInfo(path).absoluteFilePath());
}

void MainWindow::startLoad(LoadRequest request) {
  if (isLoading()) cancelLoading();
  cancelRun();  // its result would belong to the model being replaced
  m_loading_path = request.path;
  m_job = start_loading(std::move(request));
  m_watcher.setFuture(m_job.future);
  m_progress->setValue(0);
  m_progress->setFormat(tr("Loading %p%"));
  m_progress->show();
  m_cancel->show();
  showMessage(tr("Loading %1...").arg(QFileInfo(m_loading_path).fileName()));
}

bool MainWindow::isLoading() const { return m_watcher.isRunning(); }

void MainWindow::cancelLoading() {
  if (!isLoading()) return;
  m_watcher.future().cancel();
  showMessage(tr("Loading cancelled"));
}

void MainWindow::onLoaded() {
  m_progress->hide();
  m_cancel->hide();
  QFuture<LoadedModel> future = m_watcher.future();
  if (future.isCanceled() || future.resultCount() == 0) {
    const QString why = future.isCanceled() ? tr("Loading cancelled")
                                            : tr("Could not open %1: %2").arg(m_loading_path, *m_job.error);
    m_pending_project.reset();
    m_recovering_file.clear();  // kept on disk: offered again next time
    showMessage(why, !future.isCanceled());
    emit loadFinished(false, why);
    return;
  }
  LoadedModel model = future.result();
  const double ms = model.load_ms;
  m_doc->setModel(std::move(model));
  if (m_pending_project) {
    const Project project = std::move(*m_pending_project);
    m_pending_project.reset();
    m_strategy->strategyBox()->setCurrentText(project.settings.strategy);
    m_strategy->streamCap()->setValue(project.settings.max_streams);
    m_strategy->granularity()->setValue(project.settings.granularity_us);
    m_strategy->launchMode()->setCurrentIndex(project.settings.cuda_graph ? 1 : 0);
    m_lanes->setWidthMode(project.settings.lane_widths == "uniform" ? LanesView::WidthMode::Uniform
                                                                    : LanesView::WidthMode::PredictedTime);
    auto schedule = bridge::schedule_from_json(m_doc->graph(), project.schedule_json.toStdString());
    QString reason;
    if (!schedule) reason = QString::fromStdString(schedule.error().message);
    else m_doc->replaceSchedule(*schedule, &reason);
    if (!reason.isEmpty()) showMessage(tr("The project's schedule was refused (%1); using a fresh one").arg(reason), true);
  }
  if (m_loading_is_file) addRecent(m_loading_path);
  m_recovered = !m_recovering_file.isEmpty();
  if (m_recovered) m_recovery->discard(m_recovering_file);  // its edits are this session's now
  m_recovering_file.clear();
  updateRecoveryState();
  updateTitleAndStatus();
  const QString msg = tr("Loaded %1 in %2 ms").arg(QFileInfo(m_loading_path).fileName()).arg(ms, 0, 'f', 0);
  showMessage(msg);
  emit loadFinished(true, msg);
}

bool MainWindow::saveProject(const QString& path) {
  auto ok = save_project(path, *m_doc, currentSettings());
  if (!ok) {
    showMessage(tr("Could not save %1: %2").arg(path, QString::fromStdString(ok.error().message)), true);
    return false;
  }
  m_doc->undoStack()->setClean();
  m_recovered = false;
  updateRecoveryState();
  updateTitleAndStatus();
  addRecent(QFileInfo(path).absoluteFilePath());
  showMessage(tr("Saved %1").arg(path));
  return true;
}

bool MainWindow::exportSchedule(const QString& path) {
  if (!m_doc->hasModel()) return false;
  const std::string json = bridge::schedule_to_json(m_doc->graph(), m_doc->schedule(), m_doc->device().name);
  auto ok = core::write_file_atomic(path.toStdString(), json);
  showMessage(ok ? tr("Exported the schedule to %1").arg(path)
                 : tr("Could not export %1: %2").arg(path, QString::fromStdString(ok.error().message)),
              !ok);
  return static_cast<bool>(ok);
}

ProjectSettings MainWindow::currentSettings() const {
  ProjectSettings s;
  s.strategy = m_strategy->strategyBox()->currentText();
  s.max_streams = m_strategy->streamCap()->value();
  s.granularity_us = m_strategy->granularity()->value();
  s.cuda_graph = m_strategy->launchMode()->currentIndex() == 1;
  s.lane_widths = m_lanes->widthMode() == LanesView::WidthMode::Uniform ? "uniform" : "time";
  return s;
}

void MainWindow::updateRecoveryState() {
  if (m_doc->hasModel() && (!m_doc->undoStack()->isClean() || m_recovered)) m_recovery->markDirty();
  else m_recovery->markClean();
}

int MainWindow::offerRecovery(RecoveryChoice choice) {
  const QString env = qEnvironmentVariable("WEFT_RECOVER");
  if (choice == RecoveryChoice::Ask && env == "accept") choice = RecoveryChoice::Accept;
  if (choice == RecoveryChoice::Ask && env == "discard") choice = RecoveryChoice::Discard;
  const QStringList files = m_recovery->orphans();
  if (files.isEmpty()) return 0;
  const QString newest = files.front();
  if (choice == RecoveryChoice::Discard) {
    for (const QString& f : files) m_recovery->discard(f);
  } else if (choice == RecoveryChoice::Accept) {
    recoverSession(newest);
  } else {
    auto project = core::load_project_file(newest.toStdString());
    const QString model = project ? QFileInfo(QString::fromStdString(project->model_path)).fileName() : tr("a model");
    const QString when = QFileInfo(newest).lastModified().toString("yyyy-MM-dd HH:mm:ss");
    auto* box = new QMessageBox(QMessageBox::Question, tr("Recover unsaved edits?"),
                                tr("Weft Studio closed unexpectedly with unsaved edits of %1 (autosaved %2). "
                                   "Recover them?").arg(model, when),
                                QMessageBox::Yes | QMessageBox::No, this);
    box->button(QMessageBox::Yes)->setText(tr("Recover"));
    box->button(QMessageBox::No)->setText(tr("Discard"));
    box->setWindowModality(Qt::NonModal);  // the window stays usable while it waits
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::buttonClicked, this, [this, box, newest](QAbstractButton* b) {
      if (box->standardButton(b) == QMessageBox::Yes) recoverSession(newest);
      else m_recovery->discard(newest);
    });
    m_recovery_prompt = box;
    box->show();
  }
  return static_cast<int>(files.size());
}

void MainWindow::recoverSession(const QString& file) { openProjectFile(file, true); }

QMessageBox* MainWindow::recoveryPrompt() const { return m_recovery_prompt.data(); }

void MainWindow::showMessage(const QString& text, bool error) {
  m_last_message = text;
  statusBar()->showMessage(text, error ? 15000 : 6000);
  statusBar()->setStyleSheet(error ? "QStatusBar { color: #c0392b; }" : QString());
}

void MainWindow::updateTitleAndStatus() {
  if (!m_doc->hasModel()) return;
  const QString name = QFileInfo(m_doc->modelPath()).fileName();
  const bool unsaved = !m_doc->undoStack()->isClean() || m_recovered;
  setWindowTitle(tr("%1%2%3 — Weft Studio").arg(name, m_recovered ? tr(" (recovered)") : QString(), unsaved ? " *" : ""));
  const core::Graph& g = m_doc->graph();
  const auto& an = m_doc->analysis();
  const auto& f = m_doc->figures();
  m_status_summary->setText(tr("%1 · %2 operators · %3 edges · %4 levels · width %5 · %6 streams · %7 events · "
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

QStringList MainWindow::recentFiles() const {
  QStringList files = QSettings().value("recentFiles").toStringList();
  files.erase(std::remove_if(files.begin(), files.end(), [](const QString& f) { return !QFileInfo::exists(f); }), files.end());
  return files;
}

void MainWindow::addRecent(const QString& path) {
  QStringList files = recentFiles();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMaxRecent) files.removeLast();
  QSettings().setValue("recentFiles", files);
}

void MainWindow::rebuildRecentMenu() {
  m_recent_menu->clear();
  const QStringList files = recentFiles();
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
    if (url.isLocalFile() && (url.path().endsWith(".onnx", Qt::CaseInsensitive) || url.path().endsWith(".weft", Qt::CaseInsensitive))) {
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

// ---------------------------------------------------------------------------------------------
// Timeline dock and Run menu

void MainWindow::createTimelineDock() {
  m_timeline = new TimelineView(m_doc, this);
  auto* box = new QWidget(this);
  auto* bar = new QToolBar(box);
  auto tool = [bar](const QString& text, const QString& tip) {
    QAction* a = bar->addAction(text);
    a->setToolTip(tip);
    return a;
  };
  connect(tool(tr("Fit"), tr("Show every run (F)")), &QAction::triggered, m_timeline, &TimelineView::fit);
  connect(tool(tr("Zoom in"), tr("Zoom in (+, or the wheel)")), &QAction::triggered, m_timeline, [this] { m_timeline->zoomBy(1.25); });
  connect(tool(tr("Zoom out"), tr("Zoom out (-)")), &QAction::triggered, m_timeline, [this] { m_timeline->zoomBy(0.8); });
  bar->addAction(m_timeline->arrowsAction());
  bar->addSeparator();
  auto* hint = new QLabel(tr("wheel: zoom at the cursor · drag: pan · Shift+drag or drag on the ruler: range statistics · "
                             "click: select the node"),
                          bar);
  hint->setForegroundRole(QPalette::PlaceholderText);
  bar->addWidget(hint);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(bar);
  layout->addWidget(m_timeline);
  m_timeline_dock = new QDockWidget(tr("Timeline"), this);
  m_timeline_dock->setObjectName("timelineDock");
  m_timeline_dock->setWidget(box);
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

void MainWindow::createRunMenu() {
  auto* run = new QMenu(tr("&Run"), this);
  QAction* before = nullptr;  // the Run menu goes before Help
  for (QAction* a : menuBar()->actions())
    if (a->menu() && a->text() == tr("&Help")) before = a;
  menuBar()->insertMenu(before, run);
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
  m_cancel_run = run->addAction(tr("C&ancel run"), this, &MainWindow::cancelRun);
  run->addSeparator();
  m_use_measured = run->addAction(tr("Use &measured times"), this, [this] { useMeasuredTimes(); });
  m_use_measured->setToolTip(tr("Calibrate the cost model with the node times of the latest measured run"));
  m_reset_costs = run->addAction(tr("&Reset cost model"), this, [this] {
    m_doc->resetCosts();
    showMessage(tr("Cost model reset to the estimates the model was loaded with"));
  });
  run->addSeparator();
  run->addAction(tr("Clear &runs"), m_doc, &StudioDocument::clearRuns)->setToolTip(tr("Forget the measured and imported runs"));

  // The status bar's widgets do not exist yet: reach them through `this`.
  connect(&m_run_watcher, &QFutureWatcher<RunReport>::progressValueChanged, this, [this](int value) { m_progress->setValue(value); });
  connect(&m_run_watcher, &QFutureWatcher<RunReport>::progressTextChanged, this,
          [this](const QString& text) { m_progress->setFormat(text + " %p%"); });
  connect(&m_run_watcher, &QFutureWatcher<RunReport>::finished, this, &MainWindow::onRunFinished);
  connect(&m_watcher, &QFutureWatcher<LoadedModel>::started, this, &MainWindow::updateRunActions);
  connect(&m_watcher, &QFutureWatcher<LoadedModel>::finished, this, &MainWindow::updateRunActions);
  connect(m_doc, &StudioDocument::modelChanged, this, &MainWindow::updateRunActions);
  connect(m_doc, &StudioDocument::runsChanged, this, &MainWindow::updateRunActions);
  connect(m_doc, &StudioDocument::costsChanged, this, &MainWindow::updateRunActions);
  updateRunActions();
}

void MainWindow::updateRunActions() {
  const bool running = isRunning();
  m_run_cpu->setEnabled(m_doc->hasModel() && !running && !isLoading());
  m_run_cuda->setEnabled(m_cuda_unavailable.isEmpty() && m_doc->hasModel() && !running && !isLoading());
  m_cancel_run->setEnabled(running);
  const auto& runs = m_doc->runs();
  m_use_measured->setEnabled(!running && std::any_of(runs.begin(), runs.end(), [](const core::Timeline& r) { return r.kind == "measured"; }));
  m_reset_costs->setEnabled(m_doc->hasModel() && m_doc->costsCalibrated());
}

bool MainWindow::isRunning() const { return m_run_active; }

bool MainWindow::runOnCpu() { return startRun(Backend::Cpu); }

bool MainWindow::runOnCuda() { return startRun(Backend::Cuda); }

bool MainWindow::startRun(Backend backend) {
  const QString where = backend == Backend::Cuda ? tr("CUDA") : tr("the CPU");
  auto refuse = [this](const QString& why) {
    showMessage(why, true);
    emit runFinished(false, why);
    return false;
  };
  if (!m_doc->hasModel()) return refuse(tr("Open a model before running it"));
  if (isLoading() || isRunning()) return refuse(tr("Busy: wait for the current load or run to finish"));
  if (backend == Backend::Cuda && !m_cuda_unavailable.isEmpty()) return refuse(tr("Cannot run on CUDA: %1").arg(m_cuda_unavailable));
  // Checked here too so an unsupported model is refused at once, with the operator named.
  if (auto ok = check_supported(backend, m_doc->graph()); !ok)
    return refuse(tr("Cannot run on %1: %2").arg(where, QString::fromStdString(ok.error().message)));
  RunRequest request;
  request.backend = backend;
  request.graph = m_doc->graphPtr();
  request.schedule = m_doc->schedule();
  request.iterations = m_run_iterations;
  m_run_job = start_run(std::move(request));
  m_run_active = true;
  m_run_watcher.setFuture(m_run_job.future);
  m_progress->setValue(0);
  m_progress->setFormat(tr("Running %p%"));
  m_progress->show();
  m_cancel->show();
  showMessage(tr("Running %1 on %2...").arg(QString::fromStdString(m_doc->schedule().strategy), where));
  updateRunActions();
  return true;
}

void MainWindow::cancelRun() {
  if (!isRunning()) return;
  // The executor finishes the pass in flight in the background; its result is dropped.
  m_run_watcher.future().cancel();
  showMessage(tr("Run cancelled"));
}

void MainWindow::onRunFinished() {
  m_run_active = false;
  if (!isLoading()) {
    m_progress->hide();
    m_cancel->hide();
  }
  updateRunActions();
  QFuture<RunReport> future = m_run_watcher.future();
  if (future.isCanceled() || future.resultCount() == 0) {
    const QString why = future.isCanceled() ? tr("Run cancelled") : tr("Run refused: %1").arg(*m_run_job.error);
    showMessage(why, !future.isCanceled());
    emit runFinished(false, why);
    return;
  }
  const RunReport r = future.result();
  if (r.graph != m_doc->graphPtr()) {
    const QString why = tr("Run result dropped: the model changed while it ran");
    showMessage(why, true);
    emit runFinished(false, why);
    return;
  }
  m_last_measured = r.measured.label;
  m_doc->addRun(r.sequential);
  m_doc->addRun(r.measured);

  const double speedup = r.wall_ms > 0 ? r.sequential_ms / r.wall_ms : 0.0;
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
  add(tr("%1 sequential").arg(backend), tr("%1&nbsp;ms").arg(r.sequential_ms, 0, 'f', 2));
  add(tr("vs seq. eager"), tr("%1× measured").arg(speedup, 0, 'f', 2));
  // Studio runs launch eagerly (per-node timing): the graph baseline is the predicted one
  // (`weft run --backend cuda` measures CUDA Graph replays).
  const auto& predicted = m_doc->predictedRuns();
  if (predicted.size() == 3 && predicted[0].makespan_us() > 0)
    add(tr("vs seq. graph"), tr("%1× predicted").arg(predicted[2].makespan_us() / predicted[0].makespan_us(), 0, 'f', 2));
  else
    add(tr("vs seq. graph"), tr("n/a"));
  add(tr("outputs"), diff);
  if (r.random_weights > 0) add(tr("weights"), tr("%1 seeded").arg(r.random_weights));
  m_summary->setRunText(tr("<p><b>%1 run</b> · %2 · %3 stream(s) · median of %4</p><table>%5</table>")
                            .arg(backend.toUpper())
                            .arg(QString::fromStdString(r.measured.label.substr(r.measured.label.rfind(' ') + 1)).toHtmlEscaped())
                            .arg(r.measured.stream_count)
                            .arg(r.iterations)
                            .arg(rows));
  const QString msg = tr("Ran on %1: %2 ms vs %3 ms sequential (%4×), outputs %5")
                          .arg(r.backend == Backend::Cuda ? tr("CUDA") : tr("the CPU"))
                          .arg(r.wall_ms, 0, 'f', 2)
                          .arg(r.sequential_ms, 0, 'f', 2)
                          .arg(speedup, 0, 'f', 2)
                          .arg(diff);
  showMessage(msg, !agree);
  emit runFinished(true, msg);
}

bool MainWindow::useMeasuredTimes() {
  if (!m_doc->hasModel()) return false;
  // The latest run of the schedule; else the last measured run the document holds (an import).
  const auto& runs = m_doc->runs();
  auto last = std::find_if(runs.rbegin(), runs.rend(), [this](const core::Timeline& r) { return r.label == m_last_measured; });
  if (last == runs.rend())
    last = std::find_if(runs.rbegin(), runs.rend(), [](const core::Timeline& r) { return r.kind == "measured"; });
  if (last == runs.rend()) {
    showMessage(tr("No measured run yet: Run ▸ Run on CPU first"), true);
    return false;
  }
  const core::Timeline run = *last;  // setCosts() may not touch runs, but keep a copy regardless
  m_doc->setCosts(core::calibrate_costs(m_doc->analysis().costs, run), tr("measured (%1)").arg(QString::fromStdString(run.label)));
  showMessage(tr("Cost model calibrated with %1 measured node times from '%2' (Run ▸ Reset cost model reverts)")
                  .arg(run.items.size())
                  .arg(QString::fromStdString(run.label)));
  return true;
}

}  // namespace weft::ui
