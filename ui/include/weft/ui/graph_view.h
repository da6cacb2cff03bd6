#pragma once
// Layered graph view: ASAP levels are the layers (top to bottom), order within a layer by
// barycenter sweeps (Sugiyama et al., 1981), nodes coloured by stream, the critical path in red.
// Wheel zooms about the cursor, drag pans, fit() shows everything. Paints only what is visible
// and drops labels, then outlines, when zoomed out, so 5k+ node graphs stay fluid.
#include <QPointF>
#include <QRectF>
#include <QWidget>
#include <vector>

#include "weft/core/graph.h"

namespace weft::ui {

class StudioDocument;

class GraphView : public QWidget {
  Q_OBJECT
 public:
  explicit GraphView(StudioDocument* doc, QWidget* parent = nullptr);

  /// Fits the whole graph into the widget (Ctrl+0).
  void fit();
  /// Selects the next node whose name or operator contains `text` (case-insensitive) after the
  /// current selection, centres on it and returns the number of matches.
  int find(const QString& text);
  /// Centres the view on node n.
  void centerOn(core::NodeId n);
  /// Node under a widget point, or kNoNode.
  core::NodeId nodeAt(QPointF widget_pos) const;
  /// Node rectangle in layout (world) coordinates.
  QRectF nodeWorldRect(core::NodeId n) const;
  double scale() const { return m_scale; }
  /// Layer crossings after the barycenter sweeps (for tests and the status line).
  std::size_t crossings() const { return m_crossings; }

  QSize sizeHint() const override { return {640, 480}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void relayout();
  QPointF toWorld(QPointF widget_pos) const;
  QPointF toWidget(QPointF world) const;

  StudioDocument* m_doc;
  std::vector<QPointF> m_pos;  ///< world centre per node
  QRectF m_bounds;
  std::size_t m_crossings = 0;
  double m_scale = 1.0;
  QPointF m_offset;  ///< widget = world * scale + offset
  QPointF m_press_pos;
  QPointF m_press_offset;
  bool m_panning = false;
  bool m_fit_pending = true;
};

}  // namespace weft::ui
