#pragma once
// The studio's document: one model (immutable Graph), its analysis, the current schedule, the
// undo stack of schedule edits and the node selection shared by every view.
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QUndoStack>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "weft/core/analysis/analyze.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"
#include "weft/core/transform/merge_graph.h"
#include "weft/core/profile/profile.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/advice.h"
#include "weft/core/study/schedule_study.h"
#include "weft/core/study/split_study.h"
#include "weft/core/schedule/timeline.h"
#include "weft/ui/edit_job.h"
#include "weft/ui/study_job.h"
#include <optional>

namespace weft::ui {

/// A document opened with merges (LoadRequest::merge): the unmerged model and the merged one the
/// document's graph belongs to.
struct MergeState {
  std::shared_ptr<const core::Graph> unmerged;
  core::CostTable unmerged_costs;
  std::shared_ptr<const core::MergedModel> model;  ///< the document's graph is model->graph
  std::size_t groups = 0;                          ///< merged nodes (two or more members)
};

/// Advice schedules and simulates every fixed strategy in both launch modes. The load advises
/// (and may open the model as advised) up to this many operators, where it delays the first paint
/// by little (the speed/memory front's limit too); above it the summary panel advises in the
/// worker after the first paint, and shows the line without changing the schedule.
inline constexpr std::size_t kAdviceNodes = 4000;

/// What the loader hands the document: everything computed off the GUI thread.
struct LoadedModel {
  QString path;
  std::shared_ptr<const core::Graph> graph;
  core::DeviceSpec device;
  std::shared_ptr<const core::AnalysisReport> analysis;
  core::Schedule schedule;
  core::StrategyOptions options;
  std::map<std::string, std::int64_t> dims;  ///< the import's dim bindings
  /// The import's re-batch (ImportOptions::batch: the request's, or the batch a schedule's split
  /// records); 0: the model's own.
  std::int64_t batch = 0;
  std::shared_ptr<const MergeState> merge;    ///< null: not merged
  QString note;                               ///< what loading did beyond import (the split chosen), for the status bar
  std::optional<core::UnsplitBaseline> unsplit;  ///< a split model: the unsplit baselines it is quoted against
  /// core::advise's answer for the model as loaded (kAdviceNodes operators or fewer; absent above).
  std::optional<core::Expected<core::Advice>> advice;
  /// What the load applied of the advice ("level-rr, CUDA Graph replay"); empty when it did not.
  QString advised;
  /// The load's schedule came from this file (LoadRequest::schedule); empty when a strategy made it.
  QString schedule_file;
  /// Why the schedule a load was given (a project's) was refused, when it was: the schedule is then
  /// a fresh one of the request's strategy.
  QString schedule_refused;
  /// The measured profile the model was opened with (LoadRequest::profile): its mapping onto the
  /// graph, whose analysis then carries its measured times, and the replay of the profiled run.
  std::shared_ptr<const core::Profile> profile;
  std::optional<core::ProfileReplay> profile_replay;
  /// With a profile: the costs predicted for the device, which its measured times replaced.
  core::CostTable predicted_costs;
  double load_ms = 0;
};

/// Figures of the current schedule, read from its core::ScheduleStudy (the CLI's figures).
/// streams, events and ideal_us follow every edit at once; the others come from the study that
/// runs in a worker after it: until it arrives they are the previous schedule's and `stale` is set.
struct ScheduleFigures {
  int streams = 0;
  int events = 0;
  double sequential_us = 0;  ///< ideal makespan of the reference schedule: the total work (0: not yet studied)
  double ideal_us = 0;       ///< ideal makespan of the current schedule
  double speedup = 1;        ///< core::ScheduleStudy::ideal_speedup(): sequential / ideal, of the study
  bool stale = false;        ///< the fields below (and sequential_us, speedup) describe an earlier schedule
  /// The arena fields (arena_bytes, sequential_arena_bytes, price_of_concurrency) describe an
  /// earlier schedule: the prediction has arrived, the memory report is still being planned.
  bool memory_stale = false;
  /// The arena fields describe the current schedule, from the previous plan repaired for it
  /// (core::repaired_memory_report); the memory report planned afresh is still on its way.
  bool memory_repaired = false;
  // Predicted by the simulator and the memory planner; < 0 when not computed (no device
  // rates, or a model too large to re-plan on every edit).
  double predicted_us = -1;             ///< simulated makespan of the current schedule
  /// Simulated makespan of the reference schedule, launched as the current schedule is (eager,
  /// or as a CUDA Graph when the strategy options say cuda_graph).
  double predicted_sequential_us = -1;
  /// core::Prediction's speedups of the current schedule over the sequential CUDA Graph and the
  /// sequential eager baseline (`weft simulate`'s speedup_vs_graph, speedup_vs_eager).
  double speedup_vs_graph = -1;
  double speedup_vs_eager = -1;
  std::int64_t arena_bytes = -1;        ///< arena of the current schedule (the study's planning)
  std::int64_t sequential_arena_bytes = -1;  ///< arena of the reference schedule
  /// core::MemoryReport::price_of_concurrency(): arena / sequential arena (`weft plan`'s).
  double price_of_concurrency = -1;
};

class StudioDocument : public QObject {
  Q_OBJECT
 public:
  explicit StudioDocument(QObject* parent = nullptr);
  ~StudioDocument() override;

