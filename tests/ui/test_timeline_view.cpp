// The timeline view: the time axis maps time ↔ pixels (zoom at an anchor, pan, clamping, ticks),
// range statistics give golden numbers, the view paints runs in stream colours and merges
// sub-pixel items, wheel zooms at the cursor, drags pan or select a range, clicks select nodes.
#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QToolTip>
#include <QWheelEvent>
#include <cmath>

#include "ui_test_support.h"
#include "weft/ui/stream_colors.h"
#include "weft/ui/synthetic_model.h"
#include "weft/core/schedule/sync.h"
#include "weft/ui/studio_document.h"
#include "weft/ui/timeline_view.h"

using weft::core::Timeline;
using weft::ui::RangeStats;
using weft::ui::StudioDocument;
using weft::ui::TimeAxis;
using weft::ui::TimelineView;

namespace {

/// Stream 0: [0,10] [20,30]; stream 1: [5,25] (nodes 0..2 of the diamond).
Timeline two_stream_run() {
  Timeline t;
  t.label = "two streams";
  t.kind = weft::core::RunKind::Measured;
  t.stream_count = 2;
  t.items = {{0, 0, 0.0, 10.0}, {1, 1, 5.0, 25.0}, {2, 0, 20.0, 30.0}};
  t.events = {{0, 1}, {1, 2}};
  return t;
}

int track_of(const TimelineView& view, const std::string& label) {
  for (std::size_t i = 0; i < view.tracks().size(); ++i)
    if (view.tracks()[i].run.label == label) return static_cast<int>(i);
  return -1;
}

void send_wheel(QWidget* target, QPoint pos, int delta_y, Qt::KeyboardModifiers mods = Qt::NoModifier) {
  QWheelEvent ev(QPointF(pos), QPointF(target->mapToGlobal(pos)), QPoint(), QPoint(0, delta_y), Qt::NoButton, mods,
                 Qt::NoScrollPhase, false);
  QApplication::sendEvent(target, &ev);
}

}  // namespace

class TestTimelineView : public QObject {
  Q_OBJECT
 private slots:
  void zoomKeepsAnchorTime_data();
  void zoomKeepsAnchorTime();
  void timeToPixel_data();
  void timeToPixel();
  void panClamps_data();
  void panClamps();
  void tickSteps_data();
  void tickSteps();
  void rangeStatsGolden();
  void paintsRunsInStreamColours();
  void mergesSubPixelItems();
  void wheelZoomsAtCursorAndDragPans();
  void shiftDragSelectsRangeAndClickSelectsNode();
  void arrowsToggle();
  void crowdedArrowsWaitForZoom();
  void predictionFollowsEdits();
  void documentRunReplacesThePredictionWithItsIdentity();
  void tooltipNamesTheNode();
  void largeRunPaintsBoundedBlocks();
  void longRunScrollBarReachesBothEnds();
};

void TestTimelineView::zoomKeepsAnchorTime_data() {
  QTest::addColumn<double>("extent");
  QTest::addColumn<double>("width");
  QTest::addColumn<double>("pre_zoom");  // zoom (about the centre) before the tested one
  QTest::addColumn<double>("anchor");
  QTest::addColumn<double>("factor");
  QTest::addColumn<bool>("keeps_anchor");
  QTest::addColumn<double>("expected_ppu");  // < 0: not checked
  QTest::newRow("in at centre") << 1000.0 << 800.0 << 1.0 << 400.0 << 2.0 << true << 1.6;
  QTest::newRow("in at left edge") << 1000.0 << 800.0 << 1.0 << 0.0 << 4.0 << true << 3.2;
  QTest::newRow("in at right edge") << 1000.0 << 800.0 << 1.0 << 800.0 << 3.0 << true << 2.4;
  QTest::newRow("out after in") << 1000.0 << 800.0 << 8.0 << 123.0 << 0.5 << true << 3.2;
  QTest::newRow("deep in, long run") << 20000.0 << 1000.0 << 1.0 << 333.0 << 1000.0 << true << 50.0;
  QTest::newRow("out past fit clamps to fit") << 1000.0 << 800.0 << 2.0 << 100.0 << 0.1 << false << 0.8;
  QTest::newRow("in past max clamps, anchor kept") << 10.0 << 800.0 << 1.0 << 400.0 << 1e6 << true << TimeAxis::kMaxPxPerUs;
}

