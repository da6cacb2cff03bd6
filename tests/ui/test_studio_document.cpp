// The document's edits: valid moves become one undo step each, invalid ones are refused and
// change nothing; streams are added, removed and merged; strategies apply and undo; the node
// table passes QAbstractItemModelTester through edits and resets.
#include <QAbstractItemModelTester>
#include <future>
#include <QSignalSpy>
#include <QTest>

#include "ui_test_support.h"
#include "weft/core/study/schedule_study.h"
#include "weft/ui/node_table_model.h"
#include "weft/ui/synthetic_model.h"

using weft::core::NodeId;
using weft::test::make_loaded;
using weft::ui::StudioDocument;
using Streams = std::vector<std::vector<NodeId>>;

class TestStudioDocument : public QObject {
  Q_OBJECT
 private slots:
  void minimalEventsOfDiamond();
  void moveToOtherStreamUndoRedo();
  void deadlockingMoveIsRefused();
  void contiguousMultiMoveIsOneUndoStep();
  void scatteredMultiMoveIsOneUndoStep();
  void addRemoveMergeStreams();
  void strategyApplyAndUndo();
  void figuresFollowEdits();
  void studyArrivesAfterEdit();
  void latestStudyWins();
  void predictionArrivesBeforeTheArena();
  void largeEditsStudyInWorker();
  void nodeTableModelPassesTester();
  void selectionIsShared();
  void runsReplaceByIdentityAndClearWithModel();
};

void TestStudioDocument::minimalEventsOfDiamond() {
  // n0 -> {n1, n2} -> n3 with n2 alone on stream 1: one event in, one out.
  StudioDocument doc;
  doc.setModel(make_loaded(weft::test::make_diamond(), {{0, 1, 3}, {2}}));
  const std::vector<weft::core::Event> expected = {{0, 2}, {2, 3}};
  QCOMPARE(doc.schedule().events, expected);
  QVERIFY(weft::core::validate_schedule(doc.graph(), doc.schedule()));
}

void TestStudioDocument::moveToOtherStreamUndoRedo() {
  // Two independent chains n0-n1-n2 and n3-n4-n5; moving n5 after n2 is valid.
  StudioDocument doc;
  doc.setModel(make_loaded(weft::test::make_two_branches(3), {{0, 1, 2}, {3, 4, 5}}));
  QSignalSpy changed(&doc, &StudioDocument::scheduleChanged);
  QVERIFY(doc.moveNodes({5}, 0, 3));
  QCOMPARE(doc.schedule().streams, (Streams{{0, 1, 2, 5}, {3, 4}}));
  QCOMPARE(doc.schedule().events, (std::vector<weft::core::Event>{{4, 5}}));
  QCOMPARE(doc.schedule().strategy, std::string("hand"));
  QCOMPARE(doc.undoStack()->count(), 1);
  QCOMPARE(changed.count(), 1);
  doc.undoStack()->undo();
  QCOMPARE(doc.schedule().streams, (Streams{{0, 1, 2}, {3, 4, 5}}));
  QVERIFY(doc.schedule().events.empty());
  doc.undoStack()->redo();
  QCOMPARE(doc.streamOf(5), 0);
  QCOMPARE(doc.positionOf(5), 3);
}

void TestStudioDocument::deadlockingMoveIsRefused() {
  // Chain n0 -> n1 -> n2 with n1 on stream 1: putting n2 before n1 on stream 1 deadlocks.
  StudioDocument doc;
  doc.setModel(make_loaded(weft::test::make_chain(3), {{0, 2}, {1}}));
  const weft::core::Schedule before = doc.schedule();
  QSignalSpy refused(&doc, &StudioDocument::editRefused);
  QVERIFY(!doc.moveNodes({2}, 1, 0));
  QCOMPARE(refused.count(), 1);
  QVERIFY(!refused.at(0).at(0).toString().isEmpty());
  QVERIFY(!doc.lastRefusal().isEmpty());
  QCOMPARE(doc.schedule().streams, before.streams);
  QCOMPARE(doc.schedule().events, before.events);
  QCOMPARE(doc.undoStack()->count(), 0);
  // Out of range targets are refused too.
  QVERIFY(!doc.moveNodes({2}, 5, 0));
  QVERIFY(!doc.moveNodes({2}, 1, 7));
  QCOMPARE(doc.schedule().streams, before.streams);
}

