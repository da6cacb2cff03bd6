#include "weft/ui/offset_map_view.h"

#include <QEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "weft/ui/byte_format.h"
#include "weft/ui/growth_chart.h"
#include "weft/ui/stream_colors.h"
#include "weft/ui/studio_document.h"

namespace weft::ui {

OffsetMapView::OffsetMapView(StudioDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  setMouseTracking(true);
  setMinimumHeight(80);
  setAttribute(Qt::WA_OpaquePaintEvent);
  const auto redraw = [this] {
    m_blocks_valid = false;
    update();
  };
  connect(doc, &StudioDocument::selectionChanged, this, redraw);
  // The producers' stream colours. A large model's blocks come drawn by the memory view's
  // worker with the new schedule's study (adoptBlocks); until then the previous plan stays drawn
  // in the colours it was planned in, not drawn again here (81k blocks: 7 ms per edit, issue 45).
  connect(doc, &StudioDocument::scheduleChanged, this, [this, redraw] {
    if (m_doc->hasModel() && m_doc->graph().node_count() > m_doc->asyncEditNodes()) return;
    redraw();
  });
}

void OffsetMapView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) m_blocks_valid = false;
}

void OffsetMapView::setModel(const MemoryModel* model, bool over_time) {
  m_model = model;
  m_over_time = over_time && model && model->hasTime();
  m_hover = -1;
  m_hover_text.clear();
  m_blocks_valid = false;
  update();
}

void OffsetMapView::setHorizontalMargins(double left, double right) {
  if (left == m_left && right == m_right) return;
  m_left = left;
  m_right = right;
  update();
}

QRectF OffsetMapView::plotRect() const {
  const QFontMetrics fm(font());
  const double own_left = fm.horizontalAdvance("000.0") + 12;
  const double left = m_left >= own_left ? m_left : own_left;
  const double right = m_right >= 0 ? m_right : 10.0;
  const double top = fm.height() * 1.5 + 8;  // room for the title above the top tick label
  return QRectF(left, top, std::max(10.0, width() - left - right), std::max(10.0, height() - top - fm.height() - 10.0));
}

namespace {

// The chart's x range: both runs fit, so the two plots share one scale.
double x_max(const MemoryModel* model, bool over_time) {
  if (!model) return 1;
  if (over_time) return std::max({1e-9, model->current.makespan_us, model->sequential.makespan_us});
  return std::max<double>(1, static_cast<double>(model->steps.size()));
}

double y_max(const MemoryModel* model) { return model ? std::max<double>(1, static_cast<double>(model->arena_bytes)) : 1.0; }

}  // namespace

double OffsetMapView::xMax() const { return x_max(m_model, m_over_time); }
double OffsetMapView::yMax() const { return y_max(m_model); }

OffsetMapView::Frame OffsetMapView::frameOf(const MemoryModel* model, bool over_time, QRectF plot) {
  Frame f;
  f.plot = plot;
  f.over_time = over_time;
  f.sx = f.plot.width() / x_max(model, over_time);
  f.sy = f.plot.height() / y_max(model);
  return f;
}

OffsetMapView::Frame OffsetMapView::frame() const { return frameOf(m_model, m_over_time, plotRect()); }

QRectF OffsetMapView::blockRect(int block, const Frame& f) const { return rectOf(m_model->blocks[static_cast<std::size_t>(block)], f); }

QRectF OffsetMapView::rectOf(const MemoryBlock& b, const Frame& f) {
  const QRectF& pr = f.plot;
  const double x0 = f.over_time ? b.start_us : b.first_step;
  const double x1 = f.over_time ? b.end_us : b.last_step + 1;
  const double sx = f.sx, sy = f.sy;
  const double left = pr.left() + x0 * sx;
  const double right = pr.left() + x1 * sx;
  const double bottom = pr.bottom() - static_cast<double>(b.offset) * sy;
  const double top = pr.bottom() - static_cast<double>(b.offset + b.size) * sy;
  // At least a pixel wide and high so every tensor can be seen and hovered.
  return QRectF(QPointF(left, top), QPointF(std::max(right, left + 1), std::max(bottom, top + 1)));
}