  bool hasModel() const { return m_graph != nullptr; }
  const core::Graph& graph() const { return *m_graph; }
  std::shared_ptr<const core::Graph> graphPtr() const { return m_graph; }
  const core::AnalysisReport& analysis() const { return *m_analysis; }
  std::shared_ptr<const core::AnalysisReport> analysisPtr() const { return m_analysis; }
  const core::DeviceSpec& device() const { return m_device; }
  const core::Schedule& schedule() const { return m_schedule; }
  const std::vector<double>& nodeTimes() const { return m_times; }
  const QString& modelPath() const { return m_path; }
  const ScheduleFigures& figures() const { return m_figures; }
  const core::StrategyOptions& strategyOptions() const { return m_options; }
  /// The dim bindings the model was imported with (saved in projects).
  const std::map<std::string, std::int64_t>& dimBindings() const { return m_dims; }
  /// Set when the model was opened with merges: graph() is then the merged model.
  const std::shared_ptr<const MergeState>& mergeState() const { return m_merge; }
  /// A split model's unsplit baselines (the advice quotes speedups over them); empty otherwise.
  const std::optional<core::UnsplitBaseline>& unsplitBaseline() const { return m_unsplit; }
  /// The advice computed when the model was loaded (absent above kAdviceNodes operators: the
  /// summary panel advises those in the worker).
  const std::optional<core::Expected<core::Advice>>& loadAdvice() const { return m_advice; }
  bool isMerged() const { return m_merge != nullptr; }
  /// The model was opened fused (graph() holds weft.Fused nodes; mergeState() then holds the
  /// transformed model too, as for merges). O(V).
  bool isFused() const;
  /// The measured profile the model was opened with, else null: its measured node times are the
  /// analysis' costs (and so every figure's), predictedCosts() the device's predictions they replaced.
  const std::shared_ptr<const core::Profile>& profile() const { return m_profile; }
  /// The profiled run's own schedule replayed with the measured times (with profile()).
  const std::optional<core::ProfileReplay>& profileReplay() const { return m_profile_replay; }
  /// With a profile: the predicted costs; empty without one.
  const core::CostTable& predictedCosts() const { return m_predicted_costs; }
  /// Node n's measured time per iteration in the profile (µs), nullopt without a profile or a match.
  std::optional<double> measuredTime(core::NodeId n) const;
  /// stream_of[n], position[n] for the current schedule.
  int streamOf(core::NodeId n) const { return m_stream_of[static_cast<std::size_t>(n)]; }
  int positionOf(core::NodeId n) const { return m_position[static_cast<std::size_t>(n)]; }
  bool onCriticalPath(core::NodeId n) const { return m_critical[static_cast<std::size_t>(n)]; }
  QUndoStack* undoStack() { return &m_undo; }

  /// Replaces the model (clears undo and selection).
  void setModel(LoadedModel model);
  /// Replaces the schedule without an undo step (loading a project); refused when invalid.
  bool replaceSchedule(const core::Schedule& schedule, QString* reason = nullptr);

