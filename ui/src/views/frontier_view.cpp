#include "weft/ui/frontier_view.h"
#include "weft/ui/worker_pool.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QtConcurrent>
#include <algorithm>
#include <cmath>

#include "weft/ui/byte_format.h"
#include "weft/ui/studio_document.h"

namespace weft::ui {

namespace {
constexpr double kPick = 8;  // pixels: how near a click must be to a point
}  // namespace

FrontierView::FrontierView(StudioDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  setMouseTracking(true);
  setMinimumHeight(100);
  setToolTip(QString());
  connect(&m_watcher, &QFutureWatcher<core::Expected<core::Frontier>>::finished, this, &FrontierView::takeResult);
  connect(doc, &StudioDocument::modelChanged, this, &FrontierView::markStale);
  connect(doc, &StudioDocument::costsChanged, this, &FrontierView::markStale);
  // The front depends on the model, costs and launch mode, not on the current schedule: an edit
  // only moves the ring, unless it changed the launch mode (Apply with CUDA Graph replay).
  connect(doc, &StudioDocument::scheduleChanged, this, [this] {
    if (m_doc->hasModel() && m_doc->strategyOptions().cuda_graph != m_cuda_graph) markStale();
    update();
  });
  // The ring sits at the current schedule's studied figures, which arrive from the document's worker.
  connect(doc, &StudioDocument::studyChanged, this, qOverload<>(&QWidget::update));
}

FrontierView::~FrontierView() {
  if (m_cancel) m_cancel->store(true);
  m_watcher.waitForFinished();
}

void FrontierView::markStale() {
  m_stale = true;
  m_frontier.reset();
  m_hover = -1;
  if (isVisible()) compute();
  update();
}

void FrontierView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (m_stale) compute();
}

void FrontierView::compute() {
  m_stale = false;
  m_frontier.reset();
  if (!m_doc->hasModel()) {
    m_note = tr("No model loaded");
    return;
  }
  if (m_doc->graph().node_count() > kMaxNodes) {
    m_note = tr("The speed/memory front is computed up to %1 nodes (weft frontier MODEL works at any size)").arg(kMaxNodes);
    return;
  }
  m_cuda_graph = m_doc->strategyOptions().cuda_graph;
  m_note = tr("Computing the speed/memory front...");
  core::FrontierOptions options;
  if (m_cancel) m_cancel->store(true);  // the previous model's front is not needed any more
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  options.cancelled = [cancel = m_cancel] { return cancel->load(std::memory_order_relaxed); };
  options.strategy.cuda_graph = m_cuda_graph;
  options.strategy.granularity_us = m_doc->strategyOptions().granularity_us;
  m_watcher.setFuture(QtConcurrent::run(worker_pool(), [graph = m_doc->graphPtr(), costs = m_doc->analysis().costs,
                                         device = m_doc->device(), options] {
    return core::memory_frontier(*graph, costs, device, options);
  }));
  update();
}

void FrontierView::takeResult() {
  if (!m_watcher.isFinished() || m_watcher.isCanceled()) return;
  auto result = m_watcher.result();
  if (!result) {
    m_note = tr("No front: %1").arg(QString::fromStdString(result.error().message));
  } else {
    m_frontier = std::make_shared<const core::Frontier>(std::move(*result));
    m_note = tr("Speed vs memory: %1 schedules, %2 on the front (click a point to apply it)")
                 .arg(m_frontier->points.size())
                 .arg(m_frontier->front.size());
    m_x_max = 1e-9;
    m_y_max = 1e-9;
    for (const core::FrontierPoint& p : m_frontier->points) {
      m_x_max = std::max(m_x_max, static_cast<double>(p.arena_bytes) / kMiB);
      m_y_max = std::max(m_y_max, p.predicted_us);
    }
    m_x_max *= 1.08;
    m_y_max *= 1.08;
  }
  update();
}

void FrontierView::waitForFrontier() {
  if (m_stale && isVisible()) compute();
  if (m_watcher.isRunning()) {
    m_watcher.waitForFinished();
  }
  if (m_watcher.isFinished() && !m_frontier) takeResult();
}

QRectF FrontierView::plotRect() const { return QRectF(70, 24, std::max(10, width() - 90), std::max(10, height() - 62)); }

QPointF FrontierView::toWidget(double arena_bytes, double us) const {
  const QRectF r = plotRect();
  return {r.left() + r.width() * (arena_bytes / kMiB) / m_x_max, r.bottom() - r.height() * us / m_y_max};
}

QPointF FrontierView::pointCenter(int index) const {
  if (!m_frontier || index < 0 || static_cast<std::size_t>(index) >= m_frontier->points.size()) return {};
  const core::FrontierPoint& p = m_frontier->points[static_cast<std::size_t>(index)];
  return toWidget(static_cast<double>(p.arena_bytes), p.predicted_us);
}

int FrontierView::pointAt(QPointF pos) const {
  if (!m_frontier) return -1;
  int best = -1;
  double best_d = kPick;
  // Front points first: where points overlap, the click means the one on the front.
  for (int pass = 0; pass < 2 && best < 0; ++pass)
    for (std::size_t i = 0; i < m_frontier->points.size(); ++i) {
      if (m_frontier->points[i].on_front != (pass == 0)) continue;
      const QPointF d = pointCenter(static_cast<int>(i)) - pos;
      const double dist = std::hypot(d.x(), d.y());
      if (dist <= best_d) {
        best_d = dist;
        best = static_cast<int>(i);
      }
    }
  return best;
}

