#include "weft/ui/growth_chart.h"

#include <QEvent>
#include <QPaintEngine>
#include <QPainter>
#include <QPolygonF>
#include <algorithm>
#include <cmath>

namespace weft::ui {

QList<QPointF> decimate_columns(QList<QPointF> pts, double xmax, int columns) {
  columns = std::max(1, columns);
  if (pts.size() <= 2 * static_cast<qsizetype>(columns) + 2 || xmax <= 0) return pts;
  QList<QPointF> out;
  out.reserve(2 * columns + 2);
  const auto column = [&](const QPointF& p) {
    return std::clamp(static_cast<int>(p.x() / xmax * columns), 0, columns - 1);
  };
  // A column's lowest and highest point, in their order, draw its vertical extent; the line
  // between two columns' extremes stays within a pixel of the step between them.
  out.append(pts.front());
  for (qsizetype i = 0; i < pts.size();) {
    const int c = column(pts[i]);
    qsizetype end = i, low = i, high = i;
    for (; end < pts.size() && column(pts[end]) == c; ++end) {
      if (pts[end].y() < pts[low].y()) low = end;
      if (pts[end].y() > pts[high].y()) high = end;
    }
    const qsizetype first = std::min(low, high), second = std::max(low, high);
    if (first != 0) out.append(pts[first]);
    if (second != first) out.append(pts[second]);
    i = end;
  }
  if (out.back() != pts.back()) out.append(pts.back());
  return out;
}

namespace {

constexpr double kMargin = 6;
constexpr double kPad = 3;           // the picture reaches this far past the plot: lines on its edges
constexpr double kLegendSample = 24;  // a legend entry's line sample
constexpr int kTicks = 4;             // intervals per axis (five ticks, as the offset map below)

QFont title_font(QFont f) {
  f.setBold(true);
  return f;
}

// Each line's points without those inside a horizontal or vertical run (a step function's
// flat stretches and a column's extent keep only their ends): the same polyline.
QPolygonF mapped_corners(const QList<QPointF>& pts, const QRectF& plot, double sx, double sy) {
  QPolygonF poly;
  poly.reserve(pts.size());
  for (qsizetype k = 0; k < pts.size(); ++k) {
    const QPointF q(plot.left() + pts[k].x() * sx, plot.bottom() - pts[k].y() * sy);
    const qsizetype n = poly.size();
    if (n >= 2 && ((poly[n - 1].y() == q.y() && poly[n - 2].y() == q.y()) || (poly[n - 1].x() == q.x() && poly[n - 2].x() == q.x())))
      poly[n - 1] = q;
    else
      poly.append(q);
  }
  return poly;
}

// The lines in `plot` (widget or image coordinates), clipped to it with the pad.
void draw_lines(QPainter& p, const GrowthChart::Data& data, const std::vector<QPen>& pens, const QRectF& plot) {
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  p.setClipRect(plot.adjusted(-kPad, -kPad, kPad, kPad));
  p.setBrush(Qt::NoBrush);
  const double sx = plot.width() / std::max(data.xmax, 1e-12), sy = plot.height() / std::max(data.ymax, 1e-12);
  for (std::size_t i = 0; i < data.points.size() && i < pens.size(); ++i) {
    const QPolygonF poly = mapped_corners(data.points[i], plot, sx, sy);
    if (poly.size() < 2) continue;
    p.setPen(pens[i]);
    if (pens[i].style() != Qt::SolidLine || pens[i].widthF() <= 1) {
      // A pattern runs on along the line; a pen up to a pixel wide takes the raster engine's
      // cosmetic stroker (3k points in 0.1 ms; at 1.2 px, 4.9 ms segment by segment).
      p.drawPolyline(poly);
      continue;
    }
    // A wider pen strokes a polyline as one outline whose fill grows with its length times its
    // crossings (1.5 s for 9k points); segment by segment each stroke stays small.
    for (qsizetype k = 1; k < poly.size(); ++k) p.drawLine(poly[k - 1], poly[k]);
  }
  p.restore();
}

}  // namespace

GrowthChart::GrowthChart(QWidget* parent) : QWidget(parent) {
  setAttribute(Qt::WA_OpaquePaintEvent);
  relayout();
}

void GrowthChart::setLines(std::vector<Line> lines) {
  m_lines = std::move(lines);
  m_picture_valid = false;
  relayout();  // the legend's rows
  update();
}

void GrowthChart::setData(Data data, QImage picture) {
  m_data = std::move(data);
  const PictureInput in = pictureInput();
  m_picture_valid = !picture.isNull() && picture.size() == (QSizeF(in.plot) + QSizeF(2 * kPad, 2 * kPad)).toSize() * in.ratio;
  if (m_picture_valid) m_picture = std::move(picture);
  update();
}

const QList<QPointF>& GrowthChart::points(int i) const {
  static const QList<QPointF> kNone;
  return i >= 0 && static_cast<std::size_t>(i) < m_data.points.size() ? m_data.points[static_cast<std::size_t>(i)] : kNone;
}

int GrowthChart::plotColumns() const { return std::max(1, static_cast<int>(std::lround(m_plot.width() * devicePixelRatioF()))); }

GrowthChart::PictureInput GrowthChart::pictureInput() const {
  PictureInput in;
  in.plot = m_plot.size().toSize();
  in.ratio = devicePixelRatioF();
  for (const Line& l : m_lines) in.pens.push_back(l.pen);
  return in;
}

QImage GrowthChart::renderLines(const Data& data, const PictureInput& in) {
  const QSizeF padded = QSizeF(in.plot) + QSizeF(2 * kPad, 2 * kPad);
  QImage image(padded.toSize() * in.ratio, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(in.ratio);
  image.fill(Qt::transparent);
  QPainter p(&image);
  draw_lines(p, data, in.pens, QRectF(QPointF(kPad, kPad), QSizeF(in.plot)));
  return image;
}

int GrowthChart::legendHeight(double width) const {
  const QFontMetricsF fm(font());
  double x = 0;
  int rows = m_lines.empty() ? 0 : 1;
  for (const Line& l : m_lines) {
    const double w = kLegendSample + 4 + fm.horizontalAdvance(l.name) + 14;
    if (x > 0 && x + w > width) {
      ++rows;
      x = 0;
    }
    x += w;
  }
  return static_cast<int>(std::ceil(rows * (fm.height() + 2) + (rows ? 6 : 0)));
}

void GrowthChart::relayout() {
  const QFontMetricsF fm(font());
  const QFontMetricsF tm(title_font(font()));
  // Fixed by the size and the font, not by the data: the worker draws the lines for this plot.
  const double left = kMargin + fm.height() + 4 + fm.horizontalAdvance("8888.8") + 6;
  const double right = kMargin + fm.horizontalAdvance("8888888") / 2;
  const double top = kMargin + tm.height() + 8;
  const double bottom = kMargin + 2 * fm.height() + 8 + legendHeight(width() - 2 * kMargin);
  const QRectF plot(std::round(left), std::round(top), std::max(10.0, std::round(width() - left - right)),
                    std::max(10.0, std::round(height() - top - bottom)));
  const int columns = std::max(1, static_cast<int>(std::lround(plot.width() * devicePixelRatioF())));
  if (plot != m_plot) {
    m_plot = plot;
    m_picture_valid = false;
    emit plotAreaChanged(m_plot);
  }
  if (columns != m_columns) {
    m_columns = columns;
    emit plotColumnsChanged(columns);
  }
}

void GrowthChart::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  relayout();
}

void GrowthChart::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::FontChange) relayout();
}

