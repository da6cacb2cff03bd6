#pragma once
// The graph view's cell index (issue 45): nodes and edges of a laid-out graph filed by the cells
// of a grid over its bounds, so that a zoomed-in paint visits those near the view instead of
// testing every node's and edge's rectangle (the wrapped layout's bands are not rows: a grid
// holds any arrangement).
#include <QPointF>
#include <QRectF>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "weft/core/graph/graph.h"

namespace weft::ui::detail {

/// An edge between nodes centred at `from` and `to`: it leaves `half` past the first's centre
/// and enters `half` before the second's, bending along `flow_dir` by half the way ahead, or by
/// `back_bend` when the second lies behind (an edge into a later band curves back to enter from
/// before). `c1`, `c2`: the curve's control points; `box` holds the whole curve.
struct EdgeShape {
  QPointF a, b, c1, c2;
  double bend;
  QRectF box;
};
inline EdgeShape edge_shape(QPointF from, QPointF to, QPointF half, QPointF flow_dir, double back_bend) {
  EdgeShape e;
  e.a = from + half;
  e.b = to - half;
  const double ahead = QPointF::dotProduct(e.b - e.a, flow_dir);
  e.bend = ahead > 0 ? ahead / 2 : back_bend;
  e.c1 = e.a + flow_dir * e.bend;
  e.c2 = e.b - flow_dir * e.bend;
  e.box = QRectF(e.a, e.b).normalized().adjusted(-e.bend, -e.bend, e.bend, e.bend);
  return e;
}

/// Edge ids number each node's successors in node order: the order of a pass over every edge.
class GraphCells {
 public:
  /// Files each node's rectangle (`node_rect(v)`) and each edge's box (`edge_box(u, v)`) in
  /// square cells of about `per_cell` nodes, at least `min_cell` wide, over `bounds`; an edge
  /// whose box spans more than `long_cells` cells goes to one list every query returns.
  /// O(V + E) time and memory.
  void build(const core::Graph& g, const QRectF& bounds, double min_cell, double per_cell, long long_cells,
             const std::function<QRectF(std::size_t)>& node_rect,
             const std::function<QRectF(std::size_t, core::NodeId)>& edge_box);
  void clear() { *this = GraphCells{}; }
  /// The nodes and edges whose rectangles may meet `view` (a superset), ascending and once
  /// each; false when there is no index or most cells are in view (a pass over all is as cheap).
  /// O(k log k) for the k filed in the cells in view.
  bool candidates(const QRectF& view, std::vector<std::uint32_t>& nodes, std::vector<std::uint32_t>& edges) const;
  /// Edge `k`'s source and target. O(log V).
  std::pair<std::size_t, core::NodeId> edge(const core::Graph& g, std::uint32_t k) const;

 private:
  struct Span {
    int c0, c1, r0, r1;
    long count() const { return static_cast<long>(c1 - c0 + 1) * (r1 - r0 + 1); }
  };
  /// The cells `r` covers, clamped to the grid: a box poking out of the bounds files (and a
  /// view beyond them finds) the border cells.
  Span span(const QRectF& r) const;
  /// Compressed rows of the `n` boxes `box_of` gives (those it gives at all).
  void file(std::size_t n, const std::function<bool(std::size_t, QRectF&)>& box_of, std::vector<std::uint32_t>& start,
            std::vector<std::uint32_t>& ids) const;

  QRectF m_bounds;
  double m_cell = 0;
  int m_cols = 0, m_rows = 0;
  std::vector<std::uint32_t> m_node_start, m_nodes, m_edge_start, m_edges, m_long_edges, m_edge_first;
};

}  // namespace weft::ui::detail
