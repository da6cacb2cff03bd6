#include "weft/ui/summary_panel.h"

#include <QFileInfo>
#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>

#include "weft/core/graph/fused_node.h"
#include "weft/core/study/advice.h"
#include "weft/core/study/merge_study.h"
#include "weft/core/study/split_study.h"
#include "weft/ui/byte_format.h"
#include "weft/ui/load_job.h"
#include "weft/ui/studio_document.h"
#include "weft/ui/worker_pool.h"

namespace weft::ui {

SummaryPanel::SummaryPanel(StudioDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  // The verdict and advice as their own word-wrapped label, then the figures (a rich-text table
  // with nowrap cells would set the width the sentences wrap at), in a scroll area so a short
  // dock scrolls instead of clipping the last lines.
  auto* content = new QWidget;
  m_label = new QLabel(content);
  m_label->setTextFormat(Qt::RichText);
  m_label->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_notes = new QLabel(content);
  m_notes->setObjectName("summaryNotes");
  m_notes->setTextFormat(Qt::RichText);
  m_notes->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_notes->setWordWrap(true);
  m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
  connect(m_notes, &QLabel::linkActivated, this, [this](const QString& link) {
    if (link != QLatin1String(kApplyAdviceLink)) return;
    if (auto action = adviceAction()) emit applyAdviceRequested(*action);
  });
  m_notes->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // wraps to the dock, never widens it
  m_run = new QLabel(content);
  m_run->setTextFormat(Qt::RichText);
  m_run->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_run->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_run->setWordWrap(true);
  m_run->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  m_run->hide();
  auto* inner = new QVBoxLayout(content);
  // The advice first: at the default window size the dock shows about fifteen lines, and the
  // line that says what to do is the one to read without scrolling.
  inner->addWidget(m_notes);
  inner->addWidget(m_label);
  inner->addWidget(m_run);
  inner->addStretch();
  m_scroll = new QScrollArea(this);
  m_scroll->setWidget(content);
  m_scroll->setWidgetResizable(true);
  m_scroll->setFrameShape(QFrame::NoFrame);
  m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_scroll);
  connect(&m_advice_watcher, &QFutureWatcher<core::Expected<core::Advice>>::finished, this, &SummaryPanel::takeAdvice);
  connect(doc, &StudioDocument::modelChanged, this, [this] { setRunText({}); });
  connect(doc, &StudioDocument::modelChanged, this, &SummaryPanel::showLoadAdvice);
  connect(doc, &StudioDocument::costsChanged, this, &SummaryPanel::updateAdvice);
  connect(doc, &StudioDocument::modelChanged, this, &SummaryPanel::refresh);
  connect(doc, &StudioDocument::scheduleChanged, this, &SummaryPanel::refresh);
  connect(doc, &StudioDocument::modelChanged, this, [this] { m_merge_gain.reset(); });
  connect(doc, &StudioDocument::studyChanged, this, &SummaryPanel::refresh);
  // The merge gain simulates the unmerged model twice on this thread: once per prediction.
  connect(doc, &StudioDocument::predictionChanged, this, &SummaryPanel::updateMergeGain);
  connect(doc, &StudioDocument::predictionChanged, this, &SummaryPanel::refresh);
  connect(doc, &StudioDocument::memoryRepaired, this, &SummaryPanel::refresh);
  showLoadAdvice();
  refresh();
}

namespace {
QString advice_text(const core::Expected<core::Advice>& advice) {
  return QString::fromStdString(advice ? advice->line : "unavailable: " + advice.error().message);
}
}  // namespace

SummaryPanel::~SummaryPanel() {
  stopAdvice();
  m_advice_watcher.waitForFinished();
}

void SummaryPanel::showLoadAdvice() {
  // The load advised the model off the GUI thread (and may have opened it as advised); a model
  // loaded without (above kAdviceNodes, or not through the load job) is advised in the worker.
  if (!m_doc->hasModel() || !m_doc->loadAdvice()) return updateAdvice();
  stopAdvice();
  m_advice = advice_text(*m_doc->loadAdvice());
  m_advice_value.reset();
  if (*m_doc->loadAdvice()) m_advice_value = **m_doc->loadAdvice();
  refresh();
  emit adviceChanged();
}

void SummaryPanel::stopAdvice() {
  if (m_advice_cancel) m_advice_cancel->store(true);
  m_advice_cancel.reset();
}

