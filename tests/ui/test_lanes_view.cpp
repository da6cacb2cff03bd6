// Mouse editing in the lanes view: dragging a node (press, move, release on the viewport) to
// another lane moves it and Ctrl+Z restores it; a deadlocking drag is refused and changes
// nothing; the rubber band selects; a multi-node drag is one undo step.
#include <QAction>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

#include "ui_test_support.h"
#include "weft/ui/graph_view.h"
#include "weft/ui/lanes_view.h"
#include "weft/ui/main_window.h"

using weft::core::NodeId;
using weft::test::make_loaded;
using weft::ui::LanesView;
using weft::ui::StudioDocument;
using Streams = std::vector<std::vector<NodeId>>;

namespace {

void drag(QWidget* viewport, QPoint from, QPoint to) {
  QTest::mousePress(viewport, Qt::LeftButton, Qt::NoModifier, from);
  const int steps = 6;
  for (int i = 1; i <= steps; ++i) QTest::mouseMove(viewport, from + (to - from) * i / steps, 5);
  QTest::mouseRelease(viewport, Qt::LeftButton, Qt::NoModifier, to);
}

}  // namespace

class TestLanesView : public QObject {
  Q_OBJECT
 private slots:
  void init() { QStandardPaths::setTestModeEnabled(true); }
  void dragToOtherLaneThenCtrlZ();
  void deadlockingDragIsRefused();
  void rubberBandThenMultiDrag();
  void uniformWidthsKeepOrder();
  void viewOpenedAfterTheModel();
};

void TestLanesView::viewOpenedAfterTheModel() {
  // A lanes view made for a document that already holds a model lays it out at once (it used
  // to wait for the next model or schedule change and crashed painting before it).
  StudioDocument doc;
  doc.setModel(make_loaded(weft::test::make_two_branches(3), {{0, 1, 2}, {3, 4, 5}}));
  LanesView lanes(&doc);
  lanes.resize(900, 300);
  lanes.show();
  QVERIFY(QTest::qWaitForWindowExposed(&lanes));
  lanes.viewport()->grab();
  const QRect box = lanes.nodeRect(5);
  QVERIFY(lanes.viewport()->rect().contains(box.center()));
  QCOMPARE(lanes.laneAt(box.center().y()), 1);
  // The graph view too: laid out and fitted, a click on a node's centre finds it.
  weft::ui::GraphView graph(&doc);
  graph.resize(600, 400);
  graph.show();
  QVERIFY(QTest::qWaitForWindowExposed(&graph));
  graph.grab();
  QVERIFY(graph.nodeWorldRect(5).isValid());
  QCOMPARE(graph.find("n5"), 1);  // centres on it
  QCOMPARE(graph.nodeAt(QPointF(graph.width() / 2.0, graph.height() / 2.0)), NodeId{5});
}

