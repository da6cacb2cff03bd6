// A micro-batch split model in the studio: the loader opens the split graph (its source splits
// the imported model) and split-overlap's first schedule has one lane per copy, each lane holding
// that copy's operators. Opened as a user does (weft-studio --batch N --split K|auto): the window
// re-batches and splits the file, says which k in the status bar, schedules split-overlap, and a
// saved project reopens onto the same copies with its schedule accepted.
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "ui_test_support.h"
#include "weft/core/study/open_model.h"
#include "weft/core/transform/micro_batch.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/study/advice.h"
#include "weft/core/study/split_study.h"
#include "weft/ui/load_controller.h"
#include "weft/ui/main_window.h"
#include "weft/ui/load_job.h"
#include "weft/ui/strategy_panel.h"
#include "weft/ui/summary_panel.h"

class TestSplitStudio : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
  void splitModelOpensWithALanePerCopy();
  void windowSplitsAFileAndItsProjectKeepsTheSplit();
  void autoSplitMatchesTheCli();
  void opensTheAdvisedSplit();
  void splitAdviceAppliesByReopening();
  void rebatchThatKeepsTheBatchIsSaid();
};

void TestSplitStudio::splitModelOpensWithALanePerCopy() {
  weft::ui::LoadRequest request;
  request.path = QStringLiteral(WEFT_TEST_DATA_DIR "/models/squeezenet1_1.onnx");
  const std::string path = request.path.toStdString();
  request.source = [path]() -> weft::core::Expected<weft::core::Graph> {
    weft::core::ImportOptions options;
    options.batch = 4;
    WEFT_TRY_ASSIGN(auto graph, weft::core::import_onnx(path, options));
    return weft::core::split_batch(graph, 2);
  };
  request.strategy = QStringLiteral("split-overlap");
  request.device = QStringLiteral("h200");
  weft::ui::LoadJob job = weft::ui::start_loading(request);
  QVERIFY(weft::test::wait_until([&] { return job.future.isFinished(); }, 60000));
  QVERIFY2(job.future.resultCount() > 0, qPrintable(*job.error));
  const weft::ui::LoadedModel m = job.future.result();
  QCOMPARE(m.graph->info().micro_batches, 2);
  QCOMPARE(m.schedule.strategy, std::string("split-overlap"));
  QCOMPARE(m.schedule.stream_count(), std::size_t{2});
  for (std::size_t s = 0; s < 2; ++s) {
    std::size_t own = 0;
    for (weft::core::NodeId v : m.schedule.streams[s]) own += m.graph->info().micro_batch_of[static_cast<std::size_t>(v)] == static_cast<int>(s);
    QVERIFY2(own + 1 >= m.schedule.streams[s].size(), "a lane holds another copy's operators");
  }
}

namespace {
const QString kSqueezenet = QStringLiteral(WEFT_TEST_DATA_DIR "/models/squeezenet1_1.onnx");
const QString kResnet = QStringLiteral(WEFT_TEST_DATA_DIR "/models/resnet50.onnx");

bool wait_loads(QSignalSpy& spy, int count) {
  return weft::test::wait_until([&] { return spy.count() >= count; }, 120000) && spy.last().at(0).toBool();
}

// A lane per copy: each stream holds its own copy's operators and shared ones, plus at most one
// operator of another copy (the stagger: copy c's first operator waits on copy c-1's stream).
void expect_lane_per_copy(const weft::core::Graph& g, const weft::core::Schedule& s, int k) {
  QCOMPARE(g.info().micro_batches, k);
  QCOMPARE(s.stream_count(), static_cast<std::size_t>(k));
  for (std::size_t lane = 0; lane < s.stream_count(); ++lane) {
    int foreign = 0;
    for (weft::core::NodeId v : s.streams[lane]) {
      const int copy = g.info().micro_batch_of[static_cast<std::size_t>(v)];
      foreign += copy >= 0 && copy != static_cast<int>(lane);
    }
    QVERIFY2(foreign <= 1, qPrintable(QString("lane %1 holds %2 operators of other copies").arg(lane).arg(foreign)));
  }
}
}  // namespace

