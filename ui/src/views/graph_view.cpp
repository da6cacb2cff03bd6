#include "weft/ui/graph_view.h"
#include "weft/core/graph/fused_node.h"

#include <QAction>
#include <QActionGroup>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QtConcurrent/QtConcurrent>
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
#include "graph_cells.h"
#include "graph_overview.h"

namespace weft::ui {

namespace {
QString legend_title() { return GraphView::tr("measured time per node (log scale)"); }
QString legend_missing() { return GraphView::tr("not in the profile"); }
constexpr int kLegendRampW = 160, kLegendRampH = 10, kLegendPad = 6;  // pixels
constexpr double kNodeW = 112;
constexpr double kNodeH = 28;
constexpr double kColGap = 132;  // top to bottom: between nodes of a layer
constexpr double kRowGap = 64;   // top to bottom: between layers (room for the edges' curves)
constexpr double kLaneGap = 44;  // left to right: between nodes of a layer
constexpr double kLevelGap = 160;  // left to right: between layers
constexpr double kBandGapDown = 80;   // between bands side by side (top to bottom)
constexpr double kBandGapRight = 48;  // between bands one above the other (left to right)
constexpr double kFitMargin = 20;     // world units around the graph at fit
// One band top to bottom stays while it draws nodes at least this large (labels of a few letters
// readable); a wrapped arrangement must draw them kWrapGain times larger to replace it, and a
// later candidate (more bands, or left to right) kTieGain times larger than the best so far.
constexpr double kReadableScale = 0.6;
constexpr double kWrapGain = 1.25;
constexpr double kTieGain = 1.05;
constexpr double kMaxScale = 1.5;
constexpr int kLinearBands = 24;  // band counts tried one by one; beyond, in steps of a quarter
using core::detail::idx;

// Spacing of one flow: along a layer (cross), between layers (flow), the node's extent across and
// along, and the gap between bands.
struct FlowMetrics {
  double cross_unit, flow_unit, node_cross, node_flow, band_gap;
};
FlowMetrics metrics(GraphView::Flow flow) {
  return flow == GraphView::Flow::TopDown ? FlowMetrics{kColGap, kRowGap, kNodeW, kNodeH, kBandGapDown}
                                          : FlowMetrics{kLaneGap, kLevelGap, kNodeH, kNodeW, kBandGapRight};
}

// An edge as this view draws it (detail::edge_shape).
detail::EdgeShape edge_of(QPointF from, QPointF to, GraphView::Flow flow) {
  const bool down = flow == GraphView::Flow::TopDown;
  return detail::edge_shape(from, to, down ? QPointF(0, kNodeH / 2) : QPointF(kNodeW / 2, 0), down ? QPointF(0, 1) : QPointF(1, 0),
                            metrics(flow).flow_unit);
}

// Inversions among edges between two layers (sorted by source x): the crossings there.
std::size_t count_crossings(std::vector<std::pair<double, double>>& edges) {
  std::sort(edges.begin(), edges.end());
  std::size_t c = 0;
  for (std::size_t i = 0; i < edges.size(); ++i)
    for (std::size_t j = i + 1; j < edges.size(); ++j)
      if (edges[j].first > edges[i].first && edges[j].second < edges[i].second) ++c;
  return c;
}
// The overview picture: graphs of this many operators or more (a fitted 10k graph took 10-15 ms
// a paint node by node), zoomed out until a node is under kOverviewNodePx wide; at most
// kOverviewPixels pixels (a 300k graph still fits).
constexpr std::size_t kOverviewNodes = 5'000;
// The cell index: about four nodes a cell; an edge over more cells goes to the list every paint tests.
constexpr double kNodesPerCell = 4;
constexpr long kLongEdgeCells = 32;
constexpr double kOverviewNodePx = 8;
constexpr double kOverviewPixels = 8e6;
}  // namespace

GraphView::GraphView(StudioDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  setAttribute(Qt::WA_OpaquePaintEvent);
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  connect(doc, &StudioDocument::modelChanged, this, &GraphView::takeModel);
  // The schedule's wires change with every edit: that layering follows it.
  connect(doc, &StudioDocument::scheduleChanged, this, [this] {
    if (m_layering == Layering::ScheduleWires) relayout();
    requestOverview();  // the moved nodes' colours
    update();
  });
  connect(doc, &StudioDocument::costsChanged, this, [this] {
    requestOverview();  // the critical path
    update();
  });
  connect(&m_overview_watcher, &QFutureWatcher<Overview>::finished, this, &GraphView::takeOverview);
  // Right-click: the layering, as `weft analyze` (levels) or `weft layers` lays the graph out;
  // the colouring; wrapping.
  setContextMenuPolicy(Qt::ActionsContextMenu);
  auto* layerings = new QActionGroup(this);
  for (auto [layering, label, name] :
       {std::tuple{Layering::Levels, tr("Layers: ASAP levels"), "layeringLevels"},
        std::tuple{Layering::GraphWires, tr("Layers: wire layering over the graph's chains"), "layeringGraphWires"},
        std::tuple{Layering::ScheduleWires, tr("Layers: wire layering over the schedule's streams"), "layeringScheduleWires"}}) {
    auto* a = addMenuAction(label, name, layering == m_layering, layerings);
    connect(a, &QAction::triggered, this, [this, layering] { setLayering(layering); });
    m_layering_actions.push_back(a);
  }
  addSeparator();
  auto* colours = new QActionGroup(this);
  for (auto [colouring, label, name] :
       {std::tuple{Colouring::Streams, tr("Colour: streams"), "colourStreams"},
        std::tuple{Colouring::MeasuredTime, tr("Colour: measured time (File > Open profile)"), "colourMeasured"}}) {
    auto* a = addMenuAction(label, name, colouring == m_colouring, colours);
    connect(a, &QAction::triggered, this, [this, colouring] { setColouring(colouring); });
    m_colouring_actions.push_back(a);
  }
  m_colouring_actions[static_cast<std::size_t>(Colouring::MeasuredTime)]->setEnabled(false);
  addSeparator();
  m_wrap_action = addMenuAction(tr("Wrap layers to fill the view"), "wrapLayers", m_wrapping, nullptr);
  connect(m_wrap_action, &QAction::toggled, this, &GraphView::setWrapping);
  connect(doc, &StudioDocument::selectionChanged, this, qOverload<>(&QWidget::update));
  // A document that already holds a model (a view opened after loading) is laid out now.
  if (doc->hasModel()) takeModel();
}

GraphView::~GraphView() {
  if (m_overview_running) m_overview_watcher.waitForFinished();
}

void GraphView::takeModel() {
  // A model opened with a profile shows its measured times; one without, its streams.
  m_heat = m_doc->profile() ? HeatScale::of(m_doc->profile()->node_us) : HeatScale{};
  setColouring(m_doc->profile() ? Colouring::MeasuredTime : Colouring::Streams);
  relayout();
  m_fit_pending = true;
  fit();
}

void GraphView::addSeparator() {
  auto* a = new QAction(this);
  a->setSeparator(true);
  addAction(a);
}

QAction* GraphView::addMenuAction(const QString& label, const char* name, bool checked, QActionGroup* group) {
  auto* a = new QAction(label, this);
  a->setObjectName(name);
  a->setCheckable(true);
  a->setChecked(checked);
  if (group) group->addAction(a);
  addAction(a);
  return a;
}

void GraphView::setLayering(Layering layering) {
  m_layering = layering;
  m_layering_actions[static_cast<std::size_t>(layering)]->setChecked(true);
  relayout();
  m_fit_pending = true;
  fit();
}

void GraphView::setWrapping(bool on) {
  if (m_wrap_action->isChecked() != on) m_wrap_action->setChecked(on);  // toggled() comes back here
  if (m_wrapping == on) return;
  m_wrapping = on;
  if (!on) arrange({});
  fit();
}

void GraphView::setColouring(Colouring colouring) {
  // Measured times need a profile; without one the streams show.
  if (!m_doc->profile()) colouring = Colouring::Streams;
  m_colouring = colouring;
  m_colouring_actions[static_cast<std::size_t>(colouring)]->setChecked(true);
  m_colouring_actions[static_cast<std::size_t>(Colouring::MeasuredTime)]->setEnabled(m_doc->profile() != nullptr);
  if (m_fitted) fit();  // the legend takes room at the top, or gives it back
  requestOverview();      // its fills
  update();
}

QColor GraphView::nodeFill(core::NodeId n) const {
  if (m_colouring == Colouring::MeasuredTime) {
    const std::optional<double> us = m_doc->measuredTime(n);
    return us ? m_heat.colorOf(*us) : unmeasured_color();
  }
  return stream_color(m_doc->streamOf(n)).lighter(112);
}

void GraphView::paintHeatLegend(QPainter& p) const {
  // "measured time" over a ramp from the fastest to the slowest node, and the grey of nodes the
  // profile has no time for, in a box at the top right.
  const auto time_text = [](double us) { return us >= 1000 ? tr("%1 ms").arg(us / 1000, 0, 'g', 3) : tr("%1 µs").arg(us, 0, 'g', 3); };
  const QFontMetrics fm = p.fontMetrics();
  const int ramp_h = kLegendRampH, pad = kLegendPad, line = fm.height();
  const QRect box = heatLegendRect(fm);
  const int w = box.width();
  QColor back = palette().color(QPalette::Base);
  back.setAlpha(225);
  p.setPen(palette().color(QPalette::Mid));
  p.setBrush(back);
  p.drawRect(box);
  p.setPen(palette().color(QPalette::Text));
  const int x = box.left() + pad;
  p.drawText(QRect(x, box.top() + pad, w - 2 * pad, line), Qt::AlignLeft | Qt::AlignVCenter, legend_title());
  const QRect ramp(x, box.top() + pad + line + 2, w - 2 * pad, ramp_h);
  QLinearGradient gradient(ramp.topLeft(), ramp.topRight());
  for (int i = 0; i <= 8; ++i) gradient.setColorAt(i / 8.0, HeatScale::color(i / 8.0));
  p.fillRect(ramp, gradient);
  const QRect ticks(x, ramp.bottom() + 2, ramp.width(), line);
  p.drawText(ticks, Qt::AlignLeft | Qt::AlignVCenter, time_text(m_heat.lo_us));
  p.drawText(ticks, Qt::AlignRight | Qt::AlignVCenter, time_text(m_heat.hi_us));
  const QRect swatch(x, ticks.bottom() + pad, 10, 10);
  p.fillRect(swatch, unmeasured_color());
  p.drawText(QRect(swatch.right() + 6, swatch.center().y() - line / 2, w, line), Qt::AlignLeft | Qt::AlignVCenter, legend_missing());
}

QRect GraphView::heatLegendRect(const QFontMetrics& fm) const {
  const int w = std::max({kLegendRampW, fm.horizontalAdvance(legend_title()), fm.horizontalAdvance(legend_missing()) + 16}) + 2 * kLegendPad;
  return QRect(width() - w - 8, 8, w, 3 * fm.height() + kLegendRampH + 3 * kLegendPad);
}

QFont GraphView::overlayFont() const {
  QFont f = font();
  f.setPointSizeF(9);
  return f;
}

QString GraphView::arrangementText() const {
  if (m_arrangement == Arrangement{}) return {};
  const QString flow = m_arrangement.flow == Flow::TopDown ? tr("top to bottom") : tr("left to right");
  return m_arrangement.bands > 1 ? tr(" in %1 bands, %2").arg(m_arrangement.bands).arg(flow) : tr(", %1").arg(flow);
}

int GraphView::bandOf(core::NodeId n) const { return idx(n) < m_band_of.size() ? m_band_of[idx(n)] : -1; }

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
  m_cells.reset();
  ++m_layout_serial;
  m_layers.clear();
  m_candidates.clear();
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
  m_slot.resize(n);
  for (std::size_t v = 0; v < n; ++v) m_slot[v] = x[v] / kColGap;
  m_layer_span.assign(layers.size(), 0.0);
  for (std::size_t l = 0; l < layers.size(); ++l)
    m_layer_span[l] = layers[l].empty() ? 0.0 : static_cast<double>(layers[l].size() - 1);
  m_layers = std::move(layers);
  // Edges crossing each boundary between layers (a difference array over the layers they span).
  m_cut.assign(m_layers.size() + 1, 0);
  for (std::size_t u = 0; u < n; ++u)
    for (core::NodeId v : g.successors(static_cast<core::NodeId>(u)))
      if (layer_of[idx(v)] > layer_of[u]) {
        ++m_cut[static_cast<std::size_t>(layer_of[u]) + 1];
        --m_cut[static_cast<std::size_t>(layer_of[idx(v)]) + 1];
      }
  for (std::size_t l = 1; l < m_cut.size(); ++l) m_cut[l] += m_cut[l - 1];
  // Within the bands the arrangement has (fit() chooses again for the view's size).
  m_arrangement.bands = std::min(m_arrangement.bands, static_cast<int>(m_layers.size()));
  measureArrangements();
  arrange(m_arrangement);
  // Crossings between adjacent layers (quadratic per layer pair: only for modest graphs).
  if (g.edge_count() < 20000) {
    std::vector<std::vector<std::pair<double, double>>> between(m_layers.size());
    for (std::size_t u = 0; u < n; ++u)
      for (core::NodeId v : g.successors(static_cast<core::NodeId>(u)))
        if (layer_of[idx(v)] == layer_of[u] + 1) between[static_cast<std::size_t>(layer_of[u])].emplace_back(x[u], x[idx(v)]);
    for (auto& e : between) m_crossings += count_crossings(e);
  }
  update();
}