void TestStudioDocument::contiguousMultiMoveIsOneUndoStep() {
  StudioDocument doc;
  doc.setModel(make_loaded(weft::test::make_two_branches(3), {{0, 1, 2}, {3, 4, 5}}));
  QVERIFY(doc.moveNodes({4, 5}, 0, 1));  // n4, n5 between n0 and n1
  QCOMPARE(doc.schedule().streams, (Streams{{0, 4, 5, 1, 2}, {3}}));
  QCOMPARE(doc.undoStack()->count(), 1);
  doc.undoStack()->undo();
  QCOMPARE(doc.schedule().streams, (Streams{{0, 1, 2}, {3, 4, 5}}));
}

void TestStudioDocument::scatteredMultiMoveIsOneUndoStep() {
  // n3 and n5 (not adjacent) to the end of stream 0: n4 stays on stream 1 between them.
  StudioDocument doc;
  doc.setModel(make_loaded(weft::test::make_two_branches(3), {{0, 1, 2}, {3, 4, 5}}));
  QVERIFY(doc.moveNodes({5, 3}, 0, 3));
  QCOMPARE(doc.schedule().streams, (Streams{{0, 1, 2, 3, 5}, {4}}));
  QCOMPARE(doc.schedule().events, (std::vector<weft::core::Event>{{3, 4}, {4, 5}}));
  QCOMPARE(doc.undoStack()->count(), 1);
  doc.undoStack()->undo();
  QCOMPARE(doc.schedule().streams, (Streams{{0, 1, 2}, {3, 4, 5}}));
}

void TestStudioDocument::addRemoveMergeStreams() {
  StudioDocument doc;
  doc.setModel(make_loaded(weft::test::make_two_branches(2), {{0, 1}, {2, 3}}));
  QVERIFY(doc.addStream());
  QCOMPARE(doc.schedule().stream_count(), std::size_t{3});
  QVERIFY(!doc.removeStream(0));  // holds nodes
  QVERIFY(doc.lastRefusal().contains("stream 0"));
  QVERIFY(doc.removeStream(2));
  QCOMPARE(doc.schedule().stream_count(), std::size_t{2});
  QVERIFY(doc.mergeStreams(0, 1));
  QCOMPARE(doc.schedule().stream_count(), std::size_t{1});
  QCOMPARE(doc.schedule().streams[0].size(), std::size_t{4});
  QVERIFY(doc.schedule().events.empty());
  QVERIFY(weft::core::validate_schedule(doc.graph(), doc.schedule()));
  QCOMPARE(doc.undoStack()->count(), 3);
  doc.undoStack()->undo();
  doc.undoStack()->undo();
  doc.undoStack()->undo();
  QCOMPARE(doc.schedule().streams, (Streams{{0, 1}, {2, 3}}));
}

void TestStudioDocument::strategyApplyAndUndo() {
  StudioDocument doc;
  doc.setModel(make_loaded(weft::test::make_fan_out(4), {{0, 1}, {2}, {3}, {4}}));
  QVERIFY(doc.applyStrategy("sequential", {}));
  QCOMPARE(doc.schedule().stream_count(), std::size_t{1});
  QCOMPARE(doc.schedule().strategy, std::string("sequential"));
  QCOMPARE(doc.undoStack()->count(), 1);
  doc.undoStack()->undo();
  QCOMPARE(doc.schedule().stream_count(), std::size_t{4});
  QVERIFY(!doc.applyStrategy("no-such-strategy", {}));
  QVERIFY(doc.lastRefusal().contains("no-such-strategy"));
  QCOMPARE(doc.undoStack()->count(), 1);
}

void TestStudioDocument::figuresFollowEdits() {
  // Fan-out on four streams: makespan is two node times; on one stream it is five.
  StudioDocument doc;
  doc.setModel(make_loaded(weft::test::make_fan_out(4), {{0, 1}, {2}, {3}, {4}}));
  const double t = doc.nodeTimes()[0];
  QVERIFY(t > 0);
  QCOMPARE(doc.figures().streams, 4);
  QCOMPARE(doc.figures().events, 3);
  QVERIFY(qAbs(doc.figures().ideal_us - 2 * t) < 1e-9);  // identical nodes: equal times
  QVERIFY(doc.applyStrategy("sequential", {}));
  QCOMPARE(doc.figures().streams, 1);
  QCOMPARE(doc.figures().events, 0);
  doc.waitForStudy();  // the reference's figures come from the document's worker
  QVERIFY(qAbs(doc.figures().ideal_us - doc.figures().sequential_us) < 1e-9);
  QVERIFY(qAbs(doc.figures().speedup - 1.0) < 1e-9);
}

