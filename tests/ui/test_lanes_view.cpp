// Mouse editing in the lanes view: dragging a node (press, move, release on the viewport) to
// another lane moves it and Ctrl+Z restores it; a deadlocking drag is refused and changes
// nothing; the rubber band selects; a multi-node drag is one undo step. Edits of a large model run
// in the worker: the drop returns at once, the edit and then its study arrive; refusals, undo and
// rapid edits behave as on the GUI thread; the graph view of a large model draws an overview
// picture zoomed out and only the rows in view zoomed in.
#include <QAction>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

#include "ui_test_support.h"
#include "weft/ui/graph_view.h"
#include "weft/ui/synthetic_model.h"
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
  void dragOnLargeModelIsCheckedInTheWorker();
  void workerEditsRefuseUndoAndCoalesce();
  void graphViewCullsLargeModels();
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

namespace {

// 3000 operators on 4 random streams, every edit sent to the worker (as above kAsyncEditNodes).
weft::ui::LoadedModel moderate_model() {
  weft::core::Graph g = *weft::ui::make_synthetic_graph(3000, 7);
  const weft::core::Schedule s = weft::test::random_schedule(g, 4, 3);
  return make_loaded(std::move(g), s.streams);
}

}  // namespace

void TestLanesView::dragOnLargeModelIsCheckedInTheWorker() {
  // A drag of a source node to the front of another lane: the drop returns before the edit is
  // applied; then the edit arrives as one undo step, then its study.
  StudioDocument doc;
  doc.setAsyncEditNodes(0);
  LanesView lanes(&doc);
  lanes.resize(1200, 300);
  lanes.show();
  QVERIFY(QTest::qWaitForWindowExposed(&lanes));
  weft::ui::GraphView graph(&doc);
  graph.resize(600, 400);
  graph.show();
  doc.setModel(moderate_model());
  doc.waitForStudy();
  const int studies = doc.studiesApplied();
  const weft::core::Graph& g = doc.graph();
  // A node without predecessors drawn in view, and a lane whose front is in view.
  NodeId v = weft::core::kNoNode;
  int to = -1;
  QPoint target;
  for (NodeId n = 0; n < static_cast<NodeId>(g.node_count()) && to < 0; ++n) {
    if (!g.predecessors(n).empty() || !lanes.viewport()->rect().contains(lanes.nodeRect(n).center())) continue;
    doc.setSelection({n});
    for (int b = 0; b < 4 && to < 0; ++b)
      if (b != doc.streamOf(n) && lanes.viewport()->rect().contains(lanes.dropPoint(b, 0))) {
        v = n;
        to = b;
        target = lanes.dropPoint(b, 0);
      }
  }
  QVERIFY(to >= 0);
  doc.setSelection({});
  const Streams before = doc.schedule().streams;
  drag(lanes.viewport(), lanes.nodeRect(v).center(), target);
  QVERIFY(doc.editPending());
  QCOMPARE(doc.schedule().streams, before);  // applied when the worker returns, not in the drop
  QVERIFY(weft::test::wait_until([&] { return !doc.editPending(); }));
  QCOMPARE(doc.schedule().streams[static_cast<std::size_t>(to)].front(), v);
  QCOMPARE(doc.streamOf(v), to);
  QCOMPARE(doc.undoStack()->count(), 1);
  QVERIFY(weft::core::validate_schedule(g, doc.schedule()).has_value());
  const double edit_ideal = doc.figures().ideal_us;  // the edit job's
  QCOMPARE(edit_ideal, weft::core::ideal_makespan_us(g, doc.schedule(), doc.nodeTimes()));
  // Its re-plan arrives from the worker too.
  QVERIFY(doc.studyPending());
  QVERIFY(weft::test::wait_until([&] { return !doc.studyPending(); }));
  QCOMPARE(doc.studiesApplied(), studies + 1);
  QVERIFY(!doc.figures().stale);
  QVERIFY(doc.study().has_value());
  QVERIFY(std::abs(doc.study()->ideal_makespan_us - edit_ideal) <= 1e-9 * std::max(1.0, edit_ideal));
}

