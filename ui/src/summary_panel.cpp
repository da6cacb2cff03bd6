#include "weft/ui/summary_panel.h"

#include <QLabel>
#include <QVBoxLayout>

#include "weft/core/study/advice.h"
#include "weft/ui/byte_format.h"
#include "weft/ui/studio_document.h"

namespace weft::ui {

namespace {
// Advice schedules and simulates every fixed strategy twice: as live predictions, only up to a
// size where that stays interactive (the document's live-prediction size).
constexpr std::size_t kAdviceNodes = 4000;
}  // namespace

SummaryPanel::SummaryPanel(StudioDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  m_label = new QLabel(this);
  m_label->setTextFormat(Qt::RichText);
  m_label->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_label->setWordWrap(true);
  m_run = new QLabel(this);
  m_run->setTextFormat(Qt::RichText);
  m_run->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_run->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_run->setWordWrap(true);
  m_run->hide();
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_label);
  layout->addWidget(m_run);
  layout->addStretch();
  connect(doc, &StudioDocument::modelChanged, this, [this] { setRunText({}); });
  connect(doc, &StudioDocument::modelChanged, this, &SummaryPanel::updateAdvice);
  connect(doc, &StudioDocument::costsChanged, this, &SummaryPanel::updateAdvice);
  connect(doc, &StudioDocument::modelChanged, this, &SummaryPanel::refresh);
  connect(doc, &StudioDocument::scheduleChanged, this, &SummaryPanel::refresh);
  connect(doc, &StudioDocument::studyChanged, this, &SummaryPanel::refresh);
  updateAdvice();
  refresh();
}

void SummaryPanel::updateAdvice() {
  m_advice.clear();
  if (!m_doc->hasModel()) return;
  if (m_doc->graph().node_count() > kAdviceNodes) {
    m_advice = tr("not computed above %1 operators (weft analyze gives it)").arg(kAdviceNodes);
    refresh();
    return;
  }
  // The same core call as `weft analyze`: one wording for the CLI and the studio.
  const auto advice = core::advise(m_doc->graph(), m_doc->analysis(), m_doc->device());
  m_advice = QString::fromStdString(advice ? advice->line : "unavailable: " + advice.error().message);
  refresh();
}

QString SummaryPanel::advice() const { return m_advice; }

QString SummaryPanel::text() const { return m_label->text(); }
QString SummaryPanel::runText() const { return m_run->text(); }

void SummaryPanel::setRunText(const QString& html) {
  m_run->setText(html);
  m_run->setVisible(!html.isEmpty());
}

void SummaryPanel::refresh() {
  if (!m_doc->hasModel()) {
    m_label->setText(tr("<i>No model</i>"));
    return;
  }
  const auto& an = m_doc->analysis();
  const auto& f = m_doc->figures();
  const auto& s = m_doc->schedule();
  QString rows;
  auto add = [&rows](const QString& k, const QString& v) { rows += QString("<tr><td nowrap>%1</td><td nowrap align=right>&nbsp;<b>%2</b></td></tr>").arg(k, v); };
  add(tr("strategy"), QString::fromStdString(s.strategy).toHtmlEscaped());
  if (m_doc->costsCalibrated()) add(tr("cost model"), m_doc->costsOrigin().toHtmlEscaped());
  add(tr("streams"), QString::number(f.streams));
  add(tr("events"), QString::number(f.events));
  // Until the worker's study of this schedule arrives, the studied figures are the previous
  // schedule's: shown greyed, with a note, never as if they were current.
  const auto studied = [&f](const QString& v) { return f.stale ? QString("<span style='color:gray'>%1</span>").arg(v) : v; };
  add(tr("sequential"), f.sequential_us > 0 ? studied(tr("%1&nbsp;µs").arg(f.sequential_us, 0, 'f', 1)) : tr("…"));
  add(tr("ideal makespan"), tr("%1&nbsp;µs").arg(f.ideal_us, 0, 'f', 1));
  add(tr("speedup"), f.sequential_us > 0 ? studied(tr("%1×").arg(f.speedup, 0, 'f', 2)) : tr("…"));
  if (f.predicted_us >= 0) {
    add(tr("predicted"), studied(tr("%1&nbsp;µs").arg(f.predicted_us, 0, 'f', 1)));
    if (f.predicted_sequential_us > 0)
      add(tr("vs one stream"), studied(tr("%1×").arg(f.predicted_sequential_us / f.predicted_us, 0, 'f', 2)));
  }
  if (f.arena_bytes >= 0) {
    add(tr("arena"), studied(format_bytes(f.arena_bytes)));
    if (f.sequential_arena_bytes > 0)
      add(tr("vs one stream"),
          studied(tr("%1×").arg(static_cast<double>(f.arena_bytes) / static_cast<double>(f.sequential_arena_bytes), 0, 'f', 2)));
  }
  if (f.stale) add(tr("<i>re-studying</i>"), tr("<i>…</i>"));
  add(tr("work"), tr("%1&nbsp;µs").arg(an.critical.work_us, 0, 'f', 1));
  add(tr("span"), tr("%1&nbsp;µs").arg(an.critical.span_us, 0, 'f', 1));
  add(tr("work / span"), QString::number(an.critical.parallelism(), 'f', 2));
  add(tr("width"), QString::number(an.antichain_width));
  add(tr("depth"), QString::number(an.levels.depth));
  QString html = QString("<table>%1</table><p><b>verdict:</b> %2</p>").arg(rows, QString::fromStdString(an.verdict).toHtmlEscaped());
  if (!m_advice.isEmpty()) html += QString("<p><b>advice:</b> %1</p>").arg(m_advice.toHtmlEscaped());
  m_label->setText(html);
}

}  // namespace weft::ui