  // Edits: each validated by the core edit API; a valid one becomes one undo step, an invalid one
  // is refused (editRefused with the reason) and nothing changes. Up to asyncEditNodes()
  // operators the edit is applied (or refused) before the call returns; above, it runs in the
  // worker pool (EditRequest) and the call returns true at once: the undo step is pushed when the
  // job returns (scheduleChanged), or editRefused says why not. An edit asked while another runs
  // waits for it and then runs on its result; a newer one replaces an edit still waiting
  // (editRefused names the one dropped). An edit whose schedule changed meanwhile (an undo, a
  // strategy applied) is dropped with editRefused; one of a model replaced meanwhile, silently.
  bool moveNodes(std::vector<core::NodeId> nodes, int stream, int position);
  bool addStream();
  bool removeStream(int stream);
  bool mergeStreams(int into, int from);
  /// Makes the strategy's schedule here, on the calling thread (fixed strategies are fast; a
  /// search or a memory-budget fit runs in the strategy panel's worker and comes back through
  /// applyComputedStrategy).
  bool applyStrategy(const QString& name, const core::StrategyOptions& options);
  /// Replaces the schedule with `schedule` (validated first) as one undo step named `text`.
  bool applySchedule(const core::Schedule& schedule, const QString& text);
  /// Applies a schedule that strategy `name` computed elsewhere (off the GUI thread) from
  /// `from`, the graph it was given: one undo step, or refused (editRefused) when it failed or
  /// the model was replaced meanwhile. `budget_note`: the core::BudgetFit::summary() of a
  /// schedule fitted to a memory budget (lastBudgetNote()), else empty.
  bool applyComputedStrategy(const QString& name, const std::shared_ptr<const core::Graph>& from,
                             core::Expected<core::Schedule> result, const core::StrategyOptions& options,
                             const QString& budget_note = {});
  const QString& lastRefusal() const { return m_last_refusal; }
  /// True from an edit sent to the worker until its result is applied or refused (and while an
  /// edit waits behind it).
  bool editPending() const { return m_edit_running || m_queued_edit.has_value(); }
  /// Blocks until no edit is pending, applying (or refusing) each as usual (tests, exports).
  void waitForEdit();
  /// Edits of models above this many operators run in the worker (kAsyncEditNodes unless set;
  /// tests set 0 to run every edit there).
  std::size_t asyncEditNodes() const { return m_async_edit_nodes; }
  void setAsyncEditNodes(std::size_t nodes) { m_async_edit_nodes = nodes; }
  /// Wall time of the last edit in its worker (or on the calling thread), ms.
  double lastEditMs() const { return m_last_edit_ms; }
  /// The last budgeted Apply's core::BudgetFit::summary() (empty after an Apply without budget).
  const QString& lastBudgetNote() const { return m_last_budget_note; }

  // Runs of the current model shown by the timeline view and exported (Chrome trace, CSV):
  // predicted, measured and baseline timelines. At most one run per identity (kind, backend,
  // strategy: core::Timeline::identity()): a run added with an identity already present replaces
  // it in its place. A new model clears them.
  const std::vector<core::Timeline>& runs() const { return m_runs; }
  void addRun(core::Timeline run);
  void clearRuns();

  /// Simulated timelines under the current cost model, from the latest study (see
  /// predictionPending): [0] the current schedule (kind Predicted), [1] the reference schedule with a
  /// launch per node (BaselineEager), [2] the same as one CUDA Graph (BaselineGraph). Empty
  /// without device rates.
  const std::vector<core::Timeline>& predictedRuns() const { return m_predicted; }
  /// The latest study (figures, prediction, memory report with growth), when one has arrived.
  /// While predictionPending() it is the previous schedule's; after the prediction and while
  /// studyPending() it is the current schedule's without its memory report (being planned).
  const std::optional<core::ScheduleStudy>& study() const { return m_study; }
  /// The latest memory report of this model, complete or repaired, shared (a worker may read it
  /// while the document moves on): study()->memory's copy whenever the study has one.
  std::shared_ptr<const core::MemoryReport> memoryReport() const { return m_memory; }
  /// Why the latest study failed (empty when it did not).
  const QString& studyError() const { return m_study_error; }