void SummaryPanel::updateAdvice() {
  stopAdvice();
  m_advice.clear();
  m_advice_value.reset();
  if (!m_doc->hasModel()) {
    emit adviceChanged();
    return;
  }
  // The same core call as `weft analyze` and the load: one wording for the CLI and the studio. It
  // schedules and simulates every strategy in both launch modes (seconds at 100k operators), so
  // it runs in the worker; setFuture() stops the watcher reporting an older answer.
  m_advice = tr("computing...");
  m_advice_cancel = std::make_shared<std::atomic<bool>>(false);
  core::AdviceOptions options = advice_options(m_doc->strategyOptions(), m_doc->unsplitBaseline());
  options.cancelled = [cancel = m_advice_cancel] { return cancel->load(std::memory_order_relaxed); };
  m_advice_watcher.setFuture(QtConcurrent::run(worker_pool(), [graph = m_doc->graphPtr(), analysis = m_doc->analysisPtr(),
                                                               device = m_doc->device(), options = std::move(options)] {
    return core::advise(*graph, *analysis, device, options);
  }));
  refresh();
  emit adviceChanged();
}

void SummaryPanel::takeAdvice() {
  // A superseded advice (another model, other costs) was stopped and its flag dropped: the newer
  // request shows its own.
  if (!m_advice_cancel || m_advice_watcher.future().resultCount() == 0) return;
  m_advice_cancel.reset();
  const core::Expected<core::Advice> advice = m_advice_watcher.result();
  m_advice = advice_text(advice);
  if (advice) m_advice_value = *advice;
  refresh();
  emit adviceChanged();
}

std::optional<AdviceAction> SummaryPanel::adviceAction() const {
  if (!m_doc->hasModel() || !m_advice_value) return std::nullopt;
  const core::Advice& a = *m_advice_value;
  const bool graph_now = m_doc->strategyOptions().cuda_graph;
  AdviceAction action;
  if (a.merge_advised && !a.merge_strategy.empty() && !m_doc->isMerged()) {
    // The line leads with merging: the merged model, on the schedule predicted for it.
    action.strategy = QString::fromStdString(a.merge_strategy);
    action.cuda_graph = a.merge_mode == core::LaunchMode::Graph;
    action.merge = true;
    return action;
  }
  if (a.kind != core::Advice::Kind::Concurrency) {
    // A chain or little to gain: the micro-batch split the line names, predicted with
    // split-overlap in CUDA Graph replay (eager on a CPU device), as the load follows it. A split
    // model is advised over its unsplit baseline and never split again; a merged one is not split.
    if (a.split_k <= 1 || a.over_unsplit || m_doc->isMerged() || m_doc->graph().info().micro_batches > 1) return std::nullopt;
    action.strategy = QString::fromLatin1(core::kSplitOverlap);
    action.cuda_graph = m_doc->device().kind != core::DeviceKind::Cpu;
    action.split_k = a.split_k;
    return action;
  }
  if (a.merge_advised || a.best_strategy.empty() || a.best_strategy == "sequential") return std::nullopt;
  action.strategy = QString::fromStdString(a.best_strategy);
  action.cuda_graph = a.best_mode == core::LaunchMode::Graph;
  if (m_doc->schedule().strategy == a.best_strategy && graph_now == action.cuda_graph) return std::nullopt;
  return action;
}

void SummaryPanel::waitForAdvice() {
  if (!m_advice_cancel) return;
  m_advice_watcher.waitForFinished();
  takeAdvice();
}

void SummaryPanel::updateMergeGain() {
  m_merge_gain.reset();
  const auto& merge = m_doc->mergeState();
  const auto& study = m_doc->study();
  if (!merge || !study || !study->prediction || merge->unmerged->node_count() > kAdviceNodes) return;
  // Two simulations of the unmerged model, as `weft simulate --merge` quotes its gain.
  auto gain = core::merge_gain(*merge->unmerged, merge->unmerged_costs, m_doc->device(), *merge->model, *study->prediction);
  if (gain) m_merge_gain = *gain;
}

const std::optional<core::MergeGain>& SummaryPanel::mergeGain() const { return m_merge_gain; }

QString SummaryPanel::advice() const { return m_advice; }

QString SummaryPanel::text() const { return m_label->text() + m_notes->text(); }
QLabel* SummaryPanel::notesLabel() const { return m_notes; }
QString SummaryPanel::runText() const { return m_run->text(); }

