// Runs from the studio: Run ▸ Run on CPU measures the current schedule off the GUI thread and its
// timeline lands in the document (one item per node, outputs bit-identical to the sequential
// run); a cancelled run adds nothing; an unsupported model is refused with the reason; Run on
// CUDA follows GPU detection (disabled with the reason where there is none, as in CI); "Use measured times" calibrates the cost model and Reset reverts it.
#include <QAction>
#include <QCheckBox>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

#include "ui_test_support.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/ui/load_controller.h"
#include "weft/ui/main_window.h"
#include "weft/ui/run_controller.h"
#include "weft/ui/run_job.h"
#include "weft/ui/properties_panel.h"
#include "weft/ui/strategy_panel.h"
#include "weft/ui/summary_panel.h"
#include "weft/ui/timeline_view.h"

using weft::ui::MainWindow;

namespace {
const QString kSqueezenet = QStringLiteral(WEFT_TEST_DATA_DIR "/models/squeezenet1_1.onnx");

bool wait_signal(QSignalSpy& spy, int ms = 120000) {
  return weft::test::wait_until([&] { return spy.count() > 0; }, ms);
}

/// Opens `path` in `w` and waits for the load: whether it loaded, and the load's message.
std::pair<bool, QString> open_and_wait(MainWindow& w, const QString& path) {
  QSignalSpy loaded(&w, &MainWindow::loadFinished);
  w.openModel(path);
  if (!wait_signal(loaded)) return {false, "the load did not finish"};
  return {loaded.last().at(0).toBool(), loaded.last().at(1).toString()};
}

/// The document's measured run of `strategy` on `backend`, found by identity (kind, backend, strategy).
const weft::core::Timeline* find_run(const weft::ui::StudioDocument& doc, const std::string& strategy,
                                     const std::string& backend = "cpu") {
  const weft::core::RunIdentity want{weft::core::RunKind::Measured, backend, strategy};
  for (const auto& r : doc.runs())
    if (r.identity() == want) return &r;
  return nullptr;
}
}  // namespace

class TestRunMenu : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("weft-tests");
    QCoreApplication::setApplicationName("test_run_menu");
  }
  void cpuRunFromTheMenu();
  void realModelRunsAndCalibrates();
  void cancelledRunAddsNothing();
  void unsupportedModelIsRefused();
  void cudaEntryIsDisabledWithReason();
  void cudaEntryFollowsDetection();
  void mergedModelRunsAgainstTheUnmergedReference();
  void testDataRunShowsTheCheck();
  void threadsPerStreamRunsTeams();
  void hybridTeamsFromTheMenu();
};