void TestTimelineView::zoomKeepsAnchorTime() {
  QFETCH(double, extent);
  QFETCH(double, width);
  QFETCH(double, pre_zoom);
  QFETCH(double, anchor);
  QFETCH(double, factor);
  QFETCH(bool, keeps_anchor);
  QFETCH(double, expected_ppu);
  TimeAxis axis;
  axis.setWidth(width);
  axis.setExtent(extent);
  axis.fit();
  QCOMPARE(axis.pxPerUs(), width / extent);
  axis.zoomAt(width / 2, pre_zoom);
  const double before = axis.toTime(anchor);
  axis.zoomAt(anchor, factor);
  if (keeps_anchor) QVERIFY2(std::abs(axis.toTime(anchor) - before) < 1e-9 * extent, qPrintable(QString::number(axis.toTime(anchor) - before)));
  if (expected_ppu >= 0) QVERIFY(std::abs(axis.pxPerUs() - expected_ppu) < 1e-9 * expected_ppu);
  QVERIFY(axis.start() >= 0);
  QVERIFY(axis.end() <= extent + 1e-9 * extent);
}

void TestTimelineView::timeToPixel_data() {
  QTest::addColumn<double>("extent");
  QTest::addColumn<double>("width");
  QTest::addColumn<double>("t0");
  QTest::addColumn<double>("t1");
  QTest::addColumn<double>("time");
  QTest::addColumn<double>("px");
  QTest::newRow("fit") << 1000.0 << 500.0 << 0.0 << 1000.0 << 200.0 << 100.0;
  QTest::newRow("window") << 1000.0 << 500.0 << 100.0 << 350.0 << 200.0 << 200.0;
  QTest::newRow("window past the end slides back") << 1000.0 << 800.0 << 900.0 << 1100.0 << 900.0 << 400.0;
  QTest::newRow("sub-µs") << 50.0 << 1000.0 << 10.0 << 20.0 << 15.0 << 500.0;
  QTest::newRow("before the window is negative") << 1000.0 << 500.0 << 100.0 << 350.0 << 50.0 << -100.0;
}

void TestTimelineView::timeToPixel() {
  QFETCH(double, extent);
  QFETCH(double, width);
  QFETCH(double, t0);
  QFETCH(double, t1);
  QFETCH(double, time);
  QFETCH(double, px);
  TimeAxis axis;
  axis.setWidth(width);
  axis.setExtent(extent);
  axis.setVisibleRange(t0, t1);
  QVERIFY2(std::abs(axis.toPixel(time) - px) < 1e-9, qPrintable(QString::number(axis.toPixel(time))));
  QVERIFY(std::abs(axis.toTime(axis.toPixel(time)) - time) < 1e-9);
  QVERIFY(std::abs(axis.toPixel(axis.toTime(px)) - px) < 1e-9);
}

void TestTimelineView::panClamps_data() {
  QTest::addColumn<double>("pan_px");
  QTest::addColumn<double>("start");
  // Extent 1000 µs in 500 px at 1 px/µs: the start can go from 0 to 500 µs.
  QTest::newRow("right at the start stays") << 100.0 << 0.0;
  QTest::newRow("left moves later") << -100.0 << 100.0;
  QTest::newRow("far left stops at the end") << -10000.0 << 500.0;
  QTest::newRow("left then nothing") << -499.5 << 499.5;
}

void TestTimelineView::panClamps() {
  QFETCH(double, pan_px);
  QFETCH(double, start);
  TimeAxis axis;
  axis.setWidth(500);
  axis.setExtent(1000);
  axis.setVisibleRange(0, 500);
  QCOMPARE(axis.pxPerUs(), 1.0);
  axis.pan(pan_px);
  QCOMPARE(axis.start(), start);
  // A wider plot than the zoom allows is re-clamped: never past the end.
  axis.setWidth(900);
  QVERIFY(axis.end() <= 1000.0 + 1e-9);
}

void TestTimelineView::tickSteps_data() {
  QTest::addColumn<double>("ppu");
  QTest::addColumn<double>("step");
  // Spacing at least 90 px: the step is the next 1-2-5 value above 90 / ppu.
  QTest::newRow("1 px/µs") << 1.0 << 100.0;
  QTest::newRow("0.5 px/µs") << 0.5 << 200.0;
  QTest::newRow("0.02 px/µs") << 0.02 << 5000.0;
  QTest::newRow("90 px/µs") << 90.0 << 1.0;
  QTest::newRow("100 px/µs") << 100.0 << 1.0;
  QTest::newRow("2000 px/µs") << 2000.0 << 0.05;
}

