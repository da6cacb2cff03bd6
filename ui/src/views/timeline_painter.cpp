// The timeline's paint, one pass per layer: row backgrounds, items (sub-pixel runs merged),
// event arrows, the selected range, the ruler and the row labels drawn over the left margin.
#include "timeline_painter.h"

#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "weft/ui/stream_colors.h"
#include "weft/ui/studio_document.h"

namespace weft::ui {

TimelinePainter::TimelinePainter(const TimelineView& view, QPainter& painter)
    : v(view), p(painter), pal(view.palette()), w(view.viewport()->width()), h(view.viewport()->height()),
      left(view.plotLeft()), t0(view.m_axis.start()), t1(view.m_axis.end()), small(view.font()) {
  small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
}

TimelineView::PaintStats TimelinePainter::paint() {
  p.fillRect(v.viewport()->rect(), pal.base());
  if (!v.m_doc->hasModel() || v.m_tracks.empty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(v.viewport()->rect(), Qt::AlignCenter | Qt::TextWordWrap,
               !v.m_doc->hasModel() ? TimelineView::tr("No model: the timeline shows predicted and measured runs") : v.m_note);
    return m_stats;
  }
  paintBackgrounds();
  paintItems();
  if (v.m_arrows->isChecked()) paintArrows();
  if (v.hasRange()) paintRange();
  paintRuler();
  paintLabels();
  return m_stats;
}

void TimelinePainter::paintBackgrounds() {
  for (int t = 0; t < static_cast<int>(v.m_tracks.size()); ++t) {
    const int top = v.rowTop(t, -1);
    p.fillRect(QRect(0, top, w, kHeaderHeight), pal.window());
    for (int s = 0; s < static_cast<int>(v.m_tracks[static_cast<std::size_t>(t)].rows.size()); ++s) {
      const int y = v.rowTop(t, s);
      if (y > h || y + kRowHeight < kRulerHeight) continue;
      p.fillRect(QRect(0, y, w, kRowHeight), s % 2 ? pal.alternateBase() : pal.base());
    }
  }
}

void TimelinePainter::paintItems() {
  // Each row in start order; binary search the first visible one, merge sub-pixel runs.
  p.setClipRect(QRect(left, kRulerHeight, w - left, h - kRulerHeight));
  p.setFont(small);
  const QFontMetrics fm(small);
  for (int t = 0; t < static_cast<int>(v.m_tracks.size()); ++t) {
    const TimelineView::Track& track = v.m_tracks[static_cast<std::size_t>(t)];
    const auto& items = track.run.items;
    for (int s = 0; s < static_cast<int>(track.rows.size()); ++s) {
      const int y = v.rowTop(t, s);
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
        if (r.width() >= 3 && v.m_doc->onCriticalPath(it.node)) p.fillRect(QRect(r.left(), r.top(), r.width(), 3), critical_color());
        if (v.m_doc->isSelected(it.node)) {
          p.setPen(QPen(selection_color(), 2));
          p.setBrush(Qt::NoBrush);
          p.drawRect(r.adjusted(-1, -1, 0, 0));
        }
        if (r.width() > 40) {
          p.setPen(Qt::white);
          p.drawText(r.adjusted(4, 1, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                     fm.elidedText(QString::fromStdString(v.m_doc->graph().node(it.node).op_type), Qt::ElideRight, r.width() - 6));
        }
        ++m_stats.items;
      };
      auto flush = [&] {
        if (bcount == 1) {
          draw_item(bitem, bx0, std::max(bx1, bx0 + 1));
        } else if (bcount > 1) {
          const int x0 = static_cast<int>(std::floor(bx0));
          p.fillRect(QRect(x0, y + 2, std::max(1, static_cast<int>(std::ceil(bx1)) - x0), kRowHeight - 4), merged_color);
          ++m_stats.merged_blocks;
          m_stats.merged_items += bcount;
        }
        bcount = 0;
      };
      auto it = std::lower_bound(row.begin(), row.end(), t0, [&items](std::size_t i, double x) { return items[i].end_us < x; });
      // viewX inlined: a fitted 100k-item run visits every item.
      const double axis_start = v.m_axis.start(), px_per_us = v.m_axis.pxPerUs();
      const auto view_x = [&](double time) { return left + (time - axis_start) * px_per_us; };
      // After item `at` joined a run of sub-pixel items: whole blocks of the row that would join
      // it one by one (every item under a pixel, the last starting within the run, and in view)
      // join at once. The run, its count and its end come out as the loop would make them.
      const auto& blocks = track.row_blocks[static_cast<std::size_t>(s)];
      const auto merge_blocks = [&](std::vector<std::size_t>::const_iterator at) {
        std::size_t q = static_cast<std::size_t>(at - row.begin()) + 1;
        while (q % kTimelineRowBlock == 0 && q + kTimelineRowBlock <= row.size()) {
          const auto [longest, latest] = blocks[q / kTimelineRowBlock];
          const core::TimelineItem& last = items[row[q + kTimelineRowBlock - 1]];
          if (longest * px_per_us >= 0.999 || last.start_us > t1 || view_x(last.start_us) > bx1 + 1.0) break;
          bx1 = std::max(bx1, view_x(latest));
          bcount += static_cast<int>(kTimelineRowBlock);
          q += kTimelineRowBlock;
        }
        return row.begin() + static_cast<std::ptrdiff_t>(q - 1);
      };
      for (; it != row.end() && items[*it].start_us <= t1; ++it) {
        const core::TimelineItem& item = items[*it];
        const double x0 = view_x(item.start_us), x1 = view_x(item.end_us);
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
          it = merge_blocks(it);
          continue;
        }
        flush();
        draw_item(*it, x0, x1);
      }
      flush();
    }
  }

}