int OffsetMapView::blockAt(QPointF pos) const {
  if (!m_model || !m_model->computed) return -1;
  // Topmost (last drawn) first, in screen space so thin blocks stay hoverable.
  const Frame f = frame();
  for (std::size_t i = m_model->blocks.size(); i-- > 0;)
    if (blockRect(static_cast<int>(i), f).contains(pos)) return static_cast<int>(i);
  return -1;
}

QPointF OffsetMapView::blockCenter(int block) const { return blockRect(block, frame()).center(); }

QString OffsetMapView::blockText(int block) const {
  if (!m_model || block < 0 || static_cast<std::size_t>(block) >= m_model->blocks.size()) return {};
  const MemoryBlock& b = m_model->blocks[static_cast<std::size_t>(block)];
  const core::Graph& g = m_doc->graph();
  // Names go in by concatenation: a tensor named "x%1" must not be taken for a placeholder.
  QString text = QString::fromStdString(g.tensor(b.tensor).name) + "\n" +
                 tr("%1 at offset %2 (%3)").arg(format_bytes_fine(b.size)).arg(b.offset).arg(format_bytes_fine(b.offset)) + "\n" +
                 tr("producer") + " " + QString::fromStdString(g.key(b.producer)) + " (" +
                 QString::fromStdString(g.node(b.producer).op_type) + ", " + tr("stream %1").arg(m_doc->streamOf(b.producer)) +
                 ")";
  text += m_over_time ? tr("\nlive %1 – %2 µs").arg(b.start_us, 0, 'f', 1).arg(b.end_us, 0, 'f', 1)
                      : tr("\nlive steps %1 – %2").arg(b.first_step).arg(b.last_step);
  return text;
}

bool OffsetMapView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int b = blockAt(help->pos());
    if (b >= 0) QToolTip::showText(help->globalPos(), blockText(b), this);
    else QToolTip::hideText();
    return true;
  }
  return QWidget::event(event);
}

void OffsetMapView::mouseMoveEvent(QMouseEvent* event) {
  const int b = blockAt(event->position());
  if (b == m_hover) return;
  m_hover = b;
  m_hover_text = blockText(b);
  if (b >= 0) QToolTip::showText(event->globalPosition().toPoint(), m_hover_text, this);
  else QToolTip::hideText();
  update();
}

void OffsetMapView::leaveEvent(QEvent*) {
  m_hover = -1;
  m_hover_text.clear();
  update();
}

void OffsetMapView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  const int b = blockAt(event->position());
  if (b >= 0) m_doc->setSelection({m_model->blocks[static_cast<std::size_t>(b)].producer});
  else m_doc->setSelection({});
}

OffsetMapView::BlocksInput OffsetMapView::blocksInput() const {
  BlocksInput in;
  in.plot = plotRect();
  in.size = size();
  in.ratio = devicePixelRatio();
  in.edge = palette().color(QPalette::Base);
  const std::size_t nodes = m_doc->hasModel() ? m_doc->graph().node_count() : 0;
  in.fill.resize(nodes);
  for (std::size_t v = 0; v < nodes; ++v) {
    const auto n = static_cast<core::NodeId>(v);
    in.fill[v] = (m_doc->isSelected(n) ? selection_color() : stream_color(m_doc->streamOf(n))).rgba();
  }
  return in;
}