QPointF GraphView::toWorld(QPointF w) const { return (w - m_offset) / m_scale; }
QPointF GraphView::toWidget(QPointF world) const { return world * m_scale + m_offset; }

QRectF GraphView::nodeWorldRect(core::NodeId n) const {
  const QPointF c = m_pos[idx(n)];
  return QRectF(c.x() - kNodeW / 2, c.y() - kNodeH / 2, kNodeW, kNodeH);
}

std::vector<std::size_t> GraphView::bandStarts(int bands) const {
  // Band b ideally starts at layer b·L/bands; within a quarter band of that, at the boundary the
  // fewest edges cross (after a Concat, not through four parallel branches), so few edges wrap.
  const std::size_t layers = m_layers.size();
  std::vector<std::size_t> starts{0};
  const double per_band = static_cast<double>(layers) / bands;
  const auto slack = static_cast<std::ptrdiff_t>(per_band / 4);
  for (int band = 1; band < bands; ++band) {
    const auto ideal = static_cast<std::ptrdiff_t>(std::lround(band * per_band));
    const auto lo = std::max(ideal - slack, static_cast<std::ptrdiff_t>(starts.back()) + 1);
    const auto hi = std::min(ideal + slack, static_cast<std::ptrdiff_t>(layers) - 1);
    if (lo > hi) break;
    std::ptrdiff_t best = std::clamp(ideal, lo, hi);
    for (std::ptrdiff_t l = lo; l <= hi; ++l) {
      const auto cut = m_cut[static_cast<std::size_t>(l)], best_cut = m_cut[static_cast<std::size_t>(best)];
      if (cut < best_cut || (cut == best_cut && std::abs(l - ideal) < std::abs(best - ideal))) best = l;
    }
    starts.push_back(static_cast<std::size_t>(best));
  }
  return starts;
}

