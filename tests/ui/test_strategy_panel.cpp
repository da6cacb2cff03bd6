// The Strategy panel: fixed strategies apply at once; the search runs off the GUI thread with a
// moving progress bar and the best prediction so far, Cancel stops it and applies the best
// schedule found (one undo step, never slower than the best fixed strategy), and a search whose
// model was replaced meanwhile is dropped with the reason. A fixed strategy's Apply with a memory
// budget takes the same worker path (it once planned and simulated on the GUI thread): applied
// when it arrives, Cancel applies nothing, a replaced model drops it.
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

#include "ui_test_support.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/strategy/registry.h"
#include "weft/ui/strategy_panel.h"

using weft::test::make_loaded;
using weft::test::wait_until;
using weft::ui::StrategyPanel;
using weft::ui::StudioDocument;

namespace {

/// A wide random DAG: enough room for the search to improve on the fixed strategies.
weft::ui::LoadedModel wide_model() { return make_loaded(weft::test::make_random_dag(160, 0.03, 7), {}); }

/// transformer4h at batch 8, where level-rr under CUDA Graph needs serialising to fit 2.25 MiB.
weft::ui::LoadedModel transformer() {
  weft::core::ImportOptions io;
  io.dims["batch"] = 8;
  auto g = weft::core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/transformer4h.onnx", io);
  if (!g) std::abort();
  weft::ui::LoadedModel m = make_loaded(std::move(*g), {});
  m.options.cuda_graph = true;
  return m;
}

void ask_for_budget_fit(StrategyPanel& panel) {
  panel.strategyBox()->setCurrentText("level-rr");
  panel.launchMode()->setCurrentIndex(1);
  panel.memoryBudget()->setText("2.25MiB");
}

double predicted_us(const StudioDocument& doc) {
  return weft::core::simulate(doc.graph(), doc.schedule(), doc.analysis().costs, doc.device()).makespan_us();
}

}  // namespace

class TestStrategyPanel : public QObject {
  Q_OBJECT
 private slots:
  void fixedStrategyAppliesAtOnce();
  void searchRunsOffTheGuiThreadAndCancels();
  void searchOfAReplacedModelIsDropped();
  void budgetedApplyRunsInTheWorker();
  void cancelledBudgetFitAppliesNothing();
  void budgetFitOfAReplacedModelIsDropped();
};

void TestStrategyPanel::fixedStrategyAppliesAtOnce() {
  StudioDocument doc;
  doc.setModel(wide_model());
  StrategyPanel panel(&doc);
  panel.show();
  panel.strategyBox()->setCurrentText("chains");
  QVERIFY(!panel.searchBudget()->isEnabled());  // only iterative strategies have a budget
  QTest::mouseClick(panel.applyButton(), Qt::LeftButton);
  QCOMPARE(doc.schedule().strategy, std::string("chains"));
  QCOMPARE(doc.undoStack()->count(), 1);
  QVERIFY(!panel.searching());
}

