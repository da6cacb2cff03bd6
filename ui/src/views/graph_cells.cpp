#include "graph_cells.h"

#include <algorithm>
#include <cmath>

namespace weft::ui::detail {

GraphCells::Span GraphCells::span(const QRectF& r) const {
  const auto at = [this](double v, double origin, int n) {
    return std::clamp(static_cast<int>(std::floor((v - origin) / m_cell)), 0, n - 1);
  };
  return Span{at(r.left(), m_bounds.left(), m_cols), at(r.right(), m_bounds.left(), m_cols),
              at(r.top(), m_bounds.top(), m_rows), at(r.bottom(), m_bounds.top(), m_rows)};
}

void GraphCells::file(std::size_t n, const std::function<bool(std::size_t, QRectF&)>& box_of,
                      std::vector<std::uint32_t>& start, std::vector<std::uint32_t>& ids) const {
  const auto cells = static_cast<std::size_t>(m_cols) * static_cast<std::size_t>(m_rows);
  const auto for_cells = [this](const Span& s, auto&& f) {
    for (int r = s.r0; r <= s.r1; ++r)
      for (int c = s.c0; c <= s.c1; ++c) f(static_cast<std::size_t>(r) * static_cast<std::size_t>(m_cols) + static_cast<std::size_t>(c));
  };
  start.assign(cells + 1, 0);
  QRectF box;
  for (std::size_t i = 0; i < n; ++i)
    if (box_of(i, box)) for_cells(span(box), [&](std::size_t cell) { ++start[cell + 1]; });
  for (std::size_t k = 0; k < cells; ++k) start[k + 1] += start[k];
  ids.resize(start[cells]);
  std::vector<std::uint32_t> next(start.begin(), start.end() - 1);
  for (std::size_t i = 0; i < n; ++i)
    if (box_of(i, box)) for_cells(span(box), [&](std::size_t cell) { ids[next[cell]++] = static_cast<std::uint32_t>(i); });
}

void GraphCells::build(const core::Graph& g, const QRectF& bounds, double min_cell, double per_cell, long long_cells,
                       const std::function<QRectF(std::size_t)>& node_rect,
                       const std::function<QRectF(std::size_t, core::NodeId)>& edge_box) {
  clear();
  const std::size_t nodes = g.node_count();
  if (nodes == 0 || bounds.isEmpty()) return;
  m_bounds = bounds;
  m_cell = std::max(min_cell, std::sqrt(bounds.width() * bounds.height() * per_cell / static_cast<double>(nodes)));
  m_cols = std::max(1, static_cast<int>(std::ceil(bounds.width() / m_cell)));
  m_rows = std::max(1, static_cast<int>(std::ceil(bounds.height() / m_cell)));
  file(nodes, [&](std::size_t v, QRectF& box) {
    box = node_rect(v);
    return true;
  }, m_node_start, m_nodes);
  m_edge_first.assign(nodes + 1, 0);
  for (std::size_t u = 0; u < nodes; ++u)
    m_edge_first[u + 1] = m_edge_first[u] + static_cast<std::uint32_t>(g.successors(static_cast<core::NodeId>(u)).size());
  std::vector<QRectF> boxes(m_edge_first.back());
  for (std::size_t u = 0; u < nodes; ++u) {
    std::uint32_t k = m_edge_first[u];
    for (core::NodeId v : g.successors(static_cast<core::NodeId>(u))) boxes[k++] = edge_box(u, v);
  }
  std::vector<bool> is_long(boxes.size());
  for (std::size_t k = 0; k < boxes.size(); ++k)
    if (span(boxes[k]).count() > long_cells) {
      is_long[k] = true;
      m_long_edges.push_back(static_cast<std::uint32_t>(k));
    }
  file(boxes.size(), [&](std::size_t k, QRectF& box) {
    box = boxes[k];
    return !is_long[k];
  }, m_edge_start, m_edges);
}

bool GraphCells::candidates(const QRectF& view, std::vector<std::uint32_t>& nodes, std::vector<std::uint32_t>& edges) const {
  if (m_cols == 0) return false;
  const Span s = span(view);
  if (s.count() * 4 > static_cast<long>(m_cols) * m_rows) return false;
  nodes.clear();
  edges = m_long_edges;
  for (int r = s.r0; r <= s.r1; ++r)
    for (int c = s.c0; c <= s.c1; ++c) {
      const std::size_t cell = static_cast<std::size_t>(r) * static_cast<std::size_t>(m_cols) + static_cast<std::size_t>(c);
      nodes.insert(nodes.end(), m_nodes.begin() + m_node_start[cell], m_nodes.begin() + m_node_start[cell + 1]);
      edges.insert(edges.end(), m_edges.begin() + m_edge_start[cell], m_edges.begin() + m_edge_start[cell + 1]);
    }
  // Ascending and once each: the order a pass over all of them draws in.
  for (auto* ids : {&nodes, &edges}) {
    std::sort(ids->begin(), ids->end());
    ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
  }
  return true;
}

std::pair<std::size_t, core::NodeId> GraphCells::edge(const core::Graph& g, std::uint32_t k) const {
  const auto u = static_cast<std::size_t>(std::upper_bound(m_edge_first.begin(), m_edge_first.end(), k) - m_edge_first.begin() - 1);
  return {u, g.successors(static_cast<core::NodeId>(u))[k - m_edge_first[u]]};
}

}  // namespace weft::ui::detail