namespace {
// Per band of `starts` (over `spans`, one per layer): its first layer, its layer count and its
// extent across, in node slots.
template <typename F>
void for_each_band(const std::vector<std::size_t>& starts, const std::vector<double>& spans, F&& f) {
  for (std::size_t b = 0; b < starts.size(); ++b) {
    const std::size_t first = starts[b], last = b + 1 < starts.size() ? starts[b + 1] : spans.size();
    f(first, last, *std::max_element(spans.begin() + static_cast<std::ptrdiff_t>(first), spans.begin() + static_cast<std::ptrdiff_t>(last)));
  }
}
}  // namespace

QSizeF GraphView::arrangedSize(Arrangement a) const {
  if (m_layers.empty()) return {};
  const FlowMetrics m = metrics(a.flow);
  double across = 0;
  std::size_t longest = 0;
  for_each_band(bandStarts(a.bands), m_layer_span, [&](std::size_t first, std::size_t last, double span) {
    across += (first > 0 ? m.band_gap : 0.0) + span * m.cross_unit + m.node_cross;
    longest = std::max(longest, last - first);
  });
  const double along = static_cast<double>(longest - 1) * m.flow_unit + m.node_flow;
  return a.flow == Flow::TopDown ? QSizeF(across, along) : QSizeF(along, across);
}

