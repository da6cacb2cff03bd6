#pragma once
// The memory view's arena growth chart, painted by hand: a title, value axes with five ticks and
// grid lines, a legend below and a few polylines (the growth series and the bounds) over x in
// [0, xmax] and y in [0, ymax]. Qt Charts laid out and stroked every point again on each report
// (its QGraphicsScene work, 18-31 ms of GUI-thread time per report at 100k operators); here the
// lines come decimated to the plot's pixel columns and their picture can be drawn in a worker,
// so taking a report is a move and a frame draws one image (issue 45).
#include <QImage>
#include <QList>
#include <QPen>
#include <QPointF>
#include <QRectF>
#include <QSize>
#include <QString>
#include <QWidget>
#include <vector>

namespace weft::ui {

/// The points of `pts` (x ascending in [0, xmax]) that draw the same polyline at `columns`
/// pixel columns across [0, xmax]: per column its lowest and highest point in their order, plus
/// the series' first and last point, so every column keeps its peak and its trough. At most
/// 2 * columns + 2 points; a series already that short is returned as it is. O(n).
QList<QPointF> decimate_columns(QList<QPointF> pts, double xmax, int columns);

/// The labels of ticks + 1 evenly spaced ticks over [0, max]: `min_decimals` decimals while a
/// tick step is 1 or more, else as many as tell every tick apart (0.25 steps: 0.00, 0.25, ...).
QStringList axis_labels(double max, int ticks, int min_decimals);

class GrowthChart : public QWidget {
  Q_OBJECT
 public:
  /// A line's legend name and pen.
  struct Line {
    QString name;
    QPen pen;
  };
  /// What the chart shows: per line (in the order of setLines) its points, the axes' ranges and titles.
  struct Data {
    QString title, x_title, y_title;
    double xmax = 1, ymax = 1;
    int columns = 0;  ///< the pixel columns the points were decimated to (decimate_columns)
    std::vector<QList<QPointF>> points;
  };
  /// What renderLines needs of the widget (taken on the GUI thread).
  struct PictureInput {
    QSize plot;  ///< the plot area's size, logical pixels
    qreal ratio = 1;
    std::vector<QPen> pens;
  };

  explicit GrowthChart(QWidget* parent = nullptr);

  void setLines(std::vector<Line> lines);
  int lineCount() const { return static_cast<int>(m_lines.size()); }
  const Line& line(int i) const { return m_lines[static_cast<std::size_t>(i)]; }
  /// Shows `data` (moved in, O(1)); `picture`, when not null, is its lines drawn by renderLines
  /// for the plot size of pictureInput(): kept unless the plot changed size meanwhile, else the
  /// lines are drawn again at the next paint (O(points)).
  void setData(Data data, QImage picture = QImage());
  const Data& data() const { return m_data; }
  /// The points shown of line `i` (empty when it has none).
  const QList<QPointF>& points(int i) const;

  /// The plot area in widget coordinates (depends on the size and font only, not on the data).
  QRectF plotArea() const { return m_plot; }
  /// The plot's width in device pixels: what series are decimated to (decimate_columns).
  int plotColumns() const;
  PictureInput pictureInput() const;
  /// The lines of `data` drawn on a transparent image of the plot's size, on any thread: O(points).
  static QImage renderLines(const Data& data, const PictureInput& in);
  /// True when the last paint drew the lines from a kept picture (tests and the benchmark).
  bool paintedFromPicture() const { return m_painted_from_picture; }

 signals:
  void plotAreaChanged(const QRectF& plot);
  /// The plot's width in device pixels changed (series decimated for the old width are coarser
  /// or finer than the pixels).
  void plotColumnsChanged(int columns);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void relayout();
  /// Legend entries per row and the rows' height at this width.
  int legendHeight(double width) const;
  void paintLegend(QPainter& p, const QRectF& area) const;

  std::vector<Line> m_lines;
  Data m_data;
  QImage m_picture;
  bool m_picture_valid = false;
  bool m_painted_from_picture = false;
  QRectF m_plot;
  int m_columns = 0;
};

}  // namespace weft::ui
