#include "weft/ui/load_controller.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QCheckBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>
#include <QSpinBox>
#include <QUndoStack>
#include <algorithm>
#include <cctype>
#include <utility>

#include "weft/core/onnx/dim_binding.h"
#include "weft/core/base/file_io.h"
#include "weft/core/base/project_file.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/ui/dim_dialog.h"
#include "weft/ui/lanes_view.h"
#include "weft/ui/preferences.h"
#include "weft/ui/recovery_store.h"
#include "weft/ui/status_area.h"
#include "weft/ui/strategy_panel.h"
#include "weft/ui/studio_document.h"
#include "weft/ui/summary_panel.h"

namespace weft::ui {

namespace {
constexpr int kMaxRecent = 10;
}  // namespace

LoadController::LoadController(StudioDocument* doc, StrategyPanel* strategy, LanesView* lanes, Preferences* preferences,
                               StatusArea* status, QWidget* window)
    : QObject(window), m_doc(doc), m_strategy(strategy), m_lanes(lanes), m_preferences(preferences), m_status(status),
      m_window(window) {
  connect(&m_watcher, &QFutureWatcher<LoadedModel>::progressValueChanged, m_status, &StatusArea::setProgress);
  connect(&m_watcher, &QFutureWatcher<LoadedModel>::progressTextChanged, m_status, &StatusArea::setProgressText);
  connect(&m_watcher, &QFutureWatcher<LoadedModel>::finished, this, &LoadController::onLoaded);
  connect(&m_watcher, &QFutureWatcher<LoadedModel>::started, this, &LoadController::loadingChanged);
  connect(&m_watcher, &QFutureWatcher<LoadedModel>::finished, this, &LoadController::loadingChanged);
  connect(m_status, &StatusArea::cancelRequested, this, &LoadController::cancelLoading);
  connect(m_preferences, &Preferences::devicePresetChanged, this, &LoadController::onDevicePresetChanged);

  // Unsaved edits are autosaved as a project document; a clean stack leaves nothing to recover.
  m_recovery = new RecoveryStore(this);
  m_recovery->setWriter([this](const QString& path) -> core::Status {
    if (!m_doc->hasModel()) return core::make_error(core::ErrorKind::InvalidInput, "no model");
    return save_project(path, *m_doc, currentSettings());
  });
  connect(m_doc->undoStack(), &QUndoStack::indexChanged, this, &LoadController::updateRecoveryState);
  connect(m_doc->undoStack(), &QUndoStack::cleanChanged, this, &LoadController::updateRecoveryState);
}

LoadController::~LoadController() {
  // The document's undo stack clears as it goes: nothing here may hear it.
  disconnect(m_doc->undoStack(), nullptr, this, nullptr);
  if (isLoading()) {
    m_watcher.future().cancel();
    m_watcher.waitForFinished();
  }
}

namespace {

// What names the schedule a profile's re-open keeps (in a refusal; the status does not announce it).
QString kept_schedule() { return LoadController::tr("the schedule on screen"); }

// A *.json is schedule JSON (an object with "format") or a profile: ONNX Runtime's profiler
// writes an array of events, PyTorch's profiler and Weft a Chrome trace (an object with
// "traceEvents"). Only the file's start is read; core tells the profile formats apart.
bool looks_like_profile(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return false;
  const QByteArray head = file.read(1 << 16);
  for (const char c : head) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    if (c == '[') return true;
    break;
  }
  return head.contains("\"traceEvents\"");
}

}  // namespace

void LoadController::openPath(const QString& path) {
  if (path.endsWith(".weft", Qt::CaseInsensitive)) openProject(path);
  else if (path.endsWith(".json", Qt::CaseInsensitive) && looks_like_profile(path)) openProfile(path);
  else if (path.endsWith(".json", Qt::CaseInsensitive)) openSchedule(path);
  else openModel(path);
}

void LoadController::openModel(const QString& path) {
  m_pending_project.reset();
  m_loading_is_file = true;
  LoadRequest r = modelRequest(path);
  r.profile = std::exchange(m_next_profile, QString());
  startLoad(std::move(r));
}

