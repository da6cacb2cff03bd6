#pragma once
// Paints a TimelineView (private to the view): draws only what is visible and merges items
// narrower than a pixel into one darker block per row, as Tracy does.
#include <QFont>
#include <QPainter>
#include <QPalette>

#include "weft/ui/timeline_view.h"

namespace weft::ui {

// Layout shared by the view (hit tests, scrolling) and the painter.
inline constexpr int kTimelineLabelWidth = 190;
inline constexpr int kTimelineRulerHeight = 24;
inline constexpr int kTimelineHeaderHeight = 20;
inline constexpr int kTimelineRowHeight = 18;
inline constexpr int kTimelineGroupGap = 6;
inline constexpr std::size_t kTimelineNoItem = static_cast<std::size_t>(-1);
/// Items per block of a row's summary (TimelineView::Track::row_blocks).
inline constexpr std::size_t kTimelineRowBlock = 64;

class TimelinePainter {
 public:
  TimelinePainter(const TimelineView& view, QPainter& painter);
  /// Paints every layer; returns what was drawn. O(visible items + events).
  TimelineView::PaintStats paint();

 private:
  void paintBackgrounds();
  void paintItems();
  void paintArrows();
  void paintRange();
  void paintRuler();
  void paintLabels();

  static constexpr int kLabelWidth = kTimelineLabelWidth;
  static constexpr int kRulerHeight = kTimelineRulerHeight;
  static constexpr int kHeaderHeight = kTimelineHeaderHeight;
  static constexpr int kRowHeight = kTimelineRowHeight;
  static constexpr std::size_t kNoItem = kTimelineNoItem;

  const TimelineView& v;
  QPainter& p;
  const QPalette& pal;
  const int w, h, left;
  const double t0, t1;  ///< visible time range, µs
  QFont small;
  TimelineView::PaintStats m_stats;
};

}  // namespace weft::ui
