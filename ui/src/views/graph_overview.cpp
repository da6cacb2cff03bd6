#include "graph_overview.h"

#include <QLineF>
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "weft/ui/stream_colors.h"

namespace weft::ui::detail {

QImage render_overview(const OverviewInput& in, const QRectF& bounds, double scale) {
  QImage image(std::max(1, static_cast<int>(std::ceil(bounds.width() * scale))),
               std::max(1, static_cast<int>(std::ceil(bounds.height() * scale))), QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  QPainter p(&image);
  p.setTransform(QTransform(scale, 0, 0, scale, -bounds.left() * scale, -bounds.top() * scale));
  const core::Graph& g = *in.graph;
  std::vector<QLineF> plain, critical;
  for (std::size_t u = 0; u < g.node_count(); ++u)
    for (core::NodeId v : g.successors(static_cast<core::NodeId>(u))) {
      const bool on_path = in.crit_index[u] >= 0 && in.crit_index[core::detail::idx(v)] == in.crit_index[u] + 1;
      (on_path ? critical : plain).emplace_back(in.pos[u] + in.half, in.pos[core::detail::idx(v)] - in.half);
    }
  p.setPen(QPen(in.edge, 0));
  p.drawLines(plain.data(), static_cast<int>(plain.size()));
  QPen crit_pen(critical_color(), 2.5);
  crit_pen.setCosmetic(true);
  p.setPen(crit_pen);
  p.drawLines(critical.data(), static_cast<int>(critical.size()));
  for (std::size_t v = 0; v < in.pos.size(); ++v)
    p.fillRect(QRectF(in.pos[v].x() - in.node.width() / 2, in.pos[v].y() - in.node.height() / 2, in.node.width(), in.node.height()),
               in.crit_index[v] >= 0 ? critical_color() : in.fill[v]);
  return image;
}

}  // namespace weft::ui::detail