QImage OffsetMapView::renderBlocks(const MemoryModel& model, bool over_time, const BlocksInput& in) {
  QImage image(in.size * in.ratio, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(in.ratio);
  image.fill(Qt::transparent);
  const Frame f = frameOf(&model, over_time, in.plot);
  QPainter p(&image);
  p.setClipRect(f.plot.adjusted(0, -1, 1, 1));
  for (const MemoryBlock& b : model.blocks) {
    const QRectF r = rectOf(b, f);
    p.fillRect(r, QColor::fromRgba(in.fill[static_cast<std::size_t>(b.producer)]));
    if (r.width() >= 4 && r.height() >= 4) {
      p.setPen(QPen(in.edge, 0));
      p.setBrush(Qt::NoBrush);
      p.drawRect(r);
    }
  }
  return image;
}

void OffsetMapView::adoptBlocks(QImage blocks, QRectF plot) {
  // Drawn for this model and axis in a worker; kept unless the view was resized meanwhile.
  if (!m_model || plot != plotRect() || blocks.size() != size() * devicePixelRatio()) return;
  m_blocks = std::move(blocks);
  m_blocks_plot = plot;
  m_blocks_valid = true;
}

void OffsetMapView::drawBlocks(const Frame& f) {
  BlocksInput in = blocksInput();
  in.plot = f.plot;
  m_blocks = renderBlocks(*m_model, m_over_time, in);
  m_blocks_plot = f.plot;
  m_blocks_valid = true;
}

void OffsetMapView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QPalette& pal = palette();
  p.fillRect(rect(), pal.base());
  if (!m_model || !m_model->computed || !m_doc->hasModel()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap,
               m_model && !m_model->note.empty() ? QString::fromStdString(m_model->note) : tr("No model loaded"));
    return;
  }
  const Frame f = frame();
  const QRectF& pr = f.plot;
  const QFontMetrics fm(font());
  QColor grid = pal.color(QPalette::Text);
  grid.setAlpha(40);
  // Offset ticks (about 5) on the left, in the unit the arena reads best in; x ticks below.
  p.setPen(pal.color(QPalette::Text));
  const double ymax = yMax();
  const ByteUnit unit = chart_unit(static_cast<std::int64_t>(ymax));
  // The growth chart's labels: distinct ticks over small ranges too.
  const QStringList y_labels = axis_labels(ymax / unit.bytes, 4, 1);
  for (int i = 0; i <= 4; ++i) {
    const double y = pr.bottom() - pr.height() * i / 4.0;
    p.setPen(grid);
    p.drawLine(QPointF(pr.left(), y), QPointF(pr.right(), y));
    p.setPen(pal.color(QPalette::Text));
    p.drawText(QRectF(0, y - fm.height() / 2.0, pr.left() - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter, y_labels[i]);
  }
  p.drawText(QRectF(0, 2, pr.right(), fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
             tr("Offset map: arena offset (%1) of each tensor while it lives, by producer's stream").arg(unit.name));
  const double xmax = xMax();
  const QStringList x_labels = axis_labels(xmax, 4, 0);
  for (int i = 0; i <= 4; ++i) {
    const double x = pr.left() + pr.width() * i / 4.0;
    const QString label = m_over_time ? QString("%1 µs").arg(x_labels[i]) : x_labels[i];
    const double w = fm.horizontalAdvance(label);
    const double lx = std::clamp(x - w / 2, pr.left(), pr.right() - w);
    p.drawText(QPointF(lx, pr.bottom() + fm.ascent() + 4), label);
  }
  if (!m_blocks_valid || m_blocks_plot != pr || m_blocks.size() != size() * devicePixelRatio()) drawBlocks(f);
  p.drawImage(QPointF(0, 0), m_blocks);
  if (m_hover >= 0 && static_cast<std::size_t>(m_hover) < m_model->blocks.size()) {
    p.setClipRect(pr.adjusted(0, -1, 1, 1));
    const QRectF r = blockRect(m_hover, f);
    const core::NodeId producer = m_model->blocks[static_cast<std::size_t>(m_hover)].producer;
    const QColor fill = m_doc->isSelected(producer) ? selection_color() : stream_color(m_doc->streamOf(producer));
    p.fillRect(r, fill.lighter(130));
    if (r.width() >= 4 && r.height() >= 4) {
      p.setPen(QPen(pal.color(QPalette::Base), 0));
      p.setBrush(Qt::NoBrush);
      p.drawRect(r);
    }
  }
  p.setClipping(false);
  // The concurrent lower bound: no plan of this schedule fits below it.
  const double by = pr.bottom() - static_cast<double>(m_model->concurrent_bound_bytes) * pr.height() / ymax;
  p.setPen(QPen(critical_color(), 1, Qt::DashLine));
  p.drawLine(QPointF(pr.left(), by), QPointF(pr.right(), by));
  p.setPen(pal.color(QPalette::Text));
  p.setBrush(Qt::NoBrush);
  p.drawRect(pr);
}

}  // namespace weft::ui
