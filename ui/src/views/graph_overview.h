#pragma once
// The graph view's overview picture of a large graph zoomed out (issue 45): drawn in the worker
// pool from a snapshot of the layout, shown by the view without visiting a node.
#include <QColor>
#include <QImage>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <memory>
#include <vector>

#include "weft/core/graph/graph.h"

namespace weft::ui::detail {

/// What the picture shows: positions, edges, fills and the critical path (taken on the GUI thread).
struct OverviewInput {
  std::shared_ptr<const core::Graph> graph;
  std::vector<QPointF> pos;
  std::vector<QColor> fill;
  std::vector<int> crit_index;  ///< per node: its place on the critical path, or -1
  QColor edge;
  QPointF half;  ///< from a node's centre to where its edges leave it
  QSizeF node;   ///< a node's world size
};

/// The graph over `bounds` at `scale` pixels per world unit: edges as lines (the critical
/// path's in its colour), nodes as filled rectangles. On any thread; O(V + E).
QImage render_overview(const OverviewInput& in, const QRectF& bounds, double scale);

}  // namespace weft::ui::detail
