// Measured profiles in the studio (issue 43): an ONNX Runtime profile opened on GoogLeNet colours
// its nodes by measured time (the item's fill and the rendered pixel), the properties panel shows
// measured against predicted, the timeline puts the measured run above the predictions and the
// summary quotes the coverage; a profile of another model and a truncated one are refused with the
// document unchanged and the reason in the status bar; a profile dropped on the window opens as a
// profile, not as a schedule (ONNX Runtime's JSON and PyTorch's Chrome trace); weft-studio
// --profile opens the model with it.
#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include "ui_test_support.h"
#include "weft/ui/graph_view.h"
#include "weft/ui/heat_scale.h"
#include "weft/ui/load_controller.h"
#include "weft/ui/main_window.h"
#include "weft/ui/properties_panel.h"
#include "weft/ui/strategy_panel.h"
#include "weft/ui/studio_command_line.h"
#include "weft/ui/summary_panel.h"
#include "weft/ui/timeline_view.h"

using weft::core::NodeId;
using weft::ui::GraphView;
using weft::ui::MainWindow;

namespace {
const QString kGooglenet = QStringLiteral(WEFT_TEST_DATA_DIR "/models/googlenet.onnx");
// Profiles recorded by scripts/ort-profile.js with ONNX Runtime's CPU EP (tests/data/profiles).
const QString kGooglenetProfile = QStringLiteral(WEFT_TEST_DATA_DIR "/profiles/googlenet.ort-basic.json");
const QString kOtherModelProfile = QStringLiteral(WEFT_TEST_DATA_DIR "/profiles/squeezenet1_1.ort-all.json");
// torch.profiler's Chrome trace of torchvision's GoogLeNet on the CPU, and that model as torch exported it.
const QString kTorchGooglenet = QStringLiteral(WEFT_TEST_DATA_DIR "/profiles/googlenet.torch.onnx");
const QString kTorchProfile = QStringLiteral(WEFT_TEST_DATA_DIR "/profiles/googlenet.torch-cpu.json");

// Waits for the next loadFinished and returns its ok flag (false on a timeout too).
bool next_load(QSignalSpy& spy) {
  const int before = spy.count();
  return weft::test::wait_until([&] { return spy.count() > before; }, 60000) && spy.last().at(0).toBool();
}

bool open_googlenet(MainWindow& w, QSignalSpy& done) {
  w.openModel(kGooglenet);
  return next_load(done);
}

// The node of the longest measured time: the hot end of the scale.
NodeId slowest_measured(const weft::ui::StudioDocument& doc) {
  NodeId best = weft::core::kNoNode;
  for (std::size_t v = 0; v < doc.graph().node_count(); ++v) {
    const auto us = doc.measuredTime(static_cast<NodeId>(v));
    if (us && (best == weft::core::kNoNode || *us > *doc.measuredTime(best))) best = static_cast<NodeId>(v);
  }
  return best;
}

QTreeWidgetItem* find_row(QTreeWidget& tree, const QString& key) {
  const auto found = tree.findItems(key, Qt::MatchExactly | Qt::MatchRecursive, 0);
  return found.isEmpty() ? nullptr : found.front();
}
}  // namespace

class TestProfileStudio : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { weft::test::use_test_settings("test_profile_studio"); }
  void profileColoursNodesAndShowsMeasuredTimes();
  void badProfilesAreRefusedAndChangeNothing();
  void droppedProfileOpensAsProfile();
  void commandLineProfile();
};

