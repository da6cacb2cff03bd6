#include "weft/ui/timeline_view.h"

#include <QAction>
#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "weft/ui/stream_colors.h"
#include "weft/ui/studio_document.h"

namespace weft::ui {

namespace {
constexpr int kLabelWidth = 190;
constexpr int kRulerHeight = 24;
constexpr int kHeaderHeight = 20;
constexpr int kRowHeight = 18;
constexpr int kGroupGap = 6;
constexpr double kWheelBase = 1.0015;  // zoom per wheel unit: one notch (120) ≈ 1.2×
constexpr std::size_t kNoItem = static_cast<std::size_t>(-1);

/// "12.5 µs" / "3.25 ms" with as many decimals as `step` needs.
QString format_time(double us, double step) {
  const bool ms = step >= 1000;
  const double v = ms ? us / 1000 : us;
  const double s = ms ? step / 1000 : step;
  const int decimals = !(s > 0) ? 1 : s >= 1 ? 0 : std::min(4, static_cast<int>(std::ceil(-std::log10(s) - 1e-9)));
  return QString("%1 %2").arg(v, 0, 'f', decimals).arg(ms ? "ms" : "µs");
}

QString percent(double share) { return QString("%1%").arg(100.0 * share, 0, 'f', 0); }
}  // namespace

// ---------------------------------------------------------------------------------------------
// TimeAxis

double TimeAxis::fitPxPerUs() const { return m_extent > 0 ? m_width / m_extent : 1.0; }

void TimeAxis::clamp() {
  const double lo = fitPxPerUs();
  m_px_per_us = std::clamp(m_px_per_us, lo, std::max(lo, kMaxPxPerUs));
  m_start = std::clamp(m_start, 0.0, std::max(0.0, m_extent - m_width / m_px_per_us));
}

void TimeAxis::setExtent(double end_us) {
  m_extent = std::max(0.0, end_us);
  clamp();
}

void TimeAxis::setWidth(double px) {
  m_width = std::max(1.0, px);
  clamp();
}

void TimeAxis::fit() {
  m_px_per_us = fitPxPerUs();
  m_start = 0;
  clamp();
}

void TimeAxis::zoomAt(double anchor_px, double factor) {
  if (!(factor > 0)) return;
  const double anchor_time = toTime(anchor_px);
  const double lo = fitPxPerUs();
  m_px_per_us = std::clamp(m_px_per_us * factor, lo, std::max(lo, kMaxPxPerUs));
  m_start = anchor_time - anchor_px / m_px_per_us;
  clamp();
}

void TimeAxis::pan(double dx_px) {
  m_start -= dx_px / m_px_per_us;
  clamp();
}

void TimeAxis::setStart(double time_us) {
  m_start = time_us;
  clamp();
}

void TimeAxis::setVisibleRange(double t0_us, double t1_us) {
  if (t1_us < t0_us) std::swap(t0_us, t1_us);
  if (t1_us - t0_us <= 0) return;
  m_px_per_us = m_width / (t1_us - t0_us);
  m_start = t0_us;
  clamp();
}

double TimeAxis::tickStep(double min_spacing_px) const {
  const double raw = std::max(min_spacing_px, 1.0) / m_px_per_us;
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * decade >= raw * (1 - 1e-12)) return m * decade;
  return 10 * decade;
}