void TestStudioDocument::studyArrivesAfterEdit() {
  // An edit returns before its study: the studied figures stay the previous schedule's, marked
  // stale, until the worker's result arrives by signal; then they equal core's study of the new
  // schedule with the studio's options (the CLI's figures).
  StudioDocument doc;
  doc.setModel(make_loaded(weft::test::make_two_branches(3), {{0, 1, 2}, {3, 4, 5}}));
  QSignalSpy studied(&doc, &StudioDocument::studyChanged);
  QVERIFY(doc.studyPending());
  QVERIFY(studied.wait(20000));
  QCOMPARE(studied.count(), 1);
  QVERIFY(!doc.studyPending());
  const weft::ui::ScheduleFigures two_streams = doc.figures();
  QVERIFY(!two_streams.stale);
  QVERIFY(two_streams.predicted_us > 0 && two_streams.arena_bytes > 0);

  QVERIFY(doc.mergeStreams(0, 1));
  QVERIFY(doc.studyPending());
  QVERIFY(doc.figures().stale);
  QCOMPARE(doc.figures().streams, 1);                               // follows the edit at once
  QCOMPARE(doc.figures().predicted_us, two_streams.predicted_us);  // the previous schedule's, until...
  QCOMPARE(doc.figures().arena_bytes, two_streams.arena_bytes);
  QVERIFY(studied.wait(20000));                                     // ...the study arrives
  QCOMPARE(studied.count(), 2);
  QVERIFY(!doc.figures().stale);
  const auto options = weft::ui::studio_study_options(doc.graph().node_count(), weft::core::LaunchMode::Eager);
  auto expected = weft::core::study_schedule(doc.graph(), doc.analysis().costs, doc.device(), doc.schedule(), options);
  QVERIFY(expected && expected->prediction && expected->memory);
  QCOMPARE(doc.figures().predicted_us, expected->prediction->makespan_us);
  QCOMPARE(doc.figures().arena_bytes, expected->memory->arena_bytes());
  QCOMPARE(doc.figures().sequential_arena_bytes, expected->memory->reference_arena_bytes());
  QCOMPARE(doc.figures().speedup_vs_graph, expected->prediction->speedup_vs_graph);
  QCOMPARE(doc.figures().speedup_vs_eager, expected->prediction->speedup_vs_eager);
  QCOMPARE(doc.figures().price_of_concurrency, expected->memory->price_of_concurrency());
  QCOMPARE(doc.figures().speedup, expected->ideal_speedup());
  QVERIFY(doc.figures().arena_bytes < two_streams.arena_bytes);  // one stream reuses more
  QCOMPARE(doc.predictedRuns().at(0).makespan_us(), doc.figures().predicted_us);
}

void TestStudioDocument::latestStudyWins() {
  // Two edits before the event loop runs: the first edit's study is superseded and dropped, only
  // the second edit's result is applied (one studyChanged, figures of the final schedule).
  StudioDocument doc;
  doc.setModel(make_loaded(weft::test::make_two_branches(3), {{0, 1, 2}, {3, 4, 5}}));
  doc.waitForStudy();
  const int dropped = doc.studiesDropped();
  const int applied = doc.studiesApplied();
  QSignalSpy studied(&doc, &StudioDocument::studyChanged);
  QVERIFY(doc.mergeStreams(0, 1));  // study A starts in the worker
  QVERIFY(doc.addStream());         // supersedes A: A's result will be dropped
  QVERIFY(studied.wait(20000));
  QTest::qWait(50);  // a late result of A would show up as a second signal
  QCOMPARE(studied.count(), 1);
  QCOMPARE(doc.studiesDropped(), dropped + 1);
  QCOMPARE(doc.studiesApplied(), applied + 1);
  QCOMPARE(doc.figures().streams, 2);
  QVERIFY(doc.study());
  QCOMPARE(doc.study()->schedule.streams, doc.schedule().streams);  // the final schedule's study
  QCOMPARE(doc.predictedRuns().at(0).stream_count, 2);
  // A new model drops whatever the previous one had pending.
  QVERIFY(doc.mergeStreams(0, 1));
  doc.setModel(make_loaded(weft::test::make_chain(4), {}));
  QVERIFY(doc.predictedRuns().empty());
  doc.waitForStudy();
  QCOMPARE(doc.study()->schedule.streams.size(), std::size_t{1});
  QCOMPARE(doc.predictedRuns().at(0).items.size(), std::size_t{4});
}