void TestTimelineView::tickSteps() {
  QFETCH(double, ppu);
  QFETCH(double, step);
  TimeAxis axis;
  axis.setWidth(1000);
  axis.setExtent(1e6);
  axis.setVisibleRange(37.0 / ppu, 1037.0 / ppu);
  QVERIFY(std::abs(axis.pxPerUs() - ppu) < 1e-9 * ppu);
  QVERIFY(std::abs(axis.tickStep(90) - step) < 1e-9 * step);
  const std::vector<double> ticks = axis.ticks(90);
  QVERIFY(ticks.size() >= 2);
  QVERIFY(ticks.front() >= axis.start() - 1e-9 * step && ticks.front() < axis.start() + step);
  QVERIFY(ticks.back() <= axis.end() + 1e-9 * step);
  for (std::size_t i = 1; i < ticks.size(); ++i) QVERIFY(std::abs(ticks[i] - ticks[i - 1] - step) < 1e-6 * step);
  for (double t : ticks) QVERIFY(std::abs(t / step - std::round(t / step)) < 1e-6);
}

void TestTimelineView::rangeStatsGolden() {
  const Timeline t = two_stream_run();
  const RangeStats all = weft::ui::range_stats(t, 0, 30);
  QCOMPARE(all.busy_share.size(), std::size_t{2});
  QVERIFY(std::abs(all.busy_share[0] - 20.0 / 30) < 1e-12);
  QVERIFY(std::abs(all.busy_share[1] - 20.0 / 30) < 1e-12);
  QVERIFY(std::abs(all.active_share - 1.0) < 1e-12);
  QVERIFY(std::abs(all.overlap_share - 10.0 / 30) < 1e-12);  // [5,10] and [20,25]
  QVERIFY(std::abs(all.speedup - 40.0 / 30) < 1e-12);
  const RangeStats mid = weft::ui::range_stats(t, 25, 5);  // reversed bounds are ordered
  QCOMPARE(mid.t0_us, 5.0);
  QVERIFY(std::abs(mid.busy_share[0] - 0.5) < 1e-12);
  QVERIFY(std::abs(mid.busy_share[1] - 1.0) < 1e-12);
  QVERIFY(std::abs(mid.overlap_share - 0.5) < 1e-12);
  QVERIFY(std::abs(mid.speedup - 1.5) < 1e-12);
  const RangeStats gap = weft::ui::range_stats(t, 30, 40);  // nothing runs: idle, speedup 0
  QCOMPARE(gap.active_share, 0.0);
  QCOMPARE(gap.speedup, 0.0);
  const RangeStats one = weft::ui::range_stats(t, 12, 18);  // only stream 1: no overlap, speedup 1
  QCOMPARE(one.busy_share[0], 0.0);
  QCOMPARE(one.overlap_share, 0.0);
  QCOMPARE(one.speedup, 1.0);
}

void TestTimelineView::paintsRunsInStreamColours() {
  StudioDocument doc;
  doc.setModel(weft::test::make_loaded(weft::test::make_diamond(), {{0, 1, 3}, {2}}));
  TimelineView view(&doc);
  view.resize(900, 500);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  doc.waitForStudy();  // the prediction arrives from the document's worker
  // The predicted schedule and both sequential baselines are there before any run.
  QVERIFY(track_of(view, "sequential eager") >= 0);
  QVERIFY(track_of(view, "sequential CUDA Graph") >= 0);  // core::predict's baseline label
  QVERIFY(track_of(view, "predicted hand") >= 0);
  QCOMPARE(view.tracks()[static_cast<std::size_t>(track_of(view, "predicted hand"))].rows.size(), std::size_t{2});
  doc.addRun(two_stream_run());
  const int t = track_of(view, "two streams");
  QVERIFY(t >= 0);
  view.fit();
  QCOMPARE(view.axis().start(), 0.0);
  QVERIFY(view.axis().end() >= 30.0 - 1e-9);
  view.arrowsAction()->setChecked(false);  // arrows end on the items' edges
  const QImage image = view.viewport()->grab().toImage();
  for (std::size_t item = 0; item < 3; ++item) {
    const QRect r = view.itemRect(t, item);
    QVERIFY2(r.width() > 10, qPrintable(QString::number(r.width())));
    const int stream = view.tracks()[static_cast<std::size_t>(t)].run.items[item].stream;
    QCOMPARE(image.pixelColor(r.left() + 1, r.center().y()).rgb(), weft::ui::stream_color(stream).rgb());
    QCOMPARE(image.pixelColor(r.center().x(), r.bottom() - 2).rgb(), weft::ui::stream_color(stream).rgb());
    // Between the two stream-0 items the row is background, not a box.
    if (item == 0) QVERIFY(image.pixelColor(view.itemRect(t, 2).left() - 3, r.center().y()).rgb() != weft::ui::stream_color(0).rgb());
  }
  QVERIFY(view.lastPaint().items >= 3);
}

