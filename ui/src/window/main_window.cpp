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
constexpr int kMaxRecent = 10;
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
  m_runs = new RunController(m_doc, m_summary, m_status, this);
  m_exports = new ExportActions(m_doc, this, m_memory, m_status);
  m_help = new HelpMenu(this);
  createMenus();
  m_runs->createMenu(menuBar(), [this] { return isLoading(); });

  connect(m_status, &StatusArea::cancelRequested, this, &MainWindow::cancelLoading);
  connect(m_status, &StatusArea::cancelRequested, m_runs, &RunController::cancelRun);
  connect(m_runs, &RunController::runFinished, this, &MainWindow::runFinished);
  connect(m_preferences, &Preferences::devicePresetChanged, this, &MainWindow::onDevicePresetChanged);
  connect(&m_watcher, &QFutureWatcher<LoadedModel>::progressValueChanged, m_status, &StatusArea::setProgress);
  connect(&m_watcher, &QFutureWatcher<LoadedModel>::progressTextChanged, m_status, &StatusArea::setProgressText);
  connect(&m_watcher, &QFutureWatcher<LoadedModel>::finished, this, &MainWindow::onLoaded);
  connect(&m_watcher, &QFutureWatcher<LoadedModel>::started, m_runs, &RunController::updateActions);
  connect(&m_watcher, &QFutureWatcher<LoadedModel>::finished, m_runs, &RunController::updateActions);
  connect(m_doc, &StudioDocument::scheduleChanged, this, &MainWindow::updateTitleAndStatus);
  connect(m_doc, &StudioDocument::studyChanged, this, &MainWindow::updateTitleAndStatus);  // the speedup's reference
  connect(m_doc, &StudioDocument::predictionChanged, this, &MainWindow::updateTitleAndStatus);
  connect(m_doc, &StudioDocument::editRefused, this, [this](const QString& why) { showMessage(tr("Edit refused: %1").arg(why), true); });
  connect(m_doc->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitleAndStatus);

  // Unsaved edits are autosaved as a project document; a clean stack leaves nothing to recover.
  m_recovery = new RecoveryStore(this);
  m_recovery->setWriter([this](const QString& path) -> core::Status {
    if (!m_doc->hasModel()) return core::make_error(core::ErrorKind::InvalidInput, "no model");
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
    if (m_doc->hasModel() && merge != m_doc->isMerged()) reopen(m_doc->dimBindings(), merge);
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
    if (!m_doc->hasModel() || isLoading()) return;
    LoadRequest r = reopenRequest(m_doc->dimBindings(), action.merge || m_doc->isMerged());
    if (action.split_k > 1) r.split = action.split_k;
    r.follow_advice = false;
    r.advice_applied = action.merge ? tr("merged, %1, %2").arg(action.strategy, mode)
                                    : tr("split k=%1, %2, %3").arg(action.split_k).arg(action.strategy, mode);
    startLoad(std::move(r));
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
  file->addAction(tr("&Save project..."), QKeySequence::Save, this, [this] {
    if (!m_doc->hasModel()) return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Save project"), {}, tr("Weft projects (*.weft)"));
    if (!path.isEmpty()) saveProject(path.endsWith(".weft") ? path : path + ".weft");
  });
  file->addAction(tr("Bind &dimensions..."), this, [this] { showDimDialog(); });
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

void MainWindow::openPath(const QString& path) {
  if (path.endsWith(".weft", Qt::CaseInsensitive)) openProject(path);
  else if (path.endsWith(".json", Qt::CaseInsensitive)) openSchedule(path);
  else openModel(path);
}

void MainWindow::openModel(const QString& path) {
  m_pending_project.reset();
  m_loading_is_file = true;
  startLoad(modelRequest(path));
}

LoadRequest MainWindow::modelRequest(const QString& path) const {
  LoadRequest r;
  r.path = QFileInfo(path).absoluteFilePath();
  r.strategy = m_strategy->strategyBox()->currentText();
  r.options.max_streams = m_strategy->streamCap()->value();
  r.options.granularity_us = m_strategy->granularity()->value();
  r.options.cuda_graph = m_strategy->launchMode()->currentIndex() == 1;
  r.device = m_preferences->devicePreset();
  r.import.dims = m_dim_bindings;
  r.import.batch = m_batch;
  r.split = m_split;
  r.merge = m_strategy->mergeBox()->isChecked();
  r.follow_advice = opensAsAdvised();
  return r;
}

namespace {

// The model a schedule names, as a file here: its path as written (absolute, or relative to the
// current folder, where `weft` probably ran), the same path beside the schedule, or its file name
// there. Where more than one of those exists, the one whose bytes have the recorded sha256 (else
// the first, which the load's hash check then refuses by name); a lone candidate is not read here,
// the load checks it. Only regular *.onnx files: a file from elsewhere cannot make the studio read
// just any path.
QString model_of_schedule(const core::ScheduleHeader& header, const QString& schedule_path) {
  const QString named = QString::fromStdString(header.model_path);
  if (named.isEmpty() || !named.endsWith(".onnx", Qt::CaseInsensitive)) return {};
  const QDir beside = QFileInfo(schedule_path).absoluteDir();
  QStringList found;
  for (const QString& candidate : {named, beside.filePath(named), beside.filePath(QFileInfo(named).fileName())})
    if (QFileInfo(candidate).isFile() && !found.contains(QFileInfo(candidate).absoluteFilePath()))
      found.append(QFileInfo(candidate).absoluteFilePath());
  if (found.size() > 1 && !header.model_sha256.empty())
    for (const QString& path : found)
      if (auto bytes = core::read_file(path.toStdString()); bytes && core::sha256_hex(*bytes) == header.model_sha256) return path;
  return found.value(0);
}

}  // namespace

void MainWindow::openSchedule(const QString& path, const QString& model_path) {
  const QString name = QFileInfo(path).fileName();
  const auto fail = [&](const QString& why) {
    showMessage(tr("Could not open schedule %1: %2").arg(name, why), true);
    emit loadFinished(false, lastMessage());
  };
  auto text = core::read_file(path.toStdString(), core::kMaxTextBytes);
  if (!text) return fail(QString::fromStdString(text.error().message));
  auto header = core::schedule_header_from_json(*text);
  if (!header) return fail(QString::fromStdString(header.error().message));
  LoadRequest::ScheduleText given{QFileInfo(path).absoluteFilePath(), std::move(*text), true};
  if (!model_path.isEmpty() || !m_doc->hasModel()) {
    // The model given, else the one it was made for.
    const QString model = model_path.isEmpty() ? model_of_schedule(*header, path) : model_path;
    if (model.isEmpty())
      return fail(header->model_path.empty() ? tr("it names no model; open the model first")
                  : !QString::fromStdString(header->model_path).endsWith(".onnx", Qt::CaseInsensitive)
                      ? tr("it names %1, not an .onnx model; open the model first").arg(QString::fromStdString(header->model_path))
                      : tr("it was made for %1, which is not there (nor beside the schedule); open the model first")
                            .arg(QString::fromStdString(header->model_path)));
    LoadRequest r = modelRequest(model);
    r.split = header->split.k > 1 ? header->split.k : -1;
    r.merge = false;  // the merges are the schedule's
    r.follow_advice = false;
    r.schedule = std::move(given);
    m_pending_project.reset();
    m_loading_is_file = true;
    startLoad(std::move(r));
    return;
  }
  // Onto the model as it is: one undo step, the panel's launch mode and device unchanged.
  auto direct = core::schedule_from_json(m_doc->graph(), given.text);
  if (direct) {
    const core::Schedule& s = *direct;
    if (!m_doc->applySchedule(s, tr("Open schedule %1").arg(name))) return fail(m_doc->lastRefusal());
    showMessage(tr("Opened schedule %1: %2, %3 streams, %4 events (Ctrl+Z undoes)")
                    .arg(name, QString::fromStdString(s.strategy))
                    .arg(s.stream_count())
                    .arg(s.events.size()));
    return;
  }
  const int have_k = std::max(1, m_doc->graph().info().micro_batches);
  if (header->split.k == have_k && header->merges == 0 && !m_doc->isMerged())
    return fail(QString::fromStdString(direct.error().message));
  // Another split or other merges than the open model's: the model re-opened as the schedule
  // records it (a schedule that still does not load leaves the open model as it is).
  LoadRequest r = m_last_request;
  r.strategy = m_strategy->strategyBox()->currentText();
  r.options.max_streams = m_strategy->streamCap()->value();
  r.options.granularity_us = m_strategy->granularity()->value();
  r.options.cuda_graph = m_strategy->launchMode()->currentIndex() == 1;
  r.split = header->split.k > 1 ? header->split.k : -1;
  r.merge = false;
  r.follow_advice = false;
  r.schedule = std::move(given);
  m_pending_project.reset();
  startLoad(std::move(r));
}

void MainWindow::openGraph(const QString& label, GraphSource source) {
  m_pending_project.reset();
  LoadRequest r;
  r.path = label;
  r.source = std::move(source);
  r.strategy = m_strategy->strategyBox()->currentText();
  r.options.max_streams = m_strategy->streamCap()->value();
  r.device = m_preferences->devicePreset();
  r.merge = m_strategy->mergeBox()->isChecked();
  r.follow_advice = opensAsAdvised();
  m_loading_is_file = false;
  startLoad(std::move(r));
}

bool MainWindow::opensAsAdvised() const { return !m_pinned_opening && m_preferences->openAsAdvised(); }

void MainWindow::openProject(const QString& path) { openProjectFile(path, false); }

void MainWindow::openProjectFile(const QString& path, bool recovering) {
  auto project = load_project(path);
  if (!project) {
    showMessage(QString::fromStdString(project.error().message), true);
    emit loadFinished(false, lastMessage());
    return;
  }
  LoadRequest r;
  r.path = project->model_path;
  r.strategy = project->settings.strategy;
  r.options.max_streams = project->settings.max_streams;
  r.options.granularity_us = project->settings.granularity_us;
  r.options.cuda_graph = project->settings.cuda_graph;
  r.device = m_preferences->devicePreset();
  r.import.dims = project->settings.dims;
  r.import.batch = project->settings.batch;
  r.split = project->settings.split > 1 ? project->settings.split : -1;
  r.merge = project->settings.merge;
  r.schedule = LoadRequest::ScheduleText{QFileInfo(path).absoluteFilePath(), project->schedule_json.toStdString(), false};
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
  m_last_request = request;
  m_job = start_loading(std::move(request));
  m_watcher.setFuture(m_job.future);
  m_status->startProgress(tr("Loading %p%"));
  showMessage(tr("Loading %1...").arg(QFileInfo(m_loading_path).fileName()));
}

bool MainWindow::isLoading() const { return m_watcher.isRunning(); }

void MainWindow::cancelLoading() {
  if (!isLoading()) return;
  m_watcher.future().cancel();
  showMessage(tr("Loading cancelled"));
}

void MainWindow::onLoaded() {
  m_status->hideProgress();
  QFuture<LoadedModel> future = m_watcher.future();
  if (future.isCanceled() || future.resultCount() == 0) {
    const QString why = future.isCanceled() ? tr("Loading cancelled")
                        : m_last_request.schedule && m_last_request.schedule->required
                            ? tr("Could not open schedule %1: %2").arg(QFileInfo(m_last_request.schedule->file).fileName(), *m_job.error)
                            : tr("Could not open %1: %2").arg(m_loading_path, *m_job.error);
    m_pending_project.reset();
    m_recovering_file.clear();  // kept on disk: offered again next time
    if (m_document_request) m_last_request = *m_document_request;  // the document is still that load's
    showMessage(why, !future.isCanceled());
    emit loadFinished(false, why);
    return;
  }
  LoadedModel model = future.result();
  m_last_request.import.batch = model.batch;  // a schedule's split may have re-batched it: projects and reopen keep that
  m_document_request = m_last_request;
  const double ms = model.load_ms;
  QString note = model.note;
  if (!model.schedule_file.isEmpty() && !m_pending_project) {
    const core::Schedule& s = model.schedule;
    const QString opened = tr("schedule %1 (%2, %3 streams, %4 events)")
                               .arg(QFileInfo(model.schedule_file).fileName(), QString::fromStdString(s.strategy))
                               .arg(s.stream_count())
                               .arg(s.events.size());
    note = note.isEmpty() ? opened : opened + QStringLiteral("; ") + note;
  }
  const QString refused = model.schedule_refused;
  if (!m_last_request.advice_applied.isEmpty())
    note = note.isEmpty() ? tr("applied the advice: %1").arg(m_last_request.advice_applied)
                          : tr("applied the advice: %1; %2").arg(m_last_request.advice_applied, note);
  if (!model.advised.isEmpty()) note = note.isEmpty() ? tr("opened as advised: %1").arg(model.advised)
                                                      : tr("opened as advised: %1; %2").arg(model.advised, note);
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
  }
  if (m_loading_is_file) addRecent(m_loading_path);
  m_recovered = !m_recovering_file.isEmpty();
  if (m_recovered) m_recovery->discard(m_recovering_file);  // its edits are this session's now
  m_recovering_file.clear();
  updateRecoveryState();
  updateTitleAndStatus();
  QString msg = tr("Loaded %1 in %2 ms").arg(QFileInfo(m_loading_path).fileName()).arg(ms, 0, 'f', 0);
  if (!note.isEmpty()) msg += QStringLiteral("; ") + note;
  // What the import had to assume (as `weft` prints on stderr): a re-batched model that keeps its
  // batch, an inference that stopped early, a dim binding that matched nothing.
  const auto& warnings = m_doc->graph().info().warnings;
  if (!warnings.empty())
    msg += tr("; warning: %1").arg(QString::fromStdString(warnings.front())) +
           (warnings.size() > 1 ? tr(" (and %1 more)").arg(warnings.size() - 1) : QString());
  if (refused.isEmpty()) showMessage(msg);
  else showMessage(tr("The saved schedule was refused (%1); using a fresh one").arg(refused), true);
  // Symbolic dims left unbound: sizes, costs and the arena are unknown until they are bound.
  if (m_ask_dims && m_loading_is_file && !core::unbound_dims(m_doc->graph()).empty()) showDimDialog();
  emit loadFinished(true, msg);
}

bool MainWindow::showDimDialog() {
  if (!m_doc->hasModel()) return false;
  auto dims = core::unbound_dims(m_doc->graph());
  if (dims.empty()) {
    showMessage(tr("%1 has no symbolic dimensions left to bind").arg(QFileInfo(m_doc->modelPath()).fileName()));
    return false;
  }
  if (m_dim_dialog) m_dim_dialog->close();
  auto* dialog = new DimDialog(QFileInfo(m_doc->modelPath()).fileName(), std::move(dims), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowModality(Qt::NonModal);  // the window stays usable; the model is shown unbound meanwhile
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    auto bound = m_doc->dimBindings();
    for (const auto& [key, value] : dialog->bindings()) bound[key] = value;
    reopen(std::move(bound), m_doc->isMerged());
  });
  m_dim_dialog = dialog;
  dialog->show();
  return true;
}