void TestStudioDocument::predictionArrivesBeforeTheArena() {
  // An edit's prediction is applied as soon as the worker has it, while the arena is still being
  // planned: the worker is held between the two stages (the real run_study, with its prediction
  // callback gated), so the in-between state is observed, not raced.
  StudioDocument doc;
  doc.setModel(make_loaded(weft::test::make_two_branches(3), {{0, 1, 2}, {3, 4, 5}}));
  doc.waitForStudy();
  const weft::ui::ScheduleFigures two_streams = doc.figures();
  QVERIFY(two_streams.arena_bytes > 0 && !two_streams.memory_stale);
  auto gate = std::make_shared<std::promise<void>>();
  const std::shared_future<void> released = gate->get_future().share();
  doc.setStudyRunner([released](const weft::ui::StudyRequest& request) {
    weft::ui::StudyRequest held = request;
    held.on_prediction = [forward = request.on_prediction, released](weft::ui::StudyResult partial) {
      forward(std::move(partial));
      released.wait();  // the memory report waits until the test has looked
    };
    return weft::ui::run_study(held);
  });
  QSignalSpy predicted(&doc, &StudioDocument::predictionChanged);
  QSignalSpy studied(&doc, &StudioDocument::studyChanged);
  QVERIFY(doc.mergeStreams(0, 1));
  QVERIFY(doc.predictionPending() && doc.studyPending());
  QVERIFY(predicted.wait(20000));
  QCOMPARE(studied.count(), 0);
  QVERIFY(!doc.predictionPending());
  QVERIFY(doc.studyPending());
  const auto options = weft::ui::studio_study_options(doc.graph().node_count(), weft::core::LaunchMode::Eager);
  auto expected = weft::core::study_schedule(doc.graph(), doc.analysis().costs, doc.device(), doc.schedule(), options);
  QVERIFY(expected && expected->prediction && expected->memory);
  QVERIFY(!doc.figures().stale);
  QVERIFY(doc.figures().memory_stale);
  QCOMPARE(doc.figures().predicted_us, expected->prediction->makespan_us);   // the new schedule's
  QCOMPARE(doc.figures().speedup_vs_graph, expected->prediction->speedup_vs_graph);
  QCOMPARE(doc.figures().arena_bytes, two_streams.arena_bytes);             // still the previous one's
  QVERIFY(doc.study() && doc.study()->prediction && !doc.study()->memory);
  QCOMPARE(doc.predictedRuns().at(0).stream_count, 1);
  QVERIFY(doc.predictedRuns().at(0).arena_bytes.empty());

  gate->set_value();
  QVERIFY(studied.wait(20000));
  QCOMPARE(predicted.count(), 1);
  QVERIFY(!doc.figures().memory_stale && !doc.studyPending());
  QCOMPARE(doc.figures().predicted_us, expected->prediction->makespan_us);
  QCOMPARE(doc.figures().arena_bytes, expected->memory->arena_bytes());
  QCOMPARE(doc.figures().price_of_concurrency, expected->memory->price_of_concurrency());
  QVERIFY(doc.study() && doc.study()->memory);
  QCOMPARE(doc.predictedRuns().at(0).arena_bytes.size(), expected->prediction->timeline.arena_bytes.size());
  QVERIFY(!doc.predictedRuns().at(0).arena_bytes.empty());
}