void SummaryPanel::setRunText(const QString& html) {
  m_run->setText(html);
  m_run->setVisible(!html.isEmpty());
}

void SummaryPanel::refresh() {
  if (!m_doc->hasModel()) {
    m_label->setText(tr("<i>No model</i>"));
    m_notes->clear();
    return;
  }
  const auto& an = m_doc->analysis();
  const auto& f = m_doc->figures();
  const auto& s = m_doc->schedule();
  QString rows;
  // Until the worker's study of this schedule arrives, the studied figures are the previous
  // schedule's: shown greyed, with a note, never as if they were current.
  const auto studied = [&f](const QString& v) { return f.stale ? QString("<span style='color:gray'>%1</span>").arg(v) : v; };
  // QLabel's rich text ignores nowrap: non-breaking spaces keep each key on one line.
  auto add = [&rows](QString k, const QString& v) {
    rows += QString("<tr><td>%1</td><td align=right>&nbsp;<b>%2</b></td></tr>").arg(k.replace(' ', "&nbsp;"), v);
  };
  add(tr("strategy"), QString::fromStdString(s.strategy).toHtmlEscaped());
  if (const auto& merge = m_doc->mergeState()) {
    // The CLI's merge figures (core::merge_gain): launches of the unmerged and the merged model,
    // and the merged schedule against the unmerged model's sequential CUDA Graph.
    // A fused model's groups are its Conv chains (weft.Fused), told apart from merges.
    const std::size_t fused = core::count_fused_nodes(m_doc->graph());
    const std::size_t merged = merge->groups >= fused ? merge->groups - fused : merge->groups;
    if (merged > 0 || fused == 0) add(tr("merge groups"), QString::number(merged));
    if (fused > 0) add(tr("fused chains"), QString::number(fused));
    add(tr("operators"), tr("%1 → %2").arg(merge->unmerged->node_count()).arg(m_doc->graph().node_count()));
    if (m_merge_gain) {
      add(tr("launches"), tr("%1 → %2").arg(m_merge_gain->launches_before).arg(m_merge_gain->launches_after));
      const QString before = fused == 0 ? tr("vs unmerged graph") : merged == 0 ? tr("vs unfused graph") : tr("vs unfused, unmerged graph");
      add(before, studied(tr("%1×").arg(m_merge_gain->speedup_vs_graph, 0, 'f', 2)));
    }
  }
  if (m_doc->costsCalibrated()) add(tr("cost model"), m_doc->costsOrigin().toHtmlEscaped());
  if (const auto& profile = m_doc->profile()) {
    // The profile's times are the costs of every figure here; how much it covers, how closely its
    // own run replays, and the best schedule the advice predicts from them.
    add(tr("operators measured"), tr("%1 of %2").arg(profile->matched_count()).arg(profile->matched_count() + profile->unmatched_nodes.size()));
    add(tr("measured iteration"), tr("%1&nbsp;µs").arg(profile->iteration_us, 0, 'f', 1));
    if (const auto& replay = m_doc->profileReplay()) add(tr("replay error"), tr("%1%").arg(100 * replay->error, 0, 'f', 1));
    if (m_advice_value && !m_advice_value->best_strategy.empty())
      add(tr("best from measured"), tr("%1× %2").arg(m_advice_value->best_speedup, 0, 'f', 2)
                                        .arg(QString::fromStdString(m_advice_value->best_strategy).toHtmlEscaped()));
  }
  add(tr("streams"), QString::number(f.streams));
  add(tr("events"), QString::number(f.events));
  add(tr("sequential"), f.sequential_us > 0 ? studied(tr("%1&nbsp;µs").arg(f.sequential_us, 0, 'f', 1)) : tr("…"));
  add(tr("ideal makespan"), tr("%1&nbsp;µs").arg(f.ideal_us, 0, 'f', 1));
  add(tr("speedup"), f.sequential_us > 0 ? studied(tr("%1×").arg(f.speedup, 0, 'f', 2)) : tr("…"));
  // The study's own figures (core::Prediction, core::MemoryReport), as `weft simulate` and
  // `weft plan` print them: nothing is re-derived here.
  if (f.predicted_us >= 0) {
    add(tr("predicted"), studied(tr("%1&nbsp;µs").arg(f.predicted_us, 0, 'f', 1)));
    if (f.speedup_vs_graph >= 0) add(tr("vs seq. graph"), studied(tr("%1×").arg(f.speedup_vs_graph, 0, 'f', 2)));
    if (f.speedup_vs_eager >= 0) add(tr("vs seq. eager"), studied(tr("%1×").arg(f.speedup_vs_eager, 0, 'f', 2)));
    // A split model's own sequential runs are its copies one after another; the split is worth
    // what it gains over the unsplit model (the split's summary and `weft simulate` quote it).
    if (const auto& u = m_doc->unsplitBaseline()) {
      if (const double g = u->speedup(core::LaunchMode::Graph, f.predicted_us); g > 0)
        add(tr("vs unsplit graph"), studied(tr("%1×").arg(g, 0, 'f', 2)));
      if (const double e = u->speedup(core::LaunchMode::Eager, f.predicted_us); e > 0)
        add(tr("vs unsplit eager"), studied(tr("%1×").arg(e, 0, 'f', 2)));
    }
  }
  // The arena follows the prediction (the memory report is planned after it): greyed until then.
  const auto planned = [&f](const QString& v) {
    return f.stale || f.memory_stale ? QString("<span style='color:gray'>%1</span>").arg(v) : v;
  };
  if (!m_doc->graph().info().unresolved_dims.empty()) {
    // Symbolic input dimensions: tensor sizes are unknown, so the study plans no memory (weft plan
    // refuses; File > Bind dimensions re-opens the model bound).
    add(tr("arena"), tr("unknown (unbound)"));
  } else if (f.arena_bytes >= 0) {
    // A repaired arena is this schedule's (a valid plan), not yet the smallest the planners find.
    add(tr("arena"), planned(f.memory_repaired ? tr("%1 (repaired)").arg(format_bytes(f.arena_bytes)) : format_bytes(f.arena_bytes)));
    if (f.price_of_concurrency >= 0) add(tr("price of concurrency"), planned(tr("%1×").arg(f.price_of_concurrency, 0, 'f', 2)));
  }
  if (f.stale)
    add(tr("<i>re-studying</i>"), tr("<i>…</i>"));
  else if (f.memory_stale && m_doc->studyPending())
    add(tr("<i>re-planning the arena</i>"), tr("<i>…</i>"));
  else if (m_doc->arenaRepaired())
    add(tr("<i>optimising the arena</i>"), tr("<i>…</i>"));
  add(tr("work"), tr("%1&nbsp;µs").arg(an.critical.work_us, 0, 'f', 1));
  add(tr("span"), tr("%1&nbsp;µs").arg(an.critical.span_us, 0, 'f', 1));
  add(tr("work / span"), QString::number(an.critical.parallelism(), 'f', 2));
  add(tr("width"), QString::number(an.antichain_width));
  add(tr("depth"), QString::number(an.levels.depth));
  m_label->setText(QString("<table>%1</table>").arg(rows));
  QString notes;
  // A merge or a split re-opens the model (edits of the schedule go with the graph): the link says so.
  const auto advice_link = [this]() -> QString {
    const auto action = adviceAction();
    if (!action) return {};
    const QString what = action->merge ? tr("apply: re-open merged")
                         : action->split_k > 1 ? tr("apply: re-open split k=%1").arg(action->split_k)
                                               : tr("apply");
    return QString(" <a href=\"%1\">%2</a>").arg(QLatin1String(kApplyAdviceLink), what);
  };
  // With a profile, what measured the costs every figure rests on (the advice line names it too).
  if (const auto& profile = m_doc->profile())
    notes += tr("<p><b>measured:</b> %1 (%2)</p>")
                 .arg(QString::fromStdString(profile->source).toHtmlEscaped(),
                      QFileInfo(QString::fromStdString(profile->path)).fileName().toHtmlEscaped());
  if (!m_advice.isEmpty())
    notes += QString("<p><b>advice:</b> %1%2</p>")
                 .arg(m_advice.toHtmlEscaped(),
                      advice_link());
  notes += QString("<p><b>verdict:</b> %1</p>").arg(QString::fromStdString(an.verdict).toHtmlEscaped());
  m_notes->setText(notes);
  m_notes->setToolTip(m_advice.isEmpty() ? QString() : tr("advice: %1").arg(m_advice));
}

}  // namespace weft::ui