void TestSplitStudio::windowSplitsAFileAndItsProjectKeepsTheSplit() {
  QTemporaryDir dir;
  const QString project = dir.filePath("squeezenet-split.weft");
  {
    weft::ui::MainWindow w;
    w.show();
    w.loads()->setBatchSplit(4, 2);
    w.strategyPanel()->strategyBox()->setCurrentText(QString::fromLatin1(weft::core::kSplitOverlap));
    QSignalSpy done(&w, &weft::ui::MainWindow::loadFinished);
    w.openModel(kSqueezenet);
    QVERIFY(wait_loads(done, 1));
    QVERIFY2(w.lastMessage().contains("split: k=2 of batch 4"), qPrintable(w.lastMessage()));
    expect_lane_per_copy(w.document()->graph(), w.document()->schedule(), 2);
    // Split at batch 4, each copy's input is a view of batch 2.
    const weft::core::Graph& g = w.document()->graph();
    QCOMPARE(g.tensor(g.inputs().front()).shape().front(), std::int64_t{4});
    QVERIFY(w.saveProject(project));
  }
  // Reopened from the project (a fresh window, no command-line split): the same copies, and the
  // saved split-overlap schedule is taken, not refused for naming unknown nodes.
  weft::ui::MainWindow w2;
  QSignalSpy done(&w2, &weft::ui::MainWindow::loadFinished);
  w2.openProject(project);
  QVERIFY(wait_loads(done, 1));
  QVERIFY2(!w2.lastMessage().contains("refused"), qPrintable(w2.lastMessage()));
  expect_lane_per_copy(w2.document()->graph(), w2.document()->schedule(), 2);
  QCOMPARE(w2.document()->schedule().strategy, std::string(weft::core::kSplitOverlap));
}

// --split auto on resnet50 at batch 8 under graph replay: the window's k is the CLI's
// (core::choose_split through core::apply_split, the pipeline both use).
void TestSplitStudio::autoSplitMatchesTheCli() {
  weft::core::ImportOptions import;
  import.batch = 8;
  auto graph = weft::core::import_onnx(kResnet.toStdString(), import);
  QVERIFY(graph);
  weft::core::SplitOptions options;
  options.k = 0;
  options.mode = weft::core::LaunchMode::Graph;
  options.strategy.cuda_graph = true;
  weft::ui::MainWindow w;
  auto cli = weft::core::apply_split(*graph, *weft::core::open_device(w.devicePreset().toStdString()), options);
  QVERIFY(cli);
  const int k = cli->graph.info().micro_batches;
  QVERIFY2(k > 1, cli->summary.c_str());  // docs/performance.md: resnet50 splits at batch 8

  w.loads()->setBatchSplit(8, 0);
  w.strategyPanel()->strategyBox()->setCurrentText(QString::fromLatin1(weft::core::kSplitOverlap));
  w.strategyPanel()->launchMode()->setCurrentIndex(1);  // CUDA Graph replay
  QSignalSpy done(&w, &weft::ui::MainWindow::loadFinished);
  w.openModel(kResnet);
  QVERIFY(wait_loads(done, 1));
  QVERIFY2(w.lastMessage().contains(QString::fromStdString(cli->summary)), qPrintable(w.lastMessage()));
  expect_lane_per_copy(w.document()->graph(), w.document()->schedule(), k);
}

// resnet50 re-batched to 8 has little to gain from streams; its advice names a micro-batch split
// (weft analyze's line, from the same core::advise). Opened as advised, the window splits it that
// many ways and schedules split-overlap under CUDA Graph replay, with a lane per copy.
void TestSplitStudio::opensTheAdvisedSplit() {
  weft::core::ImportOptions import;
  import.batch = 8;
  auto graph = weft::core::import_onnx(kResnet.toStdString(), import);
  QVERIFY(graph);
  weft::ui::MainWindow w;
  const weft::core::DeviceSpec device = *weft::core::open_device(w.devicePreset().toStdString());
  const auto analysis = weft::core::analyze(*graph, weft::core::estimate_costs(*graph, device));
  const auto advice = weft::core::advise(*graph, analysis, device);
  QVERIFY(advice);
  QVERIFY2(advice->split_k > 1, advice->line.c_str());
  QVERIFY(advice->line.find("split-overlap k=" + std::to_string(advice->split_k)) != std::string::npos);

  QVERIFY(w.loads()->opensAsAdvised());
  w.loads()->setBatchSplit(8, -1);
  QSignalSpy done(&w, &weft::ui::MainWindow::loadFinished);
  w.openModel(kResnet);
  QVERIFY(wait_loads(done, 1));
  QVERIFY2(w.lastMessage().contains(QString("opened as advised: split k=%1, split-overlap, CUDA Graph replay").arg(advice->split_k)),
           qPrintable(w.lastMessage()));
  expect_lane_per_copy(w.document()->graph(), w.document()->schedule(), advice->split_k);
  QCOMPARE(w.document()->schedule().strategy, std::string(weft::core::kSplitOverlap));
  QVERIFY(w.document()->strategyOptions().cuda_graph);
  QCOMPARE(w.strategyPanel()->strategyBox()->currentText(), QString::fromLatin1(weft::core::kSplitOverlap));
  // The summary keeps the line that named the split, and the prediction is the split's.
  QCOMPARE(w.summaryPanel()->advice(), QString::fromStdString(advice->line));
  w.document()->waitForStudy();
  const auto& unsplit = w.document()->unsplitBaseline();
  QVERIFY(unsplit);
  const double gain = unsplit->speedup(weft::core::LaunchMode::Graph, w.document()->figures().predicted_us);
  QVERIFY2(std::abs(gain - advice->split_speedup) < 1e-9 * advice->split_speedup,
           qPrintable(QString("%1 vs %2").arg(gain).arg(advice->split_speedup)));
  QVERIFY2(w.summaryPanel()->text().contains(QString("vs&nbsp;unsplit&nbsp;graph</td><td align=right>&nbsp;<b>%1×").arg(gain, 0, 'f', 2)),
           qPrintable(w.summaryPanel()->text()));
}