void GraphView::measureArrangements() {
  // Every band count up to kLinearBands, then about 25% more each step (a 100k-layer chain wants
  // hundreds of bands): each arrangement's world size, so fit() picks one in O(candidates).
  m_candidates.clear();
  for (Flow flow : {Flow::TopDown, Flow::LeftRight})
    for (int bands = 1; static_cast<std::size_t>(bands) <= m_layers.size();
         bands = bands < kLinearBands ? bands + 1 : bands + std::max(1, bands / 4)) {
      // Only band counts the cuts allow (each band a layer at least).
      if (bandStarts(bands).size() != static_cast<std::size_t>(bands)) continue;
      m_candidates.emplace_back(Arrangement{flow, bands}, arrangedSize({flow, bands}));
    }
}

GraphView::Arrangement GraphView::bestArrangement(QSizeF size) const {
  const Arrangement plain;
  if (!m_wrapping || m_candidates.empty() || size.width() <= 0 || size.height() <= 0) return plain;
  const auto scale_of = [&](QSizeF s) {
    return std::min({size.width() / (s.width() + 2 * kFitMargin), size.height() / (s.height() + 2 * kFitMargin), kMaxScale});
  };
  const double plain_scale = scale_of(m_candidates.front().second);  // one band, top to bottom
  if (plain_scale >= kReadableScale) return plain;
  Arrangement best = plain;
  double best_scale = plain_scale * kWrapGain / kTieGain;  // a wrap must beat the plain one by kWrapGain
  for (const auto& [a, extent] : m_candidates) {
    if (a == plain) continue;
    if (const double s = scale_of(extent); s > best_scale * kTieGain) {
      best = a;
      best_scale = s;
    }
  }
  return best;
}