void TestProfileStudio::profileColoursNodesAndShowsMeasuredTimes() {
  MainWindow w;
  w.resize(1400, 900);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  QSignalSpy done(&w, &MainWindow::loadFinished);
  QVERIFY(open_googlenet(w, done));
  GraphView* view = w.graphView();
  QCOMPARE(view->colouring(), GraphView::Colouring::Streams);
  QVERIFY(!view->findChild<QAction*>("colourMeasured")->isEnabled());
  const auto schedule_before = w.document()->schedule().streams;

  w.loads()->openProfile(kGooglenetProfile);
  QVERIFY2(next_load(done), qPrintable(w.lastMessage()));
  const auto& doc = *w.document();
  QVERIFY(doc.profile());
  QVERIFY2(w.lastMessage().contains("profile googlenet.ort-basic.json"), qPrintable(w.lastMessage()));
  QVERIFY2(!w.lastMessage().contains("schedule on screen"), qPrintable(w.lastMessage()));
  // The schedule on screen stays (offered with the re-open, and it fits).
  QCOMPARE(doc.schedule().streams, schedule_before);
  // The document's costs are the measured times, the predictions kept beside them.
  const NodeId hot = slowest_measured(doc);
  QVERIFY(hot != weft::core::kNoNode);
  const double measured = *doc.measuredTime(hot);
  QCOMPARE(doc.analysis().costs[hot].time_us, measured);
  QVERIFY(doc.analysis().costs[hot].measured);
  QCOMPARE(doc.predictedCosts().nodes.size(), doc.graph().node_count());

  // Coloured by measured time: the slowest node at the scale's hot end, unlike its stream colour.
  QCOMPARE(view->colouring(), GraphView::Colouring::MeasuredTime);
  QVERIFY(view->findChild<QAction*>("colourMeasured")->isChecked());
  const QColor hot_fill = weft::ui::HeatScale::color(1.0);
  QCOMPARE(view->nodeFill(hot), hot_fill);
  QCOMPARE(view->heatScale().hi_us, measured);
  // The rendered pixel just inside the node's top-left corner is that fill.
  view->centerOn(hot);
  const QImage image = view->grab().toImage();
  const QRectF r = view->nodeWorldRect(hot);
  const QPointF centre(view->width() / 2.0, view->height() / 2.0);
  const QPoint inside = (centre + QPointF(-r.width() / 2 * view->scale() + 7, -r.height() / 2 * view->scale() + 4)).toPoint();
  const QColor pixel = image.pixelColor(inside * image.devicePixelRatio());
  QVERIFY2(std::abs(pixel.red() - hot_fill.red()) + std::abs(pixel.green() - hot_fill.green()) + std::abs(pixel.blue() - hot_fill.blue()) < 24,
           qPrintable(QString("pixel %1 fill %2").arg(pixel.name(), hot_fill.name())));
  // Nodes the profile has no time for (if any) are grey; measured ones never are.
  for (std::size_t v = 0; v < doc.graph().node_count(); ++v)
    QCOMPARE(view->nodeFill(static_cast<NodeId>(v)) == weft::ui::unmeasured_color(), !doc.measuredTime(static_cast<NodeId>(v)).has_value());
  // Back to streams on the right-click menu.
  view->findChild<QAction*>("colourStreams")->trigger();
  QVERIFY(view->nodeFill(hot) != hot_fill);

  // Properties: measured against predicted for the selected node.
  weft::ui::PropertiesPanel props(w.document());
  w.document()->setSelection({hot});
  QTreeWidgetItem* m = find_row(props, "measured time");
  QVERIFY(m);
  QVERIFY2(m->text(1).startsWith(QString("%1 µs").arg(measured, 0, 'f', 2)), qPrintable(m->text(1)));
  QTreeWidgetItem* p = find_row(props, "predicted time");
  QVERIFY(p);
  QVERIFY2(p->text(1).startsWith(QString("%1 µs").arg(doc.predictedCosts()[hot].time_us, 0, 'f', 2)), qPrintable(p->text(1)));
  QVERIFY(find_row(props, "vs predicted"));

  // Timeline: the measured run is the first group, its replay under it, then the predictions.
  w.document()->waitForStudy();
  const auto& tracks = w.timelineView()->tracks();
  QVERIFY(tracks.size() >= 3);
  QCOMPARE(QString::fromStdString(tracks[0].run.label), QString::fromStdString("measured: " + doc.profile()->source));
  QVERIFY(QString::fromStdString(tracks[1].run.label).startsWith("replay of the profiled run"));
  QVERIFY(tracks[2].live_prediction);
  // Summary: what the profile covers, and the advice from measured times.
  const QString summary = w.summaryPanel()->text();
  QVERIFY2(summary.contains(QString("%1&nbsp;of&nbsp;").arg(doc.profile()->matched_count())) ||
               summary.contains(QString("%1 of ").arg(doc.profile()->matched_count())),
           qPrintable(summary));
  QVERIFY2(summary.contains("from measured times"), qPrintable(summary));

  // Close profile: the predictions again, the streams' colours.
  w.findChild<QAction*>("closeProfile")->trigger();
  QVERIFY(next_load(done));
  QVERIFY(!w.document()->profile());
  QCOMPARE(view->colouring(), GraphView::Colouring::Streams);
  QVERIFY(!w.document()->analysis().costs[hot].measured);
}