void TestTimelineView::mergesSubPixelItems() {
  StudioDocument doc;
  doc.setModel(weft::test::make_loaded(weft::test::make_diamond(), {}));
  Timeline dense;
  dense.label = "dense";
  dense.kind = weft::core::RunKind::Measured;
  dense.stream_count = 1;
  for (int i = 0; i < 1000; ++i) dense.items.push_back({i % 4, 0, i * 0.01, (i + 1) * 0.01});  // 10 µs of 10 ns items
  dense.items.push_back({0, 0, 10.0, 200.0});
  doc.addRun(dense);
  TimelineView view(&doc);
  view.resize(900, 500);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.fit();
  const int t = track_of(view, "dense");
  QVERIFY(t >= 0);
  QImage image = view.viewport()->grab().toImage();
  // At ~3.5 px/µs the 1000 tiny items become one block (merged colour); the long one is a box.
  QVERIFY2(view.lastPaint().merged_items >= 1000, qPrintable(QString::number(view.lastPaint().merged_items)));
  const int y = view.rowTop(t, 0) + TimelineView::rowHeight() / 2;
  QCOMPARE(image.pixelColor(static_cast<int>(view.viewX(5.0)), y).rgb(), weft::ui::stream_color(0).darker(125).rgb());
  QCOMPARE(image.pixelColor(static_cast<int>(view.viewX(100.0)), y).rgb(), weft::ui::stream_color(0).rgb());
  const int merged_fit = view.lastPaint().merged_items;
  // Zoomed to the first 50 ns, each item is ~20 px wide: drawn one by one.
  view.setVisibleRange(0, 0.05);
  image = view.viewport()->grab().toImage();
  QVERIFY(view.lastPaint().merged_items < merged_fit - 990);
  QVERIFY(view.lastPaint().items >= 4);
  QCOMPARE(image.pixelColor(static_cast<int>(view.itemRect(t, 1).left() + 1), y).rgb(), weft::ui::stream_color(0).rgb());
}

void TestTimelineView::wheelZoomsAtCursorAndDragPans() {
  StudioDocument doc;
  doc.setModel(weft::test::make_loaded(weft::test::make_diamond(), {}));
  doc.addRun(two_stream_run());
  TimelineView view(&doc);
  view.resize(900, 500);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.fit();
  const double ppu = view.axis().pxPerUs();
  const QPoint cursor(500, 100);
  const double under = view.timeAt(cursor.x());
  send_wheel(view.viewport(), cursor, 120);
  QVERIFY(std::abs(view.axis().pxPerUs() - ppu * std::pow(1.0015, 120)) < 1e-9 * ppu);
  QVERIFY(std::abs(view.timeAt(cursor.x()) - under) < 1e-9 * view.axis().extent());
  send_wheel(view.viewport(), cursor, 600);
  QVERIFY(std::abs(view.timeAt(cursor.x()) - under) < 1e-9 * view.axis().extent());
  // Drag 100 px to the left: the content follows the mouse, later times come in.
  const double start = view.axis().start();
  const double zoomed = view.axis().pxPerUs();
  QTest::mousePress(view.viewport(), Qt::LeftButton, {}, QPoint(600, 200));
  QTest::mouseMove(view.viewport(), QPoint(550, 200));
  QTest::mouseMove(view.viewport(), QPoint(500, 200));
  QTest::mouseRelease(view.viewport(), Qt::LeftButton, {}, QPoint(500, 200));
  QVERIFY2(std::abs(view.axis().start() - (start + 100 / zoomed)) < 1e-9 * view.axis().extent(),
           qPrintable(QString("%1 vs %2").arg(view.axis().start()).arg(start + 100 / zoomed)));
  QCOMPARE(view.horizontalScrollBar()->value(), static_cast<int>(std::lround(view.axis().start() * zoomed)));
  // The keyboard: F fits, + zooms in.
  view.setFocus();
  QTest::keyClick(&view, Qt::Key_F);
  QCOMPARE(view.axis().start(), 0.0);
  QCOMPARE(view.axis().pxPerUs(), view.axis().fitPxPerUs());
  QTest::keyClick(&view, Qt::Key_Plus);
  QVERIFY(std::abs(view.axis().pxPerUs() - 1.25 * view.axis().fitPxPerUs()) < 1e-9 * view.axis().pxPerUs());
}

