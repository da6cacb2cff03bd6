#pragma once
// Opening things in the studio: models, schedules, projects and generated graphs loaded off the
// GUI thread (core::open_model through load_job.h) with progress and cancel in the status area;
// re-opening with other dims, merging or the advice's configuration; the dim dialog; saving
// projects; recent files; crash recovery (docs/reliability.md). The main window owns one and
// forwards its File menu and drops here; RunController is its sibling for runs.
#include <QFutureWatcher>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "weft/ui/load_job.h"
#include "weft/ui/project_file.h"

class QMessageBox;
class QWidget;

namespace weft::ui {

struct AdviceAction;
class DimDialog;
class LanesView;
class Preferences;
class RecoveryStore;
class StatusArea;
class StrategyPanel;
class StudioDocument;

class LoadController : public QObject {
  Q_OBJECT
 public:
  /// `window` parents the dialogs (dims, recovery prompt); the strategy panel and the lanes give
  /// the settings a load takes and a project restores.
  LoadController(StudioDocument* doc, StrategyPanel* strategy, LanesView* lanes, Preferences* preferences, StatusArea* status,
                 QWidget* window);
  /// Cancels a load in flight and waits for its worker.
  ~LoadController() override;

  /// Starts loading an ONNX model (or, for *.weft, a project; for *.json, a schedule).
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
  /// Opens a measured profile (ONNX Runtime profiler JSON, PyTorch profiler or Weft Chrome trace;
  /// core/profile.h) on the open model: the model is re-opened with it through core::open_model,
  /// as `weft ... --profile FILE` opens it, so its measured node times replace the predictions
  /// in the analysis, the advice and every study; the current schedule is kept where it still
  /// fits. A profile core refuses (another model, malformed or truncated JSON, no node events, a
  /// split or merged model) changes nothing and the status area says why.
  void openProfile(const QString& path);
  /// Re-opens the open model without its profile (back to predicted times).
  void closeProfile();
  /// The next model openModel() opens is opened with this profile (weft-studio --profile FILE).
  void setProfileForNextModel(const QString& path) { m_next_profile = path; }
  /// Starts loading a graph produced by `source` in the worker (tests, --synthetic).
  void openGraph(const QString& label, GraphSource source);
  void openProject(const QString& path);
  /// Saves the document and the settings as a project; marks the undo stack clean.
  bool saveProject(const QString& path);
  /// The settings a project saves: the strategy panel's, the lanes' widths, dims, merge, batch, split.
  ProjectSettings currentSettings() const;
  bool isLoading() const;
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
  /// Opens the dim dialog for the current model's unbound dims; false (and a message) when none.
  bool showDimDialog();
  /// The dim dialog while it is open, else null.
  DimDialog* dimDialog() const;
  /// Re-opens the current model (the last load request) with `dims` bound and merging on or off.
  /// Schedule edits are dropped: the graph they were made on is replaced.
  void reopen(std::map<std::string, std::int64_t> dims, bool merge);
  /// Re-opens the current model with fusion on or off (merging as the panel says).
  void reopenFused(bool fuse);
  /// The summary's "apply" link for advice that merges or splits: the model re-opened so, with the
  /// advice's strategy first (`mode` names its launch mode in the status message).
  void reopenAsAdvised(const AdviceAction& action, const QString& mode);

  /// Recent files as stored (most recent first, missing files dropped).
  QStringList recentFiles() const;
  void addRecent(const QString& path);

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
  /// The document came from a recovery file and is not saved yet.
  bool recovered() const { return m_recovered; }

 signals:
  /// A load is about to replace the document's model: a run in flight must stop.
  void loadStarting();
  /// A load's worker started or finished (actions that wait for loads update).
  void loadingChanged();
  /// After every load attempt: ok, and the message shown (error or summary).
  void loadFinished(bool ok, const QString& message);
  /// Saved, loaded or recovered: the window's title changes.
  void documentStateChanged();

 private:
  void startLoad(LoadRequest request);
  void onLoaded();
  /// The message of a failed or cancelled load; resets what the load would have applied.
  QString loadFailure(bool cancelled);
  /// The request openModel makes: the panel's settings, the dims, batch, split, merging and advice.
  LoadRequest modelRequest(const QString& path) const;
  /// The request that re-opens the open document with `profile` (empty: none), keeping its schedule.
  LoadRequest profileRequest(const QString& profile);
  /// The request reopen() makes: the last load's, with `dims`, merging, the panel's settings now.
  LoadRequest reopenRequest(std::map<std::string, std::int64_t> dims, bool merge);
  /// The strategy panel's strategy, stream cap, granularity and launch mode into `r`.
  void takePanelSettings(LoadRequest& r) const;
  void openProjectFile(const QString& path, bool recovering);
  void applyProjectSettings(const ProjectSettings& settings);
  void updateRecoveryState();
  void onDevicePresetChanged();
  void showMessage(const QString& text, bool error = false);

  StudioDocument* m_doc;
  StrategyPanel* m_strategy;
  LanesView* m_lanes;
  Preferences* m_preferences;
  StatusArea* m_status;
  QWidget* m_window;
  QFutureWatcher<LoadedModel> m_watcher;
  LoadJob m_job;
  QString m_loading_path;
  bool m_loading_is_file = false;
  /// Schedule and settings to apply once the project's model has loaded.
  std::optional<Project> m_pending_project;
  LoadRequest m_last_request;  ///< the latest load asked for (reopen repeats it)
  /// The request the open document came from: a load that fails leaves the document as it was,
  /// and m_last_request goes back to this (a refused schedule's split or batch must not stick).
  std::optional<LoadRequest> m_document_request;
  std::map<std::string, std::int64_t> m_dim_bindings;
  std::int64_t m_batch = 0;
  int m_split = -1;
  bool m_ask_dims = true;
  bool m_pinned_opening = false;
  QString m_next_profile;  ///< setProfileForNextModel
  QPointer<DimDialog> m_dim_dialog;
  RecoveryStore* m_recovery = nullptr;
  QPointer<QMessageBox> m_recovery_prompt;
  QString m_recovering_file;  // the recovery file being loaded
  bool m_recovered = false;   // the document came from a recovery file and is not saved yet
};

}  // namespace weft::ui