void TestProfileStudio::badProfilesAreRefusedAndChangeNothing() {
  MainWindow w;
  QSignalSpy done(&w, &MainWindow::loadFinished);
  QVERIFY(open_googlenet(w, done));
  const auto graph = w.document()->graphPtr();
  const auto schedule = w.document()->schedule().streams;
  const double work = w.document()->analysis().critical.work_us;
  QTemporaryDir dir;
  // A real profile cut in half: truncated JSON.
  QFile whole(kGooglenetProfile);
  QVERIFY(whole.open(QIODevice::ReadOnly));
  const QByteArray bytes = whole.readAll();
  const QString truncated = dir.filePath("googlenet.truncated.json");
  QFile cut(truncated);
  QVERIFY(cut.open(QIODevice::WriteOnly));
  cut.write(bytes.left(bytes.size() / 2));
  cut.close();
  for (const QString& bad : {kOtherModelProfile, truncated}) {
    w.loads()->openProfile(bad);
    QVERIFY(!next_load(done));
    const QString message = w.lastMessage();
    qInfo() << message;
    QVERIFY2(message.startsWith(QString("Could not open profile %1: ").arg(QFileInfo(bad).fileName())), qPrintable(message));
    QVERIFY2(message.size() > QString("Could not open profile %1: ").arg(QFileInfo(bad).fileName()).size() + 10, qPrintable(message));
    // Nothing half-applied: the same graph, schedule and costs, no profile.
    QVERIFY(!w.document()->profile());
    QCOMPARE(w.document()->graphPtr(), graph);
    QCOMPARE(w.document()->schedule().streams, schedule);
    QCOMPARE(w.document()->analysis().critical.work_us, work);
  }
  // A merged model is not the model the profile measured: refused by core, the merge kept.
  MainWindow merged;
  QSignalSpy merged_done(&merged, &MainWindow::loadFinished);
  merged.strategyPanel()->mergeBox()->setChecked(true);
  QVERIFY(open_googlenet(merged, merged_done));
  QVERIFY(merged.document()->isMerged());
  const auto merged_graph = merged.document()->graphPtr();
  merged.loads()->openProfile(kGooglenetProfile);
  QVERIFY(!next_load(merged_done));
  QVERIFY2(merged.lastMessage().contains("merges"), qPrintable(merged.lastMessage()));
  QVERIFY(!merged.document()->profile());
  QCOMPARE(merged.document()->graphPtr(), merged_graph);
  // Without a model there is nothing to map a profile onto.
  MainWindow empty;
  QSignalSpy none(&empty, &MainWindow::loadFinished);
  empty.loads()->openProfile(kGooglenetProfile);
  QCOMPARE(none.count(), 1);
  QVERIFY(!none.last().at(0).toBool());
  QVERIFY(empty.lastMessage().contains("open the model"));
}

void TestProfileStudio::droppedProfileOpensAsProfile() {
  MainWindow w;
  w.show();
  QSignalSpy done(&w, &MainWindow::loadFinished);
  QVERIFY(open_googlenet(w, done));
  QVERIFY(weft::test::drop_files(w, {kGooglenetProfile}));
  QVERIFY2(next_load(done), qPrintable(w.lastMessage()));
  QVERIFY(w.document()->profile());
  QCOMPARE(QFileInfo(QString::fromStdString(w.document()->profile()->path)).fileName(), QFileInfo(kGooglenetProfile).fileName());
  QCOMPARE(w.graphView()->colouring(), GraphView::Colouring::MeasuredTime);
  // A PyTorch profiler trace (a Chrome trace: an object with traceEvents) on the model torch
  // exported beside it is a profile too, not schedule JSON.
  w.openModel(kTorchGooglenet);
  QVERIFY(next_load(done));
  QVERIFY(!w.document()->profile());
  QVERIFY(weft::test::drop_files(w, {kTorchProfile}));
  QVERIFY2(next_load(done), qPrintable(w.lastMessage()));
  QVERIFY(w.document()->profile());
  QVERIFY(w.document()->profile()->format == weft::core::ProfileFormat::PyTorch);
  QVERIFY(w.document()->profile()->matched_count() > 0);
}

void TestProfileStudio::commandLineProfile() {
  using weft::ui::parse_studio_command_line;
  // --profile needs a model to map onto.
  for (const QStringList& bad : {QStringList{"weft-studio", "--profile", kGooglenetProfile},
                                 QStringList{"weft-studio", "--synthetic", "50", "--profile", kGooglenetProfile}}) {
    const auto parsed = parse_studio_command_line(bad);
    QVERIFY(!parsed);
    QVERIFY2(QString::fromStdString(parsed.error().message).contains("--profile"), parsed.error().message.c_str());
  }
  auto options = parse_studio_command_line({"weft-studio", kGooglenet, "--profile", kGooglenetProfile});
  QVERIFY(options);
  QCOMPARE(options->profile, kGooglenetProfile);
  MainWindow w;
  QSignalSpy done(&w, &MainWindow::loadFinished);
  weft::ui::StudioSession session(w, *options);
  QVERIFY(session.start());
  QVERIFY2(next_load(done), qPrintable(w.lastMessage()));
  QVERIFY(w.document()->profile());
  QCOMPARE(w.graphView()->colouring(), GraphView::Colouring::MeasuredTime);
  // Only the model the command line names: the next one opens with its predictions.
  w.openModel(kGooglenet);
  QVERIFY(next_load(done));
  QVERIFY(!w.document()->profile());
}

QTEST_MAIN(TestProfileStudio)
#include "test_profile_studio.moc"