std::vector<double> TimeAxis::ticks(double min_spacing_px) const {
  const double step = tickStep(min_spacing_px);
  std::vector<double> out;
  const double first = std::ceil(m_start / step - 1e-9);
  const double last = end() + step * 1e-9;
  for (double k = first;; k += 1) {
    const double t = k * step;  // multiples, not repeated sums: no drift
    if (t > last) break;
    out.push_back(t);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Range statistics

RangeStats range_stats(const core::Timeline& timeline, double t0_us, double t1_us) {
  RangeStats r;
  r.label = timeline.label;
  r.t0_us = std::min(t0_us, t1_us);
  r.t1_us = std::max(t0_us, t1_us);
  const double length = r.t1_us - r.t0_us;
  int streams = std::max(0, timeline.stream_count);
  for (const core::TimelineItem& it : timeline.items) streams = std::max(streams, it.stream + 1);
  r.busy_share.assign(static_cast<std::size_t>(streams), 0.0);
  if (length <= 0) return r;
  std::vector<std::vector<std::pair<double, double>>> spans(static_cast<std::size_t>(streams));
  for (const core::TimelineItem& it : timeline.items) {
    const double a = std::max(it.start_us, r.t0_us), b = std::min(it.end_us, r.t1_us);
    if (b > a && it.stream >= 0) spans[static_cast<std::size_t>(it.stream)].emplace_back(a, b);
  }
  // Union per stream (a stream's items may touch or, in measured runs, overlap by rounding).
  std::vector<std::pair<double, int>> edges;
  double work = 0;
  for (std::size_t s = 0; s < spans.size(); ++s) {
    auto& v = spans[s];
    std::sort(v.begin(), v.end());
    double busy = 0;
    for (std::size_t i = 0; i < v.size();) {
      double a = v[i].first, b = v[i].second;
      for (++i; i < v.size() && v[i].first <= b; ++i) b = std::max(b, v[i].second);
      busy += b - a;
      edges.emplace_back(a, +1);
      edges.emplace_back(b, -1);
    }
    r.busy_share[s] = busy / length;
    work += busy;
  }
  // Sweep the unions: ends before starts at equal times, so touching spans do not overlap.
  std::sort(edges.begin(), edges.end());
  double active = 0, overlap = 0, prev = r.t0_us;
  int busy_streams = 0;
  for (const auto& [t, delta] : edges) {
    if (busy_streams >= 1) active += t - prev;
    if (busy_streams >= 2) overlap += t - prev;
    busy_streams += delta;
    prev = t;
  }
  r.active_share = active / length;
  r.overlap_share = overlap / length;
  r.speedup = active > 0 ? work / active : 0.0;
  return r;
}

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
    rebuild();
    fit();
  });
  connect(doc, &StudioDocument::scheduleChanged, this, &TimelineView::rebuild);
  connect(doc, &StudioDocument::runsChanged, this, &TimelineView::rebuild);
  connect(doc, &StudioDocument::selectionChanged, viewport(), qOverload<>(&QWidget::update));
  rebuild();
}

int TimelineView::rowHeight() { return kRowHeight; }
int TimelineView::plotLeft() const { return kLabelWidth; }
int TimelineView::plotWidth() const { return std::max(1, viewport()->width() - kLabelWidth); }
double TimelineView::viewX(double time_us) const { return plotLeft() + m_axis.toPixel(time_us); }
double TimelineView::timeAt(double viewport_x) const { return m_axis.toTime(viewport_x - plotLeft()); }