void TestTimelineView::shiftDragSelectsRangeAndClickSelectsNode() {
  StudioDocument doc;
  doc.setModel(weft::test::make_loaded(weft::test::make_diamond(), {}));
  doc.addRun(two_stream_run());
  TimelineView view(&doc);
  view.resize(900, 500);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.setVisibleRange(0, 40);
  const int t = track_of(view, "two streams");
  QSignalSpy changed(&view, &TimelineView::rangeChanged);
  const int y = view.rowTop(t, 0) + 5;
  const QPoint a(static_cast<int>(std::lround(view.viewX(5.0))), y), b(static_cast<int>(std::lround(view.viewX(25.0))), y);
  QTest::mousePress(view.viewport(), Qt::LeftButton, Qt::ShiftModifier, a);
  QTest::mouseMove(view.viewport(), b);
  QTest::mouseRelease(view.viewport(), Qt::LeftButton, Qt::ShiftModifier, b);
  QVERIFY(view.hasRange());
  QVERIFY(changed.count() >= 1);
  QCOMPARE(view.rangeStats().size(), view.tracks().size());
  const RangeStats& s = view.rangeStats()[static_cast<std::size_t>(t)];
  // Pixel-snapped ends: within half a pixel of [5, 25].
  const double half_px = 0.5 / view.axis().pxPerUs();
  QVERIFY(std::abs(s.t0_us - 5) <= half_px && std::abs(s.t1_us - 25) <= half_px);
  const RangeStats golden = weft::ui::range_stats(two_stream_run(), s.t0_us, s.t1_us);
  QCOMPARE(s.speedup, golden.speedup);
  QVERIFY(std::abs(s.speedup - 1.5) < 0.05);
  view.setRange(5, 25);
  QVERIFY2(view.rangeText().contains("two streams: busy s0 50% s1 100% · overlap 50% · speedup 1.50×"), qPrintable(view.rangeText()));
  QTest::keyClick(&view, Qt::Key_Escape);
  QVERIFY(!view.hasRange());
  // A click on an item selects its node; on empty space clears.
  const QRect r = view.itemRect(t, 1);
  QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, r.center());
  QCOMPARE(doc.selection(), (std::vector<weft::core::NodeId>{1}));
  const auto hit = view.itemAt(r.center());
  QCOMPARE(hit.first, t);
  QCOMPARE(hit.second, std::size_t{1});
  QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, QPoint(static_cast<int>(view.viewX(35.0)), r.center().y()));
  QVERIFY(doc.selection().empty());
}

void TestTimelineView::arrowsToggle() {
  StudioDocument doc;
  doc.setModel(weft::test::make_loaded(weft::test::make_diamond(), {{0, 1, 3}, {2}}));
  doc.addRun(two_stream_run());
  TimelineView view(&doc);
  view.resize(900, 600);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.fit();
  view.viewport()->grab();
  const int with = view.lastPaint().arrows;
  QVERIFY(with >= 2);  // the two events of the two-stream run, plus the schedule's
  view.arrowsAction()->setChecked(false);
  view.viewport()->grab();
  QCOMPARE(view.lastPaint().arrows, 0);
}

