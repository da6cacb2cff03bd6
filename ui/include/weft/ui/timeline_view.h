#pragma once
// Timeline view: the runs of the current model on one time axis. Rows are streams, grouped by
// run (predicted schedule, sequential eager and CUDA-graph baselines, measured runs). Wheel
// zooms at the cursor, dragging pans, Shift+drag (or a drag on the ruler) selects a range and
// shows its statistics; items narrower than a pixel merge into one block per row.
#include <QAbstractScrollArea>
#include <QPoint>
#include <string>
#include <vector>

#include "weft/core/graph/graph.h"
#include "weft/core/schedule/timeline.h"
#include "weft/ui/range_stats.h"
#include "weft/ui/time_axis.h"

class QAction;

namespace weft::ui {

class StudioDocument;

class TimelineView : public QAbstractScrollArea {
  Q_OBJECT
 public:
  explicit TimelineView(StudioDocument* doc, QWidget* parent = nullptr);

  /// One group of rows: a run and one row per stream.
  struct Track {
    core::Timeline run;  ///< the run shown, without its counter series (arena, compute and bandwidth use: drawn elsewhere)
    std::vector<std::vector<std::size_t>> rows;  ///< per stream: item indices sorted by start
    /// Per row, per block of 64 items in row order: the longest item's duration and the latest
    /// end, µs. Zoomed out, a paint merges whole blocks of sub-pixel items at once.
    std::vector<std::vector<std::pair<double, double>>> row_blocks;
    /// Per node of the graph, its item (the last one naming it), or kTimelineNoItem: what the
    /// event arrows are drawn between. Empty when the run has no events.
    std::vector<std::size_t> item_of_node;
    /// The document's live prediction of the current schedule (predictedRuns()[0]): its title
    /// quotes the study's speedups over both baselines.
    bool live_prediction = false;
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
    /// Event arrows in view but not drawn: more than kMaxArrows of one run are in view (zoom in
    /// to see them); those of selected nodes are drawn all the same.
    int hidden_arrows = 0;
  };
  /// At most this many event arrows of one run are drawn at once: past it they would cover the
  /// items.
  static constexpr int kMaxArrows = 2000;
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
  friend class TimelinePainter;
  void rebuild();
  /// The note shown without a prediction (predicting, failed, no device rates).
  void updateNote();
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