void TimelineView::rebuild() {
  m_tracks.clear();
  m_note.clear();
  if (m_doc->hasModel()) {
    auto add = [this](const core::Timeline& run) {
      Track t;
      t.run = run;
      int streams = std::max(1, run.stream_count);
      for (const core::TimelineItem& it : run.items) streams = std::max(streams, it.stream + 1);
      t.rows.resize(static_cast<std::size_t>(streams));
      // Items naming no node of this graph are left out (the views index per-node state by them).
      const auto nodes = static_cast<core::NodeId>(m_doc->graph().node_count());
      for (std::size_t i = 0; i < run.items.size(); ++i)
        if (run.items[i].stream >= 0 && run.items[i].node >= 0 && run.items[i].node < nodes)
          t.rows[static_cast<std::size_t>(run.items[i].stream)].push_back(i);
      for (auto& row : t.rows)
        std::sort(row.begin(), row.end(), [&run](std::size_t a, std::size_t b) {
          return std::pair(run.items[a].start_us, run.items[a].end_us) < std::pair(run.items[b].start_us, run.items[b].end_us);
        });
      m_tracks.push_back(std::move(t));
    };
    // The schedule's prediction, the document's runs (measured, imported), then the baselines.
    // A document run with a predicted run's label replaces it (an imported or pinned prediction).
    const auto& predicted = m_doc->predictedRuns();
    auto add_predicted = [&](std::size_t i) {
      if (i < predicted.size() && std::none_of(m_doc->runs().begin(), m_doc->runs().end(),
                                               [&](const core::Timeline& r) { return r.label == predicted[i].label; }))
        add(predicted[i]);
    };
    add_predicted(0);
    for (const core::Timeline& r : m_doc->runs()) add(r);
    add_predicted(1);
    add_predicted(2);
    if (m_doc->predictedRuns().empty())
      m_note = tr("No live prediction for this model (too large to simulate on every edit, or no device rates).");
  }
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
  const QPalette& pal = palette();
  const int w = viewport()->width(), h = viewport()->height();
  const int left = plotLeft();
  m_paint = {};
  p.fillRect(viewport()->rect(), pal.base());
  if (!m_doc->hasModel() || m_tracks.empty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(viewport()->rect(), Qt::AlignCenter | Qt::TextWordWrap,
               !m_doc->hasModel() ? tr("No model: the timeline shows predicted and measured runs") : m_note);
    return;
  }

  // Row backgrounds.
  for (int t = 0; t < static_cast<int>(m_tracks.size()); ++t) {
    const int top = rowTop(t, -1);
    p.fillRect(QRect(0, top, w, kHeaderHeight), pal.window());
    for (int s = 0; s < static_cast<int>(m_tracks[static_cast<std::size_t>(t)].rows.size()); ++s) {
      const int y = rowTop(t, s);
      if (y > h || y + kRowHeight < kRulerHeight) continue;
      p.fillRect(QRect(0, y, w, kRowHeight), s % 2 ? pal.alternateBase() : pal.base());
    }
  }

  // Items: each row in start order; binary search the first visible one, merge sub-pixel runs.
  p.setClipRect(QRect(left, kRulerHeight, w - left, h - kRulerHeight));
  const double t0 = m_axis.start(), t1 = m_axis.end();
  QFont small = font();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
  p.setFont(small);
  const QFontMetrics fm(small);
  std::vector<std::vector<std::size_t>> item_of(m_tracks.size());  // node → item, for arrows
  for (int t = 0; t < static_cast<int>(m_tracks.size()); ++t) {
    const Track& track = m_tracks[static_cast<std::size_t>(t)];
    const auto& items = track.run.items;
    for (int s = 0; s < static_cast<int>(track.rows.size()); ++s) {
      const int y = rowTop(t, s);
      if (y > h || y + kRowHeight < kRulerHeight) continue;
      const auto& row = track.rows[static_cast<std::size_t>(s)];
      const QColor color = stream_color(s);
      const QColor merged_color = color.darker(125);
      double bx0 = 0, bx1 = 0;
      int bcount = 0;
      std::size_t bitem = 0;
      auto draw_item = [&](std::size_t i, double x0, double x1) {
        const core::TimelineItem& it = items[i];
        const QRect r(static_cast<int>(std::floor(x0)), y + 2, std::max(1, static_cast<int>(std::floor(x1)) - static_cast<int>(std::floor(x0))),
                      kRowHeight - 4);
        p.fillRect(r, color);
        if (r.width() >= 4) {
          p.setPen(color.darker(150));
          p.drawRect(r.adjusted(0, 0, -1, -1));
        }
        if (r.width() >= 3 && m_doc->onCriticalPath(it.node)) p.fillRect(QRect(r.left(), r.top(), r.width(), 3), critical_color());
        if (m_doc->isSelected(it.node)) {
          p.setPen(QPen(selection_color(), 2));
          p.setBrush(Qt::NoBrush);
          p.drawRect(r.adjusted(-1, -1, 0, 0));
        }
        if (r.width() > 40) {
          p.setPen(Qt::white);
          p.drawText(r.adjusted(4, 1, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                     fm.elidedText(QString::fromStdString(m_doc->graph().node(it.node).op_type), Qt::ElideRight, r.width() - 6));
        }
        ++m_paint.items;
      };
      auto flush = [&] {
        if (bcount == 1) {
          draw_item(bitem, bx0, std::max(bx1, bx0 + 1));
        } else if (bcount > 1) {
          const int x0 = static_cast<int>(std::floor(bx0));
          p.fillRect(QRect(x0, y + 2, std::max(1, static_cast<int>(std::ceil(bx1)) - x0), kRowHeight - 4), merged_color);
          ++m_paint.merged_blocks;
          m_paint.merged_items += bcount;
        }
        bcount = 0;
      };
      auto it = std::lower_bound(row.begin(), row.end(), t0, [&items](std::size_t i, double x) { return items[i].end_us < x; });
      for (; it != row.end() && items[*it].start_us <= t1; ++it) {
        const double x0 = viewX(items[*it].start_us), x1 = viewX(items[*it].end_us);
        if (x1 - x0 < 1.0) {
          if (bcount > 0 && x0 <= bx1 + 1.0) {
            bx1 = std::max(bx1, x1);
            ++bcount;
          } else {
            flush();
            bx0 = x0;
            bx1 = std::max(x1, x0 + 1);
            bcount = 1;
            bitem = *it;
          }
          continue;
        }
        flush();
        draw_item(*it, x0, x1);
      }
      flush();
    }
  }

  // Event arrows: from the end of the recording item to the start of the waiting one.
  if (m_arrows->isChecked()) {
    p.setRenderHint(QPainter::Antialiasing);
    QColor arrow = pal.color(QPalette::Text);
    arrow.setAlpha(140);
    for (int t = 0; t < static_cast<int>(m_tracks.size()); ++t) {
      const Track& track = m_tracks[static_cast<std::size_t>(t)];
      if (track.run.events.empty()) continue;
      auto& index = item_of[static_cast<std::size_t>(t)];
      index.assign(m_doc->graph().node_count(), kNoItem);
      for (std::size_t i = 0; i < track.run.items.size(); ++i)
        if (track.run.items[i].node >= 0 && static_cast<std::size_t>(track.run.items[i].node) < index.size())
          index[static_cast<std::size_t>(track.run.items[i].node)] = i;
      for (const core::Event& e : track.run.events) {
        if (e.from < 0 || e.to < 0 || static_cast<std::size_t>(e.from) >= index.size() || static_cast<std::size_t>(e.to) >= index.size())
          continue;
        const std::size_t a = index[static_cast<std::size_t>(e.from)], b = index[static_cast<std::size_t>(e.to)];
        if (a == kNoItem || b == kNoItem) continue;
        const core::TimelineItem& ia = track.run.items[a];
        const core::TimelineItem& ib = track.run.items[b];
        if (std::max(ia.end_us, ib.start_us) < t0 || std::min(ia.end_us, ib.start_us) > t1) continue;
        const QPointF from(viewX(ia.end_us), rowTop(t, ia.stream) + kRowHeight / 2.0);
        const QPointF to(viewX(ib.start_us), rowTop(t, ib.stream) + kRowHeight / 2.0);
        if (std::max(from.y(), to.y()) < kRulerHeight || std::min(from.y(), to.y()) > h) continue;
        QPainterPath path(from);
        const double dx = std::clamp((to.x() - from.x()) / 2, 4.0, 40.0);
        path.cubicTo(from + QPointF(dx, 0), to - QPointF(dx, 0), to);
        const bool hot = m_doc->isSelected(e.from) || m_doc->isSelected(e.to);
        p.setPen(QPen(hot ? selection_color() : arrow, hot ? 1.6 : 0.9));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        const double dir = to.y() >= from.y() ? -1 : 1;  // arrow head points into the waiting item
        QPolygonF head;
        head << to << to + QPointF(-5, 3 * dir) << to + QPointF(-1, 5 * dir);
        p.setBrush(hot ? selection_color() : arrow);
        p.drawPolygon(head);
        ++m_paint.arrows;
      }
    }
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setBrush(Qt::NoBrush);
  }

  // Selected range with its statistics.
  if (hasRange()) {
    const double x0 = std::max<double>(left, viewX(m_range_t0)), x1 = std::min<double>(w, viewX(m_range_t1));
    QColor fill = selection_color();
    fill.setAlpha(40);
    if (x1 > x0) {
      p.fillRect(QRectF(x0, kRulerHeight, x1 - x0, h - kRulerHeight), fill);
      p.setPen(QPen(selection_color(), 1));
      p.drawLine(QPointF(x0, kRulerHeight), QPointF(x0, h));
      p.drawLine(QPointF(x1, kRulerHeight), QPointF(x1, h));
    }
    const QString text = rangeText();
    const QFontMetrics big(font());
    const QRect box = big.boundingRect(QRect(0, 0, w - left - 20, h), Qt::AlignLeft | Qt::TextWordWrap, text).adjusted(-6, -4, 6, 4);
    // Bottom right, where rows usually end; above the last rows when they fill the view.
    const QRect at(w - box.width() - 10, std::max(kRulerHeight + 8, h - box.height() - 10), box.width(), box.height());
    p.setFont(font());
    QColor back = pal.color(QPalette::Base);
    back.setAlpha(235);
    p.fillRect(at, back);
    p.setPen(QPen(selection_color(), 1));
    p.drawRect(at.adjusted(0, 0, -1, -1));
    p.setPen(pal.color(QPalette::Text));
    p.drawText(at.adjusted(6, 4, -6, -4), Qt::AlignLeft | Qt::TextWordWrap, text);
  }

  // Ruler.
  p.setClipping(false);
  p.fillRect(QRect(0, 0, w, kRulerHeight), pal.window());
  p.setPen(pal.color(QPalette::Mid));
  p.drawLine(0, kRulerHeight - 1, w, kRulerHeight - 1);
  p.setFont(small);
  const double step = m_axis.tickStep();
  for (double t : m_axis.ticks()) {
    const int x = static_cast<int>(std::lround(viewX(t)));
    if (x < left) continue;
    p.setPen(pal.color(QPalette::Mid));
    p.drawLine(x, kRulerHeight - 7, x, kRulerHeight - 1);
    p.setPen(pal.color(QPalette::WindowText));
    p.drawText(QRect(x + 3, 2, 120, kRulerHeight - 6), Qt::AlignLeft | Qt::AlignVCenter, format_time(t, step));
  }
  if (hasRange()) {
    QColor band = selection_color();
    band.setAlpha(90);
    const double x0 = std::max<double>(left, viewX(m_range_t0)), x1 = std::min<double>(w, viewX(m_range_t1));
    if (x1 > x0) p.fillRect(QRectF(x0, kRulerHeight - 6, x1 - x0, 5), band);
  }

  // Row labels over everything at the left; each run's title runs along its header band.
  p.fillRect(QRect(0, kRulerHeight, left, h - kRulerHeight), pal.window());
  p.setPen(pal.color(QPalette::Mid));
  p.drawLine(left - 1, 0, left - 1, h);
  p.setClipRect(QRect(0, kRulerHeight, w, h - kRulerHeight));
  QFont bold = font();
  bold.setBold(true);
  for (int t = 0; t < static_cast<int>(m_tracks.size()); ++t) {
    const Track& track = m_tracks[static_cast<std::size_t>(t)];
    const int top = rowTop(t, -1);
    if (top > h) break;
    const double makespan = track.run.makespan_us();
    QString title = QString("%1 · %2").arg(QString::fromStdString(track.run.label), format_time(makespan, makespan / 1000));
    if (!track.run.device.empty()) title += QString(" · %1").arg(QString::fromStdString(track.run.device));
    if (track.run.kind != "measured" && m_doc->costsCalibrated()) title += tr(" · measured node times");
    if (track.run.kind == "predicted" && makespan > 0) {
      // The predicted schedule against the baselines simulated with the same costs and device.
      for (const Track& other : m_tracks)
        if (other.run.kind == "sequential-eager" || other.run.kind == "sequential-graph")
          title += tr(" · %1× vs %2")
                       .arg(other.run.makespan_us() / makespan, 0, 'f', 2)
                       .arg(other.run.kind == "sequential-eager" ? tr("eager") : tr("graph"));
    }
    p.setFont(bold);
    p.setPen(pal.color(QPalette::WindowText));
    p.drawText(QRect(6, top, w - 12, kHeaderHeight), Qt::AlignVCenter | Qt::AlignLeft, title);
    p.setFont(small);
    for (int s = 0; s < static_cast<int>(track.rows.size()); ++s) {
      const int y = rowTop(t, s);
      if (y > h || y + kRowHeight < kRulerHeight) continue;
      p.fillRect(QRect(14, y + 5, 8, kRowHeight - 10), stream_color(s));
      p.setPen(pal.color(QPalette::WindowText));
      p.drawText(QRect(28, y, left - 32, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft, tr("stream %1").arg(s));
    }
  }
  p.setClipping(false);
  p.fillRect(QRect(0, 0, left - 1, kRulerHeight - 1), pal.window());
  p.setPen(pal.color(QPalette::PlaceholderText));
  p.drawText(QRect(6, 0, left - 10, kRulerHeight), Qt::AlignVCenter | Qt::AlignLeft, tr("run / stream"));
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
