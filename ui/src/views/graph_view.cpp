#include "weft/ui/graph_view.h"

#include <QAction>
#include <QActionGroup>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "weft/core/transform/horizontal_merge.h"
#include "weft/core/transform/merge_graph.h"
#include "weft/core/transform/wire_layering.h"
#include "weft/ui/stream_colors.h"
#include "weft/ui/studio_document.h"
#include "weft/ui/worker_pool.h"

namespace weft::ui {

namespace {
constexpr double kNodeW = 112;
constexpr double kNodeH = 28;
constexpr double kColGap = 132;
constexpr double kRowGap = 64;
using core::detail::idx;

// The overview picture: graphs of this many operators or more (10k fitted took 10-15 ms a paint), zoomed out until a node is under
// kOverviewNodePx wide; at most kOverviewPixels pixels (a 300k graph still fits).
constexpr std::size_t kOverviewNodes = 5'000;
constexpr double kOverviewNodePx = 8;
constexpr double kOverviewPixels = 8e6;

QColor node_fill(int stream) { return stream_color(stream).lighter(112); }

// Inversions among edges between two layers (sorted by source x): the crossings there.
std::size_t count_crossings(std::vector<std::pair<double, double>>& edges) {
  std::sort(edges.begin(), edges.end());
  std::size_t c = 0;
  for (std::size_t i = 0; i < edges.size(); ++i)
    for (std::size_t j = i + 1; j < edges.size(); ++j)
      if (edges[j].first > edges[i].first && edges[j].second < edges[i].second) ++c;
  return c;
}
}  // namespace

GraphView::GraphView(StudioDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  setAttribute(Qt::WA_OpaquePaintEvent);
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  connect(doc, &StudioDocument::modelChanged, this, [this] {
    relayout();
    m_fit_pending = true;
    fit();
  });
  // The schedule's wires change with every edit: that layering follows it.
  connect(doc, &StudioDocument::scheduleChanged, this, [this] {
    if (m_layering == Layering::ScheduleWires) {
      relayout();
    } else {
      requestOverview();  // the moved nodes' colours
      update();
    }
  });
  connect(doc, &StudioDocument::costsChanged, this, [this] {
    requestOverview();  // the critical path
    update();
  });
  connect(&m_overview_watcher, &QFutureWatcher<Overview>::finished, this, &GraphView::takeOverview);
  // Right-click: the layering, as `weft analyze` (levels) or `weft layers` lays the graph out.
  setContextMenuPolicy(Qt::ActionsContextMenu);
  auto* group = new QActionGroup(this);
  for (auto [layering, label, name] :
       {std::tuple{Layering::Levels, tr("Layers: ASAP levels"), "layeringLevels"},
        std::tuple{Layering::GraphWires, tr("Layers: wire layering over the graph's chains"), "layeringGraphWires"},
        std::tuple{Layering::ScheduleWires, tr("Layers: wire layering over the schedule's streams"), "layeringScheduleWires"}}) {
    auto* a = new QAction(label, this);
    a->setObjectName(name);
    a->setCheckable(true);
    a->setChecked(layering == m_layering);
    group->addAction(a);
    addAction(a);
    connect(a, &QAction::triggered, this, [this, layering] { setLayering(layering); });
    m_layering_actions.push_back(a);
  }
  connect(doc, &StudioDocument::selectionChanged, this, qOverload<>(&QWidget::update));
  // A document that already holds a model (a view opened after loading) is laid out now.
  if (doc->hasModel()) {
    relayout();
    m_fit_pending = true;
    fit();
  }
}

GraphView::~GraphView() {
  // The job holds copies only; wait so it never outlives the application's pool.
  if (m_overview_running) m_overview_watcher.waitForFinished();
}

void GraphView::setLayering(Layering layering) {
  m_layering = layering;
  m_layering_actions[static_cast<std::size_t>(layering)]->setChecked(true);
  relayout();
  m_fit_pending = true;
  fit();
}

int GraphView::layerOf(core::NodeId n) const { return idx(n) < m_layer_of.size() ? m_layer_of[idx(n)] : -1; }

void GraphView::computeLayers() {
  const core::Graph& g = m_doc->graph();
  const core::Levels& lv = m_doc->analysis().levels;
  m_layer_of.assign(lv.asap.begin(), lv.asap.end());
  m_layer_count = std::max(lv.depth, 1);
  m_layering_summary = tr("%1 levels").arg(lv.depth);
  if (m_layering == Layering::Levels) return;
  // The same core calls as `weft layers` (with --strategy for the schedule's streams).
  core::Expected<core::Wires> wires = m_layering == Layering::GraphWires ? core::Expected<core::Wires>(core::wires_from_graph(g))
                                                                           : core::wires_from_schedule(g, m_doc->schedule());
  auto layering = wires ? core::layer_by_wires(g, *wires) : core::Expected<core::WireLayering>(wires.error());
  if (!layering) {
    m_layering_summary = tr("%1 levels (no wire layering: %2)").arg(lv.depth).arg(QString::fromStdString(layering.error().message));
    return;
  }
  m_layer_of = layering->layer_of;
  m_layer_count = static_cast<int>(std::max<std::size_t>(layering->depth(), 1));
  const core::MergePlan merges = core::find_merge_groups(g, *layering, m_doc->analysis().costs, m_doc->device());
  m_layering_summary = tr("%1 wire layers (head rule over %2 %3; ASAP %4) · widest %5 · launches %6 → %7 merged")
                           .arg(layering->depth())
                           .arg(wires->names.size())
                           .arg(QString::fromStdString(wires->origin))
                           .arg(lv.depth)
                           .arg(layering->max_width())
                           .arg(merges.launches_before)
                           .arg(merges.launches_after);
}

void GraphView::relayout() {
  m_pos.clear();
  m_rows.clear();
  m_row_edges.clear();
  m_crossings = 0;
  if (!m_doc->hasModel()) return;
  const core::Graph& g = m_doc->graph();
  computeLayers();
  const std::vector<int>& layer_of = m_layer_of;
  const std::size_t n = g.node_count();
  std::vector<std::vector<core::NodeId>> layers(static_cast<std::size_t>(m_layer_count));
  for (core::NodeId v : g.topo_order()) layers[static_cast<std::size_t>(layer_of[idx(v)])].push_back(v);
  std::vector<double> x(n, 0.0);
  auto place = [&](const std::vector<core::NodeId>& layer) {
    const double left = -0.5 * static_cast<double>(layer.size() - 1) * kColGap;
    for (std::size_t i = 0; i < layer.size(); ++i) x[idx(layer[i])] = left + static_cast<double>(i) * kColGap;
  };
  for (const auto& layer : layers) place(layer);
  // Barycenter sweeps: down (by predecessors), then up (by successors); four rounds settle most
  // graphs. Each sweep is O(V + E log).
  std::vector<double> key(n, 0.0);
  auto sweep = [&](std::size_t l, bool down) {
    auto& layer = layers[l];
    for (core::NodeId v : layer) {
      const auto nb = down ? g.predecessors(v) : g.successors(v);
      if (nb.empty()) {
        key[idx(v)] = x[idx(v)];
        continue;
      }
      double sum = 0;
      for (core::NodeId u : nb) sum += x[idx(u)];
      key[idx(v)] = sum / static_cast<double>(nb.size());
    }
    std::stable_sort(layer.begin(), layer.end(), [&](core::NodeId a, core::NodeId b) { return key[idx(a)] < key[idx(b)]; });
    place(layer);
  };
  for (int round = 0; round < 4; ++round) {
    for (std::size_t l = 1; l < layers.size(); ++l) sweep(l, true);
    for (std::size_t l = layers.size() - 1; l-- > 0;) sweep(l, false);
  }
  for (std::size_t l = 1; l < layers.size(); ++l) sweep(l, true);
  m_pos.resize(n);
  for (std::size_t v = 0; v < n; ++v) m_pos[v] = QPointF(x[v], layer_of[v] * kRowGap);
  m_bounds = QRectF();
  for (const QPointF& p : m_pos) m_bounds |= QRectF(p.x() - kNodeW / 2, p.y() - kNodeH / 2, kNodeW, kNodeH);
  // Crossings between adjacent layers (quadratic per layer pair: only for modest graphs).
  if (g.edge_count() < 20000) {
    std::vector<std::vector<std::pair<double, double>>> between(layers.size());
    for (std::size_t u = 0; u < n; ++u)
      for (core::NodeId v : g.successors(static_cast<core::NodeId>(u)))
        if (layer_of[idx(v)] == layer_of[u] + 1) between[static_cast<std::size_t>(layer_of[u])].emplace_back(x[u], x[idx(v)]);
    for (auto& e : between) m_crossings += count_crossings(e);
  }
  indexLayout();
  requestOverview();
  update();
}

void GraphView::indexLayout() {
  const core::Graph& g = m_doc->graph();
  const std::size_t rows = static_cast<std::size_t>(std::max(m_layer_count, 1));
  m_rows.assign(rows, {});
  m_row_edges.assign(rows, {});
  for (core::NodeId v : g.topo_order()) m_rows[static_cast<std::size_t>(m_layer_of[idx(v)])].push_back(v);
  for (auto& row : m_rows)
    std::sort(row.begin(), row.end(), [this](core::NodeId a, core::NodeId b) { return m_pos[idx(a)].x() < m_pos[idx(b)].x(); });
  for (std::size_t u = 0; u < g.node_count(); ++u)
    for (core::NodeId v : g.successors(static_cast<core::NodeId>(u))) {
      const int a = m_layer_of[u], b = m_layer_of[idx(v)];
      m_row_edges[static_cast<std::size_t>(std::min(a, b))].push_back({std::max(a, b), static_cast<core::NodeId>(u), v});
    }
  for (auto& edges : m_row_edges)
    std::sort(edges.begin(), edges.end(), [](const RowEdge& a, const RowEdge& b) { return a.far_row > b.far_row; });
}

const std::vector<int>& GraphView::criticalIndex() {
  if (m_crit_for != &m_doc->analysis() || m_crit_index.size() != m_doc->graph().node_count()) {
    const auto& crit = m_doc->analysis().critical.nodes;
    m_crit_index.assign(m_doc->graph().node_count(), -1);
    for (std::size_t i = 0; i < crit.size(); ++i) m_crit_index[idx(crit[i])] = static_cast<int>(i);
    m_crit_for = &m_doc->analysis();
  }
  return m_crit_index;
}

void GraphView::requestOverview() {
  if (!m_doc->hasModel() || m_doc->graph().node_count() < kOverviewNodes || m_pos.empty()) return;
  m_overview_dirty = true;
  if (!m_overview_running) launchOverview();
}

void GraphView::launchOverview() {
  // A snapshot of what the picture shows: positions, rows, edges, stream and critical colours.
  struct Job {
    std::shared_ptr<const core::Graph> graph;
    std::vector<QPointF> pos;
    std::vector<int> stream_of, crit_index;
    QRectF bounds;
    QColor edge;
  };
  auto job = std::make_shared<Job>();
  job->graph = m_doc->graphPtr();
  job->pos = m_pos;
  job->stream_of.resize(m_pos.size());
  for (std::size_t v = 0; v < m_pos.size(); ++v) job->stream_of[v] = m_doc->streamOf(static_cast<core::NodeId>(v));
  job->crit_index = criticalIndex();
  job->bounds = m_bounds.adjusted(-20, -20, 20, 20);
  job->edge = palette().color(QPalette::Text);
  job->edge.setAlpha(60);
  m_overview_dirty = false;
  m_overview_running = true;
  m_overview_watcher.setFuture(QtConcurrent::run(worker_pool(), [job] {
    Overview o;
    o.graph = job->graph.get();
    o.bounds = job->bounds;
    o.scale = std::min(kOverviewNodePx / kNodeW, std::sqrt(kOverviewPixels / (o.bounds.width() * o.bounds.height())));
    o.image = QImage(std::max(1, static_cast<int>(std::ceil(o.bounds.width() * o.scale))),
                     std::max(1, static_cast<int>(std::ceil(o.bounds.height() * o.scale))), QImage::Format_ARGB32_Premultiplied);
    o.image.fill(Qt::transparent);
    QPainter p(&o.image);
    p.setTransform(QTransform(o.scale, 0, 0, o.scale, -o.bounds.left() * o.scale, -o.bounds.top() * o.scale));
    const core::Graph& g = *job->graph;
    std::vector<QLineF> plain, critical;
    for (std::size_t u = 0; u < g.node_count(); ++u)
      for (core::NodeId v : g.successors(static_cast<core::NodeId>(u))) {
        const bool on_path = job->crit_index[u] >= 0 && job->crit_index[idx(v)] == job->crit_index[u] + 1;
        (on_path ? critical : plain)
            .emplace_back(QPointF(job->pos[u].x(), job->pos[u].y() + kNodeH / 2), QPointF(job->pos[idx(v)].x(), job->pos[idx(v)].y() - kNodeH / 2));
      }
    p.setPen(QPen(job->edge, 0));
    p.drawLines(plain.data(), static_cast<int>(plain.size()));
    QPen crit_pen(critical_color(), 2.5);
    crit_pen.setCosmetic(true);
    p.setPen(crit_pen);
    p.drawLines(critical.data(), static_cast<int>(critical.size()));
    for (std::size_t v = 0; v < job->pos.size(); ++v)
      p.fillRect(QRectF(job->pos[v].x() - kNodeW / 2, job->pos[v].y() - kNodeH / 2, kNodeW, kNodeH),
                 job->crit_index[v] >= 0 ? critical_color() : node_fill(job->stream_of[v]));
    return o;
  }));
}

void GraphView::waitForOverview() {
  while (m_overview_running) {
    m_overview_watcher.waitForFinished();
    takeOverview();
  }
}

void GraphView::takeOverview() {
  if (!m_overview_running || !m_overview_watcher.future().isFinished()) return;
  m_overview_running = false;
  m_overview = m_overview_watcher.future().takeResult();
  if (m_overview_dirty) launchOverview();
  update();
}

QPointF GraphView::toWorld(QPointF w) const { return (w - m_offset) / m_scale; }
QPointF GraphView::toWidget(QPointF world) const { return world * m_scale + m_offset; }

QRectF GraphView::nodeWorldRect(core::NodeId n) const {
  const QPointF c = m_pos[idx(n)];
  return QRectF(c.x() - kNodeW / 2, c.y() - kNodeH / 2, kNodeW, kNodeH);
}

void GraphView::fit() {
  // Above the status line at the bottom.
  const double h = height() - 2.0 * fontMetrics().height();
  if (m_pos.empty() || width() <= 0 || h <= 0) return;
  const QRectF b = m_bounds.adjusted(-20, -20, 20, 20);
  m_scale = std::min({width() / b.width(), h / b.height(), 1.5});
  m_offset = QPointF(width() / 2.0, h / 2.0) - b.center() * m_scale;
  m_fit_pending = false;
  m_fitted = true;
  update();
}

void GraphView::centerOn(core::NodeId n) {
  if (idx(n) >= m_pos.size()) return;
  m_fitted = false;
  if (m_scale < 0.5) m_scale = 0.8;
  m_offset = QPointF(width() / 2.0, height() / 2.0) - m_pos[idx(n)] * m_scale;
  update();
}

int GraphView::find(const QString& text) {
  if (!m_doc->hasModel() || text.isEmpty()) return 0;
  const core::Graph& g = m_doc->graph();
  std::vector<core::NodeId> matches;
  for (core::NodeId v : g.topo_order()) {
    const QString name = QString::fromStdString(g.node(v).name);
    const QString op = QString::fromStdString(g.node(v).op_type);
    if (name.contains(text, Qt::CaseInsensitive) || op.contains(text, Qt::CaseInsensitive)) matches.push_back(v);
  }
  if (matches.empty()) return 0;
  // Next match after the current selection, in topological order (wraps around).
  std::size_t next = 0;
  if (m_doc->selection().size() == 1) {
    auto it = std::find(matches.begin(), matches.end(), m_doc->selection().front());
    if (it != matches.end()) next = static_cast<std::size_t>(it - matches.begin() + 1) % matches.size();
  }
  m_doc->setSelection({matches[next]});
  centerOn(matches[next]);
  return static_cast<int>(matches.size());
}

core::NodeId GraphView::nodeAt(QPointF widget_pos) const {
  const QPointF w = toWorld(widget_pos);
  const long row = std::lround(w.y() / kRowGap);
  if (row < 0 || static_cast<std::size_t>(row) >= m_rows.size()) return core::kNoNode;
  const auto& nodes = m_rows[static_cast<std::size_t>(row)];
  auto it = std::lower_bound(nodes.begin(), nodes.end(), w.x() - kNodeW / 2,
                             [this](core::NodeId v, double x) { return m_pos[idx(v)].x() < x; });
  for (; it != nodes.end() && m_pos[idx(*it)].x() - kNodeW / 2 <= w.x(); ++it)
    if (std::abs(w.x() - m_pos[idx(*it)].x()) <= kNodeW / 2 && std::abs(w.y() - m_pos[idx(*it)].y()) <= kNodeH / 2) return *it;
  return core::kNoNode;
}

void GraphView::resizeEvent(QResizeEvent*) {
  // A fitted view stays fitted as its dock is resized or floated; one zoomed or panned stays put.
  if (m_fit_pending || m_fitted) fit();
}

void GraphView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QPalette& pal = palette();
  p.fillRect(rect(), pal.base());
  m_painted_overview = false;
  m_painted_items = 0;
  if (!m_doc->hasModel() || m_pos.empty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, tr("No model loaded"));
    return;
  }
  const core::Graph& g = m_doc->graph();
  const QRectF visible = QRectF(toWorld(QPointF(0, 0)), toWorld(QPointF(width(), height()))).normalized();
  const bool large = g.node_count() >= kOverviewNodes;
  const bool zoomed_out = large && m_scale * kNodeW < kOverviewNodePx;
  if (zoomed_out && m_overview.graph == &g && !m_overview.image.isNull()) {
    // The overview picture, only its part in view: no node or edge is visited.
    const QRectF shown = visible & m_overview.bounds;
    const QRectF source((shown.left() - m_overview.bounds.left()) * m_overview.scale,
                        (shown.top() - m_overview.bounds.top()) * m_overview.scale, shown.width() * m_overview.scale,
                        shown.height() * m_overview.scale);
    p.drawImage(QRectF(toWidget(shown.topLeft()), toWidget(shown.bottomRight())), m_overview.image, source);
    m_painted_overview = true;
    // The selection on top of it.
    p.setTransform(QTransform(m_scale, 0, 0, m_scale, m_offset.x(), m_offset.y()));
    for (core::NodeId v : m_doc->selection()) p.fillRect(nodeWorldRect(v), selection_color());
    p.resetTransform();
  } else if (zoomed_out) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, tr("Drawing %1 nodes…").arg(g.node_count()));
  } else {
    paintVisible(p, visible);
  }
  p.setPen(pal.color(QPalette::PlaceholderText));
  // The figures first; the hints are what a narrow view elides.
  const QRect status = rect().adjusted(8, 4, -8, -4);
  p.drawText(status, Qt::AlignBottom | Qt::AlignRight,
             p.fontMetrics().elidedText(tr("%1 nodes · %2 · critical path in red · wheel: zoom · drag: pan · Ctrl+0: fit · "
                                           "right-click: layers")
                                            .arg(g.node_count())
                                            .arg(m_layering_summary),
                                        Qt::ElideRight, status.width()));
}