void TestTimelineView::crowdedArrowsWaitForZoom() {
  // 5k nodes on 4 random streams: thousands of events. Fitted, they would cover the items, so
  // none is drawn (the count is said) but the selection's; zoomed in, every one in view is.
  auto graph = weft::ui::make_synthetic_graph(5000, 7);
  QVERIFY(graph);
  auto loaded = weft::test::make_loaded(std::move(*graph), {});
  loaded.schedule = weft::test::random_schedule(*loaded.graph, 4, 3);
  loaded.schedule.events = weft::core::compute_events(*loaded.graph, loaded.schedule);
  const std::size_t events = loaded.schedule.events.size();
  QVERIFY(events > static_cast<std::size_t>(TimelineView::kMaxArrows));
  StudioDocument doc;
  doc.setModel(std::move(loaded));
  doc.waitForStudy();
  TimelineView view(&doc);
  view.resize(1200, 600);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.fit();
  view.viewport()->grab();
  QCOMPARE(view.lastPaint().arrows, 0);
  QVERIFY(view.lastPaint().hidden_arrows > TimelineView::kMaxArrows);
  const weft::core::Event e = doc.schedule().events.front();
  doc.setSelection({e.from});
  view.viewport()->grab();
  QVERIFY(view.lastPaint().arrows >= 1);  // the selected node's event, crowded or not
  QVERIFY(view.lastPaint().hidden_arrows > 0);
  doc.setSelection({});
  const double end = view.axis().extent();
  view.setVisibleRange(0, end / 200);
  view.viewport()->grab();
  QVERIFY(view.lastPaint().arrows > 0);
  QCOMPARE(view.lastPaint().hidden_arrows, 0);
}

void TestTimelineView::predictionFollowsEdits() {
  StudioDocument doc;
  doc.setModel(weft::test::make_loaded(weft::test::make_two_branches(3), {}));
  TimelineView view(&doc);
  doc.waitForStudy();
  const int t = track_of(view, "predicted hand");
  QVERIFY(t >= 0);
  QCOMPARE(view.tracks()[static_cast<std::size_t>(t)].rows.size(), std::size_t{1});
  // The document's predicted runs are the timelines behind its figures.
  QCOMPARE(doc.predictedRuns().size(), std::size_t{3});
  QCOMPARE(doc.predictedRuns()[0].makespan_us(), doc.figures().predicted_us);
  QCOMPARE(doc.predictedRuns()[1].makespan_us(), doc.figures().predicted_sequential_us);
  QCOMPARE(doc.predictedRuns()[1].kind, weft::core::RunKind::BaselineEager);
  QCOMPARE(doc.predictedRuns()[2].kind, weft::core::RunKind::BaselineGraph);
  QCOMPARE(doc.predictedRuns()[0].items.size(), doc.graph().node_count());
  QVERIFY(doc.addStream());
  const auto& g = doc.graph();
  // Move one branch head to the new stream: the predicted track gets a second row once the
  // edit's study arrives (until then it shows the previous schedule's prediction).
  weft::core::NodeId head = weft::core::kNoNode;
  for (weft::core::NodeId n = 0; n < static_cast<weft::core::NodeId>(g.node_count()); ++n)
    if (doc.streamOf(n) == 0 && doc.positionOf(n) == 1) head = n;
  QVERIFY(doc.moveNodes({head}, 1, 0));
  QVERIFY(doc.studyPending());
  doc.waitForStudy();
  const int t2 = track_of(view, doc.predictedRuns().front().label);
  QCOMPARE(view.tracks()[static_cast<std::size_t>(t2)].rows.size(), std::size_t{2});
  QCOMPARE(view.tracks()[static_cast<std::size_t>(t2)].rows[1].size(), std::size_t{1});
  doc.undoStack()->undo();
  doc.waitForStudy();
  QCOMPARE(view.tracks()[static_cast<std::size_t>(track_of(view, doc.predictedRuns().front().label))].rows[1].size(), std::size_t{0});
}

void TestTimelineView::documentRunReplacesThePredictionWithItsIdentity() {
  // A document run that is the live prediction's run (same kind, backend, strategy: a pinned
  // prediction) takes its track whatever its label; one that only shares its label does not.
  StudioDocument doc;
  doc.setModel(weft::test::make_loaded(weft::test::make_two_branches(3), {}));
  TimelineView view(&doc);
  doc.waitForStudy();
  const std::size_t tracks = view.tracks().size();
  QCOMPARE(tracks, std::size_t{3});
  QVERIFY(view.tracks()[0].live_prediction);
  QVERIFY(!view.tracks()[1].live_prediction && !view.tracks()[2].live_prediction);
  weft::core::Timeline same_label = two_stream_run();  // measured, another identity
  same_label.label = doc.predictedRuns()[0].label;
  doc.addRun(same_label);
  QCOMPARE(view.tracks().size(), tracks + 1);
  QVERIFY(view.tracks()[0].live_prediction);
  doc.clearRuns();
  weft::core::Timeline pinned = doc.predictedRuns()[0];
  pinned.label = "pinned";
  doc.addRun(pinned);
  QCOMPARE(view.tracks().size(), tracks);
  QCOMPARE(track_of(view, doc.predictedRuns()[0].label), -1);
  const int t = track_of(view, "pinned");
  QCOMPARE(t, 0);
  QVERIFY(!view.tracks()[0].live_prediction);
}