void TimelinePainter::paintArrows() {
  // From the end of the recording item to the start of the waiting one.
  p.setRenderHint(QPainter::Antialiasing);
  QColor arrow = pal.color(QPalette::Text);
  arrow.setAlpha(140);
  for (int t = 0; t < static_cast<int>(v.m_tracks.size()); ++t) {
    const TimelineView::Track& track = v.m_tracks[static_cast<std::size_t>(t)];
    if (track.run.events.empty()) continue;
    const std::vector<std::size_t>& index = track.item_of_node;
    // The arrows in view first: past kMaxArrows only the selection's are drawn.
    struct Arrow {
      QPointF from, to;
      bool hot;
    };
    std::vector<Arrow> arrows;
    for (const core::Event& e : track.run.events) {
      if (e.from < 0 || e.to < 0 || static_cast<std::size_t>(e.from) >= index.size() || static_cast<std::size_t>(e.to) >= index.size())
        continue;
      const std::size_t a = index[static_cast<std::size_t>(e.from)], b = index[static_cast<std::size_t>(e.to)];
      if (a == kNoItem || b == kNoItem) continue;
      const core::TimelineItem& ia = track.run.items[a];
      const core::TimelineItem& ib = track.run.items[b];
      if (std::max(ia.end_us, ib.start_us) < t0 || std::min(ia.end_us, ib.start_us) > t1) continue;
      const QPointF from(v.viewX(ia.end_us), v.rowTop(t, ia.stream) + kRowHeight / 2.0);
      const QPointF to(v.viewX(ib.start_us), v.rowTop(t, ib.stream) + kRowHeight / 2.0);
      if (std::max(from.y(), to.y()) < kRulerHeight || std::min(from.y(), to.y()) > h) continue;
      arrows.push_back({from, to, v.m_doc->isSelected(e.from) || v.m_doc->isSelected(e.to)});
    }
    const bool crowded = static_cast<int>(arrows.size()) > TimelineView::kMaxArrows;
    for (const Arrow& arrow_at : arrows) {
      const bool hot = arrow_at.hot;
      if (crowded && !hot) {
        ++m_stats.hidden_arrows;
        continue;
      }
      const QPointF from = arrow_at.from, to = arrow_at.to;
      QPainterPath path(from);
      const double dx = std::clamp((to.x() - from.x()) / 2, 4.0, 40.0);
      path.cubicTo(from + QPointF(dx, 0), to - QPointF(dx, 0), to);
      p.setPen(QPen(hot ? selection_color() : arrow, hot ? 1.6 : 0.9));
      p.setBrush(Qt::NoBrush);
      p.drawPath(path);
      const double dir = to.y() >= from.y() ? -1 : 1;  // arrow head points into the waiting item
      QPolygonF head;
      head << to << to + QPointF(-5, 3 * dir) << to + QPointF(-1, 5 * dir);
      p.setBrush(hot ? selection_color() : arrow);
      p.drawPolygon(head);
      ++m_stats.arrows;
    }
  }
  if (m_stats.hidden_arrows > 0) {
    // Said where the arrows would be: over the ruler's right end.
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setFont(small);
    const QString note = TimelineView::tr("%1 event arrows in view: zoom in to draw them").arg(m_stats.hidden_arrows);
    const QFontMetrics fm(small);
    const QRect box(w - fm.horizontalAdvance(note) - 14, kRulerHeight + 2, fm.horizontalAdvance(note) + 10, fm.height() + 4);
    p.fillRect(box, pal.toolTipBase());
    p.setPen(pal.color(QPalette::ToolTipText));
    p.drawText(box, Qt::AlignCenter, note);
  }
  p.setRenderHint(QPainter::Antialiasing, false);
  p.setBrush(Qt::NoBrush);
}

