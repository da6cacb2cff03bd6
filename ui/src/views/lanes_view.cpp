#include "weft/ui/lanes_view.h"

#include "weft/core/graph/fused_node.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "weft/core/schedule/execution_order.h"
#include "weft/core/transform/merge_graph.h"
#include "weft/ui/stream_colors.h"
#include "weft/ui/studio_document.h"
#include "weft/ui/worker_pool.h"

namespace weft::ui {

namespace {
constexpr int kHeaderWidth = 96;
constexpr int kLaneHeight = 46;
constexpr int kBoxHeight = 30;
constexpr int kTop = 4;
constexpr double kGap = 8;
constexpr double kUniformWidth = 56;
constexpr double kMinWidth = 6;
using core::detail::idx;

struct LanePositions {
  std::vector<double> x;
  double content_width = 0;
};

// Earliest x allowed by the schedule's happens-before (data edges, stream order, events), in
// its execution order: every arrow points forward. The document refuses deadlocking
// schedules; were one to slip through, its nodes would stack at x = 0 rather than crash.
LanePositions lane_positions(const core::Graph& g, const core::Schedule& s, const std::vector<double>& w) {
  LanePositions out;
  out.x.assign(g.node_count(), 0.0);
  if (const auto order = core::ExecutionOrder::build_unclocked(g, s)) {
    for (const core::NodeId u : order->order()) {
      const double end = out.x[idx(u)] + w[idx(u)];
      out.content_width = std::max(out.content_width, end);
      for (const core::NodeId v : order->successors(u)) out.x[idx(v)] = std::max(out.x[idx(v)], end + kGap);
    }
  }
  return out;
}
}  // namespace

LanesView::LanesView(StudioDocument* doc, QWidget* parent) : QAbstractScrollArea(parent), m_doc(doc) {
  setMouseTracking(true);
  viewport()->setMouseTracking(true);
  viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
  setMinimumHeight(kLaneHeight * 2);
  connect(doc, &StudioDocument::modelChanged, this, [this] {
    m_zoom = 1.0;
    relayout();
  });
  connect(doc, &StudioDocument::scheduleChanged, this, [this] {
    m_awaiting_edit = false;
    // A large model's boxes are placed in the worker (an O(V + E) execution order, 5-10 ms at
    // 100k): until they arrive the lanes show the new streams at the previous x.
    // (A new model's first schedule, whose widths are not made yet, is laid out here.)
    if (m_doc->graph().node_count() > m_doc->asyncEditNodes() && m_w.size() == m_doc->graph().node_count()) {
      m_relayout_dirty = true;
      if (!m_relayout_running) launchRelayout();
      viewport()->update();
    } else {
      relayout();
    }
  });
  connect(&m_relayout_watcher, &QFutureWatcher<std::pair<std::vector<double>, double>>::finished, this, [this] {
    if (!m_relayout_running || !m_relayout_watcher.future().isFinished()) return;
    m_relayout_running = false;
    auto [x, width] = m_relayout_watcher.future().takeResult();
    if (m_job_serial == m_layout_serial) {  // else laid out here since (a model, a width mode)
      m_x = std::move(x);
      m_content_width = width;
      updateScrollBars();
      viewport()->update();
    }
    if (m_relayout_dirty) launchRelayout();
  });
  // A drop on a large model is checked in the worker: its refusal comes later, and is shown at
  // the drop.
  connect(doc, &StudioDocument::editRefused, this, [this](const QString& why) {
    if (!m_awaiting_edit) return;
    m_awaiting_edit = false;
    QToolTip::showText(viewport()->mapToGlobal(m_drag_pos), tr("Refused: %1").arg(why), viewport());
    viewport()->update();
  });
  connect(doc, &StudioDocument::selectionChanged, viewport(), qOverload<>(&QWidget::update));
  relayout();  // a document that already holds a model (a view opened after loading)
}

void LanesView::setWidthMode(WidthMode mode) {
  m_mode = mode;
  relayout();
}

void LanesView::relayout() {
  if (!m_doc->hasModel()) {
    m_x.clear();
    m_w.clear();
    viewport()->update();
    return;
  }
  const core::Graph& g = m_doc->graph();
  const core::Schedule& s = m_doc->schedule();
  const std::size_t n = g.node_count();
  m_w.assign(n, kUniformWidth);
  if (m_mode == WidthMode::PredictedTime) {
    // Scale so the median node is a readable box; tiny ones keep a sliver.
    std::vector<double> t = m_doc->nodeTimes();
    double median = 1;
    if (!t.empty()) {
      std::nth_element(t.begin(), t.begin() + static_cast<long>(t.size() / 2), t.end());
      median = std::max(1e-3, t[t.size() / 2]);
    }
    const double px_per_us = 44.0 / median;
    for (std::size_t v = 0; v < n; ++v)
      m_w[v] = std::clamp(m_doc->nodeTimes()[v] * px_per_us, kMinWidth, 600.0);
  }
  LanePositions placed = lane_positions(g, s, m_w);
  m_x = std::move(placed.x);
  m_content_width = placed.content_width;
  m_relayout_dirty = false;
  ++m_layout_serial;  // a job still running is for an older schedule or widths: its result is dropped
  updateScrollBars();
  viewport()->update();
}

LanesView::~LanesView() {
  if (m_relayout_running) m_relayout_watcher.waitForFinished();
}

void LanesView::launchRelayout() {
  m_relayout_dirty = false;
  m_job_serial = ++m_layout_serial;
  m_relayout_running = true;
  m_relayout_watcher.setFuture(QtConcurrent::run(
      worker_pool(), [graph = m_doc->graphPtr(), schedule = m_doc->schedule(), widths = m_w] {
        LanePositions placed = lane_positions(*graph, schedule, widths);
        return std::pair(std::move(placed.x), placed.content_width);
      }));
}

void LanesView::updateScrollBars() {
  const int lanes = m_doc->hasModel() ? static_cast<int>(m_doc->schedule().stream_count()) : 0;
  const int content_w = static_cast<int>(m_content_width * m_zoom) + kHeaderWidth + 40;
  const int content_h = kTop + (lanes + 1) * kLaneHeight;
  horizontalScrollBar()->setRange(0, std::max(0, content_w - viewport()->width()));
  horizontalScrollBar()->setPageStep(viewport()->width());
  horizontalScrollBar()->setSingleStep(20);
  verticalScrollBar()->setRange(0, std::max(0, content_h - viewport()->height()));
  verticalScrollBar()->setPageStep(viewport()->height());
  verticalScrollBar()->setSingleStep(kLaneHeight / 2);
}

void LanesView::resizeEvent(QResizeEvent* event) {
  QAbstractScrollArea::resizeEvent(event);
  updateScrollBars();
}

int LanesView::contentX(int viewport_x) const {
  return static_cast<int>((viewport_x - kHeaderWidth + horizontalScrollBar()->value()) / m_zoom);
}
int LanesView::viewX(double content_x) const {
  return static_cast<int>(std::lround(content_x * m_zoom)) + kHeaderWidth - horizontalScrollBar()->value();
}
int LanesView::laneTop(int lane) const { return kTop + lane * kLaneHeight - verticalScrollBar()->value(); }

int LanesView::laneAt(int y) const {
  if (!m_doc->hasModel()) return -1;
  const int yy = y + verticalScrollBar()->value() - kTop;
  if (yy < 0) return -1;
  const int lane = yy / kLaneHeight;
  return lane < static_cast<int>(m_doc->schedule().stream_count()) ? lane : -1;
}

QRect LanesView::nodeRect(core::NodeId n) const {
  if (!m_doc->hasModel() || idx(n) >= m_x.size()) return {};
  const int lane = m_doc->streamOf(n);
  const int x0 = viewX(m_x[idx(n)]);
  const int x1 = viewX(m_x[idx(n)] + m_w[idx(n)]);
  return QRect(x0, laneTop(lane) + (kLaneHeight - kBoxHeight) / 2, std::max(2, x1 - x0), kBoxHeight);
}

core::NodeId LanesView::nodeAt(QPoint p) const {
  const int lane = laneAt(p.y());
  if (lane < 0 || p.x() < kHeaderWidth) return core::kNoNode;
  for (core::NodeId v : m_doc->schedule().streams[static_cast<std::size_t>(lane)])
    if (nodeRect(v).adjusted(-1, 0, 1, 0).contains(p)) return v;
  return core::kNoNode;
}

std::pair<int, int> LanesView::dropTarget(QPoint p) const {
  const int lane = laneAt(p.y());
  if (lane < 0) return {-1, -1};
  int position = 0;
  for (core::NodeId v : m_doc->schedule().streams[static_cast<std::size_t>(lane)]) {
    if (m_doc->isSelected(v)) continue;
    const QRect r = nodeRect(v);
    if (r.center().x() < p.x()) ++position;
  }
  return {lane, position};
}

QPoint LanesView::dropPoint(int stream, int position) const {
  std::vector<core::NodeId> fixed;
  for (core::NodeId v : m_doc->schedule().streams[static_cast<std::size_t>(stream)])
    if (!m_doc->isSelected(v)) fixed.push_back(v);
  const int y = laneTop(stream) + kLaneHeight / 2;
  if (fixed.empty()) return {kHeaderWidth + 20, y};
  if (static_cast<std::size_t>(position) < fixed.size()) {
    const QRect r = nodeRect(fixed[static_cast<std::size_t>(position)]);
    return {r.left() + std::max(1, r.width() / 4), y};
  }
  return {nodeRect(fixed.back()).right() + 4, y};
}

void LanesView::ensureNodeVisible(core::NodeId n) {
  const QRect r = nodeRect(n);
  if (r.isNull()) return;
  if (r.left() < kHeaderWidth || r.right() > viewport()->width())
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() + r.center().x() - (kHeaderWidth + viewport()->width()) / 2);
  if (r.top() < 0 || r.bottom() > viewport()->height())
    verticalScrollBar()->setValue(verticalScrollBar()->value() + r.center().y() - viewport()->height() / 2);
}