void TestLanesView::workerEditsRefuseUndoAndCoalesce() {
  // Chain n0 -> n1 -> n2 with n1 on stream 1: the worker refuses the deadlock; undo restores the
  // schedule and its figures; of three rapid edits the first and the last are applied in order;
  // an edit overtaken by an undo or a new model is dropped.
  StudioDocument doc;
  doc.setAsyncEditNodes(0);
  doc.setModel(make_loaded(weft::test::make_chain(3), {{0, 2}, {1}}));
  const weft::core::Schedule start = doc.schedule();
  const double ideal = doc.figures().ideal_us;
  QSignalSpy refused(&doc, &StudioDocument::editRefused);
  QVERIFY(doc.moveNodes({2}, 1, 0));  // sent to the worker: refused later
  QVERIFY(weft::test::wait_until([&] { return !doc.editPending(); }));
  QCOMPARE(refused.count(), 1);
  QVERIFY(refused.at(0).at(0).toString().contains("deadlock"));
  QCOMPARE(doc.schedule().streams, start.streams);
  QCOMPARE(doc.undoStack()->count(), 0);

  QVERIFY(doc.moveNodes({2}, 1, 1));   // runs
  QVERIFY(doc.moveNodes({0}, 1, 0));   // waits for it...
  QVERIFY(doc.moveNodes({1}, 0, 1));   // ...and is replaced by this one, which runs on the first's result
  QCOMPARE(refused.count(), 2);
  QVERIFY(refused.at(1).at(0).toString().contains("dropped"));
  doc.waitForEdit();
  QVERIFY(!doc.editPending());
  QCOMPARE(doc.undoStack()->count(), 2);
  QCOMPARE(doc.schedule().streams, (Streams{{0, 1}, {2}}));
  doc.undoStack()->undo();
  QCOMPARE(doc.schedule().streams, (Streams{{0}, {1, 2}}));
  doc.undoStack()->undo();
  QCOMPARE(doc.schedule().streams, start.streams);
  QCOMPARE(doc.schedule().events, start.events);
  QCOMPARE(doc.figures().ideal_us, ideal);

  // An edit whose schedule is undone while it runs is dropped, not applied to the other one.
  QVERIFY(doc.moveNodes({2}, 1, 1));
  doc.undoStack()->redo();
  doc.waitForEdit();
  QCOMPARE(refused.count(), 3);
  QCOMPARE(doc.schedule().streams, (Streams{{0}, {1, 2}}));
  // One of a model replaced while it runs is dropped without a word; so is one waiting behind it.
  QVERIFY(doc.moveNodes({2}, 0, 1));
  QVERIFY(doc.moveNodes({0}, 1, 0));
  doc.setModel(make_loaded(weft::test::make_two_branches(3), {{0, 1, 2}, {3, 4, 5}}));
  doc.waitForEdit();
  QVERIFY(!doc.editPending());
  QCOMPARE(refused.count(), 3);
  QCOMPARE(doc.schedule().streams, (Streams{{0, 1, 2}, {3, 4, 5}}));
  QCOMPARE(doc.undoStack()->count(), 0);
}

void TestLanesView::graphViewCullsLargeModels() {
  // 8k operators (the overview from 5k): fitted, the view draws the overview picture once it arrives from the worker;
  // centred on a node, it draws the nodes and edges near it, not the graph.
  StudioDocument doc;
  weft::core::Graph g = *weft::ui::make_synthetic_graph(8000, 3);
  doc.setModel(make_loaded(std::move(g), {}));
  weft::ui::GraphView graph(&doc);
  graph.resize(800, 600);
  graph.show();
  QVERIFY(QTest::qWaitForWindowExposed(&graph));
  graph.fit();
  QVERIFY(weft::test::wait_until([&] { return !graph.overviewPending(); }));
  graph.grab();
  QVERIFY(graph.paintedOverview());
  QCOMPARE(graph.paintedItems(), std::size_t{0});
  graph.centerOn(4000);
  graph.grab();
  QVERIFY(!graph.paintedOverview());
  QVERIFY(graph.paintedItems() > 0);
  QVERIFY2(graph.paintedItems() < 2000, qPrintable(QString::number(graph.paintedItems())));
  QCOMPARE(graph.nodeAt(QPointF(graph.width() / 2.0, graph.height() / 2.0)), NodeId{4000});
}

QTEST_MAIN(TestLanesView)
#include "test_lanes_view.moc"