void GraphView::paintVisible(QPainter& p, const QRectF& visible) {
  const core::Graph& g = m_doc->graph();
  const QPalette& pal = palette();
  const bool detailed = m_scale >= 0.45;       // labels
  const bool outlined = m_scale * kNodeW >= 14;  // borders, curves, antialiasing
  const std::vector<int>& crit_index = criticalIndex();
  // The rows in view (a row is at layer * kRowGap), and in each the nodes within x of the view.
  const int last_row = static_cast<int>(m_rows.size()) - 1;
  const int row0 = std::clamp(static_cast<int>(std::floor((visible.top() - kNodeH / 2) / kRowGap)), 0, last_row);
  const int row1 = std::clamp(static_cast<int>(std::ceil((visible.bottom() + kNodeH / 2) / kRowGap)), 0, last_row);

  p.setTransform(QTransform(m_scale, 0, 0, m_scale, m_offset.x(), m_offset.y()));
  p.setRenderHint(QPainter::Antialiasing, outlined);
  QColor edge = pal.color(QPalette::Text);
  edge.setAlpha(outlined ? 110 : 60);
  QPen edge_pen(edge, 0);
  QPen crit_pen(critical_color(), 2.5);
  crit_pen.setCosmetic(true);
  std::vector<QLineF> plain, critical_lines;
  // Edges whose rows span part of the view: those starting above it and reaching into it (each
  // row's edges are sorted by how far they reach), then those starting in it.
  for (int row = 0; row <= row1; ++row)
    for (const RowEdge& e : m_row_edges[static_cast<std::size_t>(row)]) {
      if (row < row0 && e.far_row < row0) break;
      const QPointF a(m_pos[idx(e.from)].x(), m_pos[idx(e.from)].y() + kNodeH / 2);
      const QPointF b(m_pos[idx(e.to)].x(), m_pos[idx(e.to)].y() - kNodeH / 2);
      if (std::max(a.x(), b.x()) < visible.left() || std::min(a.x(), b.x()) > visible.right() ||
          std::max(a.y(), b.y()) < visible.top() || std::min(a.y(), b.y()) > visible.bottom())
        continue;
      ++m_painted_items;
      const bool critical = crit_index[idx(e.from)] >= 0 && crit_index[idx(e.to)] == crit_index[idx(e.from)] + 1;
      if (!outlined) {
        (critical ? critical_lines : plain).emplace_back(a, b);
        continue;
      }
      p.setPen(critical ? crit_pen : edge_pen);
      QPainterPath path(a);
      const double dy = (b.y() - a.y()) / 2;
      path.cubicTo(a + QPointF(0, dy), b - QPointF(0, dy), b);
      p.setBrush(Qt::NoBrush);
      p.drawPath(path);
    }
  if (!plain.empty()) {
    p.setPen(edge_pen);
    p.drawLines(plain.data(), static_cast<int>(plain.size()));
  }
  if (!critical_lines.empty()) {
    p.setPen(crit_pen);
    p.drawLines(critical_lines.data(), static_cast<int>(critical_lines.size()));
  }

  QFont f = font();
  f.setPointSizeF(9);
  p.setFont(f);
  for (int row = row0; row <= row1; ++row) {
    const auto& nodes = m_rows[static_cast<std::size_t>(row)];
    auto first = std::lower_bound(nodes.begin(), nodes.end(), visible.left() - kNodeW / 2,
                                  [this](core::NodeId v, double x) { return m_pos[idx(v)].x() < x; });
    for (auto it = first; it != nodes.end() && m_pos[idx(*it)].x() - kNodeW / 2 <= visible.right(); ++it) {
      const core::NodeId v = *it;
      const QRectF r = nodeWorldRect(v);
      if (!visible.intersects(r)) continue;
      ++m_painted_items;
      const int stream = m_doc->streamOf(v);
      const bool selected = m_doc->isSelected(v);
      const bool critical = crit_index[idx(v)] >= 0;
      QColor fill = node_fill(stream);
      if (!outlined) {
        p.fillRect(r, selected ? selection_color() : critical ? critical_color() : fill);
        continue;
      }
      QPen pen(critical ? critical_color() : stream_color(stream).darker(160), 0);
      pen.setWidthF(critical ? 2.5 : 1.0);
      pen.setCosmetic(true);
      if (selected) {
        pen.setColor(selection_color());
        pen.setWidthF(3.5);
      }
      const core::Node& node = g.node(v);
      const bool merged = core::is_merged_node(node);
      if (merged && !selected && !critical) {
        pen.setColor(merged_color());
        pen.setWidthF(2.5);
      }
      p.setPen(pen);
      p.setBrush(fill);
      p.drawRoundedRect(r, 5, 5);
      if (detailed) {
        p.setPen(Qt::black);
        const QFontMetrics fm(f);
        // A merged launch shows its members' operator and count.
        const QString label = merged ? QString("%1 ×%2").arg(QString::fromStdString(node.attr_string("op", "?"))).arg(node.attr_int("members", 0))
                                     : QString::fromStdString(node.op_type);
        p.drawText(r.adjusted(4, 0, -4, 0), Qt::AlignCenter, fm.elidedText(label, Qt::ElideRight, static_cast<int>(kNodeW - 8)));
      }
    }
  }
  p.resetTransform();
}

