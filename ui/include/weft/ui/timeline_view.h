#pragma once
// Timeline view: the runs of the current model on one time axis. Rows are streams, grouped by
// run (predicted schedule, sequential eager and CUDA-graph baselines, measured runs). Wheel
// zooms at the cursor, dragging pans, Shift+drag (or a drag on the ruler) selects a range and
// shows its statistics; items narrower than a pixel merge into one block per row.
#include <QAbstractScrollArea>
#include <QPoint>
#include <string>
#include <vector>

#include "weft/core/graph.h"
#include "weft/core/timeline.h"

class QAction;

namespace weft::ui {

class StudioDocument;

/// Time ↔ pixel mapping of a horizontal axis showing part of [0, extent] µs in `width` pixels.
/// Pure (no widgets) so it is tested on its own. Every change clamps: pixels per µs between the
/// zoom that fits the extent and kMaxPxPerUs, the visible range inside [0, extent].
class TimeAxis {
 public:
  static constexpr double kMaxPxPerUs = 2000;  ///< 0.5 ns per pixel

  /// Data range [0, end_us]; keeps the visible start, re-clamped.
  void setExtent(double end_us);
  /// Plot width in pixels; keeps the zoom and start, re-clamped.
  void setWidth(double px);
  double extent() const { return m_extent; }
  double width() const { return m_width; }
  double pxPerUs() const { return m_px_per_us; }
  /// Time at the left edge / right edge of the plot.
  double start() const { return m_start; }
  double end() const { return m_start + m_width / m_px_per_us; }
  /// Zoom that shows the whole extent.
  double fitPxPerUs() const;

  double toPixel(double time_us) const { return (time_us - m_start) * m_px_per_us; }
  double toTime(double px) const { return m_start + px / m_px_per_us; }

  /// Shows the whole extent.
  void fit();
  /// Multiplies the zoom by `factor`, keeping the time under `anchor_px` there (unless clamped).
  void zoomAt(double anchor_px, double factor);
  /// Moves the content by `dx_px` pixels (positive: right, showing earlier times).
  void pan(double dx_px);
  void setStart(double time_us);
  /// Shows [t0, t1] (clamped).
  void setVisibleRange(double t0_us, double t1_us);

  /// A 1-2-5 × 10^k µs step whose ticks are at least `min_spacing_px` apart.
  double tickStep(double min_spacing_px = 90) const;
  /// Multiples of tickStep() inside the visible range, ascending.
  std::vector<double> ticks(double min_spacing_px = 90) const;

 private:
  void clamp();
  double m_extent = 0;
  double m_width = 1;
  double m_px_per_us = 1;
  double m_start = 0;
};

/// Statistics of one run over a time range.
struct RangeStats {
  std::string label;
  double t0_us = 0, t1_us = 0;
  std::vector<double> busy_share;  ///< per stream: busy time in the range / range length
  double active_share = 0;         ///< some stream busy / range length
  double overlap_share = 0;        ///< two or more streams busy / range length
  /// Busy time summed over streams / time some stream is busy: how much faster the range ran than
  /// its work would one after another (1 when nothing overlaps, 0 when idle).
  double speedup = 0;
};
/// Clips every item to [t0, t1] and sweeps the per-stream busy unions. O(items log items).
RangeStats range_stats(const core::Timeline& timeline, double t0_us, double t1_us);

class TimelineView : public QAbstractScrollArea {
  Q_OBJECT
 public:
  explicit TimelineView(StudioDocument* doc, QWidget* parent = nullptr);

  /// One group of rows: a run and one row per stream.
  struct Track {
    core::Timeline run;
    std::vector<std::vector<std::size_t>> rows;  ///< per stream: item indices sorted by start
  };
  const std::vector<Track>& tracks() const { return m_tracks; }
  const TimeAxis& axis() const { return m_axis; }
  /// Viewport x of time t / time at viewport x (the plot starts right of the row labels).
  double viewX(double time_us) const;
  double timeAt(double viewport_x) const;
  /// Top of a row in viewport coordinates: the group header when stream < 0. Row height: rowHeight().
  int rowTop(int track, int stream) const;
  static int rowHeight();
  /// Box of item `item` of track `track` in viewport coordinates (width at least 1).
  QRect itemRect(int track, std::size_t item) const;
  /// Item under a viewport point: {track, item} or {-1, 0}.
  std::pair<int, std::size_t> itemAt(QPoint p) const;

  void fit();
  void zoomBy(double factor);
  void setVisibleRange(double t0_us, double t1_us);
  /// Selects [t0, t1] and computes its statistics per run; an empty range clears.
  void setRange(double t0_us, double t1_us);
  void clearRange();
  bool hasRange() const { return m_range_t1 > m_range_t0; }
  const std::vector<RangeStats>& rangeStats() const { return m_stats; }
  /// The statistics overlay's text (one line per run), empty without a range.
  QString rangeText() const;

  QAction* arrowsAction() const { return m_arrows; }

  /// What the last paint drew (tests and the merge check): boxes of single items and merged blocks.
  struct PaintStats {
    int items = 0;
    int merged_blocks = 0;
    int merged_items = 0;
    int arrows = 0;
  };
  const PaintStats& lastPaint() const { return m_paint; }

 signals:
  void rangeChanged();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
  bool viewportEvent(QEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;

 private:
  void rebuild();
  void syncScrollBars();
  int contentHeight() const;
  /// Track and stream (-1: header) of a viewport y, or {-1, -1}.
  std::pair<int, int> rowAt(int y) const;
  int plotLeft() const;
  int plotWidth() const;
  QString itemToolTip(int track, std::size_t item) const;

  StudioDocument* m_doc;
  TimeAxis m_axis;
  std::vector<Track> m_tracks;
  std::vector<int> m_track_top;  ///< content y of each track's header
  QString m_note;                ///< shown when no prediction is available
  QAction* m_arrows;
  double m_range_t0 = 0, m_range_t1 = 0;
  std::vector<RangeStats> m_stats;
  PaintStats m_paint;
  // Interaction state.
  enum class Drag { None, Pending, Pan, Range };
  Drag m_drag = Drag::None;
  QPoint m_press_pos, m_last_pos;
  double m_press_time = 0;
  bool m_syncing = false;
  double m_scroll_scale = 1;  ///< pixels per horizontal scroll bar unit
};

}  // namespace weft::ui