void GrowthChart::paintLegend(QPainter& p, const QRectF& area) const {
  const QFontMetricsF fm(font());
  // Rows as legendHeight counts them, each row centred.
  std::vector<std::vector<std::size_t>> rows(1);
  std::vector<double> widths(1, 0);
  for (std::size_t i = 0; i < m_lines.size(); ++i) {
    const double w = kLegendSample + 4 + fm.horizontalAdvance(m_lines[i].name) + 14;
    if (widths.back() > 0 && widths.back() + w > area.width()) {
      rows.emplace_back();
      widths.push_back(0);
    }
    rows.back().push_back(i);
    widths.back() += w;
  }
  double y = area.top() + 3;
  for (std::size_t r = 0; r < rows.size(); ++r, y += fm.height() + 2) {
    double x = area.left() + std::max(0.0, (area.width() - widths[r]) / 2);
    for (std::size_t i : rows[r]) {
      const double mid = y + fm.height() / 2;
      p.setPen(m_lines[i].pen);
      p.drawLine(QPointF(x, mid), QPointF(x + kLegendSample, mid));
      p.setPen(palette().color(QPalette::Text));
      p.drawText(QPointF(x + kLegendSample + 4, y + fm.ascent()), m_lines[i].name);
      x += kLegendSample + 4 + fm.horizontalAdvance(m_lines[i].name) + 14;
    }
  }
}

