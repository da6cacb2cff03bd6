#pragma once
// The memory view: arena growth chart (Qt Charts) of the current and the sequential schedule with
// the lower bounds, an offset map (one rectangle per tensor) and the figures that price the
// current concurrency in memory. Adapted from the document's study after every edit (the study
// runs in the document's worker), up to the live-study size.
#include <QWidget>

#include "weft/ui/memory_model.h"

class QComboBox;
class QLabel;
class QChart;
class QChartView;
class QLineSeries;
class QValueAxis;

namespace weft::ui {

class StudioDocument;
class FrontierView;

/// Offset map: x = step or predicted time, y = byte offset in the arena (0 at the bottom); one
/// rectangle per planned tensor, coloured by its producer's stream. Hover names the tensor; a
/// click selects its producer. Draws only what is visible; colours follow the palette.
class OffsetMapView : public QWidget {
  Q_OBJECT
 public:
  OffsetMapView(StudioDocument* doc, QWidget* parent = nullptr);
  /// `model` must outlive the view or be replaced before it dies (the MemoryView owns both).
  void setModel(const MemoryModel* model, bool over_time);
  bool overTime() const { return m_over_time; }
  /// Index into model->blocks under a widget point, or -1.
  int blockAt(QPointF pos) const;
  /// Widget point at the centre of block i (tests).
  QPointF blockCenter(int block) const;
  /// "tensor name · size · offset · producer" of block i.
  QString blockText(int block) const;
  /// The text of the block under the mouse (empty when none).
  const QString& hoverText() const { return m_hover_text; }
  /// The plot area inside the axes, widget coordinates.
  QRectF plotRect() const;
  /// Left and right plot margins in pixels (to line the map up under the chart's plot area);
  /// negative: the map's own.
  void setHorizontalMargins(double left, double right);

 protected:
  bool event(QEvent* event) override;
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  double xMax() const;
  double yMax() const;
  QRectF blockRect(int block) const;

  StudioDocument* m_doc;
  const MemoryModel* m_model = nullptr;
  bool m_over_time = false;
  double m_left = -1, m_right = -1;
  int m_hover = -1;
  QString m_hover_text;
};

class MemoryView : public QWidget {
  Q_OBJECT
 public:
  explicit MemoryView(StudioDocument* doc, QWidget* parent = nullptr);
  ~MemoryView() override;

  /// The model of the current schedule (waits for the document's study when an edit made it
  /// stale, then adapts it).
  const MemoryModel& model();
  /// True while the document re-studies the schedule in its worker (the view shows the previous
  /// schedule's figures, marked as such).
  bool isReplanning() const;
  /// x axis: predicted time (µs) when true and the device has rates, else steps.
  void setOverTime(bool over_time);
  bool overTime() const { return m_over_time; }
  /// Figures shown above the chart: arena, bounds, price of concurrency, no-reuse total.
  QString figuresText() const;
  /// How many times the model has been adapted from a study (tests: edits trigger it).
  int recomputeCount() const { return m_recomputes; }

  QChartView* chartView() const { return m_chart_view; }
  QChart* chart() const { return m_chart; }
  OffsetMapView* offsetMap() const { return m_map; }
  /// The speed/memory front below the offset map (click a point to apply its schedule).
  FrontierView* frontierView() const { return m_front; }

 protected:
  void showEvent(QShowEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void scheduleStale();
  void recompute();
  void rebuildChart();
  void applyPalette();

  StudioDocument* m_doc;
  MemoryModel m_model;
  bool m_stale = true;
  bool m_over_time = false;
  int m_recomputes = 0;
  QLabel* m_figures = nullptr;
  QLabel* m_note = nullptr;
  QComboBox* m_axis = nullptr;
  QChart* m_chart = nullptr;
  QChartView* m_chart_view = nullptr;
  QValueAxis* m_x = nullptr;
  QValueAxis* m_y = nullptr;
  QLineSeries* m_live = nullptr;
  QLineSeries* m_high = nullptr;
  QLineSeries* m_seq_live = nullptr;
  QLineSeries* m_seq_high = nullptr;
  QLineSeries* m_concurrent_bound = nullptr;
  QLineSeries* m_linear_bound = nullptr;
  OffsetMapView* m_map = nullptr;
  FrontierView* m_front = nullptr;
};

}  // namespace weft::ui