void GraphView::arrange(Arrangement a) {
  m_arrangement = a;
  m_pos.assign(m_slot.size(), QPointF());
  m_bounds = QRectF();
  if (m_layers.empty()) return;
  const FlowMetrics m = metrics(a.flow);
  const std::vector<std::size_t> starts = bandStarts(a.bands);
  m_arrangement.bands = static_cast<int>(starts.size());
  m_band_of.assign(m_slot.size(), 0);
  int band = 0;
  double band_start = 0;  // cross coordinate of the band's first edge
  for_each_band(starts, m_layer_span, [&](std::size_t first, std::size_t last, double span) {
    const double extent = span * m.cross_unit + m.node_cross;
    // The first band is centred on 0, as the layers are: the plain arrangement keeps its coordinates.
    const double centre = first == 0 ? 0.0 : band_start + extent / 2;
    if (first == 0) band_start = -extent / 2;
    for (std::size_t l = first; l < last; ++l)
      for (core::NodeId v : m_layers[l]) {
        const double across = centre + m_slot[idx(v)] * m.cross_unit;
        const double along = static_cast<double>(l - first) * m.flow_unit;
        m_pos[idx(v)] = a.flow == Flow::TopDown ? QPointF(across, along) : QPointF(along, across);
        m_band_of[idx(v)] = band;
      }
    band_start += extent + m.band_gap;
    ++band;
  });
  for (const QPointF& p : m_pos) m_bounds |= QRectF(p.x() - kNodeW / 2, p.y() - kNodeH / 2, kNodeW, kNodeH);
  m_cells.reset();  // filed again by the worker with the overview picture
  ++m_layout_serial;
  requestOverview();
}