int FrontierView::currentPoint() const {
  if (!m_frontier || !m_doc->hasModel()) return -1;
  const core::Schedule& s = m_doc->schedule();
  for (std::size_t i = 0; i < m_frontier->points.size(); ++i) {
    const core::Schedule& q = m_frontier->points[i].schedule;
    if (q.streams == s.streams && q.events == s.events) return static_cast<int>(i);
  }
  return -1;
}

void FrontierView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QPalette& pal = palette();
  p.fillRect(rect(), pal.base());
  p.setPen(pal.color(QPalette::Text));
  p.drawText(QRectF(8, 2, width() - 16, 20), Qt::AlignLeft | Qt::AlignVCenter, m_note);
  if (!m_frontier) return;
  const QRectF r = plotRect();
  QColor grid = pal.color(QPalette::Text);
  grid.setAlpha(60);
  p.setPen(grid);
  p.drawRect(r);
  // Axis labels: arena (MiB) and predicted time (µs), ends only; the points carry tooltips.
  p.setPen(pal.color(QPalette::Text));
  p.drawText(QRectF(r.left(), r.bottom() + 4, r.width(), 16), Qt::AlignLeft, QStringLiteral("0"));
  p.drawText(QRectF(r.left(), r.bottom() + 4, r.width(), 16), Qt::AlignRight, tr("%1 MiB").arg(m_x_max, 0, 'f', 2));
  p.drawText(QRectF(r.left(), r.bottom() + 18, r.width(), 16), Qt::AlignHCenter, tr("arena"));
  p.drawText(QRectF(0, r.top() - 6, r.left() - 6, 16), Qt::AlignRight, tr("%1 µs").arg(m_y_max, 0, 'f', 0));
  p.drawText(QRectF(0, r.bottom() - 10, r.left() - 6, 16), Qt::AlignRight, tr("predicted"));

  const QColor front_color(0x1f, 0x6f, 0xd1);
  const auto& pts = m_frontier->points;
  // The front as a staircase: each schedule serves every budget up to the next point's arena.
  QPainterPath stairs;
  for (std::size_t k = 0; k < m_frontier->front.size(); ++k) {
    const QPointF at = pointCenter(static_cast<int>(m_frontier->front[k]));
    if (k == 0) {
      stairs.moveTo(at);
    } else {
      stairs.lineTo(at.x(), pointCenter(static_cast<int>(m_frontier->front[k - 1])).y());
      stairs.lineTo(at);
    }
  }
  p.setPen(QPen(front_color, 2));
  p.setBrush(Qt::NoBrush);
  p.drawPath(stairs);
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const QPointF c = pointCenter(static_cast<int>(i));
    const double radius = pts[i].on_front ? 5 : 3.5;
    p.setPen(Qt::NoPen);
    p.setBrush(pts[i].on_front ? front_color : QColor(0x9a, 0x9a, 0x9a));
    if (static_cast<int>(i) == m_hover) p.setBrush(front_color.lighter(140));
    p.drawEllipse(c, radius, radius);
  }
  // The current schedule: ringed where it is (its own figures, so an edited schedule shows too).
  // (None while an edit's study runs: the figures are still the previous schedule's.)
  const ScheduleFigures& f = m_doc->figures();
  if (!f.stale && f.arena_bytes >= 0 && f.predicted_us >= 0) {
    p.setPen(QPen(QColor(0xd1, 0x2f, 0x1f), 2));
    p.setBrush(Qt::NoBrush);
    p.drawEllipse(toWidget(static_cast<double>(f.arena_bytes), f.predicted_us), 8, 8);
  }
}

void FrontierView::mouseMoveEvent(QMouseEvent* event) {
  const int at = pointAt(event->position());
  if (at != m_hover) {
    m_hover = at;
    update();
  }
  if (at >= 0) {
    const core::FrontierPoint& q = m_frontier->points[static_cast<std::size_t>(at)];
    QToolTip::showText(event->globalPosition().toPoint(),
                       tr("%1\narena %2 · predicted %3 µs (%4× sequential)%5")
                           .arg(QString::fromStdString(q.label()), format_bytes(q.arena_bytes))
                           .arg(q.predicted_us, 0, 'f', 1)
                           .arg(q.speedup, 0, 'f', 2)
                           .arg(q.on_front ? tr("\non the front: click to apply") : tr("\nclick to apply")),
                       this);
  } else {
    QToolTip::hideText();
  }
}

void FrontierView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  const int at = pointAt(event->position());
  if (at < 0) return;
  // Keep the front alive across the edit: applying a point must not recompute it.
  const std::shared_ptr<const core::Frontier> keep = m_frontier;
  const core::FrontierPoint& q = keep->points[static_cast<std::size_t>(at)];
  if (m_doc->applySchedule(q.schedule, tr("Apply front point %1").arg(QString::fromStdString(q.label())))) emit pointApplied(at);
}

}  // namespace weft::ui