void LanesView::paintEvent(QPaintEvent*) {
  QPainter p(viewport());
  const QPalette& pal = palette();
  p.fillRect(viewport()->rect(), pal.base());
  if (!m_doc->hasModel()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(viewport()->rect(), Qt::AlignCenter, tr("No model: File ▸ Open (Ctrl+O) or drop an .onnx file here"));
    return;
  }
  const core::Graph& g = m_doc->graph();
  const core::Schedule& s = m_doc->schedule();
  const int lanes = static_cast<int>(s.stream_count());
  const int w = viewport()->width();
  const double visible_x0 = (horizontalScrollBar()->value()) / m_zoom;
  const double visible_x1 = (horizontalScrollBar()->value() + w - kHeaderWidth) / m_zoom;

  // Lane backgrounds.
  for (int lane = 0; lane < lanes; ++lane) {
    const int top = laneTop(lane);
    if (top > viewport()->height() || top + kLaneHeight < 0) continue;
    p.fillRect(QRect(0, top, w, kLaneHeight), lane % 2 ? pal.alternateBase() : pal.base());
  }
  p.setClipRect(QRect(kHeaderWidth, 0, w - kHeaderWidth, viewport()->height()));

  // Boxes: each lane's boxes are sorted by x, so binary search the visible run.
  QFont small = font();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
  p.setFont(small);
  const QFontMetrics fm(small);
  std::vector<bool> drawn(g.node_count(), false);
  for (int lane = 0; lane < lanes; ++lane) {
    const int top = laneTop(lane);
    if (top > viewport()->height() || top + kLaneHeight < 0) continue;
    const auto& st = s.streams[static_cast<std::size_t>(lane)];
    auto first = std::lower_bound(st.begin(), st.end(), visible_x0,
                                  [&](core::NodeId v, double x) { return m_x[idx(v)] + m_w[idx(v)] < x; });
    const QColor base = stream_color(lane);
    double last_px = -1e9;
    for (auto it = first; it != st.end() && m_x[idx(*it)] <= visible_x1; ++it) {
      const core::NodeId v = *it;
      drawn[idx(v)] = true;
      const QRect r = nodeRect(v);
      // Merge sub-pixel boxes: skip one that starts where the previous drawn one did.
      if (r.width() <= 2 && r.left() <= last_px + 1 && !m_doc->isSelected(v)) continue;
      last_px = r.left();
      const bool selected = m_doc->isSelected(v);
      const bool critical = m_doc->onCriticalPath(v);
      p.setPen(selected ? QPen(selection_color(), 2.5) : QPen(base.darker(150), 1));
      p.setBrush(base.lighter(m_dragging && selected ? 170 : 125));
      p.drawRect(r.adjusted(0, 0, -1, -1));
      const core::Node& node = g.node(v);
      const bool merged = core::is_merged_node(node);
      if (merged && !selected) {
        // A merged launch (horizontal merging): a double outline, and "op ×k" as its label.
        p.setPen(QPen(merged_color(), 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(1, 1, -2, -2));
      }
      if (critical) p.fillRect(QRect(r.left() + 1, r.top() + 1, r.width() - 2, 4), critical_color());
      if (r.width() > 22) {
        p.setPen(pal.color(QPalette::Text));
        const QString label = QString::fromStdString(core::node_label(node));
        p.drawText(r.adjusted(3, 4, -2, 0), Qt::AlignVCenter | Qt::AlignLeft, fm.elidedText(label, Qt::ElideRight, r.width() - 5));
      }
    }
  }

  // Event arrows: record after `from`, wait before `to`.
  p.setRenderHint(QPainter::Antialiasing);
  QColor arrow = pal.color(QPalette::Text);
  arrow.setAlpha(150);
  for (const core::Event& e : s.events) {
    if (!drawn[idx(e.from)] && !drawn[idx(e.to)]) {
      // Both ends off-screen: draw only when the arrow spans the visible range.
      if (m_x[idx(e.from)] > visible_x1 || m_x[idx(e.to)] + m_w[idx(e.to)] < visible_x0) continue;
    }
    const QRect a = nodeRect(e.from), b = nodeRect(e.to);
    const QPointF from(a.right(), a.center().y());
    const QPointF to(b.left() - 1, b.center().y());
    QPainterPath path(from);
    const double dx = std::max(12.0, (to.x() - from.x()) / 2);
    path.cubicTo(from + QPointF(dx, 0), to - QPointF(dx, 0), to);
    const bool hot = m_doc->isSelected(e.from) || m_doc->isSelected(e.to);
    p.setPen(QPen(hot ? selection_color() : arrow, hot ? 1.8 : 1.0));
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
    p.setBrush(hot ? selection_color() : arrow);
    p.drawPolygon(QPolygonF({to, to + QPointF(-6, -3.5), to + QPointF(-6, 3.5)}));
  }
  p.setRenderHint(QPainter::Antialiasing, false);

  // Drag feedback: insertion marker in the target lane, ghost of the dragged boxes; they stay
  // where dropped while the worker checks the edit.
  if (m_dragging || (m_awaiting_edit && m_doc->editPending())) {
    const auto [lane, position] = dropTarget(m_drag_pos);
    if (lane >= 0) {
      const QPoint at = dropPoint(lane, position);
      int x = at.x();
      std::vector<core::NodeId> fixed;
      for (core::NodeId v : s.streams[static_cast<std::size_t>(lane)])
        if (!m_doc->isSelected(v)) fixed.push_back(v);
      if (static_cast<std::size_t>(position) < fixed.size()) x = nodeRect(fixed[static_cast<std::size_t>(position)]).left() - 4;
      p.setPen(QPen(selection_color(), 3));
      p.drawLine(x, laneTop(lane) + 2, x, laneTop(lane) + kLaneHeight - 2);
    }
    p.setPen(QPen(selection_color(), 1, Qt::DashLine));
    p.setBrush(QColor(31, 111, 255, 40));
    int dx = 0;
    for (core::NodeId v : m_doc->selection()) {
      QRect r = nodeRect(v);
      r.moveTopLeft(m_drag_pos + QPoint(dx, -kBoxHeight / 2));
      p.drawRect(r);
      dx += r.width() + 2;
    }
  }
  if (m_rubber) {
    p.setPen(QPen(selection_color(), 1));
    p.setBrush(QColor(31, 111, 255, 30));
    p.drawRect(QRect(m_press_pos, m_drag_pos).normalized());
  }

  // Lane headers, drawn last so boxes scroll under them.
  p.setClipping(false);
  for (int lane = 0; lane < lanes; ++lane) {
    const int top = laneTop(lane);
    if (top > viewport()->height() || top + kLaneHeight < 0) continue;
    const QRect hr(0, top, kHeaderWidth - 4, kLaneHeight);
    p.fillRect(hr, pal.window());
    p.fillRect(QRect(0, top + 4, 5, kLaneHeight - 8), stream_color(lane));
    p.setPen(pal.color(QPalette::WindowText));
    p.drawText(hr.adjusted(10, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft,
               tr("stream %1\n%2 nodes").arg(lane).arg(s.streams[static_cast<std::size_t>(lane)].size()));
  }
}

void LanesView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !m_doc->hasModel()) return QAbstractScrollArea::mousePressEvent(event);
  m_press_pos = m_drag_pos = event->position().toPoint();
  m_press_node = nodeAt(m_press_pos);
  const bool toggle = event->modifiers() & (Qt::ControlModifier | Qt::ShiftModifier);
  if (m_press_node != core::kNoNode) {
    std::vector<core::NodeId> sel = m_doc->selection();
    if (toggle) {
      auto it = std::find(sel.begin(), sel.end(), m_press_node);
      if (it != sel.end()) sel.erase(it);
      else sel.push_back(m_press_node);
      m_doc->setSelection(std::move(sel));
    } else if (!m_doc->isSelected(m_press_node)) {
      m_doc->setSelection({m_press_node});
    }
  } else {
    m_rubber = true;
    if (!toggle) m_doc->setSelection({});
  }
}