void TestStrategyPanel::searchRunsOffTheGuiThreadAndCancels() {
  StudioDocument doc;
  doc.setModel(wide_model());
  StrategyPanel panel(&doc);
  panel.show();
  // The best fixed strategy's prediction: the search starts from it and never returns worse.
  double best_fixed = 1e300;
  for (const std::string& s : weft::core::fixed_strategy_names()) {
    QVERIFY(doc.applyStrategy(QString::fromStdString(s), {}));
    best_fixed = std::min(best_fixed, predicted_us(doc));
  }
  const int undo_before = doc.undoStack()->count();

  panel.strategyBox()->setCurrentText("search");
  QVERIFY(panel.searchBudget()->isEnabled());
  panel.searchBudget()->setValue(600'000);  // ten minutes: only Cancel ends it within the test
  QSignalSpy finished(&panel, &StrategyPanel::searchFinished);
  QElapsedTimer clock;
  clock.start();
  QTest::mouseClick(panel.applyButton(), Qt::LeftButton);
  QVERIFY2(clock.elapsed() < 1000, "Apply must return while the search runs");
  QVERIFY(panel.searching());
  QVERIFY(panel.cancelButton()->isVisible());
  QVERIFY(!panel.applyButton()->isEnabled());
  QCOMPARE(doc.undoStack()->count(), undo_before);  // nothing applied yet

  // The GUI thread keeps running: the progress bar moves and the best-so-far shows.
  QVERIFY(wait_until([&] { return panel.progressBar()->value() > 0; }, 30000));
  QVERIFY(wait_until([&] { return panel.note()->text().contains("best predicted"); }, 30000));
  QVERIFY(panel.searching());

  QTest::mouseClick(panel.cancelButton(), Qt::LeftButton);
  QVERIFY(wait_until([&] { return finished.count() == 1; }, 30000));
  QCOMPARE(finished.at(0).at(0).toBool(), true);
  QVERIFY(!panel.searching());
  QVERIFY(!panel.cancelButton()->isVisible());
  QVERIFY(panel.applyButton()->isEnabled());
  QCOMPARE(doc.schedule().strategy, std::string("search"));
  QCOMPARE(doc.undoStack()->count(), undo_before + 1);
  QVERIFY(panel.note()->text().contains("stopped early"));
  QVERIFY(weft::core::validate_schedule(doc.graph(), doc.schedule()));
  QVERIFY2(predicted_us(doc) <= best_fixed * (1 + 1e-9), "the search never returns worse than the best fixed strategy");
  doc.undoStack()->undo();
  QVERIFY(doc.schedule().strategy != "search");
}

void TestStrategyPanel::searchOfAReplacedModelIsDropped() {
  StudioDocument doc;
  doc.setModel(wide_model());
  StrategyPanel panel(&doc);
  panel.show();
  panel.strategyBox()->setCurrentText("search");
  panel.searchBudget()->setValue(600'000);
  QSignalSpy finished(&panel, &StrategyPanel::searchFinished);
  QVERIFY(panel.apply());
  doc.setModel(make_loaded(weft::test::make_diamond(), {{0, 1, 3}, {2}}));
  panel.cancelSearch();
  QVERIFY(wait_until([&] { return finished.count() == 1; }, 30000));
  QCOMPARE(finished.at(0).at(0).toBool(), false);
  QVERIFY(panel.note()->text().contains("replaced"));
  QCOMPARE(doc.graph().node_count(), 4);
  QCOMPARE(doc.undoStack()->count(), 0);
}

void TestStrategyPanel::budgetedApplyRunsInTheWorker() {
  // A fixed strategy with a memory budget fits in the worker: Apply returns first, the fit lands later.
  StudioDocument doc;
  doc.setModel(transformer());
  StrategyPanel panel(&doc);
  panel.show();
  ask_for_budget_fit(panel);
  QSignalSpy finished(&panel, &StrategyPanel::searchFinished);
  QVERIFY2(panel.apply(), qPrintable(panel.noteText()));
  // Apply returned before the fit's result: nothing applied yet, the panel says what runs.
  QCOMPARE(doc.undoStack()->count(), 0);
  QVERIFY(!panel.applyButton()->isEnabled());
  QVERIFY(panel.cancelButton()->isVisibleTo(&panel));
  QVERIFY2(panel.noteText().contains("memory budget"), qPrintable(panel.noteText()));
  QVERIFY(wait_until([&] { return finished.count() == 1; }, 120000));
  QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(panel.noteText()));
  QCOMPARE(doc.undoStack()->count(), 1);
  QCOMPARE(doc.schedule().strategy, std::string("level-rr"));
  QVERIFY(doc.strategyOptions().cuda_graph);
  QVERIFY(!doc.lastBudgetNote().isEmpty());
  QVERIFY(panel.noteText().contains("Memory budget"));
  QVERIFY(panel.applyButton()->isEnabled());
  QVERIFY(!panel.searching());
  doc.waitForStudy();
  QVERIFY(doc.figures().arena_bytes > 0 && doc.figures().arena_bytes <= 2359296);
}

void TestStrategyPanel::cancelledBudgetFitAppliesNothing() {
  // Cancel during a budgeted Apply stops the fit and applies nothing.
  StudioDocument doc;
  doc.setModel(transformer());
  StrategyPanel panel(&doc);
  panel.show();
  ask_for_budget_fit(panel);
  QSignalSpy finished(&panel, &StrategyPanel::searchFinished);
  QVERIFY(panel.apply());
  panel.cancelSearch();
  QVERIFY(wait_until([&] { return finished.count() == 1; }, 120000));
  QCOMPARE(finished.at(0).at(0).toBool(), false);
  QVERIFY2(panel.noteText().contains("nothing applied"), qPrintable(panel.noteText()));
  QCOMPARE(doc.undoStack()->count(), 0);
  QVERIFY(doc.lastBudgetNote().isEmpty());
}

void TestStrategyPanel::budgetFitOfAReplacedModelIsDropped() {
  // A fit whose model was replaced meanwhile is dropped with the reason, as a search is.
  StudioDocument doc;
  doc.setModel(transformer());
  StrategyPanel panel(&doc);
  panel.show();
  ask_for_budget_fit(panel);
  QSignalSpy finished(&panel, &StrategyPanel::searchFinished);
  QVERIFY(panel.apply());
  doc.setModel(make_loaded(weft::test::make_diamond(), {{0, 1, 3}, {2}}));
  QVERIFY(wait_until([&] { return finished.count() == 1; }, 120000));
  QCOMPARE(finished.at(0).at(0).toBool(), false);
  QVERIFY2(panel.note()->text().contains("replaced"), qPrintable(panel.note()->text()));
  QCOMPARE(doc.graph().node_count(), 4);
  QCOMPARE(doc.undoStack()->count(), 0);
}

QTEST_MAIN(TestStrategyPanel)
#include "test_strategy_panel.moc"