  // Re-study off the GUI thread: every edit, model and cost change starts core::study_schedule
  // in a worker (run_study); the latest request wins. An edit while a study runs asks that one to
  // stop and runs the newest request once it returns, so results never arrive out of order and at
  // most one study runs per document.
  /// True from an edit until its study is applied (studyChanged).
  bool studyPending() const { return m_study_pending; }
  /// True from an edit until its prediction is applied (predictionChanged, or studyChanged when
  /// the whole study arrives at once). The prediction comes first, the memory report after it.
  bool predictionPending() const { return m_prediction_pending; }
  /// True while study()->memory is the current schedule's repaired report (memoryRepaired was
  /// emitted, the complete study not yet applied).
  bool arenaRepaired() const { return m_study_pending && m_figures.memory_repaired; }
  /// Blocks until the current schedule's study is applied (tests, exports that must match the
  /// schedule); returns at once when none is pending. Emits studyChanged as usual.
  void waitForStudy();
  /// Wall time of the last applied study in its worker, ms.
  double lastStudyMs() const { return m_last_study_ms; }
  /// Studies applied since construction, and studies whose result was dropped because a newer
  /// request superseded them (tests: the latest result wins).
  int studiesApplied() const { return m_studies_applied; }
  int studiesDropped() const { return m_studies_dropped; }
  /// What a study job runs in the worker: run_study unless replaced. Tests wrap it (to hold a
  /// job until they release it); a job already started keeps the runner it started with.
  using StudyRunner = std::function<StudyResult(const StudyRequest&)>;
  void setStudyRunner(StudyRunner runner) { m_study_runner = runner ? std::move(runner) : StudyRunner(run_study); }

  /// Replaces the node costs (e.g. calibrate_costs() from a measured run): analysis, critical
  /// path, node times, figures and predictions are recomputed from them; emits costsChanged,
  /// then scheduleChanged. `origin` names where they came from (shown by the panels).
  void setCosts(const core::CostTable& costs, const QString& origin);
  /// Back to the cost model the model was loaded with.
  void resetCosts();
  bool costsCalibrated() const { return m_original_analysis != nullptr; }
  const QString& costsOrigin() const { return m_costs_origin; }

  const std::vector<core::NodeId>& selection() const { return m_selection; }
  bool isSelected(core::NodeId n) const;
  void setSelection(std::vector<core::NodeId> nodes);

 signals:
  void modelChanged();
  void scheduleChanged();
  void selectionChanged();
  void editRefused(const QString& reason);
  void runsChanged();
  void costsChanged();
  /// A study arrived: figures(), predictedRuns() and study() describe the current schedule.
  void studyChanged();
  /// The current schedule's prediction arrived: ahead of its memory report (figures() but the
  /// arena ones, memory_stale, predictedRuns() and study()->prediction describe it; studyChanged
  /// follows), or with the whole study (just before studyChanged). Once per schedule.
  void predictionChanged();
  /// The current schedule's arena, repaired from the previous schedule's plan, arrived ahead of
  /// the memory report planned afresh: figures() (memory_repaired) and study()->memory describe
  /// it; studyChanged follows with the complete study. After an edit, not after a model load.
  void memoryRepaired();
  /// strategyOptions() changed with an edit, applied, undone or redone (a strategy in another
  /// launch mode, stream cap or granularity): the Strategy panel shows them.
  void strategyOptionsChanged();