void TimelinePainter::paintRange() {
  // The selected range with its statistics.
  const double x0 = std::max<double>(left, v.viewX(v.m_range_t0)), x1 = std::min<double>(w, v.viewX(v.m_range_t1));
  QColor fill = selection_color();
  fill.setAlpha(40);
  if (x1 > x0) {
    p.fillRect(QRectF(x0, kRulerHeight, x1 - x0, h - kRulerHeight), fill);
    p.setPen(QPen(selection_color(), 1));
    p.drawLine(QPointF(x0, kRulerHeight), QPointF(x0, h));
    p.drawLine(QPointF(x1, kRulerHeight), QPointF(x1, h));
  }
  const QString text = v.rangeText();
  const QFontMetrics big(v.font());
  const QRect box = big.boundingRect(QRect(0, 0, w - left - 20, h), Qt::AlignLeft | Qt::TextWordWrap, text).adjusted(-6, -4, 6, 4);
  // Bottom right, where rows usually end; above the last rows when they fill the view.
  const QRect at(w - box.width() - 10, std::max(kRulerHeight + 8, h - box.height() - 10), box.width(), box.height());
  p.setFont(v.font());
  QColor back = pal.color(QPalette::Base);
  back.setAlpha(235);
  p.fillRect(at, back);
  p.setPen(QPen(selection_color(), 1));
  p.drawRect(at.adjusted(0, 0, -1, -1));
  p.setPen(pal.color(QPalette::Text));
  p.drawText(at.adjusted(6, 4, -6, -4), Qt::AlignLeft | Qt::TextWordWrap, text);
}

void TimelinePainter::paintRuler() {
  p.setClipping(false);
  p.fillRect(QRect(0, 0, w, kRulerHeight), pal.window());
  p.setPen(pal.color(QPalette::Mid));
  p.drawLine(0, kRulerHeight - 1, w, kRulerHeight - 1);
  p.setFont(small);
  const double step = v.m_axis.tickStep();
  for (double t : v.m_axis.ticks()) {
    const int x = static_cast<int>(std::lround(v.viewX(t)));
    if (x < left) continue;
    p.setPen(pal.color(QPalette::Mid));
    p.drawLine(x, kRulerHeight - 7, x, kRulerHeight - 1);
    p.setPen(pal.color(QPalette::WindowText));
    p.drawText(QRect(x + 3, 2, 120, kRulerHeight - 6), Qt::AlignLeft | Qt::AlignVCenter, format_time(t, step));
  }
  if (v.hasRange()) {
    QColor band = selection_color();
    band.setAlpha(90);
    const double x0 = std::max<double>(left, v.viewX(v.m_range_t0)), x1 = std::min<double>(w, v.viewX(v.m_range_t1));
    if (x1 > x0) p.fillRect(QRectF(x0, kRulerHeight - 6, x1 - x0, 5), band);
  }

}

void TimelinePainter::paintLabels() {
  // Over everything at the left; each run's title runs along its header band.
  p.fillRect(QRect(0, kRulerHeight, left, h - kRulerHeight), pal.window());
  p.setPen(pal.color(QPalette::Mid));
  p.drawLine(left - 1, 0, left - 1, h);
  p.setClipRect(QRect(0, kRulerHeight, w, h - kRulerHeight));
  QFont bold = v.font();
  bold.setBold(true);
  for (int t = 0; t < static_cast<int>(v.m_tracks.size()); ++t) {
    const TimelineView::Track& track = v.m_tracks[static_cast<std::size_t>(t)];
    const int top = v.rowTop(t, -1);
    if (top > h) break;
    const double makespan = track.run.makespan_us();
    QString title = QString("%1 · %2").arg(QString::fromStdString(track.run.label), format_time(makespan, makespan / 1000));
    if (!track.run.device.empty()) title += QString(" · %1").arg(QString::fromStdString(track.run.device));
    if (track.run.kind != core::RunKind::Measured && v.m_doc->costsCalibrated()) title += TimelineView::tr(" · measured node times");
    const auto& study = v.m_doc->study();
    if (track.live_prediction && study && study->prediction) {
      // The study's speedups over the baselines simulated with the same costs and device (the
      // figures `weft simulate` prints), from the same study as the track.
      title += TimelineView::tr(" · %1× vs eager · %2× vs graph")
                   .arg(study->prediction->speedup_vs_eager, 0, 'f', 2)
                   .arg(study->prediction->speedup_vs_graph, 0, 'f', 2);
      // An edit's prediction runs in the worker: until it arrives this is the previous schedule's.
      if (v.m_doc->predictionPending()) title += TimelineView::tr(" · previous schedule, updating…");
    }
    p.setFont(bold);
    p.setPen(pal.color(QPalette::WindowText));
    p.drawText(QRect(6, top, w - 12, kHeaderHeight), Qt::AlignVCenter | Qt::AlignLeft, title);
    p.setFont(small);
    for (int s = 0; s < static_cast<int>(track.rows.size()); ++s) {
      const int y = v.rowTop(t, s);
      if (y > h || y + kRowHeight < kRulerHeight) continue;
      p.fillRect(QRect(14, y + 5, 8, kRowHeight - 10), stream_color(s));
      p.setPen(pal.color(QPalette::WindowText));
      p.drawText(QRect(28, y, left - 32, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft, TimelineView::tr("stream %1").arg(s));
    }
  }
  p.setClipping(false);
  p.fillRect(QRect(0, 0, left - 1, kRulerHeight - 1), pal.window());
  p.setPen(pal.color(QPalette::PlaceholderText));
  p.drawText(QRect(6, 0, left - 10, kRulerHeight), Qt::AlignVCenter | Qt::AlignLeft, TimelineView::tr("run / stream"));
}

}  // namespace weft::ui