void GraphView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  const core::NodeId v = nodeAt(event->position());
  if (v != core::kNoNode) {
    if (event->modifiers() & Qt::ControlModifier) {
      std::vector<core::NodeId> sel = m_doc->selection();
      auto it = std::find(sel.begin(), sel.end(), v);
      if (it != sel.end()) sel.erase(it);
      else sel.push_back(v);
      m_doc->setSelection(std::move(sel));
    } else {
      m_doc->setSelection({v});
    }
    return;
  }
  m_panning = true;
  m_fitted = false;
  m_press_pos = event->position();
  m_press_offset = m_offset;
  setCursor(Qt::ClosedHandCursor);
}

void GraphView::mouseMoveEvent(QMouseEvent* event) {
  if (m_panning) {
    m_offset = m_press_offset + (event->position() - m_press_pos);
    update();
    return;
  }
  if (!m_doc->hasModel()) return;
  const core::NodeId v = nodeAt(event->position());
  if (v == core::kNoNode) {
    setToolTip({});
    return;
  }
  const core::Node& node = m_doc->graph().node(v);
  setToolTip(tr("%1 (%2)\nlevel %3, slack %4, stream %5%6")
                 .arg(QString::fromStdString(node.name), QString::fromStdString(node.op_type))
                 .arg(m_doc->analysis().levels.asap[idx(v)])
                 .arg(m_doc->analysis().levels.slack[idx(v)])
                 .arg(m_doc->streamOf(v))
                 .arg(m_layering == Layering::Levels ? QString() : tr(", wire layer %1").arg(layerOf(v))));
}

void GraphView::mouseReleaseEvent(QMouseEvent* event) {
  if (m_panning && (event->position() - m_press_pos).manhattanLength() < 3) m_doc->setSelection({});
  m_panning = false;
  unsetCursor();
}

void GraphView::wheelEvent(QWheelEvent* event) {
  const QPointF at = event->position();
  const QPointF world = toWorld(at);
  m_scale = std::clamp(m_scale * std::pow(1.0015, event->angleDelta().y()), 0.005, 6.0);
  m_offset = at - world * m_scale;
  m_fit_pending = false;
  m_fitted = false;
  update();
}

}  // namespace weft::ui