void TestLanesView::dragToOtherLaneThenCtrlZ() {
  // In the real window so Ctrl+Z goes through the Edit menu's shortcut.
  weft::ui::MainWindow window;
  window.resize(1200, 800);
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  window.activateWindow();
  StudioDocument* doc = window.document();
  doc->setModel(make_loaded(weft::test::make_two_branches(3), {{0, 1, 2}, {3, 4, 5}}));
  LanesView* lanes = window.lanesView();
  QCoreApplication::processEvents();
  const QRect box = lanes->nodeRect(5);
  QVERIFY(lanes->viewport()->rect().contains(box.center()));
  QCOMPARE(lanes->laneAt(box.center().y()), 1);
  // Drop n5 after n2 on stream 0 (the target point is computed with n5 selected, as the drag does).
  doc->setSelection({5});
  const QPoint target = lanes->dropPoint(0, 3);
  doc->setSelection({});
  drag(lanes->viewport(), box.center(), target);
  QCOMPARE(doc->schedule().streams, (Streams{{0, 1, 2, 5}, {3, 4}}));
  QCOMPARE(doc->undoStack()->count(), 1);
  QCOMPARE(doc->selection(), (std::vector<NodeId>{5}));
  // Ctrl+Z through the window's shortcut restores the schedule; Ctrl+Shift+Z redoes.
  QVERIFY(QTest::qWaitForWindowActive(&window));
  QTest::keyClick(lanes->viewport(), Qt::Key_Z, Qt::ControlModifier);
  QCOMPARE(doc->schedule().streams, (Streams{{0, 1, 2}, {3, 4, 5}}));
  QTest::keyClick(lanes->viewport(), Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
  QCOMPARE(doc->schedule().streams, (Streams{{0, 1, 2, 5}, {3, 4}}));
}

void TestLanesView::deadlockingDragIsRefused() {
  // Chain n0 -> n1 -> n2 with n1 on stream 1: dropping n2 before n1 on stream 1 would deadlock.
  StudioDocument doc;
  LanesView lanes(&doc);
  lanes.resize(900, 300);
  lanes.show();
  QVERIFY(QTest::qWaitForWindowExposed(&lanes));
  doc.setModel(make_loaded(weft::test::make_chain(3), {{0, 2}, {1}}));
  const weft::core::Schedule before = doc.schedule();
  QSignalSpy refused(&doc, &StudioDocument::editRefused);
  doc.setSelection({2});
  const QPoint target = lanes.dropPoint(1, 0);
  drag(lanes.viewport(), lanes.nodeRect(2).center(), target);
  QCOMPARE(refused.count(), 1);
  QVERIFY(refused.at(0).at(0).toString().contains("deadlock"));
  QCOMPARE(doc.schedule().streams, before.streams);
  QCOMPARE(doc.schedule().events, before.events);
  QCOMPARE(doc.undoStack()->count(), 0);
  // A drop inside its own slot is a no-op move, still valid.
  drag(lanes.viewport(), lanes.nodeRect(0).center(), lanes.nodeRect(0).center() + QPoint(0, 8));
  QCOMPARE(doc.schedule().streams, before.streams);
}

void TestLanesView::rubberBandThenMultiDrag() {
  StudioDocument doc;
  LanesView lanes(&doc);
  lanes.setWidthMode(LanesView::WidthMode::Uniform);
  lanes.resize(1000, 300);
  lanes.show();
  QVERIFY(QTest::qWaitForWindowExposed(&lanes));
  doc.setModel(make_loaded(weft::test::make_two_branches(3), {{0, 1, 2}, {3, 4, 5}}));
  // Band from empty space above n4's box... around n4 and n5 only.
  const QRect r4 = lanes.nodeRect(4), r5 = lanes.nodeRect(5);
  QVERIFY(r4.right() < r5.left());
  const QPoint start(r4.left() - 3, r4.bottom() + 5);
  const QPoint end(r5.right() + 3, r5.top() + 3);
  QCOMPARE(lanes.laneAt(start.y()), 1);
  QTest::mousePress(lanes.viewport(), Qt::LeftButton, Qt::NoModifier, start);
  QTest::mouseMove(lanes.viewport(), (start + end) / 2, 5);
  QTest::mouseMove(lanes.viewport(), end, 5);
  QTest::mouseRelease(lanes.viewport(), Qt::LeftButton, Qt::NoModifier, end);
  QCOMPARE(doc.selection(), (std::vector<NodeId>{4, 5}));
  // Drag both to the front of stream 0.
  const QPoint target = lanes.dropPoint(0, 0);
  drag(lanes.viewport(), lanes.nodeRect(4).center(), target);
  QCOMPARE(doc.schedule().streams, (Streams{{4, 5, 0, 1, 2}, {3}}));
  QCOMPARE(doc.undoStack()->count(), 1);
  doc.undoStack()->undo();
  QCOMPARE(doc.schedule().streams, (Streams{{0, 1, 2}, {3, 4, 5}}));
}

void TestLanesView::uniformWidthsKeepOrder() {
  // Boxes never overlap on a lane and follow stream order; event targets start after their sources.
  StudioDocument doc;
  LanesView lanes(&doc);
  lanes.setWidthMode(LanesView::WidthMode::Uniform);
  lanes.resize(800, 400);
  doc.setModel(make_loaded(weft::test::make_random_dag(60, 0.08, 3), {}));
  QVERIFY(doc.applyStrategy("chains", {}));
  for (const auto& st : doc.schedule().streams)
    for (std::size_t i = 1; i < st.size(); ++i) QVERIFY(lanes.nodeRect(st[i - 1]).right() < lanes.nodeRect(st[i]).left());
  for (const weft::core::Event& e : doc.schedule().events)
    QVERIFY(lanes.nodeRect(e.from).right() < lanes.nodeRect(e.to).left());
}

QTEST_MAIN(TestLanesView)
#include "test_lanes_view.moc"