void TestStudioDocument::largeEditsStudyInWorker() {
  // At 1k, 4k and 5k nodes (4 random streams) an edit returns before its study; the study's time
  // in the worker is reported (bench_studio measures it; nothing is asserted about it here).
  for (const int nodes : {1000, 4000, 5000}) {
    auto graph = weft::ui::make_synthetic_graph(nodes, 7);
    QVERIFY(graph);
    auto loaded = make_loaded(std::move(*graph), {});
    loaded.schedule = weft::test::random_schedule(*loaded.graph, 4, 3);
    loaded.schedule.events = weft::core::compute_events(*loaded.graph, loaded.schedule);
    StudioDocument doc;
    doc.setModel(std::move(loaded));
    doc.waitForStudy();
    const double first_ms = doc.lastStudyMs();
    QVERIFY(doc.figures().predicted_us > 0 && doc.figures().arena_bytes > 0);
    QVERIFY(doc.mergeStreams(0, 1));
    QVERIFY(doc.studyPending());
    doc.waitForStudy();
    QVERIFY(!doc.figures().stale);
    QCOMPARE(doc.figures().streams, 3);
    QVERIFY(doc.figures().arena_bytes > 0);
    qInfo("%d nodes: first study %.1f ms (reference included), one edit's study %.1f ms in the worker", nodes, first_ms,
          doc.lastStudyMs());
  }
}

void TestStudioDocument::nodeTableModelPassesTester() {
  StudioDocument doc;
  weft::ui::NodeTableModel model(&doc);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(model.rowCount(), 0);
  doc.setModel(make_loaded(weft::test::make_two_branches(3), {{0, 1, 2}, {3, 4, 5}}));
  QCOMPARE(model.rowCount(), 6);
  QCOMPARE(model.columnCount(), int{weft::ui::NodeTableModel::ColumnCount});
  QCOMPARE(model.data(model.index(5, weft::ui::NodeTableModel::Name)).toString(), QString("n5"));
  QCOMPARE(model.data(model.index(5, weft::ui::NodeTableModel::Stream)).toInt(), 1);
  QCOMPARE(model.data(model.index(4, weft::ui::NodeTableModel::Level)).toInt(), 1);
  QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
  QVERIFY(doc.moveNodes({5}, 0, 3));
  QCOMPARE(changed.count(), 1);
  QCOMPARE(model.data(model.index(5, weft::ui::NodeTableModel::Stream)).toInt(), 0);
  QCOMPARE(model.data(model.index(5, weft::ui::NodeTableModel::Position)).toInt(), 3);
  doc.setModel(make_loaded(weft::test::make_random_dag(40, 0.2, 7), {}));
}

void TestStudioDocument::selectionIsShared() {
  StudioDocument doc;
  doc.setModel(make_loaded(weft::test::make_diamond(), {{0, 1, 3}, {2}}));
  QSignalSpy spy(&doc, &StudioDocument::selectionChanged);
  doc.setSelection({2, 1, 2});
  QCOMPARE(doc.selection(), (std::vector<NodeId>{1, 2}));
  QVERIFY(doc.isSelected(1) && doc.isSelected(2) && !doc.isSelected(0));
  doc.setSelection({1, 2});  // unchanged: no signal
  QCOMPARE(spy.count(), 1);
}

void TestStudioDocument::runsReplaceByIdentityAndClearWithModel() {
  // A run replaces the one with its identity (kind, backend, strategy), whatever the labels say;
  // runs that only share a label stay apart.
  StudioDocument doc;
  doc.setModel(make_loaded(weft::test::make_diamond(), {{0, 1, 3}, {2}}));
  QSignalSpy spy(&doc, &StudioDocument::runsChanged);
  weft::core::Timeline a;
  a.kind = weft::core::RunKind::Measured;
  a.backend = "cpu";
  a.strategy = "hand";
  a.label = "measured cpu hand";
  a.items = {{0, 0, 0.0, 1.0}};
  weft::core::Timeline b = a;
  b.strategy = "sequential";
  doc.addRun(a);
  doc.addRun(b);
  a.items.push_back({1, 0, 1.0, 2.0});
  a.label = "renamed";
  doc.addRun(a);  // same identity: replaces the first, keeps its place
  QCOMPARE(doc.runs().size(), std::size_t{2});
  QCOMPARE(doc.runs()[0].label, std::string("renamed"));
  QCOMPARE(doc.runs()[0].items.size(), std::size_t{2});
  weft::core::Timeline c = a;
  c.backend = "cuda";
  c.label = a.label;
  doc.addRun(c);  // the same label on another backend: another run
  QCOMPARE(doc.runs().size(), std::size_t{3});
  QCOMPARE(spy.count(), 4);
  doc.setModel(make_loaded(weft::test::make_chain(3), {{0, 1, 2}}));
  QVERIFY(doc.runs().empty());
}

QTEST_MAIN(TestStudioDocument)
#include "test_studio_document.moc"