void TestTimelineView::tooltipNamesTheNode() {
  StudioDocument doc;
  doc.setModel(weft::test::make_loaded(weft::test::make_diamond(), {}));
  doc.addRun(two_stream_run());
  TimelineView view(&doc);
  view.resize(900, 500);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.fit();
  const int t = track_of(view, "two streams");
  const QPoint at = view.itemRect(t, 1).center();
  QHelpEvent help(QEvent::ToolTip, at, view.viewport()->mapToGlobal(at));
  QApplication::sendEvent(view.viewport(), &help);
  const QString tip = QToolTip::text();
  QVERIFY2(tip.contains(QString::fromStdString(doc.graph().key(1))), qPrintable(tip));
  QVERIFY(tip.contains("Relu"));
  QVERIFY(tip.contains("stream 1"));
  QVERIFY2(tip.contains("start 5.0") && tip.contains("duration 20.0"), qPrintable(tip));
}

void TestTimelineView::largeRunPaintsBoundedBlocks() {
  StudioDocument doc;
  doc.setModel(weft::test::make_loaded(weft::test::make_chain(50), {}));
  Timeline big;
  big.label = "big";
  big.kind = weft::core::RunKind::Measured;
  big.stream_count = 8;
  // 200k items of random-ish lengths on 8 streams; one bogus node id that must be left out.
  double at[8] = {};
  for (int i = 0; i < 200000; ++i) {
    const int s = i % 8;
    const double len = 0.05 + 0.01 * ((i * 7919) % 13);
    big.items.push_back({i % 50, s, at[s], at[s] + len});
    at[s] += len + 0.02;
  }
  big.items.push_back({999, 0, 0.0, 1.0});
  doc.addRun(big);
  TimelineView view(&doc);
  view.resize(1000, 700);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.fit();
  const int t = track_of(view, "big");
  std::size_t kept = 0;
  for (const auto& row : view.tracks()[static_cast<std::size_t>(t)].rows) kept += row.size();
  QCOMPARE(kept, std::size_t{200000});
  QElapsedTimer clock;
  clock.start();
  view.viewport()->grab();
  const qint64 ms = clock.elapsed();
  // Merging bounds the painted blocks by the plot's width per row, whatever the item count.
  const int plot_w = view.viewport()->width() - static_cast<int>(view.viewX(0));
  QVERIFY2(view.lastPaint().items + view.lastPaint().merged_blocks <= 8 * plot_w + 100,
           qPrintable(QString("%1 items, %2 blocks").arg(view.lastPaint().items).arg(view.lastPaint().merged_blocks)));
  QVERIFY(view.lastPaint().merged_items > 190000);
  qInfo("200k items painted in %lld ms (reported, not asserted)", static_cast<long long>(ms));
}

void TestTimelineView::longRunScrollBarReachesBothEnds() {
  // 10 s at the deepest zoom is 2e10 px: more than an int scroll bar holds.
  StudioDocument doc;
  doc.setModel(weft::test::make_loaded(weft::test::make_chain(2), {}));
  Timeline run;
  run.label = "ten seconds";
  run.kind = weft::core::RunKind::Measured;
  run.stream_count = 1;
  run.items = {{0, 0, 0.0, 5e6}, {1, 0, 5e6, 1e7}};
  doc.addRun(run);
  TimelineView view(&doc);
  view.resize(900, 400);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.setVisibleRange(5e6, 5e6 + 0.1);
  QCOMPARE(view.axis().pxPerUs(), TimeAxis::kMaxPxPerUs);
  QScrollBar* bar = view.horizontalScrollBar();
  QVERIFY(bar->maximum() > 0);
  QVERIFY(std::abs(bar->value() - bar->maximum() / 2.0) < 0.01 * bar->maximum());
  bar->setValue(bar->maximum());
  QVERIFY2(std::abs(view.axis().end() - 1e7) < 0.1, qPrintable(QString::number(view.axis().end(), 'f', 3)));
  bar->setValue(0);
  QCOMPARE(view.axis().start(), 0.0);
}

QTEST_MAIN(TestTimelineView)
#include "test_timeline_view.moc"
