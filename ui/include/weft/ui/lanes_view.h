#pragma once
// Stream lanes: one lane per stream, the nodes as boxes in stream order, placed as early as
// stream order and events allow; event arrows between lanes. Dragging nodes edits the schedule
// through StudioDocument (one undo step per drop); rubber band selects.
#include <QAbstractScrollArea>
#include <QFutureWatcher>
#include <QPoint>
#include <QRect>
#include <cstdint>
#include <utility>
#include <vector>

#include "weft/core/graph/graph.h"

namespace weft::ui {

class StudioDocument;

class LanesView : public QAbstractScrollArea {
  Q_OBJECT
 public:
  enum class WidthMode { Uniform, PredictedTime };

  explicit LanesView(StudioDocument* doc, QWidget* parent = nullptr);
  ~LanesView() override;

  void setWidthMode(WidthMode mode);
  WidthMode widthMode() const { return m_mode; }

  /// Box of node n in viewport coordinates (may lie outside the viewport).
  QRect nodeRect(core::NodeId n) const;
  /// Lane under viewport y, or -1.
  int laneAt(int y) const;
  /// A viewport point where dropping the current selection lands it at `position` (counted among
  /// the lane's unselected nodes) of `stream`.
  QPoint dropPoint(int stream, int position) const;
  /// Scrolls so node n is visible.
  void ensureNodeVisible(core::NodeId n);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;

 private:
  void relayout();
  /// Places the boxes of the current schedule in the worker (coalesced: the latest schedule wins).
  void launchRelayout();
  void updateScrollBars();
  core::NodeId nodeAt(QPoint viewport_pos) const;
  int contentX(int viewport_x) const;
  int viewX(double content_x) const;
  int laneTop(int lane) const;
  /// Target (stream, position) for a drop at viewport point p.
  std::pair<int, int> dropTarget(QPoint p) const;

  StudioDocument* m_doc;
  WidthMode m_mode = WidthMode::PredictedTime;
  double m_zoom = 1.0;
  std::vector<double> m_x, m_w;  ///< content x and width per node (unzoomed px)
  double m_content_width = 0;
  // Interaction state.
  core::NodeId m_press_node = core::kNoNode;
  QPoint m_press_pos, m_drag_pos;
  bool m_dragging = false;
  bool m_rubber = false;
  bool m_awaiting_edit = false;  ///< dropped here; the edit is being checked (its refusal shows here)
  // A large model's boxes placed in the worker after an edit (x per node, content width).
  QFutureWatcher<std::pair<std::vector<double>, double>> m_relayout_watcher;
  bool m_relayout_running = false;
  bool m_relayout_dirty = false;  ///< the schedule changed since the running job started
  std::uint64_t m_layout_serial = 0;    ///< bumped by every relayout here and every job launched
  std::uint64_t m_job_serial = 0;       ///< the running job's: applied only if still the latest
};

}  // namespace weft::ui