 private:
  friend class ScheduleCommand;
  /// `ideal_us` >= 0: the schedule's ideal makespan, already known (an edit job's, an undo
  /// step's); < 0: computed here.
  void setScheduleInternal(core::Schedule schedule, double ideal_us = -1);
  /// An edit's redo (also when it is pushed) or undo: the schedule with the strategy options it
  /// was made with (the launch mode it is predicted in) and its ideal makespan (< 0: unknown),
  /// then setScheduleInternal.
  void restoreEdit(core::Schedule schedule, const core::StrategyOptions& options, double ideal_us);
  using EditFunction = std::function<core::Expected<core::Schedule>(const core::Graph&, const core::Schedule&)>;
  /// Runs `edit` on the current schedule (here or in the worker, see moveNodes) as the undo step `text`.
  bool submitEdit(const QString& text, EditFunction edit);
  void launchEdit(const QString& text, EditFunction edit);
  /// The edit job's result, when it has returned: applied, refused or dropped; then the waiting edit.
  void takeEdit();
  /// An edit's result as one undo step (or its refusal).
  bool applyEditResult(const QString& text, EditResult result);
  /// Node times and critical flags from m_analysis.
  void refreshCosts();
  /// One undo step from the current schedule and options to `result` made with `options` (the
  /// current options when absent: an edit by hand keeps them).
  bool pushEdit(const QString& text, core::Expected<core::Schedule> result,
                const std::optional<core::StrategyOptions>& options = std::nullopt, double ideal_us = -1);
  /// Asks for the current schedule's study (supersedes a running one).
  void requestStudy();
  void launchStudy();
  void takeStudy();
  void applyStudy(StudyResult result);
  void applyPrediction(StudyResult result);
  void applyRepaired(StudyResult result);
  /// The study's prediction into figures and predictedRuns (`predicted`: its timelines, copied
  /// in the worker; empty: copied here).
  void takePredictionFigures(const core::ScheduleStudy& study, std::vector<core::Timeline> predicted);
  /// A memory report's arena figures, and the report kept for the next edit's repair (`copy`:
  /// the worker's copy of it; null: copied here).
  void takeMemoryFigures(const core::MemoryReport& memory, std::shared_ptr<const core::MemoryReport> copy);

  std::shared_ptr<const core::Graph> m_graph;
  std::shared_ptr<const core::AnalysisReport> m_analysis;
  core::DeviceSpec m_device;
  core::Schedule m_schedule;
  core::StrategyOptions m_options;
  std::map<std::string, std::int64_t> m_dims;
  std::shared_ptr<const MergeState> m_merge;
  std::shared_ptr<const core::Profile> m_profile;
  std::optional<core::ProfileReplay> m_profile_replay;
  core::CostTable m_predicted_costs;
  std::optional<core::UnsplitBaseline> m_unsplit;
  std::optional<core::Expected<core::Advice>> m_advice;
  std::vector<double> m_times;
  std::vector<int> m_stream_of, m_position;
  std::vector<bool> m_critical;
  std::vector<core::Timeline> m_runs;
  std::vector<core::Timeline> m_predicted;
  std::optional<core::ScheduleStudy> m_study;
  QString m_study_error;
  std::shared_ptr<const StudyReference> m_reference;  ///< depends on the graph only: built once per model
  /// The latest memory report of this model (complete or repaired): the next edit's study repairs it.
  std::shared_ptr<const core::MemoryReport> m_memory;
  QFutureWatcher<StudyResult> m_study_watcher;
  std::uint64_t m_generation = 0;  ///< bumped by every request
  std::uint64_t m_model_serial = 0;  ///< bumped by every model
  bool m_job_running = false;      ///< m_study_watcher's future has a result not yet taken
  bool m_study_pending = false;
  bool m_prediction_pending = false;
  std::shared_ptr<std::atomic<bool>> m_cancel;  ///< the running job's stop flag
  double m_last_study_ms = 0;
  int m_studies_applied = 0;
  int m_studies_dropped = 0;
  StudyRunner m_study_runner = run_study;
  /// Bumped by every schedule change: an edit job asked on an older schedule is dropped.
  std::uint64_t m_schedule_serial = 0;
  QFutureWatcher<EditResult> m_edit_watcher;
  bool m_edit_running = false;  ///< m_edit_watcher's future has a result not yet taken
  QString m_edit_text;          ///< the running edit's undo text
  std::uint64_t m_edit_model = 0;  ///< the model serial the running edit was asked on
  struct QueuedEdit {
    QString text;
    EditFunction edit;
  };
  std::optional<QueuedEdit> m_queued_edit;  ///< asked while an edit ran: runs on its result
  std::size_t m_async_edit_nodes = kAsyncEditNodes;
  double m_last_edit_ms = 0;
  /// The analysis the model was loaded with while calibrated costs are in use, else null.
  std::shared_ptr<const core::AnalysisReport> m_original_analysis;
  QString m_costs_origin;
  std::vector<core::NodeId> m_selection;
  std::vector<bool> m_selected;
  ScheduleFigures m_figures;
  QString m_path;
  QString m_last_refusal;
  QString m_last_budget_note;
  QUndoStack m_undo;
};

}  // namespace weft::ui
