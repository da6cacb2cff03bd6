#pragma once
// The memory view: arena growth chart (GrowthChart) of the current and the sequential schedule with
// the lower bounds, an offset map (one rectangle per tensor) and the figures that price the
// current concurrency in memory. Adapted from the document's study after every edit (the study
// runs in the document's worker), up to the live-study size.
#include <QFutureWatcher>
#include <QImage>
#include <QRectF>
#include <QTimer>
#include <QWidget>
#include <optional>

#include "weft/ui/byte_format.h"
#include "weft/ui/growth_chart.h"
#include "weft/ui/memory_model.h"
#include "weft/ui/offset_map_view.h"

class QComboBox;
class QLabel;

namespace weft::ui {

class StudioDocument;
class FrontierView;
class OffsetMapView;

class MemoryView : public QWidget {
  Q_OBJECT
 public:
  explicit MemoryView(StudioDocument* doc, QWidget* parent = nullptr);
  ~MemoryView() override;

  /// The model of the current schedule (waits for the document's study when an edit made it
  /// stale, then adapts it).
  const MemoryModel& model();
  /// What the view shows now, without waiting for a pending study (the previous schedule's
  /// figures, or this schedule's repaired arena, while the worker plans).
  const MemoryModel& shownModel() const { return m_model; }
  /// The unit of the chart's y axis (KiB, MiB or GiB by the largest figure; chart_unit).
  const ByteUnit& chartUnit() const { return m_unit; }
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

  /// The growth chart: lines live, high-water, live sequential, high-water sequential, the
  /// concurrent bound and the sequential bound, in that order.
  GrowthChart* chart() const { return m_chart; }
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
  /// The note while the worker re-plans (the figures shown are the previous schedule's).
  void showReplanning();
  /// Adapts the document's memory report in the worker (large models; coalesced) and applies
  /// the result when it returns.
  void launchAdapt();
  void takeAdapted();
  /// The growth chart's data, ready to show (made in the worker for large models, with the
  /// picture of its lines when the chart's plot size was known).
  struct ChartPoints {
    bool timed = false;
    ByteUnit unit;
    GrowthChart::Data data;
    QImage picture;
  };
  struct Adapted {
    MemoryModel model;
    ChartPoints points;
    QImage blocks;      ///< the offset map's blocks (OffsetMapView::renderBlocks)
    QRectF blocks_plot;
  };
  /// The chart's four growth series and two bounds in the unit of the model's largest figure,
  /// decimated to `columns` (no widget: a worker makes them).
  static ChartPoints chartPoints(const MemoryModel& m, bool timed, int columns, std::size_t streams);
  /// The chart's plot changed width: decimate again for it (once the resize settles).
  void redecimate();
  void applyPalette();

  StudioDocument* m_doc;
  MemoryModel m_model;
  bool m_stale = true;
  bool m_over_time = false;
  ByteUnit m_unit;
  int m_recomputes = 0;
  QLabel* m_figures = nullptr;
  QLabel* m_note = nullptr;
  QComboBox* m_axis = nullptr;
  GrowthChart* m_chart = nullptr;
  QTimer m_redecimate;  ///< single shot: the resize settled
  OffsetMapView* m_map = nullptr;
  FrontierView* m_front = nullptr;
  QFutureWatcher<Adapted> m_adapt_watcher;
  bool m_adapt_running = false;
  bool m_adapt_dirty = false;  ///< asked again while a job ran: run once more on its return
  std::optional<ChartPoints> m_points;  ///< the worker's series for the next rebuildChart
};

}  // namespace weft::ui