void LanesView::mouseMoveEvent(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  if (!(event->buttons() & Qt::LeftButton)) {
    const core::NodeId v = m_doc->hasModel() ? nodeAt(pos) : core::kNoNode;
    if (v != core::kNoNode) {
      const core::Node& node = m_doc->graph().node(v);
      setToolTip(tr("%1 (%2)\nstream %3, position %4\npredicted %5 µs")
                     .arg(QString::fromStdString(node.name), QString::fromStdString(node.op_type))
                     .arg(m_doc->streamOf(v))
                     .arg(m_doc->positionOf(v))
                     .arg(m_doc->nodeTimes()[idx(v)], 0, 'f', 2));
    } else {
      setToolTip({});
    }
    return;
  }
  m_drag_pos = pos;
  if (m_press_node != core::kNoNode && !m_dragging &&
      (pos - m_press_pos).manhattanLength() >= QApplication::startDragDistance())
    m_dragging = true;
  viewport()->update();
}

void LanesView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return QAbstractScrollArea::mouseReleaseEvent(event);
  const QPoint pos = event->position().toPoint();
  m_drag_pos = pos;
  if (m_dragging) {
    m_dragging = false;
    const auto [lane, position] = dropTarget(pos);
    if (lane >= 0 && !m_doc->selection().empty()) {
      const std::vector<core::NodeId> moved = m_doc->selection();
      m_awaiting_edit = true;  // a refusal (now or from the worker) is shown at the drop
      m_doc->moveNodes(moved, lane, position);
      if (!m_doc->editPending()) m_awaiting_edit = false;
    }
  } else if (m_rubber) {
    m_rubber = false;
    const QRect band = QRect(m_press_pos, pos).normalized();
    std::vector<core::NodeId> sel = (event->modifiers() & (Qt::ControlModifier | Qt::ShiftModifier))
                                        ? m_doc->selection()
                                        : std::vector<core::NodeId>{};
    if (band.width() > 2 || band.height() > 2)
      for (const auto& st : m_doc->schedule().streams)
        for (core::NodeId v : st)
          if (band.intersects(nodeRect(v))) sel.push_back(v);
    m_doc->setSelection(std::move(sel));
  } else if (m_press_node != core::kNoNode && !(event->modifiers() & (Qt::ControlModifier | Qt::ShiftModifier))) {
    m_doc->setSelection({m_press_node});
  }
  m_press_node = core::kNoNode;
  viewport()->update();
}