QTEST_MAIN(TestSplitStudio)
#include "test_split_studio.moc"

// A static-batch export re-batched where the model fixes its batch inside (shufflenet_v2's output
// keeps batch 1): the load's message says so, as `weft --batch` does on stderr; resnet50 re-batches
// cleanly and its message has no warning.
void TestSplitStudio::rebatchThatKeepsTheBatchIsSaid() {
  weft::ui::MainWindow w;
  w.loads()->setBatchSplit(8, -1);
  QSignalSpy done(&w, &weft::ui::MainWindow::loadFinished);
  w.openModel(QStringLiteral(WEFT_TEST_DATA_DIR "/models/shufflenet_v2_x1_0.onnx"));
  QVERIFY(wait_loads(done, 1));
  QVERIFY2(w.lastMessage().contains("warning: --batch 8: output 'output' has 1 at dim 0, not 8"), qPrintable(w.lastMessage()));
  w.openModel(kResnet);
  QVERIFY(wait_loads(done, 2));
  QVERIFY2(w.lastMessage().startsWith("Loaded resnet50.onnx") && !w.lastMessage().contains("warning"), qPrintable(w.lastMessage()));
}

// A model not opened as advised (a pinned configuration) whose advice names a micro-batch split:
// the line ends in "apply: re-open split k=K", which re-opens it split into K copies on
// split-overlap in CUDA Graph replay, as the load would have followed it; the split model's own
// advice then names nothing to apply.
void TestSplitStudio::splitAdviceAppliesByReopening() {
  weft::ui::MainWindow w;
  w.loads()->pinOpeningConfiguration();
  w.loads()->setBatchSplit(8, -1);
  QSignalSpy done(&w, &weft::ui::MainWindow::loadFinished);
  w.openModel(kResnet);
  QVERIFY(wait_loads(done, 1));
  auto* doc = w.document();
  auto* summary = w.summaryPanel();
  QVERIFY(doc->graph().info().micro_batches <= 1);  // not split
  summary->waitForAdvice();
  const auto advice = weft::core::advise(doc->graph(), doc->analysis(), doc->device(),
                                         weft::ui::advice_options(doc->strategyOptions(), doc->unsplitBaseline()));
  QVERIFY(advice);
  QVERIFY2(advice->split_k > 1, advice->line.c_str());
  const auto action = summary->adviceAction();
  QVERIFY(action);
  QCOMPARE(action->split_k, advice->split_k);
  QVERIFY(!action->merge);
  QLabel* notes = summary->notesLabel();
  QVERIFY2(notes->text().contains(QString("apply: re-open split k=%1</a>").arg(advice->split_k)), qPrintable(notes->text()));
  emit notes->linkActivated(weft::ui::SummaryPanel::kApplyAdviceLink);
  QVERIFY(wait_loads(done, 2));
  QVERIFY2(w.lastMessage().contains(QString("applied the advice: split k=%1, split-overlap, CUDA Graph replay").arg(advice->split_k)),
           qPrintable(w.lastMessage()));
  expect_lane_per_copy(doc->graph(), doc->schedule(), advice->split_k);
  QCOMPARE(doc->schedule().strategy, std::string(weft::core::kSplitOverlap));
  QVERIFY(doc->strategyOptions().cuda_graph);
  // Predicted as the advice quoted it: over the unsplit model's sequential CUDA Graph.
  doc->waitForStudy();
  const auto& unsplit = doc->unsplitBaseline();
  QVERIFY(unsplit);
  const double gain = unsplit->speedup(weft::core::LaunchMode::Graph, doc->figures().predicted_us);
  QVERIFY2(std::abs(gain - advice->split_speedup) < 1e-9 * advice->split_speedup,
           qPrintable(QString("%1 vs %2").arg(gain).arg(advice->split_speedup)));
  summary->waitForAdvice();
  QVERIFY2(!summary->adviceApplicable(), qPrintable(summary->advice()));
}
