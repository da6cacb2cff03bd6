// The speed/memory front in the memory view: computed for the model, the current schedule found
// on it, a click on a front point applies that schedule as one undo step; the strategy panel's
// memory budget fits the applied schedule, says what it cost, and refuses what cannot fit.
#include <QLineEdit>
#include <QComboBox>
#include <QSignalSpy>
#include <QTest>

#include "ui_test_support.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/ui/frontier_view.h"
#include "weft/ui/memory_view.h"
#include "weft/ui/strategy_panel.h"

namespace {

weft::ui::LoadedModel transformer() {
  weft::core::ImportOptions io;
  io.dims["batch"] = 8;
  auto g = weft::core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/transformer4h.onnx", io);
  if (!g) std::abort();
  weft::ui::LoadedModel m = weft::test::make_loaded(std::move(*g), {});
  m.options.cuda_graph = true;
  return m;
}

}  // namespace

class TestFrontierView : public QObject {
  Q_OBJECT
 private slots:
  void clickAppliesAFrontPoint();
  void strategyPanelFitsTheBudget();
};

void TestFrontierView::clickAppliesAFrontPoint() {
  weft::ui::StudioDocument doc;
  doc.setModel(transformer());
  weft::ui::MemoryView view(&doc);
  view.resize(1000, 1200);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  weft::ui::FrontierView* front = view.frontierView();
  front->waitForFrontier();
  const weft::core::Frontier* f = front->frontier();
  QVERIFY2(f != nullptr, qPrintable(front->note()));
  QVERIFY(f->front.size() >= 2);
  // The one-stream topological order loaded is not the memory-aware reference: not on the set.
  const int fastest = static_cast<int>(f->front.back());
  QVERIFY(front->currentPoint() != fastest);
  const int undo_before = doc.undoStack()->count();
  const QPointF at = front->pointCenter(fastest);
  QCOMPARE(front->pointAt(at), fastest);
  QTest::mouseClick(front, Qt::LeftButton, {}, at.toPoint());
  QCOMPARE(doc.undoStack()->count(), undo_before + 1);
  QCOMPARE(doc.schedule().streams, f->points[static_cast<std::size_t>(fastest)].schedule.streams);
  QCOMPARE(front->currentPoint(), fastest);
  QVERIFY(front->frontier() == f);  // applying a point does not recompute the front
  // Its figures are the point's: the same study, the same planning (made in the document's worker).
  doc.waitForStudy();
  QCOMPARE(doc.figures().arena_bytes, f->points[static_cast<std::size_t>(fastest)].arena_bytes);
  // The cheapest front point, then undo back to the fastest.
  const int cheapest = static_cast<int>(f->front.front());
  QTest::mouseClick(front, Qt::LeftButton, {}, front->pointCenter(cheapest).toPoint());
  QCOMPARE(front->currentPoint(), cheapest);
  doc.waitForStudy();
  QVERIFY(doc.figures().arena_bytes < f->points[static_cast<std::size_t>(fastest)].arena_bytes);
  doc.undoStack()->undo();
  QCOMPARE(front->currentPoint(), fastest);
}

void TestFrontierView::strategyPanelFitsTheBudget() {
  weft::ui::StudioDocument doc;
  doc.setModel(transformer());
  weft::ui::StrategyPanel panel(&doc);
  panel.strategyBox()->setCurrentText("level-rr");
  panel.launchMode()->setCurrentIndex(1);
  panel.memoryBudget()->setText("2.25MiB");
  // The fit runs in the panel's worker (as a search does) and is applied when it arrives.
  QSignalSpy finished(&panel, &weft::ui::StrategyPanel::searchFinished);
  QVERIFY2(panel.apply(), qPrintable(panel.noteText()));
  QVERIFY(weft::test::wait_until([&] { return finished.count() == 1; }, 120000));
  QVERIFY2(finished.last().at(0).toBool(), qPrintable(panel.noteText()));
  doc.waitForStudy();  // the figures come from the document's worker
  QVERIFY(doc.figures().arena_bytes > 0);
  QVERIFY(doc.figures().arena_bytes <= 2359296);
  QVERIFY(!doc.lastBudgetNote().isEmpty());
  QVERIFY(panel.noteText().contains("Memory budget"));
  QVERIFY(weft::core::validate_schedule(doc.graph(), doc.schedule()));
  const int steps = doc.undoStack()->count();
  panel.memoryBudget()->setText("1KiB");
  QVERIFY(panel.apply());  // the fit refuses from the worker
  QVERIFY(weft::test::wait_until([&] { return finished.count() == 2; }, 120000));
  QVERIFY(!finished.last().at(0).toBool());
  QVERIFY2(panel.noteText().contains("sequential order"), qPrintable(panel.noteText()));
  QCOMPARE(doc.undoStack()->count(), steps);
  panel.memoryBudget()->setText("4XB");
  QVERIFY(!panel.apply());
  QVERIFY(panel.noteText().contains("unknown unit"));
  panel.memoryBudget()->clear();
  QVERIFY(panel.apply());
  QVERIFY(doc.lastBudgetNote().isEmpty());
  doc.waitForStudy();
  QVERIFY(doc.figures().arena_bytes > 2359296);
}

QTEST_MAIN(TestFrontierView)
#include "test_frontier_view.moc"