LoadRequest LoadController::profileRequest(const QString& profile) {
  LoadRequest r = *m_document_request;
  takePanelSettings(r);
  r.profile = profile;
  r.follow_advice = false;
  r.advice_applied.clear();
  // The schedule on screen goes with the model re-opened (offered: a fresh one of the panel's
  // strategy where it no longer fits); the undo history goes with the document it was made in.
  r.schedule = LoadRequest::ScheduleText{kept_schedule(), core::schedule_to_json(m_doc->graph(), m_doc->schedule(), m_doc->device().name), false};
  m_pending_project.reset();
  m_loading_is_file = false;
  return r;
}

void LoadController::openProfile(const QString& path) {
  if (!m_doc->hasModel() || !m_document_request) {
    const QString why = tr("Could not open profile %1: open the model it was measured on first").arg(QFileInfo(path).fileName());
    showMessage(why, true);
    emit loadFinished(false, why);
    return;
  }
  startLoad(profileRequest(QFileInfo(path).absoluteFilePath()));
}

void LoadController::closeProfile() {
  if (!m_doc->hasModel() || !m_doc->profile() || !m_document_request) return;
  startLoad(profileRequest({}));
}

LoadRequest LoadController::modelRequest(const QString& path) const {
  LoadRequest r;
  r.path = QFileInfo(path).absoluteFilePath();
  takePanelSettings(r);
  r.device = m_preferences->devicePreset();
  r.import.dims = m_dim_bindings;
  r.import.batch = m_batch;
  r.split = m_split;
  r.merge = m_strategy->mergeBox()->isChecked();
  r.fuse = m_strategy->fuseBox()->isChecked();
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

void LoadController::openSchedule(const QString& path, const QString& model_path) {
  const QString name = QFileInfo(path).fileName();
  const auto fail = [&](const QString& why) {
    showMessage(tr("Could not open schedule %1: %2").arg(name, why), true);
    emit loadFinished(false, m_status->lastMessage());
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
    r.fuse = false;   // and so are the fusions
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
  if (header->split.k == have_k && header->merges == 0 && header->fusions == 0 && !m_doc->isMerged())
    return fail(QString::fromStdString(direct.error().message));
  // Another split or other merges than the open model's: the model re-opened as the schedule
  // records it (a schedule that still does not load leaves the open model as it is).
  LoadRequest r = m_last_request;
  takePanelSettings(r);
  r.split = header->split.k > 1 ? header->split.k : -1;
  r.merge = false;
  r.fuse = false;
  r.follow_advice = false;
  r.schedule = std::move(given);
  m_pending_project.reset();
  startLoad(std::move(r));
}

void LoadController::openGraph(const QString& label, GraphSource source) {
  m_pending_project.reset();
  LoadRequest r;
  r.path = label;
  r.source = std::move(source);
  r.strategy = m_strategy->strategyBox()->currentText();
  r.options.max_streams = m_strategy->streamCap()->value();
  r.device = m_preferences->devicePreset();
  r.merge = m_strategy->mergeBox()->isChecked();
  r.fuse = m_strategy->fuseBox()->isChecked();
  r.follow_advice = opensAsAdvised();
  m_loading_is_file = false;
  startLoad(std::move(r));
}

bool LoadController::opensAsAdvised() const { return !m_pinned_opening && m_preferences->openAsAdvised(); }

void LoadController::openProject(const QString& path) { openProjectFile(path, false); }

void LoadController::openProjectFile(const QString& path, bool recovering) {
  auto project = load_project(path);
  if (!project) {
    showMessage(QString::fromStdString(project.error().message), true);
    emit loadFinished(false, m_status->lastMessage());
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

void LoadController::startLoad(LoadRequest request) {
  if (isLoading()) cancelLoading();
  emit loadStarting();  // a run in flight would belong to the model being replaced
  m_loading_path = request.path;
  m_last_request = request;
  m_job = start_loading(std::move(request));
  m_watcher.setFuture(m_job.future);
  m_status->startProgress(tr("Loading %p%"));
  showMessage(tr("Loading %1...").arg(QFileInfo(m_loading_path).fileName()));
}

bool LoadController::isLoading() const { return m_watcher.isRunning(); }

void LoadController::cancelLoading() {
  if (!isLoading()) return;
  m_watcher.future().cancel();
  showMessage(tr("Loading cancelled"));
}

void LoadController::onLoaded() {
  m_status->hideProgress();
  QFuture<LoadedModel> future = m_watcher.future();
  if (future.isCanceled() || future.resultCount() == 0) {
    const bool profile_refused = !m_last_request.profile.isEmpty() && (!m_document_request || m_document_request->profile != m_last_request.profile);
    const QString why = future.isCanceled() ? tr("Loading cancelled")
                        : profile_refused ? tr("Could not open profile %1: %2").arg(QFileInfo(m_last_request.profile).fileName(), *m_job.error)
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
  if (!model.schedule_file.isEmpty() && model.schedule_file != kept_schedule() && !m_pending_project) {
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
  if (model.profile) {
    // What the profile matched and how far its replay is off: how far to trust what follows.
    const core::Profile& p = *model.profile;
    QString applied = tr("profile %1 (%2): %3 of %4 operators measured")
                          .arg(QFileInfo(QString::fromStdString(p.path)).fileName(), QString::fromStdString(p.source))
                          .arg(p.matched_count())
                          .arg(p.matched_count() + p.unmatched_nodes.size());
    if (model.profile_replay) applied += tr(", replay error %1%").arg(100 * model.profile_replay->error, 0, 'f', 1);
    note = note.isEmpty() ? applied : applied + QStringLiteral("; ") + note;
  }
  if (!model.advised.isEmpty()) note = note.isEmpty() ? tr("opened as advised: %1").arg(model.advised)
                                                      : tr("opened as advised: %1; %2").arg(model.advised, note);
  m_doc->setModel(std::move(model));
  if (m_pending_project) {
    const Project project = std::move(*m_pending_project);
    m_pending_project.reset();
    applyProjectSettings(project.settings);
  }
  if (m_loading_is_file) addRecent(m_loading_path);
  m_recovered = !m_recovering_file.isEmpty();
  if (m_recovered) m_recovery->discard(m_recovering_file);  // its edits are this session's now
  m_recovering_file.clear();
  updateRecoveryState();
  emit documentStateChanged();
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

bool LoadController::showDimDialog() {
  if (!m_doc->hasModel()) return false;
  auto dims = core::unbound_dims(m_doc->graph());
  if (dims.empty()) {
    showMessage(tr("%1 has no symbolic dimensions left to bind").arg(QFileInfo(m_doc->modelPath()).fileName()));
    return false;
  }
  if (m_dim_dialog) m_dim_dialog->close();
  auto* dialog = new DimDialog(QFileInfo(m_doc->modelPath()).fileName(), std::move(dims), m_window);
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

DimDialog* LoadController::dimDialog() const { return m_dim_dialog.data(); }

void LoadController::reopen(std::map<std::string, std::int64_t> dims, bool merge) {
  if (!m_doc->hasModel() && !isLoading()) return;
  startLoad(reopenRequest(std::move(dims), merge));
}

void LoadController::reopenFused(bool fuse) {
  if (!m_doc->hasModel() && !isLoading()) return;
  LoadRequest r = reopenRequest(m_doc->dimBindings(), m_strategy->mergeBox()->isChecked());
  r.fuse = fuse;
  // Fused, the model's nodes are no longer a profile's; a schedule of the other graph does not fit.
  if (fuse) r.profile.clear();
  if (fuse != m_doc->isFused()) r.schedule.reset();
  startLoad(std::move(r));
}

LoadRequest LoadController::reopenRequest(std::map<std::string, std::int64_t> dims, bool merge) {
  LoadRequest r = m_last_request;
  r.advice_applied.clear();
  // A schedule opened with the model goes with the graph being replaced, but the merge groups it
  // recorded stay while merging stays on: it is offered again, not required (a fresh schedule of
  // the panel's strategy on those merges where it no longer fits).
  if (r.schedule && merge && m_doc->isMerged()) r.schedule->required = false;
  else r.schedule.reset();
  r.import.dims = std::move(dims);
  r.merge = merge;
  // A profile measured the model as exported: merged, its nodes are no longer the profile's.
  if (merge) r.profile.clear();
  // The panel's settings of now, not the first load's.
  takePanelSettings(r);
  // A model opened as advised and not edited since is advised again (its dims or merging changed
  // what is best); once the schedule is edited, the panel's settings carry over.
  r.follow_advice = m_last_request.follow_advice && m_doc->undoStack()->index() == 0;
  if (!r.source) m_dim_bindings = r.import.dims;  // later opens of files bind them too
  m_pending_project.reset();
  return r;
}

bool LoadController::saveProject(const QString& path) {
  auto ok = save_project(path, *m_doc, currentSettings());
  if (!ok) {
    showMessage(tr("Could not save %1: %2").arg(path, QString::fromStdString(ok.error().message)), true);
    return false;
  }
  m_doc->undoStack()->setClean();
  m_recovered = false;
  updateRecoveryState();
  emit documentStateChanged();
  addRecent(QFileInfo(path).absoluteFilePath());
  showMessage(tr("Saved %1").arg(path));
  return true;
}

ProjectSettings LoadController::currentSettings() const {
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

void LoadController::updateRecoveryState() {
  if (m_doc->hasModel() && (!m_doc->undoStack()->isClean() || m_recovered)) m_recovery->markDirty();
  else m_recovery->markClean();
}

int LoadController::offerRecovery(RecoveryChoice choice) {
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
                                QMessageBox::Yes | QMessageBox::No, m_window);
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

void LoadController::recoverSession(const QString& file) { openProjectFile(file, true); }

QMessageBox* LoadController::recoveryPrompt() const { return m_recovery_prompt.data(); }


QStringList LoadController::recentFiles() const {
  QStringList files = QSettings().value("recentFiles").toStringList();
  files.erase(std::remove_if(files.begin(), files.end(), [](const QString& f) { return !QFileInfo::exists(f); }), files.end());
  return files;
}

void LoadController::addRecent(const QString& path) {
  QStringList files = recentFiles();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMaxRecent) files.removeLast();
  QSettings().setValue("recentFiles", files);
}

void LoadController::takePanelSettings(LoadRequest& r) const {
  r.strategy = m_strategy->strategyBox()->currentText();
  r.options.max_streams = m_strategy->streamCap()->value();
  r.options.granularity_us = m_strategy->granularity()->value();
  r.options.cuda_graph = m_strategy->launchMode()->currentIndex() == 1;
}

void LoadController::applyProjectSettings(const ProjectSettings& settings) {
  m_strategy->strategyBox()->setCurrentText(settings.strategy);
  m_strategy->streamCap()->setValue(settings.max_streams);
  m_strategy->granularity()->setValue(settings.granularity_us);
  m_strategy->launchMode()->setCurrentIndex(settings.cuda_graph ? 1 : 0);
  m_lanes->setWidthMode(settings.lane_widths == "uniform" ? LanesView::WidthMode::Uniform : LanesView::WidthMode::PredictedTime);
}

void LoadController::reopenAsAdvised(const AdviceAction& action, const QString& mode) {
  if (!m_doc->hasModel() || isLoading()) return;
  LoadRequest r = reopenRequest(m_doc->dimBindings(), action.merge || m_doc->isMerged());
  if (action.split_k > 1) {
    r.split = action.split_k;
    r.profile.clear();  // measured on the model as exported, not on its micro-batch copies
  }
  r.follow_advice = false;
  r.advice_applied = action.merge ? tr("merged, %1, %2").arg(action.strategy, mode)
                                  : tr("split k=%1, %2, %3").arg(action.split_k).arg(action.strategy, mode);
  if (m_doc->profile() && r.profile.isEmpty()) r.advice_applied += tr(" (predicted times: the profile measured the model as exported)");
  startLoad(std::move(r));
}

void LoadController::onDevicePresetChanged() {
  // Costs and the first schedule depend on the device: reload the open model file with it.
  if (m_doc->hasModel() && QFileInfo(m_doc->modelPath()).isFile()) {
    // A profile's measured times do not depend on the preset: they stay, the predictions follow it.
    if (m_doc->profile()) m_next_profile = QString::fromStdString(m_doc->profile()->path);
    openModel(m_doc->modelPath());
  }
  else showMessage(tr("Device preset %1: applies to the next model opened").arg(m_preferences->devicePreset()));
}

void LoadController::showMessage(const QString& text, bool error) { m_status->showMessage(text, error); }

}  // namespace weft::ui