void GraphView::fit() {
  // Above the status line at the bottom, and below the heat scale's legend where it shows.
  const double top = m_colouring == Colouring::MeasuredTime && !m_heat.empty() ? heatLegendRect(QFontMetrics(overlayFont())).bottom() : 0.0;
  const double h = height() - 2.0 * fontMetrics().height() - top;
  if (m_pos.empty() || width() <= 0 || h <= 0) return;
  if (const Arrangement a = bestArrangement(QSizeF(width(), h)); !(a == m_arrangement)) arrange(a);
  const QRectF b = m_bounds.adjusted(-kFitMargin, -kFitMargin, kFitMargin, kFitMargin);
  m_scale = std::min({width() / b.width(), h / b.height(), kMaxScale});
  m_offset = QPointF(width() / 2.0, top + h / 2.0) - b.center() * m_scale;
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
  for (std::size_t v = 0; v < m_pos.size(); ++v)
    if (std::abs(w.x() - m_pos[v].x()) <= kNodeW / 2 && std::abs(w.y() - m_pos[v].y()) <= kNodeH / 2)
      return static_cast<core::NodeId>(v);
  return core::kNoNode;
}

void GraphView::resizeEvent(QResizeEvent*) {
  // A fitted view stays fitted as its dock is resized or floated; one zoomed or panned stays put.
  if (m_fit_pending || m_fitted) fit();
}

void GraphView::requestOverview() {
  if (!m_doc->hasModel() || m_doc->graph().node_count() < kOverviewNodes || m_pos.empty()) return;
  m_overview_dirty = true;
  if (!m_overview_running) launchOverview();
}