void LanesView::wheelEvent(QWheelEvent* event) {
  if (!(event->modifiers() & Qt::ControlModifier)) return QAbstractScrollArea::wheelEvent(event);
  // Zoom the time axis about the cursor.
  const double x = event->position().x();
  const double content = (x - kHeaderWidth + horizontalScrollBar()->value()) / m_zoom;
  const double factor = std::pow(1.0015, event->angleDelta().y());
  m_zoom = std::clamp(m_zoom * factor, 0.02, 20.0);
  updateScrollBars();
  horizontalScrollBar()->setValue(static_cast<int>(content * m_zoom - (x - kHeaderWidth)));
  viewport()->update();
}

void LanesView::contextMenuEvent(QContextMenuEvent* event) {
  if (!m_doc->hasModel()) return;
  const int lane = laneAt(viewport()->mapFrom(this, event->pos()).y());
  QMenu menu(this);
  menu.addAction(tr("Add stream"), m_doc, [this] { m_doc->addStream(); });
  if (lane >= 0) {
    menu.addAction(tr("Remove stream %1").arg(lane), m_doc, [this, lane] { m_doc->removeStream(lane); });
    QMenu* merge = menu.addMenu(tr("Merge stream %1 into").arg(lane));
    for (int other = 0; other < static_cast<int>(m_doc->schedule().stream_count()); ++other)
      if (other != lane)
        merge->addAction(tr("stream %1").arg(other), m_doc, [this, lane, other] { m_doc->mergeStreams(other, lane); });
  }
  menu.addSeparator();
  QAction* uniform = menu.addAction(tr("Uniform widths"), this, [this] { setWidthMode(WidthMode::Uniform); });
  uniform->setCheckable(true);
  uniform->setChecked(m_mode == WidthMode::Uniform);
  QAction* timed = menu.addAction(tr("Widths by predicted time"), this, [this] { setWidthMode(WidthMode::PredictedTime); });
  timed->setCheckable(true);
  timed->setChecked(m_mode == WidthMode::PredictedTime);
  menu.exec(event->globalPos());
}

}  // namespace weft::ui
