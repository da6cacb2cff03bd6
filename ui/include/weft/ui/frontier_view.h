#pragma once
// The speed-versus-memory front in the memory view: every schedule of core::memory_frontier as a
// point (arena against predicted time), the Pareto front as a staircase, the current schedule
// ringed. A click on a point applies its schedule (one undo step). The front is computed in a
// worker when the view is shown after the model, costs or launch mode changed.
#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <memory>

#include "weft/core/study/frontier.h"

namespace weft::ui {

class StudioDocument;

class FrontierView : public QWidget {
  Q_OBJECT
 public:
  explicit FrontierView(StudioDocument* doc, QWidget* parent = nullptr);
  ~FrontierView() override;

  /// Models above this many nodes get a note instead of a front (as the live predictions).
  static constexpr std::size_t kMaxNodes = 4000;
  /// The front, when computed (null while computing, stale or refused).
  const core::Frontier* frontier() const { return m_frontier.get(); }
  bool isComputing() const { return m_watcher.isRunning(); }
  /// Blocks until a running computation finishes and its result is shown (tests).
  void waitForFrontier();
  /// Index into frontier()->points under a widget point, or -1; the widget point of point i.
  int pointAt(QPointF pos) const;
  QPointF pointCenter(int index) const;
  /// Index of the point whose schedule is the current schedule, or -1.
  int currentPoint() const;
  QString note() const { return m_note; }
  QSize sizeHint() const override { return {600, 240}; }

 signals:
  /// A click applied point `index` (its schedule is now the document's).
  void pointApplied(int index);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  void markStale();
  void compute();
  void takeResult();
  QRectF plotRect() const;
  QPointF toWidget(double arena_bytes, double us) const;

  StudioDocument* m_doc;
  std::shared_ptr<const core::Frontier> m_frontier;
  QFutureWatcher<core::Expected<core::Frontier>> m_watcher;
  /// Set to stop the running computation (a newer one replaces it, or the view closes).
  std::shared_ptr<std::atomic<bool>> m_cancel;
  bool m_stale = true;
  bool m_cuda_graph = false;  ///< the launch mode the front was computed for
  QString m_note;
  int m_hover = -1;
  double m_x_max = 1, m_y_max = 1;
};

}  // namespace weft::ui