DimDialog* MainWindow::dimDialog() const { return m_dim_dialog.data(); }

void MainWindow::reopen(std::map<std::string, std::int64_t> dims, bool merge) {
  if (!m_doc->hasModel() && !isLoading()) return;
  startLoad(reopenRequest(std::move(dims), merge));
}

LoadRequest MainWindow::reopenRequest(std::map<std::string, std::int64_t> dims, bool merge) {
  LoadRequest r = m_last_request;
  r.advice_applied.clear();
  // A schedule opened with the model goes with the graph being replaced, but the merge groups it
  // recorded stay while merging stays on: it is offered again, not required (a fresh schedule of
  // the panel's strategy on those merges where it no longer fits).
  if (r.schedule && merge && m_doc->isMerged()) r.schedule->required = false;
  else r.schedule.reset();
  r.import.dims = std::move(dims);
  r.merge = merge;
  // The panel's settings of now, not the first load's.
  r.strategy = m_strategy->strategyBox()->currentText();
  r.options.max_streams = m_strategy->streamCap()->value();
  r.options.granularity_us = m_strategy->granularity()->value();
  r.options.cuda_graph = m_strategy->launchMode()->currentIndex() == 1;
  // A model opened as advised and not edited since is advised again (its dims or merging changed
  // what is best); once the schedule is edited, the panel's settings carry over.
  r.follow_advice = m_last_request.follow_advice && m_doc->undoStack()->index() == 0;
  if (!r.source) m_dim_bindings = r.import.dims;  // later opens of files bind them too
  m_pending_project.reset();
  return r;
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

ProjectSettings MainWindow::currentSettings() const {
  ProjectSettings s;
  s.strategy = m_strategy->strategyBox()->currentText();
  s.max_streams = m_strategy->streamCap()->value();
  s.granularity_us = m_strategy->granularity()->value();
  s.cuda_graph = m_strategy->launchMode()->currentIndex() == 1;
  s.lane_widths = m_lanes->widthMode() == LanesView::WidthMode::Uniform ? "uniform" : "time";
  s.dims = m_doc->dimBindings();
  s.merge = m_doc->isMerged();
  s.batch = m_last_request.source ? 0 : m_last_request.import.batch;
  if (m_doc->hasModel() && m_doc->graph().info().micro_batches > 1) s.split = m_doc->graph().info().micro_batches;
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

void MainWindow::showMessage(const QString& text, bool error) { m_status->showMessage(text, error); }

const QString& MainWindow::lastMessage() const { return m_status->lastMessage(); }

void MainWindow::updateTitleAndStatus() {
  if (!m_doc->hasModel()) return;
  const QString name = QFileInfo(m_doc->modelPath()).fileName();
  const bool unsaved = !m_doc->undoStack()->isClean() || m_recovered;
  setWindowTitle(tr("%1%2%3 — Weft Studio").arg(name, m_recovered ? tr(" (recovered)") : QString(), unsaved ? " *" : ""));
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

void MainWindow::onDevicePresetChanged() {
  // Costs and the first schedule depend on the device: reload the open model file with it.
  if (m_doc->hasModel() && QFileInfo(m_doc->modelPath()).isFile()) openModel(m_doc->modelPath());
  else showMessage(tr("Device preset %1: applies to the next model opened").arg(m_preferences->devicePreset()));
}

// ---- forwards to the role classes -----------------------------------------------------------

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
