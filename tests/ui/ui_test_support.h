#pragma once
// Helpers for the studio tests: a LoadedModel from a hand-built graph and a hand-made schedule.
#include <QApplication>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QMimeData>
#include <QUrl>
#include <QEventLoop>
#include <QTimer>
#include <memory>

#include "test_graphs.h"
#include "weft/core/study/open_model.h"
#include "weft/core/analysis/analyze.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/schedule/sync.h"
#include "weft/ui/load_job.h"
#include "weft/ui/studio_document.h"

namespace weft::test {

/// Wraps `graph` as the loader would, with `streams` as the schedule (events computed).
inline ui::LoadedModel make_loaded(core::Graph graph, std::vector<std::vector<core::NodeId>> streams) {
  ui::LoadedModel m;
  m.path = "hand-built";
  m.graph = std::make_shared<const core::Graph>(std::move(graph));
  m.device = *core::open_device("");
  const core::CostTable costs = core::estimate_costs(*m.graph, m.device);
  m.analysis = std::make_shared<const core::AnalysisReport>(core::analyze(*m.graph, costs));
  if (streams.empty()) streams.emplace_back(m.graph->topo_order().begin(), m.graph->topo_order().end());
  m.schedule.streams = std::move(streams);
  m.schedule.strategy = "hand";
  m.schedule.events = core::compute_events(*m.graph, m.schedule);
  return m;
}

/// Drags `files` onto `target` and drops them there, as a file manager would: false when the
/// drag's enter event is not accepted (Qt then delivers no drop).
inline bool drop_files(QWidget& target, const QStringList& files) {
  QMimeData mime;
  QList<QUrl> urls;
  for (const QString& f : files) urls.append(QUrl::fromLocalFile(f));
  mime.setUrls(urls);
  QDragEnterEvent enter(QPoint(20, 20), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  enter.setAccepted(false);
  QApplication::sendEvent(&target, &enter);
  if (!enter.isAccepted()) return false;
  QDropEvent drop(QPointF(20, 20), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&target, &drop);
  return true;
}

/// Spins the event loop until `done()` or `ms` elapse; returns done().
template <class F>
bool wait_until(F done, int ms = 20000) {
  QElapsedTimer clock;
  clock.start();
  while (!done() && clock.elapsed() < ms) {
    QEventLoop loop;
    QTimer::singleShot(5, &loop, &QEventLoop::quit);
    loop.exec();
  }
  return done();
}

}  // namespace weft::test
