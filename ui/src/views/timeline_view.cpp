#include "weft/ui/timeline_view.h"

#include "timeline_painter.h"

#include <QAction>
#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <tuple>

#include "weft/ui/stream_colors.h"
#include "weft/ui/studio_document.h"

namespace weft::ui {

namespace {
constexpr int kLabelWidth = kTimelineLabelWidth;
constexpr int kRulerHeight = kTimelineRulerHeight;
constexpr int kHeaderHeight = kTimelineHeaderHeight;
constexpr int kRowHeight = kTimelineRowHeight;
constexpr int kGroupGap = kTimelineGroupGap;
constexpr double kWheelBase = 1.0015;  // zoom per wheel unit: one notch (120) ≈ 1.2×
constexpr std::size_t kNoItem = kTimelineNoItem;

/// "12.5 µs" / "3.25 ms" with as many decimals as `step` needs.
QString percent(double share) { return QString("%1%").arg(100.0 * share, 0, 'f', 0); }
}  // namespace

// ---------------------------------------------------------------------------------------------
// TimelineView

TimelineView::TimelineView(StudioDocument* doc, QWidget* parent) : QAbstractScrollArea(parent), m_doc(doc) {
  setMouseTracking(true);
  viewport()->setMouseTracking(true);
  viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumHeight(kRulerHeight + 3 * kRowHeight);
  m_arrows = new QAction(tr("Event &arrows"), this);
  m_arrows->setCheckable(true);
  m_arrows->setChecked(true);
  m_arrows->setToolTip(tr("Draw cross-stream events (record → wait) as arrows"));
  connect(m_arrows, &QAction::toggled, viewport(), qOverload<>(&QWidget::update));
  connect(doc, &StudioDocument::modelChanged, this, [this] {
    clearRange();
    m_tracks.clear();  // nothing of the previous model's rows is kept
    rebuild();
    fit();
  });
  // An edit leaves the runs shown as they are (the prediction is the previous schedule's until
  // predictionChanged): only the note may change.
  connect(doc, &StudioDocument::scheduleChanged, this, [this] {
    updateNote();
    viewport()->update();
  });
  // A study brings new runs only with predictionChanged (emitted once per schedule, by whichever
  // of the prediction, the repaired arena or the complete study arrives first, and by a failed
  // study): the complete study after its early prediction carries the same runs, and rebuilding
  // for it again cost 5 ms of the slice that applies it at 100k operators (issue 45).
  connect(doc, &StudioDocument::studyChanged, this, [this] {
    updateNote();
    viewport()->update();
  });
  connect(doc, &StudioDocument::predictionChanged, this, &TimelineView::rebuild);
  connect(doc, &StudioDocument::runsChanged, this, &TimelineView::rebuild);
  connect(doc, &StudioDocument::selectionChanged, viewport(), qOverload<>(&QWidget::update));
  rebuild();
}

int TimelineView::rowHeight() { return kRowHeight; }
int TimelineView::plotLeft() const { return kLabelWidth; }
int TimelineView::plotWidth() const { return std::max(1, viewport()->width() - kLabelWidth); }
double TimelineView::viewX(double time_us) const { return plotLeft() + m_axis.toPixel(time_us); }
double TimelineView::timeAt(double viewport_x) const { return m_axis.toTime(viewport_x - plotLeft()); }

namespace {

bool same_items(const core::Timeline& a, const core::Timeline& b) {
  return a.stream_count == b.stream_count && a.events.empty() == b.events.empty() &&
         std::equal(a.items.begin(), a.items.end(), b.items.begin(), b.items.end(),
                    [](const core::TimelineItem& x, const core::TimelineItem& y) {
                      return x.node == y.node && x.stream == y.stream && x.start_us == y.start_us && x.end_us == y.end_us;
                    });
}

// Per stream, the indices of its items (those naming a node below `nodes`) in start order, and
// each row's block summary.
void index_rows(const core::Timeline& run, core::NodeId nodes, TimelineView::Track& track) {
  int streams = std::max(1, run.stream_count);
  for (const core::TimelineItem& it : run.items) streams = std::max(streams, it.stream + 1);
  // Sorted on copied keys, not through the items: 100k items in 8 rows 5x faster.
  struct Key {
    double start, end;
    std::size_t item;
    bool operator<(const Key& o) const { return std::tie(start, end, item) < std::tie(o.start, o.end, o.item); }
  };
  std::vector<std::vector<Key>> keyed(static_cast<std::size_t>(streams));
  for (std::size_t i = 0; i < run.items.size(); ++i) {
    const core::TimelineItem& it = run.items[i];
    if (it.stream >= 0 && it.node >= 0 && it.node < nodes) keyed[static_cast<std::size_t>(it.stream)].push_back({it.start_us, it.end_us, i});
  }
  track.rows.assign(keyed.size(), {});
  track.row_blocks.assign(keyed.size(), {});
  for (std::size_t s = 0; s < keyed.size(); ++s) {
    if (!std::is_sorted(keyed[s].begin(), keyed[s].end())) std::sort(keyed[s].begin(), keyed[s].end());
    track.rows[s].reserve(keyed[s].size());
    for (const Key& k : keyed[s]) track.rows[s].push_back(k.item);
    auto& blocks = track.row_blocks[s];
    for (std::size_t i = 0; i < keyed[s].size(); ++i) {
      if (i % kTimelineRowBlock == 0) blocks.emplace_back(0.0, keyed[s][i].end);
      blocks.back().first = std::max(blocks.back().first, keyed[s][i].end - keyed[s][i].start);
      blocks.back().second = std::max(blocks.back().second, keyed[s][i].end);
    }
  }
}

}  // namespace

void TimelineView::rebuild() {
  // Rows of a run shown before are kept (the baselines stay the same over edits).
  std::vector<Track> before = std::move(m_tracks);
  m_tracks.clear();
  m_note.clear();
  if (m_doc->hasModel()) {
    auto add = [this, &before](const core::Timeline& run, bool live_prediction = false) {
      Track t;
      // Items and events only: a 100k prediction's counters are as large again as its items.
      t.run.label = run.label;
      t.run.kind = run.kind;
      t.run.backend = run.backend;
      t.run.strategy = run.strategy;
      t.run.device = run.device;
      t.run.stream_count = run.stream_count;
      t.run.items = run.items;
      t.run.events = run.events;
      t.live_prediction = live_prediction;
      auto kept = std::find_if(before.begin(), before.end(), [&run](const Track& b) { return same_items(b.run, run); });
      // Items naming no node of this graph are left out (the views index per-node state by them).
      const std::size_t nodes = m_doc->graph().node_count();
      if (kept != before.end()) {
        t.rows = std::move(kept->rows);
        t.row_blocks = std::move(kept->row_blocks);
        t.item_of_node = std::move(kept->item_of_node);
        before.erase(kept);
      } else {
        index_rows(run, static_cast<core::NodeId>(nodes), t);
        if (!run.events.empty()) {
          t.item_of_node.assign(nodes, kTimelineNoItem);
          for (std::size_t i = 0; i < run.items.size(); ++i)
            if (run.items[i].node >= 0 && static_cast<std::size_t>(run.items[i].node) < nodes)
              t.item_of_node[static_cast<std::size_t>(run.items[i].node)] = i;
        }
      }
      m_tracks.push_back(std::move(t));
    };
    // The schedule's prediction, the document's runs (measured, imported), then the baselines.
    // A document run that is the same run as a predicted one (same kind, backend and strategy)
    // replaces it (an imported or pinned prediction).
    const auto& predicted = m_doc->predictedRuns();
    auto add_predicted = [&](std::size_t i) {
      if (i < predicted.size() && std::none_of(m_doc->runs().begin(), m_doc->runs().end(), [&](const core::Timeline& r) {
            return r.identity() == predicted[i].identity();
          }))
        add(predicted[i], i == 0);
    };
    // A measured profile first, as its own group above the predictions, with its replay (the
    // profiled run's schedule simulated with the measured times) under it.
    if (const auto& profile = m_doc->profile()) {
      core::Timeline measured = profile->measured;
      measured.label = "measured: " + profile->source;
      if (measured.device == profile->source) measured.device.clear();  // said once, in the label
      add(measured);
      if (const auto& replay = m_doc->profileReplay()) {
        core::Timeline replayed = replay->timeline;
        replayed.label = tr("replay of the profiled run (%1% off the measured iteration)")
                             .arg(100 * replay->error, 0, 'f', 1)
                             .toStdString();
        add(replayed);
      }
    }
    add_predicted(0);
    for (const core::Timeline& r : m_doc->runs()) add(r);
    add_predicted(1);
    add_predicted(2);
  }
  updateNote();
  m_track_top.clear();
  int y = 0;
  double extent = 0;
  for (const Track& t : m_tracks) {
    m_track_top.push_back(y);
    y += kHeaderHeight + static_cast<int>(t.rows.size()) * kRowHeight + kGroupGap;
    extent = std::max(extent, t.run.makespan_us());
  }
  const bool was_fit = m_axis.pxPerUs() <= m_axis.fitPxPerUs() * (1 + 1e-9);
  m_axis.setWidth(plotWidth());
  m_axis.setExtent(extent);
  if (was_fit) m_axis.fit();  // a fitted view stays fitted as runs grow or shrink
  if (hasRange()) setRange(m_range_t0, m_range_t1);
  syncScrollBars();
  viewport()->update();
}

void TimelineView::updateNote() {
  m_note.clear();
  if (!m_doc->hasModel() || !m_doc->predictedRuns().empty()) return;
  if (m_doc->predictionPending())
    m_note = tr("Predicting…");
  else if (!m_doc->studyError().isEmpty())
    m_note = tr("No prediction: %1").arg(m_doc->studyError());
  else
    m_note = tr("No live prediction: the device has no compute and bandwidth rates to simulate with.");
}

int TimelineView::contentHeight() const {
  int h = 0;
  for (const Track& t : m_tracks) h += kHeaderHeight + static_cast<int>(t.rows.size()) * kRowHeight + kGroupGap;
  return h;
}

void TimelineView::syncScrollBars() {
  m_syncing = true;
  const double content_px = m_axis.extent() * m_axis.pxPerUs();
  // Scroll bars hold ints: past 1e9 px (long runs zoomed far in) one unit stands for several pixels.
  m_scroll_scale = std::max(1.0, content_px / 1e9);
  QScrollBar* h = horizontalScrollBar();
  h->setRange(0, static_cast<int>(std::max(0.0, std::ceil((content_px - m_axis.width()) / m_scroll_scale))));
  h->setPageStep(std::max(1, static_cast<int>(m_axis.width() / m_scroll_scale)));
  h->setSingleStep(std::max(1, static_cast<int>(20 / m_scroll_scale)));
  h->setValue(static_cast<int>(std::lround(m_axis.start() * m_axis.pxPerUs() / m_scroll_scale)));
  QScrollBar* v = verticalScrollBar();
  v->setRange(0, std::max(0, contentHeight() - (viewport()->height() - kRulerHeight)));
  v->setPageStep(viewport()->height());
  v->setSingleStep(kRowHeight);
  m_syncing = false;
}

void TimelineView::scrollContentsBy(int dx, int) {
  // Only the scroll bar's own moves set the start: a vertical scroll keeps sub-pixel starts.
  if (!m_syncing && dx != 0) m_axis.setStart(horizontalScrollBar()->value() * m_scroll_scale / m_axis.pxPerUs());
  viewport()->update();
}

void TimelineView::resizeEvent(QResizeEvent* event) {
  QAbstractScrollArea::resizeEvent(event);
  const bool was_fit = m_axis.pxPerUs() <= m_axis.fitPxPerUs() * (1 + 1e-9);
  m_axis.setWidth(plotWidth());
  if (was_fit) m_axis.fit();
  syncScrollBars();
}

void TimelineView::fit() {
  m_axis.setWidth(plotWidth());
  m_axis.fit();
  syncScrollBars();
  viewport()->update();
}

void TimelineView::zoomBy(double factor) {
  m_axis.zoomAt(m_axis.width() / 2, factor);
  syncScrollBars();
  viewport()->update();
}

void TimelineView::setVisibleRange(double t0_us, double t1_us) {
  m_axis.setWidth(plotWidth());
  m_axis.setVisibleRange(t0_us, t1_us);
  syncScrollBars();
  viewport()->update();
}

void TimelineView::setRange(double t0_us, double t1_us) {
  if (t1_us < t0_us) std::swap(t0_us, t1_us);
  if (!(t1_us > t0_us)) {
    clearRange();
    return;
  }
  m_range_t0 = t0_us;
  m_range_t1 = t1_us;
  m_stats.clear();
  for (const Track& t : m_tracks) m_stats.push_back(range_stats(t.run, t0_us, t1_us));
  viewport()->update();
  emit rangeChanged();
}

void TimelineView::clearRange() {
  if (!hasRange() && m_stats.empty()) return;
  m_range_t0 = m_range_t1 = 0;
  m_stats.clear();
  viewport()->update();
  emit rangeChanged();
}

QString TimelineView::rangeText() const {
  if (!hasRange()) return {};
  const double step = m_axis.tickStep() / 10;
  QStringList lines;
  lines << tr("range %1 – %2 (%3)")
               .arg(format_time(m_range_t0, step), format_time(m_range_t1, step), format_time(m_range_t1 - m_range_t0, step));
  for (const RangeStats& s : m_stats) {
    QStringList busy;
    for (std::size_t i = 0; i < s.busy_share.size(); ++i) busy << QString("s%1 %2").arg(i).arg(percent(s.busy_share[i]));
    lines << tr("%1: busy %2 · overlap %3 · speedup %4×")
                 .arg(QString::fromStdString(s.label), busy.join(' '), percent(s.overlap_share))
                 .arg(s.speedup, 0, 'f', 2);
  }
  return lines.join('\n');
}

int TimelineView::rowTop(int track, int stream) const {
  const int base = kRulerHeight + m_track_top[static_cast<std::size_t>(track)] - verticalScrollBar()->value();
  return stream < 0 ? base : base + kHeaderHeight + stream * kRowHeight;
}

std::pair<int, int> TimelineView::rowAt(int y) const {
  if (y < kRulerHeight) return {-1, -1};
  for (int t = 0; t < static_cast<int>(m_tracks.size()); ++t) {
    const int top = rowTop(t, -1);
    if (y < top) break;
    if (y < top + kHeaderHeight) return {t, -1};
    const int s = (y - top - kHeaderHeight) / kRowHeight;
    if (s < static_cast<int>(m_tracks[static_cast<std::size_t>(t)].rows.size())) return {t, s};
  }
  return {-1, -1};
}

QRect TimelineView::itemRect(int track, std::size_t item) const {
  const core::TimelineItem& it = m_tracks[static_cast<std::size_t>(track)].run.items[item];
  const int x0 = static_cast<int>(std::floor(viewX(it.start_us)));
  const int x1 = static_cast<int>(std::floor(viewX(it.end_us)));
  return QRect(x0, rowTop(track, it.stream) + 2, std::max(1, x1 - x0), kRowHeight - 4);
}

std::pair<int, std::size_t> TimelineView::itemAt(QPoint p) const {
  const auto [t, s] = rowAt(p.y());
  if (t < 0 || s < 0 || p.x() < plotLeft()) return {-1, 0};
  const Track& track = m_tracks[static_cast<std::size_t>(t)];
  const auto& row = track.rows[static_cast<std::size_t>(s)];
  const double lo = timeAt(p.x() - 1), hi = timeAt(p.x() + 1);
  // Rows are in start order and a stream's items do not overlap, so ends are ordered too.
  auto it = std::lower_bound(row.begin(), row.end(), lo, [&track](std::size_t i, double x) { return track.run.items[i].end_us < x; });
  std::size_t best = kNoItem;
  double best_len = -1;
  for (; it != row.end() && track.run.items[*it].start_us <= hi; ++it) {
    const double len = track.run.items[*it].end_us - track.run.items[*it].start_us;
    if (len > best_len) {  // under a merged block, the longest item speaks for it
      best = *it;
      best_len = len;
    }
  }
  if (best == kNoItem) return {-1, 0};
  return {t, best};
}

QString TimelineView::itemToolTip(int track, std::size_t item) const {
  const Track& t = m_tracks[static_cast<std::size_t>(track)];
  const core::TimelineItem& it = t.run.items[item];
  const double step = std::max(1e-3, (it.end_us - it.start_us) / 100);
  QString text;
  if (m_doc->hasModel() && it.node >= 0 && static_cast<std::size_t>(it.node) < m_doc->graph().node_count()) {
    const core::Graph& g = m_doc->graph();
    text = QString("<b>%1</b> (%2)").arg(QString::fromStdString(g.key(it.node)).toHtmlEscaped(),
                                         QString::fromStdString(g.node(it.node).op_type));
    if (m_doc->onCriticalPath(it.node)) text += tr(" · critical path");
  } else {
    text = tr("<b>node %1</b>").arg(it.node);
  }
  text += tr("<br>%1, stream %2<br>start %3 · duration %4")
              .arg(QString::fromStdString(t.run.label).toHtmlEscaped())
              .arg(it.stream)
              .arg(format_time(it.start_us, step), format_time(it.end_us - it.start_us, step));
  // Items sharing this pixel were merged: say how many.
  const double px0 = viewX(it.start_us), px1 = viewX(it.end_us);
  if (px1 - px0 < 1) {
    const auto& row = t.rows[static_cast<std::size_t>(it.stream)];
    const int near = static_cast<int>(std::count_if(row.begin(), row.end(), [&](std::size_t i) {
      return viewX(t.run.items[i].end_us) >= px0 - 1 && viewX(t.run.items[i].start_us) <= px1 + 1;
    }));
    if (near > 1) text += tr("<br><i>%1 items share these pixels: zoom in</i>").arg(near);
  }
  return text;
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  m_paint = TimelinePainter(*this, p).paint();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  setFocus();
  m_press_pos = m_last_pos = event->position().toPoint();
  if (event->button() == Qt::MiddleButton) {
    m_drag = Drag::Pan;
  } else if (event->button() == Qt::LeftButton) {
    const bool range = (event->modifiers() & Qt::ShiftModifier) || m_press_pos.y() < kRulerHeight;
    m_drag = range ? Drag::Range : Drag::Pending;
    m_press_time = std::clamp(timeAt(m_press_pos.x()), 0.0, m_axis.extent());
  }
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  if (m_drag == Drag::Pending && (pos - m_press_pos).manhattanLength() > 3) m_drag = Drag::Pan;
  if (m_drag == Drag::Pan) {
    m_axis.pan(pos.x() - m_last_pos.x());
    verticalScrollBar()->setValue(verticalScrollBar()->value() - (pos.y() - m_last_pos.y()));
    syncScrollBars();
    viewport()->update();
  } else if (m_drag == Drag::Range && std::abs(pos.x() - m_press_pos.x()) > 2) {
    setRange(m_press_time, std::clamp(timeAt(pos.x()), 0.0, m_axis.extent()));
  }
  m_last_pos = pos;
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  if (m_drag == Drag::Pending) {
    // A click: select the node under the cursor (as the other views do), or nothing.
    const auto [t, item] = itemAt(pos);
    if (t >= 0) m_doc->setSelection({m_tracks[static_cast<std::size_t>(t)].run.items[item].node});
    else m_doc->setSelection({});
  } else if (m_drag == Drag::Range && std::abs(pos.x() - m_press_pos.x()) <= 2) {
    clearRange();
  }
  m_drag = Drag::None;
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  if (event->modifiers() & Qt::ShiftModifier) {
    QAbstractScrollArea::wheelEvent(event);  // Shift+wheel scrolls the rows
    return;
  }
  const QPoint delta = event->angleDelta();
  if (delta.y() != 0) m_axis.zoomAt(event->position().x() - plotLeft(), std::pow(kWheelBase, delta.y()));
  if (delta.x() != 0) m_axis.pan(delta.x() / 2.0);
  syncScrollBars();
  viewport()->update();
  event->accept();
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomBy(1.25); break;
    case Qt::Key_Minus: zoomBy(0.8); break;
    case Qt::Key_F: fit(); break;
    case Qt::Key_Escape: clearRange(); break;
    case Qt::Key_Left:
      m_axis.pan(m_axis.width() / 8);
      syncScrollBars();
      viewport()->update();
      break;
    case Qt::Key_Right:
      m_axis.pan(-m_axis.width() / 8);
      syncScrollBars();
      viewport()->update();
      break;
    default: QAbstractScrollArea::keyPressEvent(event); return;
  }
  event->accept();
}

void TimelineView::contextMenuEvent(QContextMenuEvent* event) {
  QMenu menu(this);
  menu.addAction(tr("&Fit (F)"), this, &TimelineView::fit);
  menu.addAction(tr("Zoom &in (+)"), this, [this] { zoomBy(1.25); });
  menu.addAction(tr("Zoom &out (-)"), this, [this] { zoomBy(0.8); });
  menu.addSeparator();
  menu.addAction(m_arrows);
  QAction* clear = menu.addAction(tr("&Clear range (Esc)"), this, &TimelineView::clearRange);
  clear->setEnabled(hasRange());
  menu.exec(event->globalPos());
}

bool TimelineView::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const auto [t, item] = itemAt(help->pos());
    if (t >= 0) QToolTip::showText(help->globalPos(), itemToolTip(t, item), viewport());
    else QToolTip::hideText();
    return true;
  }
  return QAbstractScrollArea::viewportEvent(event);
}

}  // namespace weft::ui