void GraphView::launchOverview() {
  auto job = std::make_shared<detail::OverviewInput>();
  job->graph = m_doc->graphPtr();
  job->pos = m_pos;
  job->fill.resize(m_pos.size());
  for (std::size_t v = 0; v < m_pos.size(); ++v) job->fill[v] = nodeFill(static_cast<core::NodeId>(v));
  job->crit_index.assign(m_pos.size(), -1);
  const auto& crit = m_doc->analysis().critical.nodes;
  for (std::size_t i = 0; i < crit.size(); ++i)
    if (idx(crit[i]) < m_pos.size()) job->crit_index[idx(crit[i])] = static_cast<int>(i);
  job->edge = palette().color(QPalette::Text);
  job->edge.setAlpha(60);
  job->half = m_arrangement.flow == Flow::TopDown ? QPointF(0, kNodeH / 2) : QPointF(kNodeW / 2, 0);
  job->node = QSizeF(kNodeW, kNodeH);
  const QRectF bounds = m_bounds.adjusted(-20, -20, 20, 20);
  // The cell index once per layout (an edit's new colours keep it): 12-60 ms at 100k.
  const bool cells = !m_cells && m_pos.size() == m_doc->graph().node_count();
  m_overview_dirty = false;
  m_overview_running = true;
  m_overview_watcher.setFuture(QtConcurrent::run(worker_pool(), [job, bounds, cells, flow = m_arrangement.flow, layout = m_layout_serial] {
    Overview o;
    o.graph = job->graph.get();
    o.bounds = bounds;
    o.scale = std::min(kOverviewNodePx / kNodeW, std::sqrt(kOverviewPixels / (o.bounds.width() * o.bounds.height())));
    o.image = detail::render_overview(*job, o.bounds, o.scale);
    o.layout = layout;
    if (cells) {
      auto index = std::make_shared<detail::GraphCells>();
      index->build(*job->graph, bounds, std::max(kNodeW, kNodeH), kNodesPerCell, kLongEdgeCells,
                   [&](std::size_t v) { return QRectF(job->pos[v] - QPointF(kNodeW, kNodeH) / 2, QSizeF(kNodeW, kNodeH)); },
                   [&](std::size_t u, core::NodeId v) { return edge_of(job->pos[u], job->pos[idx(v)], flow).box; });
      o.cells = std::move(index);
    }
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
  if (m_overview.cells && m_overview.layout == m_layout_serial) m_cells = std::move(m_overview.cells);
  if (m_overview_dirty) launchOverview();
  update();
}

void GraphView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QPalette& pal = palette();
  p.fillRect(rect(), pal.base());
  if (!m_doc->hasModel() || m_pos.empty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, tr("No model loaded"));
    return;
  }
  const core::Graph& g = m_doc->graph();
  const QRectF visible = QRectF(toWorld(QPointF(0, 0)), toWorld(QPointF(width(), height()))).normalized();
  m_painted_overview = false;
  m_painted_by_cells = false;
  m_painted_items = 0;
  const bool zoomed_out = g.node_count() >= kOverviewNodes && m_scale * kNodeW < kOverviewNodePx;
  if (zoomed_out) {
    if (m_overview.graph == &g && !m_overview.image.isNull()) {
      // The overview picture, only its part in view: no node or edge is visited.
      const QRectF shown = visible & m_overview.bounds;
      const QRectF source((shown.left() - m_overview.bounds.left()) * m_overview.scale,
                          (shown.top() - m_overview.bounds.top()) * m_overview.scale, shown.width() * m_overview.scale,
                          shown.height() * m_overview.scale);
      p.drawImage(QRectF(toWidget(shown.topLeft()), toWidget(shown.bottomRight())), m_overview.image, source);
      m_painted_overview = true;
      p.setTransform(QTransform(m_scale, 0, 0, m_scale, m_offset.x(), m_offset.y()));
      for (core::NodeId v : m_doc->selection()) p.fillRect(nodeWorldRect(v), selection_color());
      p.resetTransform();
    } else {
      p.setPen(pal.color(QPalette::PlaceholderText));
      p.drawText(rect(), Qt::AlignCenter, tr("Drawing %1 nodes…").arg(g.node_count()));
    }
    p.setFont(overlayFont());
    if (m_colouring == Colouring::MeasuredTime && !m_heat.empty()) paintHeatLegend(p);
    return;
  }
  const bool outlined = m_scale * kNodeW >= 14;  // borders, curves, antialiasing
  const auto& crit = m_doc->analysis().critical.nodes;
  std::vector<int> crit_index(g.node_count(), -1);
  for (std::size_t i = 0; i < crit.size(); ++i) crit_index[idx(crit[i])] = static_cast<int>(i);

  p.setTransform(QTransform(m_scale, 0, 0, m_scale, m_offset.x(), m_offset.y()));
  p.setRenderHint(QPainter::Antialiasing, outlined);
  QColor edge = pal.color(QPalette::Text);
  edge.setAlpha(outlined ? 110 : 60);
  QPen edge_pen(edge, 0);
  QPen crit_pen(critical_color(), 2.5);
  crit_pen.setCosmetic(true);
  std::vector<QLineF> plain, critical_lines;
  const auto paint_edge = [&](std::size_t u, core::NodeId v) {
    const detail::EdgeShape e = edge_of(m_pos[u], m_pos[idx(v)], m_arrangement.flow);
    if (!e.box.intersects(visible)) return;
    ++m_painted_items;
    const bool critical = crit_index[u] >= 0 && crit_index[idx(v)] == crit_index[u] + 1;
    if (!outlined) {
      (critical ? critical_lines : plain).emplace_back(e.a, e.b);
      return;
    }
    p.setPen(critical ? crit_pen : edge_pen);
    QPainterPath path(e.a);
    path.cubicTo(e.c1, e.c2, e.b);
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
  };
  // A large graph's nodes and edges in the cells in view (each still tested), in the order a
  // pass over all of them takes.
  std::vector<std::uint32_t> cell_nodes, cell_edges;
  const bool by_cells = m_painted_by_cells = m_use_cells && m_cells && m_cells->candidates(visible, cell_nodes, cell_edges);
  if (by_cells) {
    for (std::uint32_t k : cell_edges) std::apply(paint_edge, m_cells->edge(g, k));
  } else {
    for (std::size_t u = 0; u < g.node_count(); ++u)
      for (core::NodeId v : g.successors(static_cast<core::NodeId>(u))) paint_edge(u, v);
  }
  if (!plain.empty()) {
    p.setPen(edge_pen);
    p.drawLines(plain.data(), static_cast<int>(plain.size()));
  }
  if (!critical_lines.empty()) {
    p.setPen(crit_pen);
    p.drawLines(critical_lines.data(), static_cast<int>(critical_lines.size()));
  }

  // Labels are drawn in pixels, not world units, so they stay legible at the scales a fitted
  // graph of a few hundred nodes gets: from where a node is about as tall as a line of small text.
  QFont label_font = font();
  label_font.setPointSizeF(std::clamp(9 * m_scale, 7.0, 11.0));
  const QFontMetricsF label_metrics(label_font);
  const bool detailed = kNodeH * m_scale >= 0.85 * label_metrics.height() && kNodeW * m_scale >= 24;
  struct Label {
    QRectF rect;
    QString text;
    QColor color;  // light on dark fills (the heat scale's slow end is dark)
  };
  std::vector<Label> labels;
  const std::size_t node_visits = by_cells ? cell_nodes.size() : m_pos.size();
  for (std::size_t i = 0; i < node_visits; ++i) {
    const std::size_t v = by_cells ? cell_nodes[i] : i;
    const QRectF r = nodeWorldRect(static_cast<core::NodeId>(v));
    if (!visible.intersects(r)) continue;
    ++m_painted_items;
    const int stream = m_doc->streamOf(static_cast<core::NodeId>(v));
    const bool selected = m_doc->isSelected(static_cast<core::NodeId>(v));
    const bool critical = crit_index[v] >= 0;
    const QColor fill = nodeFill(static_cast<core::NodeId>(v));
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
    const core::Node& node = g.node(static_cast<core::NodeId>(v));
    const bool merged = core::is_merged_node(node);
    if (merged && !selected && !critical) {
      pen.setColor(merged_color());
      pen.setWidthF(2.5);
    }
    p.setPen(pen);
    p.setBrush(fill);
    p.drawRoundedRect(r, 5, 5);
    // A merged launch shows its members' operator and count.
    if (detailed)
      labels.push_back({QRectF(toWidget(r.topLeft()), toWidget(r.bottomRight())),
                        QString::fromStdString(core::node_label(node)),
                        fill.lightnessF() < 0.45 ? QColor(Qt::white) : QColor(Qt::black)});
  }
  p.resetTransform();
  p.setFont(label_font);
  for (const Label& l : labels) {
    p.setPen(l.color);
    p.drawText(l.rect.adjusted(3, 0, -3, 0), Qt::AlignCenter, label_metrics.elidedText(l.text, Qt::ElideRight, l.rect.width() - 6));
  }
  p.setFont(overlayFont());
  if (m_colouring == Colouring::MeasuredTime && !m_heat.empty()) paintHeatLegend(p);
  p.setPen(pal.color(QPalette::PlaceholderText));
  // The figures first; the hints are what a narrow view elides.
  const QRect status = rect().adjusted(8, 4, -8, -4);
  p.drawText(status, Qt::AlignBottom | Qt::AlignRight,
             p.fontMetrics().elidedText(tr("%1 nodes · %2%3 · critical path in red · wheel: zoom · drag: pan · Ctrl+0: fit · "
                                           "right-click: layers")
                                            .arg(g.node_count())
                                            .arg(m_layering_summary)
                                            .arg(arrangementText()),
                                        Qt::ElideRight, status.width()));
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
                 .arg(m_layering == Layering::Levels ? QString() : tr(", wire layer %1").arg(layerOf(v))) +
             measuredTip(v));
}

QString GraphView::measuredTip(core::NodeId v) const {
  if (!m_doc->profile()) return {};
  const auto& predicted = m_doc->predictedCosts().nodes;
  const QString prediction = idx(v) < predicted.size() ? tr(", predicted %1 µs").arg(predicted[idx(v)].time_us, 0, 'f', 2) : QString();
  const std::optional<double> us = m_doc->measuredTime(v);
  return us ? tr("\nmeasured %1 µs%2").arg(*us, 0, 'f', 2).arg(prediction) : tr("\nnot in the profile%1").arg(prediction);
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