void TestRunMenu::cpuRunFromTheMenu() {
  MainWindow w;
  w.show();
  QSignalSpy loaded(&w, &MainWindow::loadFinished);
  w.openGraph("two-branches", [] { return weft::core::Expected<weft::core::Graph>(weft::test::make_two_branches(6)); });
  QVERIFY(wait_signal(loaded));
  QVERIFY(loaded.last().at(0).toBool());
  QVERIFY(w.runCpuAction()->isEnabled());
  QVERIFY(!w.useMeasuredAction()->isEnabled());  // nothing measured yet
  w.setRunIterations(2);
  QSignalSpy ran(&w, &MainWindow::runFinished);
  w.runCpuAction()->trigger();
  QVERIFY(w.isRunning() || ran.count() > 0);
  QVERIFY(wait_signal(ran));
  QVERIFY2(ran.last().at(0).toBool(), qPrintable(ran.last().at(1).toString()));
  const auto& doc = *w.document();
  const weft::core::Timeline* measured = find_run(doc, doc.schedule().strategy);
  QVERIFY(measured);
  QCOMPARE(measured->kind, weft::core::RunKind::Measured);
  QCOMPARE(measured->label, "measured cpu " + doc.schedule().strategy);  // core's label
  // The document's schedule is its strategy's answer for a GPU preset: the CPU ran that strategy's
  // schedule made for the calibrated CPU, and the summary says so.
  QVERIFY(doc.device().kind == weft::core::DeviceKind::Gpu);
  QVERIFY2(w.summaryPanel()->runText().contains("schedule made for") &&
               w.summaryPanel()->runText().contains("the CPU calibrated from a sequential run"),
           qPrintable(w.summaryPanel()->runText()));
  // One item per node, each on a stream of the schedule that ran.
  QCOMPARE(measured->items.size(), doc.graph().node_count());
  std::vector<int> seen(doc.graph().node_count(), 0);
  for (const auto& it : measured->items) {
    ++seen[static_cast<std::size_t>(it.node)];
    QVERIFY(it.stream >= 0 && it.stream < measured->stream_count);
    QVERIFY(it.end_us >= it.start_us);
  }
  QVERIFY(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
  QVERIFY(find_run(doc, "sequential"));
  // The run's strategy comes from core (the identity), not labels; a CPU run has no CUDA Graph
  // baseline, so the study's graph speedup (the GPU device's) is not shown as the run's.
  QVERIFY(w.summaryPanel()->runText().contains(QString::fromStdString(doc.schedule().strategy)));
  QVERIFY2(!w.summaryPanel()->runText().contains("vs seq. graph"), qPrintable(w.summaryPanel()->runText()));
  QVERIFY(w.summaryPanel()->runText().contains("bit-identical"));
  QVERIFY(w.lastMessage().contains("bit-identical"));
  // More streams than CPUs: the summary says the executor's threads (one per CPU) share them.
  const int streams = measured->stream_count, cpus = weft::core::cpu_count();
  const QString sharing = streams > cpus ? QString("%1 streams on %2 threads").arg(streams).arg(cpus) : QString("%1 stream(s)").arg(streams);
  QVERIFY2(w.summaryPanel()->runText().contains(sharing), qPrintable(w.summaryPanel()->runText()));
  // The CPU device calibrated from the run predicts the schedule, as `weft run --backend cpu` does.
  QVERIFY2(w.summaryPanel()->runText().contains("calibrated cpu") && w.summaryPanel()->runText().contains("× predicted (error "),
           qPrintable(w.summaryPanel()->runText()));
  // The timeline shows it, beside the predicted tracks.
  bool shown = false;
  for (const auto& t : w.timelineView()->tracks()) shown = shown || t.run.identity() == measured->identity();
  QVERIFY(shown);
  QVERIFY(w.useMeasuredAction()->isEnabled());

  // A schedule edited by hand runs as it is: every node on the stream the edit put it on.
  QVERIFY(w.document()->addStream());
  const weft::core::NodeId moved = doc.schedule().streams.front().back();
  QVERIFY2(w.document()->moveNodes({moved}, static_cast<int>(doc.schedule().stream_count()) - 1, 0),
           qPrintable(w.document()->lastRefusal()));
  QCOMPARE(doc.schedule().strategy, std::string("hand"));
  ran.clear();
  w.runCpuAction()->trigger();
  QVERIFY(wait_signal(ran));
  QVERIFY2(ran.last().at(0).toBool(), qPrintable(ran.last().at(1).toString()));
  QVERIFY2(w.summaryPanel()->runText().contains("as it is"), qPrintable(w.summaryPanel()->runText()));
  const weft::core::Timeline* edited = find_run(doc, "hand");
  QVERIFY(edited);
  QCOMPARE(edited->stream_count, static_cast<int>(doc.schedule().stream_count()));
  for (const auto& it : edited->items) QCOMPARE(it.stream, doc.streamOf(it.node));
}

void TestRunMenu::realModelRunsAndCalibrates() {
  MainWindow w;
  w.show();
  const auto [opened, why] = open_and_wait(w, kSqueezenet);
  QVERIFY2(opened, qPrintable(why));
  auto& doc = *w.document();
  doc.waitForStudy();  // predictions arrive from the document's worker
  QVERIFY(doc.predictedRuns().size() == 3);
  const double predicted_before = doc.figures().predicted_us;
  const double node0_before = doc.nodeTimes()[0];
  w.setRunIterations(1);
  QSignalSpy ran(&w, &MainWindow::runFinished);
  QVERIFY(w.runOnCpu());
  QVERIFY(!w.runCpuAction()->isEnabled());  // one run at a time
  QVERIFY(wait_signal(ran));
  QVERIFY2(ran.last().at(0).toBool(), qPrintable(ran.last().at(1).toString()));
  const weft::core::Timeline* measured = find_run(doc, doc.schedule().strategy);
  QVERIFY(measured);
  QCOMPARE(measured->items.size(), doc.graph().node_count());
  QVERIFY(w.summaryPanel()->runText().contains("bit-identical"));
  QVERIFY(w.summaryPanel()->runText().contains("seeded"));  // structure-only model: weights seeded

  // Use measured times: node times become the measured durations, predictions follow; reset reverts.
  QSignalSpy costs(&doc, &weft::ui::StudioDocument::costsChanged);
  w.useMeasuredAction()->trigger();
  QCOMPARE(costs.count(), 1);
  QVERIFY(doc.costsCalibrated());
  QVERIFY(doc.analysis().costs.nodes[0].measured);
  double measured0 = 0;
  for (const auto& it : measured->items)
    if (it.node == 0) measured0 = it.end_us - it.start_us;
  QCOMPARE(doc.nodeTimes()[0], measured0);
  doc.waitForStudy();
  QVERIFY(doc.figures().predicted_us != predicted_before);
  QVERIFY(w.resetCostsAction()->isEnabled());
  QVERIFY(w.summaryPanel()->text().contains("measured"));
  w.resetCostsAction()->trigger();
  QVERIFY(!doc.costsCalibrated());
  QCOMPARE(doc.nodeTimes()[0], node0_before);
  doc.waitForStudy();
  QCOMPARE(doc.figures().predicted_us, predicted_before);
  QVERIFY(!w.resetCostsAction()->isEnabled());
}

void TestRunMenu::cancelledRunAddsNothing() {
  MainWindow w;
  w.show();
  QSignalSpy loaded(&w, &MainWindow::loadFinished);
  w.openModel(kSqueezenet);
  QVERIFY(wait_signal(loaded));
  w.setRunIterations(3);
  QSignalSpy ran(&w, &MainWindow::runFinished);
  QVERIFY(w.runOnCpu());
  w.cancelRun();
  QVERIFY(wait_signal(ran));
  QCOMPARE(ran.last().at(0).toBool(), false);
  QVERIFY(ran.last().at(1).toString().contains("cancelled"));
  QVERIFY(w.document()->runs().empty());
  // The worker may still be finishing its pass; once it has, a new run is accepted.
  QVERIFY(weft::test::wait_until([&] { return !w.isRunning(); }, 120000));
  QVERIFY(w.runCpuAction()->isEnabled());
  QVERIFY(w.document()->runs().empty());
}

void TestRunMenu::unsupportedModelIsRefused() {
  MainWindow w;
  w.show();
  QSignalSpy loaded(&w, &MainWindow::loadFinished);
  w.openGraph("fancy", [] { return weft::core::Expected<weft::core::Graph>(weft::test::make_dag(3, {{0, 1}, {1, 2}}, 64, "FancyOp")); });
  QVERIFY(wait_signal(loaded));
  QSignalSpy ran(&w, &MainWindow::runFinished);
  QVERIFY(!w.runOnCpu());
  QCOMPARE(ran.count(), 1);
  QCOMPARE(ran.last().at(0).toBool(), false);
  QVERIFY2(w.lastMessage().contains("FancyOp"), qPrintable(w.lastMessage()));
  QVERIFY(w.document()->runs().empty());
  QVERIFY(!w.isRunning());
}

void TestRunMenu::cudaEntryIsDisabledWithReason() {
  MainWindow w;
  QVERIFY(w.runCudaAction());
  QVERIFY(!w.runCudaAction()->isEnabled());
  QVERIFY(!w.runCudaAction()->toolTip().isEmpty());
  QVERIFY(w.runCudaAction()->toolTip().contains("CUDA"));
  QVERIFY(!w.runCpuAction()->isEnabled());  // no model yet
}

void TestRunMenu::cudaEntryFollowsDetection() {
  MainWindow w;
  w.show();
  QSignalSpy loaded(&w, &MainWindow::loadFinished);
  w.openGraph("two-branches", [] { return weft::core::Expected<weft::core::Graph>(weft::test::make_two_branches(4)); });
  QVERIFY(wait_signal(loaded));
  const QString why = weft::ui::cuda_unavailable_reason();
  QCOMPARE(w.runCudaAction()->isEnabled(), why.isEmpty());
  QSignalSpy ran(&w, &MainWindow::runFinished);
  if (!why.isEmpty()) {
    // No GPU here: the entry says why and a direct call is refused with the same reason.
    QCOMPARE(w.runCudaAction()->toolTip(), why);
    QVERIFY(!w.runOnCuda());
    QCOMPARE(ran.count(), 1);
    QVERIFY2(w.lastMessage().contains(why), qPrintable(w.lastMessage()));
    QVERIFY(w.document()->runs().empty());
    return;
  }
  // A GPU: the same two-branch model runs on CUDA and its measured timeline lands in the document.
  w.setRunIterations(2);
  QVERIFY(w.runOnCuda());
  QVERIFY(wait_signal(ran));
  QVERIFY2(ran.last().at(0).toBool(), qPrintable(ran.last().at(1).toString()));
  const auto* measured = find_run(*w.document(), w.document()->schedule().strategy, "cuda");
  QVERIFY(measured);
  QCOMPARE(measured->items.size(), w.document()->graph().node_count());
}

// A merged model runs against the unmerged model's sequential run, as `weft run --merge` does: the
// reference ran the 48-node unmerged graph (its timeline, of another graph's nodes, is not added),
// the merged run's outputs equal it bit for bit, and the summary says the reference was unmerged.
void TestRunMenu::mergedModelRunsAgainstTheUnmergedReference() {
  MainWindow w;
  w.loads()->setDimBindings({{"batch", 1}});
  w.strategyPanel()->mergeBox()->setChecked(true);
  QSignalSpy loaded(&w, &MainWindow::loadFinished);
  w.openModel(QStringLiteral(WEFT_TEST_DATA_DIR "/models/grouped_mlp.onnx"));
  QVERIFY(wait_signal(loaded));
  QVERIFY2(loaded.last().at(0).toBool(), qPrintable(loaded.last().at(1).toString()));
  auto& doc = *w.document();
  QVERIFY(doc.isMerged());
  QCOMPARE(doc.graph().node_count(), std::size_t{12});
  const std::size_t runs_before = doc.runs().size();
  w.setRunIterations(1);
  QSignalSpy ran(&w, &MainWindow::runFinished);
  QVERIFY(w.runOnCpu());
  QVERIFY(wait_signal(ran));
  QVERIFY2(ran.last().at(0).toBool(), qPrintable(ran.last().at(1).toString()));
  QCOMPARE(doc.runs().size(), runs_before + 1);  // the merged run only
  const weft::core::Timeline* measured = find_run(doc, doc.schedule().strategy);
  QVERIFY(measured);
  QCOMPARE(measured->items.size(), std::size_t{12});
  const QString text = w.summaryPanel()->runText();
  QVERIFY2(text.contains("sequential, unmerged") && text.contains("vs unmerged seq. eager") && text.contains("bit-identical"),
           qPrintable(text));
  QVERIFY2(ran.last().at(1).toString().contains("sequential, unmerged"), qPrintable(ran.last().at(1).toString()));
}

// Run ▸ Test data set: the run takes the set's inputs and shows beside the timings whether every
// output matched (squeezenet against ONNX Runtime's outputs), names the failing output where one
// differs (tiny.onnx against shifted outputs), and refuses a set whose inputs do not fit.
void TestRunMenu::testDataRunShowsTheCheck() {
  MainWindow w;
  w.show();
  const auto [opened, why] = open_and_wait(w, kSqueezenet);
  QVERIFY2(opened, qPrintable(why));
  w.setRunIterations(1);
  auto* runs = w.runController();
  runs->setTestData(QStringLiteral(WEFT_TEST_DATA_DIR "/test_data/squeezenet1_1"));
  QVERIFY(runs->testDataAction()->text().contains("squeezenet1_1"));
  QSignalSpy ran(&w, &MainWindow::runFinished);
  QVERIFY(w.runOnCpu());
  QVERIFY(wait_signal(ran));
  QVERIFY2(ran.last().at(0).toBool(), qPrintable(ran.last().at(1).toString()));
  const QString text = w.summaryPanel()->runText();
  QVERIFY2(text.contains("test data") && text.contains("passed (largest error") && text.contains("rtol 0.0001"), qPrintable(text));
  QVERIFY2(w.lastMessage().contains("test data passed"), qPrintable(w.lastMessage()));

  // A set made for another model: refused, naming the input and what the model expects.
  runs->setTestData(QStringLiteral(WEFT_TEST_DATA_DIR "/test_data/transformer4h"));
  ran.clear();
  QVERIFY(w.runOnCpu());
  QVERIFY(wait_signal(ran));
  QVERIFY(!ran.last().at(0).toBool());
  // Its input_0.pb names 'x', no input of squeezenet: it feeds 'input' by position, and its shape is wrong.
  QVERIFY2(ran.last().at(1).toString().contains("given float32 1x64x256, the model expects float32 1x3x224x224 (wrong shape)"),
           qPrintable(ran.last().at(1).toString()));

  QVERIFY(open_and_wait(w, QStringLiteral(WEFT_TEST_DATA_DIR "/bad/tiny.onnx")).first);
  runs->setTestData(QStringLiteral(WEFT_TEST_DATA_DIR "/bad/inputs/test_data_mismatch"));
  ran.clear();
  QVERIFY(w.runOnCpu());
  QVERIFY(wait_signal(ran));
  QVERIFY2(ran.last().at(0).toBool(), qPrintable(ran.last().at(1).toString()));
  QVERIFY2(w.summaryPanel()->runText().contains("FAILED: &#x27;y&#x27; (scheduled), 4 of 4 elements outside") ||
               w.summaryPanel()->runText().contains("FAILED: 'y' (scheduled), 4 of 4 elements outside"),
           qPrintable(w.summaryPanel()->runText()));
  QVERIFY2(w.lastMessage().contains("test data FAILED"), qPrintable(w.lastMessage()));
  runs->setTestData({});
  QVERIFY(!runs->testDataAction()->text().contains("test_data"));
}

// Run ▸ Threads per stream: the CPU run's streams are teams of that many threads (the summary
// says so, with the kernels that ran), outputs still bit-identical to the sequential run at that
// team size; the menu lists a choice per CPU and checks the one in use.
void TestRunMenu::threadsPerStreamRunsTeams() {
  MainWindow w;
  w.show();
  const auto [opened, why] = open_and_wait(w, kSqueezenet);
  QVERIFY2(opened, qPrintable(why));
  const int threads = std::min(2, weft::core::cpu_count());
  w.setThreadsPerStream(threads);
  w.setRunIterations(1);
  QSignalSpy ran(&w, &MainWindow::runFinished);
  QVERIFY(w.runOnCpu());
  QVERIFY(wait_signal(ran));
  QVERIFY2(ran.last().at(0).toBool(), qPrintable(ran.last().at(1).toString()));
  const QString text = w.summaryPanel()->runText();
  QVERIFY2(text.contains("bit-identical"), qPrintable(text));
  QVERIFY2(text.contains("kernels"), qPrintable(text));
  QVERIFY2(text.contains(QString("%1 thread").arg(threads)), qPrintable(text));
  QMenu* threads_menu = nullptr;
  for (QAction* a : w.menuBar()->actions())
    if (a->menu() && a->text() == QObject::tr("&Run"))
      for (QAction* b : a->menu()->actions())
        if (b->menu() && b->text().contains("Threads per stream")) threads_menu = b->menu();
  QVERIFY(threads_menu);
  QCOMPARE(threads_menu->actions().size(), weft::core::cpu_count() + 1);
  int checked = -1;
  for (QAction* a : threads_menu->actions())
    if (a->isChecked()) checked = a->data().toInt();
  QCOMPARE(checked, threads);
}

// Run ▸ Hybrid teams: checked, the CPU run (squeezenet's schedule made for the CPU, on 2 streams)
// puts the nodes that run alone on a team of every core, outputs still bit-identical to the
// sequential run with the same teams, and the summary and the status line count them; unchecked
// again, no node runs on a team of its own and the summary has no hybrid row.
void TestRunMenu::hybridTeamsFromTheMenu() {
  if (weft::core::cpu_count() < 2) QSKIP("one CPU: no team of 2");
  MainWindow w;
  w.show();
  const auto [opened, why] = open_and_wait(w, kSqueezenet);
  QVERIFY2(opened, qPrintable(why));
  w.setRunIterations(1);
  QAction* hybrid = nullptr;
  for (QAction* a : w.menuBar()->actions())
    if (a->menu() && a->text() == QObject::tr("&Run"))
      for (QAction* b : a->menu()->actions())
        if (b->text().contains("Hybrid teams")) hybrid = b;
  QVERIFY(hybrid);
  QCOMPARE(hybrid, w.runController()->hybridAction());
  QVERIFY(hybrid->isCheckable());
  QVERIFY(!hybrid->isChecked());
  hybrid->trigger();
  QVERIFY(hybrid->isChecked());
  QVERIFY(w.runController()->hybrid());
  QSignalSpy ran(&w, &MainWindow::runFinished);
  QVERIFY(w.runOnCpu());
  QVERIFY(wait_signal(ran));
  QVERIFY2(ran.last().at(0).toBool(), qPrintable(ran.last().at(1).toString()));
  QString text = w.summaryPanel()->runText();
  QVERIFY2(text.contains("bit-identical"), qPrintable(text));
  const QRegularExpression row(R"(hybrid teams</td>.*?<b>(\d+) node\(s\) alone on teams of (\d+) threads)");
  const QRegularExpressionMatch m = row.match(text);
  QVERIFY2(m.hasMatch(), qPrintable(text));
  QVERIFY(m.captured(1).toInt() > 0);
  const weft::core::Timeline* measured = find_run(*w.document(), w.document()->schedule().strategy);
  QVERIFY(measured);
  QCOMPARE(m.captured(2).toInt(), std::min(measured->stream_count, weft::core::cpu_count()));
  QVERIFY2(w.lastMessage().contains(QString("%1 node(s) on hybrid teams").arg(m.captured(1))), qPrintable(w.lastMessage()));
  hybrid->trigger();
  QVERIFY(!w.runController()->hybrid());
  ran.clear();
  QVERIFY(w.runOnCpu());
  QVERIFY(wait_signal(ran));
  QVERIFY2(ran.last().at(0).toBool(), qPrintable(ran.last().at(1).toString()));
  text = w.summaryPanel()->runText();
  QVERIFY2(!text.contains("hybrid teams") && !text.contains("alone on teams"), qPrintable(text));
  QVERIFY2(!w.lastMessage().contains("hybrid"), qPrintable(w.lastMessage()));
}

QTEST_MAIN(TestRunMenu)
#include "test_run_menu.moc"