QStringList axis_labels(double max, int ticks, int min_decimals) {
  ticks = std::max(ticks, 1);
  const double step = max / ticks;
  int decimals = min_decimals;
  // Below 1, one decimal past the step's first significant digit keeps neighbours apart.
  if (step > 0 && step < 1) decimals = std::max(decimals, std::min(6, static_cast<int>(std::ceil(-std::log10(step))) + 1));
  QStringList out;
  for (int i = 0; i <= ticks; ++i) out << QString::number(max * i / ticks, 'f', decimals);
  return out;
}

void GrowthChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QPalette& pal = palette();
  const QColor text = pal.color(QPalette::Text);
  p.fillRect(rect(), pal.base());
  const QRectF& pr = m_plot;
  const QFontMetricsF fm(font());
  p.setFont(title_font(font()));
  p.setPen(text);
  p.drawText(QRectF(kMargin, kMargin, width() - 2 * kMargin, pr.top() - kMargin - 4), Qt::AlignCenter, m_data.title);
  p.setFont(font());
  QColor grid = text;
  grid.setAlpha(45);
  // Without a line to show (no plan yet) the axes' 0 to 1 would be made up: the grid only.
  const bool has_points = std::any_of(m_data.points.begin(), m_data.points.end(), [](const QList<QPointF>& l) { return !l.isEmpty(); });
  const QStringList y_labels = has_points ? axis_labels(m_data.ymax, kTicks, 1) : QStringList();
  const QStringList x_labels = has_points ? axis_labels(m_data.xmax, kTicks, 0) : QStringList();
  for (int i = 0; i <= kTicks; ++i) {
    const double y = pr.bottom() - pr.height() * i / kTicks;
    const double x = pr.left() + pr.width() * i / kTicks;
    p.setPen(grid);
    p.drawLine(QPointF(pr.left(), y), QPointF(pr.right(), y));
    p.drawLine(QPointF(x, pr.top()), QPointF(x, pr.bottom()));
    if (!has_points) continue;
    p.setPen(text);
    p.drawText(QRectF(0, y - fm.height() / 2, pr.left() - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter, y_labels[i]);
    const QString& label = x_labels[i];
    const double w = fm.horizontalAdvance(label);
    p.drawText(QPointF(x - w / 2, pr.bottom() + fm.ascent() + 4), label);
  }
  p.setFont(title_font(font()));  // axis titles bold, as the title
  p.drawText(QRectF(pr.left(), pr.bottom() + fm.height() + 4, pr.width(), fm.height() + 2), Qt::AlignCenter, m_data.x_title);
  p.save();
  p.translate(kMargin, pr.center().y());
  p.rotate(-90);
  p.drawText(QRectF(-pr.height() / 2, 0, pr.height(), fm.height() + 2), Qt::AlignCenter, m_data.y_title);
  p.restore();
  p.setFont(font());

  // Vector output (an SVG export) gets the lines themselves; the screen their picture.
  std::vector<QPen> pens;
  for (const Line& l : m_lines) pens.push_back(l.pen);
  const bool vector = p.paintEngine() && p.paintEngine()->type() == QPaintEngine::SVG;
  m_painted_from_picture = !vector && m_picture_valid;
  if (vector) {
    draw_lines(p, m_data, pens, pr);
  } else {
    const PictureInput in = pictureInput();
    if (!m_picture_valid || m_picture.size() != (QSizeF(in.plot) + QSizeF(2 * kPad, 2 * kPad)).toSize() * in.ratio) {
      m_picture = renderLines(m_data, in);
      m_picture_valid = true;
    }
      p.drawImage(pr.topLeft() - QPointF(kPad, kPad), m_picture);
  }
  p.setPen(grid);
  p.setBrush(Qt::NoBrush);
  p.drawRect(pr);
  paintLegend(p, QRectF(kMargin, height() - kMargin - legendHeight(width() - 2 * kMargin), width() - 2 * kMargin,
                        legendHeight(width() - 2 * kMargin)));
}

}  // namespace weft::ui
