#pragma once
// The batch sweep in the studio: core::sweep (the study `weft sweep` runs) on the open model's
// file at the batches typed in, in a worker, drawn as `weft sweep --png` draws it: predicted
// speedup over the reference schedule against batch size (log2-spaced), one line per strategy,
// 1.0x marked. Models whose batch is static are refused with core's reason.
#include <QFutureWatcher>
#include <QWidget>
#include <vector>

#include "weft/core/study/batch_sweep.h"

class QChart;
class QChartView;
class QLabel;
class QLineEdit;
class QPushButton;

namespace weft::ui {

class StudioDocument;

class SweepView : public QWidget {
  Q_OBJECT
 public:
  explicit SweepView(StudioDocument* doc, QWidget* parent = nullptr);
  ~SweepView() override;

  QLineEdit* batchesEdit() const { return m_batches; }
  QPushButton* runButton() const { return m_run; }
  QChart* chart() const { return m_chart; }
  /// Starts the sweep of the open model at the batches typed in; false (and note()) when refused.
  bool run();
  bool isRunning() const { return m_watcher.isRunning(); }
  /// The points of the last finished sweep (empty after a refusal or a new model).
  const std::vector<core::SweepPoint>& points() const { return m_points; }
  QString note() const;

 signals:
  /// A sweep finished: ok, and the note shown.
  void sweepFinished(bool ok);

 private:
  void takeResult();
  void showPoints();
  void setNote(const QString& text);

  StudioDocument* m_doc;
  QLineEdit* m_batches;
  QPushButton* m_run;
  QLabel* m_note;
  QChart* m_chart;
  QChartView* m_view;
  std::vector<core::SweepPoint> m_points;
  QFutureWatcher<core::Expected<std::vector<core::SweepPoint>>> m_watcher;
};

}  // namespace weft::ui
