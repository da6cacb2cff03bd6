#include "weft/ui/studio_document.h"

#include "weft/core/graph/fused_node.h"

#include "schedule_command.h"
#include "weft/ui/worker_pool.h"

#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "weft/core/analysis/analyze.h"
#include "weft/core/schedule/schedule_edit.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/schedule/sync.h"

namespace weft::ui {

bool StudioDocument::isFused() const { return m_merge && core::count_fused_nodes(m_merge->model->graph) > 0; }

StudioDocument::StudioDocument(QObject* parent) : QObject(parent) {
  connect(&m_study_watcher, &QFutureWatcher<StudyResult>::finished, this, &StudioDocument::takeStudy);
  connect(&m_edit_watcher, &QFutureWatcher<EditResult>::finished, this, &StudioDocument::takeEdit);
}

StudioDocument::~StudioDocument() {
  m_undo.clear();
  // The worker holds shared copies only; stop it early and wait so it never outlives the app.
  // (A future whose result was taken is reset: waiting on it would never return.)
  if (m_cancel) m_cancel->store(true);
  if (m_job_running) m_study_watcher.waitForFinished();
  if (m_edit_running) m_edit_watcher.waitForFinished();
}

void StudioDocument::setModel(LoadedModel model) {
  m_undo.clear();
  m_queued_edit.reset();  // its nodes are the previous model's (a running edit is dropped on return)
  m_graph = std::move(model.graph);
  m_analysis = std::move(model.analysis);
  m_original_analysis.reset();
  m_costs_origin.clear();
  m_device = std::move(model.device);
  m_options = model.options;
  m_dims = std::move(model.dims);
  m_merge = std::move(model.merge);
  m_profile = std::move(model.profile);
  m_profile_replay = std::move(model.profile_replay);
  m_predicted_costs = std::move(model.predicted_costs);
  m_unsplit = model.unsplit;
  m_advice = std::move(model.advice);
  m_path = model.path;
  m_selection.clear();
  m_runs.clear();
  m_selected.assign(m_graph->node_count(), false);
  m_schedule = {};
  m_reference.reset();
  m_memory.reset();
  ++m_model_serial;
  // Nothing of the previous model's study applies to this one.
  m_study.reset();
  m_study_error.clear();
  m_predicted.clear();
  m_figures = {};
  refreshCosts();
  setScheduleInternal(std::move(model.schedule));
  emit modelChanged();
  emit selectionChanged();
}

std::optional<double> StudioDocument::measuredTime(core::NodeId n) const {
  if (!m_profile || static_cast<std::size_t>(n) >= m_profile->node_us.size()) return std::nullopt;
  return m_profile->node_us[static_cast<std::size_t>(n)];
}

void StudioDocument::refreshCosts() {
  m_times = core::node_times(m_analysis->costs);
  m_times.resize(m_graph->node_count(), 0.0);
  m_critical.assign(m_graph->node_count(), false);
  for (core::NodeId n : m_analysis->critical.nodes) m_critical[static_cast<std::size_t>(n)] = true;
}

void StudioDocument::setCosts(const core::CostTable& costs, const QString& origin) {
  if (!hasModel() || costs.nodes.size() != m_graph->node_count()) return;
  if (!m_original_analysis) m_original_analysis = m_analysis;
  m_analysis = std::make_shared<const core::AnalysisReport>(core::analyze(*m_graph, costs));
  m_costs_origin = origin;
  refreshCosts();
  emit costsChanged();
  setScheduleInternal(m_schedule);
}

void StudioDocument::resetCosts() {
  if (!hasModel() || !m_original_analysis) return;
  m_analysis = std::move(m_original_analysis);
  m_original_analysis.reset();
  m_costs_origin.clear();
  refreshCosts();
  emit costsChanged();
  setScheduleInternal(m_schedule);
}

void StudioDocument::addRun(core::Timeline run) {
  auto same = std::find_if(m_runs.begin(), m_runs.end(), [&](const core::Timeline& r) { return r.identity() == run.identity(); });
  if (same != m_runs.end())
    *same = std::move(run);
  else
    m_runs.push_back(std::move(run));
  emit runsChanged();
}

void StudioDocument::clearRuns() {
  if (m_runs.empty()) return;
  m_runs.clear();
  emit runsChanged();
}

bool StudioDocument::replaceSchedule(const core::Schedule& schedule, QString* reason) {
  if (!hasModel()) return false;
  if (auto ok = core::validate_schedule(*m_graph, schedule); !ok) {
    if (reason) *reason = QString::fromStdString(ok.error().message);
    return false;
  }
  m_undo.clear();
  setScheduleInternal(schedule);
  return true;
}

void StudioDocument::setScheduleInternal(core::Schedule schedule, double ideal_us) {
  m_schedule = std::move(schedule);
  ++m_schedule_serial;
  core::StreamSlots placed = core::stream_slots(*m_graph, m_schedule).value();  // validated by the caller
  m_stream_of = std::move(placed.stream_of);
  m_position = std::move(placed.position);
  // What an edit changes at once, O(V + E): counts and the ideal makespan. The rest (reference,
  // prediction, memory) keeps the previous schedule's values, marked stale, until the study of
  // this one arrives from the worker.
  m_figures.streams = static_cast<int>(m_schedule.stream_count());
  m_figures.events = static_cast<int>(m_schedule.events.size());
  m_figures.ideal_us = ideal_us >= 0 ? ideal_us : core::ideal_makespan_us(*m_graph, m_schedule, m_times);
  m_figures.stale = true;
  m_figures.memory_stale = true;
  m_figures.memory_repaired = false;
  requestStudy();
  emit scheduleChanged();
}

void StudioDocument::requestStudy() {
  ++m_generation;
  m_study_pending = true;
  m_prediction_pending = true;
  if (m_job_running) {
    // The running study is for an earlier schedule: ask it to stop; takeStudy drops its result
    // and starts this one.
    if (m_cancel) m_cancel->store(true);
    return;
  }
  launchStudy();
}

void StudioDocument::launchStudy() {
  StudyRequest r;
  r.generation = m_generation;
  r.model = m_model_serial;
  r.graph = m_graph;
  r.analysis = m_analysis;
  r.device = m_device;
  r.schedule = m_schedule;
  r.mode = core::launch_mode_of(m_options);
  r.reference = m_reference;
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  r.cancel = m_cancel;
  // The prediction ahead of the memory report: posted to this (the GUI) thread; a document gone
  // by then drops it with its other posted events.
  r.on_prediction = [this](StudyResult partial) {
    auto held = std::make_shared<StudyResult>(std::move(partial));
    QMetaObject::invokeMethod(this, [this, held] { applyPrediction(std::move(*held)); }, Qt::QueuedConnection);
  };
  // The latest arena of this model, repaired for the new schedule within a frame, ahead of the
  // report planned afresh.
  r.repair_from = m_memory;
  r.on_repaired = [this](StudyResult partial) {
    auto held = std::make_shared<StudyResult>(std::move(partial));
    QMetaObject::invokeMethod(this, [this, held] { applyRepaired(std::move(*held)); }, Qt::QueuedConnection);
  };
  m_job_running = true;
  m_study_watcher.setFuture(QtConcurrent::run(worker_pool(), [r = std::move(r), run = m_study_runner] { return run(r); }));
}

void StudioDocument::takeStudy() {
  // Also reached by waitForStudy, before the watcher's queued signal: take each result once.
  // The future, not the watcher: the watcher learns of the end only when its queued event arrives.
  if (!m_job_running || !m_study_watcher.future().isFinished()) return;
  m_job_running = false;
  StudyResult result = m_study_watcher.future().takeResult();
  if (result.model == m_model_serial && result.reference) m_reference = result.reference;
  if (result.generation != m_generation) {
    // Superseded by a newer edit, cost or model change: drop it, study the latest.
    ++m_studies_dropped;
    launchStudy();
    return;
  }
  applyStudy(std::move(result));
}

void StudioDocument::waitForStudy() {
  while (m_job_running) {
    m_study_watcher.waitForFinished();
    takeStudy();
  }
}

void StudioDocument::takePredictionFigures(const core::ScheduleStudy& study, std::vector<core::Timeline> predicted) {
  m_figures.predicted_us = m_figures.predicted_sequential_us = m_figures.speedup_vs_graph = m_figures.speedup_vs_eager = -1;
  m_figures.sequential_us = study.reference_ideal_us;
  m_figures.ideal_us = study.ideal_makespan_us;
  m_figures.speedup = study.ideal_speedup();
  m_predicted.clear();
  if (study.prediction) {
    const core::Prediction& p = *study.prediction;
    m_figures.predicted_us = p.makespan_us;
    m_figures.predicted_sequential_us = p.sequential_us();
    m_figures.speedup_vs_graph = p.speedup_vs_graph;
    m_figures.speedup_vs_eager = p.speedup_vs_eager;
    // The worker's copies when it made them (StudyResult::predicted), else copied here.
    m_predicted = predicted.size() == 3 ? std::move(predicted) : std::vector<core::Timeline>{p.timeline, p.sequential_eager, p.sequential_graph};
  }
}

void StudioDocument::takeMemoryFigures(const core::MemoryReport& memory, std::shared_ptr<const core::MemoryReport> copy) {
  m_figures.arena_bytes = memory.arena_bytes();
  m_figures.sequential_arena_bytes = memory.reference_arena_bytes();
  m_figures.price_of_concurrency = memory.price_of_concurrency();
  // What the next edit repairs: the worker's copy when it made one.
  m_memory = copy ? std::move(copy) : std::make_shared<const core::MemoryReport>(memory);
}

void StudioDocument::applyPrediction(StudyResult result) {
  // Only the pending prediction of the current schedule: a superseded request's, or one whose
  // whole study was already applied (waitForStudy takes results before their posted events), is
  // dropped.
  if (!m_prediction_pending || result.generation != m_generation || result.model != m_model_serial || !result.study)
    return;
  m_prediction_pending = false;
  m_figures.streams = static_cast<int>(m_schedule.stream_count());
  m_figures.events = static_cast<int>(m_schedule.events.size());
  takePredictionFigures(*result.study, std::move(result.predicted));
  m_figures.stale = false;
  m_figures.memory_stale = true;  // the arena figures stay the previous schedule's until the report
  m_study = std::move(*result.study);
  m_study_error.clear();
  emit predictionChanged();
}

void StudioDocument::applyRepaired(StudyResult result) {
  // Only for the current schedule while its complete study is still on its way.
  if (!m_study_pending || result.generation != m_generation || result.model != m_model_serial || !result.study ||
      !result.study->memory)
    return;
  const bool prediction_new = m_prediction_pending;
  if (prediction_new) {
    // The prediction's own posted event has not run yet: this result carries the same prediction.
    m_prediction_pending = false;
    takePredictionFigures(*result.study, std::move(result.predicted));
    m_figures.stale = false;
  }
  takeMemoryFigures(*result.study->memory, std::move(result.memory));
  m_figures.memory_stale = false;
  m_figures.memory_repaired = true;
  m_study = std::move(*result.study);
  m_study_error.clear();
  if (prediction_new) emit predictionChanged();
  emit memoryRepaired();
}

void StudioDocument::applyStudy(StudyResult result) {
  // No early prediction of this schedule was applied, or the study failed and takes it back.
  const bool prediction_new = m_prediction_pending || !result.study;
  m_study_pending = false;
  m_prediction_pending = false;
  m_last_study_ms = result.ms;
  ++m_studies_applied;
  m_figures = {};
  m_figures.streams = static_cast<int>(m_schedule.stream_count());
  m_figures.events = static_cast<int>(m_schedule.events.size());
  m_predicted.clear();
  m_study.reset();
  m_study_error = QString::fromStdString(result.error);
  if (result.study) {
    // The same study `weft schedule`, `weft simulate` and `weft plan` make: figures agree by construction.
    m_study = std::move(*result.study);
    takePredictionFigures(*m_study, std::move(result.predicted));
    if (m_study->memory) takeMemoryFigures(*m_study->memory, std::move(result.memory));
  } else {
    m_figures.ideal_us = core::ideal_makespan_us(*m_graph, m_schedule, m_times);
  }
  if (prediction_new) emit predictionChanged();
  emit studyChanged();
}

bool StudioDocument::pushEdit(const QString& text, core::Expected<core::Schedule> result,
                              const std::optional<core::StrategyOptions>& options, double ideal_us) {
  if (!result) {
    m_last_refusal = QString::fromStdString(result.error().message);
    emit editRefused(m_last_refusal);
    return false;
  }
  m_last_refusal.clear();
  m_undo.push(new ScheduleCommand(this, text, {m_schedule, m_options, m_figures.ideal_us},
                                  {std::move(*result), options.value_or(m_options), ideal_us}));
  return true;
}

bool StudioDocument::submitEdit(const QString& text, EditFunction edit) {
  if (m_graph->node_count() <= m_async_edit_nodes && !editPending()) {
    EditRequest r;
    r.graph = m_graph;
    r.schedule = std::shared_ptr<const core::Schedule>(std::shared_ptr<void>(), &m_schedule);  // not kept past the call
    r.node_times = std::shared_ptr<const std::vector<double>>(std::shared_ptr<void>(), &m_times);
    r.edit = std::move(edit);
    return applyEditResult(text, run_edit(r));
  }
  if (m_edit_running) {
    // Rapid edits coalesce: this one runs on the running one's result; one already waiting is
    // replaced (its drop target was computed on a schedule about to change anyway).
    if (m_queued_edit) emit editRefused(tr("%1 dropped: a newer edit replaced it while it waited").arg(m_queued_edit->text));
    m_queued_edit = QueuedEdit{text, std::move(edit)};
    return true;
  }
  launchEdit(text, std::move(edit));
  return true;
}

void StudioDocument::launchEdit(const QString& text, EditFunction edit) {
  EditRequest r;
  r.base = m_schedule_serial;
  r.graph = m_graph;
  r.schedule = std::make_shared<const core::Schedule>(m_schedule);
  r.node_times = std::make_shared<const std::vector<double>>(m_times);
  r.edit = std::move(edit);
  m_edit_text = text;
  m_edit_model = m_model_serial;
  m_edit_running = true;
  m_edit_watcher.setFuture(QtConcurrent::run(worker_pool(), [r = std::move(r)] { return run_edit(r); }));
}

void StudioDocument::takeEdit() {
  // As takeStudy: also reached by waitForEdit before the watcher's queued signal.
  if (!m_edit_running || !m_edit_watcher.future().isFinished()) return;
  m_edit_running = false;
  EditResult result = m_edit_watcher.future().takeResult();
  if (m_edit_model != m_model_serial) {
    // Another model was opened while it ran: nothing of it applies, nothing to say.
  } else if (result.base != m_schedule_serial) {
    // Undone, redone, or replaced (a strategy, a project's schedule) while it ran: its schedule is gone.
    m_last_refusal = tr("%1 dropped: the schedule changed while it was checked").arg(m_edit_text);
    emit editRefused(m_last_refusal);
  } else {
    applyEditResult(m_edit_text, std::move(result));
  }
  if (m_queued_edit) {
    QueuedEdit next = std::move(*m_queued_edit);
    m_queued_edit.reset();
    launchEdit(next.text, std::move(next.edit));
  }
}

bool StudioDocument::applyEditResult(const QString& text, EditResult result) {
  m_last_edit_ms = result.ms;
  const double ideal_us = result.schedule ? result.ideal_us : -1;  // read before the schedule moves out
  return pushEdit(text, std::move(result.schedule), std::nullopt, ideal_us);
}

void StudioDocument::waitForEdit() {
  while (m_edit_running) {
    m_edit_watcher.waitForFinished();
    takeEdit();
  }
}

void StudioDocument::restoreEdit(core::Schedule schedule, const core::StrategyOptions& options, double ideal_us) {
  const core::StrategyOptions before = m_options;
  m_options = options;
  setScheduleInternal(std::move(schedule), ideal_us);
  if (before.cuda_graph != options.cuda_graph || before.max_streams != options.max_streams ||
      before.granularity_us != options.granularity_us)
    emit strategyOptionsChanged();
}

bool StudioDocument::moveNodes(std::vector<core::NodeId> nodes, int stream, int position) {
  if (!hasModel() || nodes.empty()) return false;
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  const QString text = nodes.size() == 1
                           ? tr("Move %1 to stream %2").arg(QString::fromStdString(m_graph->key(nodes[0]))).arg(stream)
                           : tr("Move %1 nodes to stream %2").arg(nodes.size()).arg(stream);
  return submitEdit(text, [nodes = std::move(nodes), stream, position](const core::Graph& g, const core::Schedule& s) {
    return core::move_selection(g, s, nodes, stream, position);
  });
}

bool StudioDocument::addStream() {
  if (!hasModel()) return false;
  return submitEdit(tr("Add stream"), [](const core::Graph& g, const core::Schedule& s) { return core::add_stream(g, s); });
}

bool StudioDocument::removeStream(int stream) {
  if (!hasModel()) return false;
  return submitEdit(tr("Remove stream %1").arg(stream),
                    [stream](const core::Graph& g, const core::Schedule& s) { return core::remove_stream(g, s, stream); });
}

bool StudioDocument::mergeStreams(int into, int from) {
  if (!hasModel()) return false;
  return submitEdit(tr("Merge stream %1 into %2").arg(from).arg(into), [into, from](const core::Graph& g, const core::Schedule& s) {
    return core::merge_streams(g, s, into, from);
  });
}

bool StudioDocument::applyStrategy(const QString& name, const core::StrategyOptions& options) {
  if (!hasModel()) return false;
  m_last_budget_note.clear();
  auto s = core::make_schedule(name.toStdString(), *m_graph, m_analysis->costs, m_device, options);
  return pushEdit(tr("Apply strategy %1").arg(name), std::move(s), options);
}

bool StudioDocument::applyComputedStrategy(const QString& name, const std::shared_ptr<const core::Graph>& from,
                                           core::Expected<core::Schedule> result,
                                           const core::StrategyOptions& options, const QString& budget_note) {
  if (!hasModel()) return false;
  m_last_budget_note.clear();
  if (from != m_graph)
    result = core::make_error(core::ErrorKind::InvalidInput,
                              "the model was replaced while " + name.toStdString() + " ran; its schedule is dropped");
  // make_schedule (and fit_memory_budget) validated the schedule for `from`, which is this graph.
  if (!result) return pushEdit(QString(), std::move(result));
  m_last_budget_note = budget_note;
  return pushEdit(budget_note.isEmpty() ? tr("Apply strategy %1").arg(name) : tr("Apply strategy %1 within a memory budget").arg(name),
                  std::move(result), options);
}

bool StudioDocument::applySchedule(const core::Schedule& schedule, const QString& text) {
  if (!hasModel()) return false;
  if (auto ok = core::validate_schedule(*m_graph, schedule); !ok) return pushEdit(text, ok.error());
  return pushEdit(text, schedule);
}

bool StudioDocument::isSelected(core::NodeId n) const {
  return n >= 0 && static_cast<std::size_t>(n) < m_selected.size() && m_selected[static_cast<std::size_t>(n)];
}

void StudioDocument::setSelection(std::vector<core::NodeId> nodes) {
  if (!hasModel()) return;
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  if (nodes == m_selection) return;
  for (core::NodeId n : m_selection) m_selected[static_cast<std::size_t>(n)] = false;
  m_selection = std::move(nodes);
  for (core::NodeId n : m_selection) m_selected[static_cast<std::size_t>(n)] = true;
  emit selectionChanged();
}

}  // namespace weft::ui
