// The memory view: its model, made as the studio makes it (the document's study in its worker,
// adapted by the view), on golden small graphs (two concurrent branches cost more arena than one
// stream; high-water is monotone and covers live bytes; bounds stay below arenas) and on
// googlenet; the cutoff is reported; the view re-plans after an edit; the offset map's hover
// names the tensor under the mouse and a click selects its producer; the growth chart's series
// are decimated to its pixel columns without losing a column's peak.
#include <QSignalSpy>
#include <QTest>
#include <QToolTip>

#include <algorithm>
#include <atomic>
#include <future>
#include <limits>
#include <mutex>
#include <random>

#include "ui_test_support.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/memory/plan_checker.h"
#include "weft/core/memory/plan_repair.h"
#include "weft/ui/summary_panel.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/ui/growth_chart.h"
#include "weft/ui/memory_model.h"
#include "weft/ui/memory_view.h"
#include "weft/ui/offset_map_view.h"
#include "weft/ui/synthetic_model.h"

using weft::core::NodeId;
using weft::ui::MemoryModel;

namespace {

// Synthetic operators (1500 by default) on random streams, with their events.
weft::ui::LoadedModel synthetic_on_random_streams(int nodes = 1500, int graph_seed = 3, int streams = 3, int schedule_seed = 5) {
  auto loaded = weft::test::make_loaded(*weft::ui::make_synthetic_graph(nodes, graph_seed), {});
  loaded.schedule = weft::test::random_schedule(*loaded.graph, streams, schedule_seed);
  loaded.schedule.events = weft::core::compute_events(*loaded.graph, loaded.schedule);
  return loaded;
}

void check_invariants(const weft::core::Graph& g, const MemoryModel& m) {
  QVERIFY(m.computed);
  QCOMPARE(m.steps.size(), g.node_count());
  QCOMPARE(m.current.live_bytes.size(), g.node_count());
  QCOMPARE(m.current.high_water.size(), g.node_count());
  QCOMPARE(m.sequential.live_bytes.size(), g.node_count());
  QCOMPARE(m.sequential.high_water.size(), g.node_count());
  for (const auto* c : {&m.current, &m.sequential}) {
    for (std::size_t i = 0; i < c->live_bytes.size(); ++i) {
      if (i > 0) QVERIFY(c->high_water[i] >= c->high_water[i - 1]);
      // Tensors live at one step conflict, so they sit at disjoint offsets below the high-water.
      QVERIFY(c->live_bytes[i] <= c->high_water[i]);
    }
    for (std::size_t i = 1; i < c->high_water_over_time.size(); ++i)
      QVERIFY(c->high_water_over_time[i].value >= c->high_water_over_time[i - 1].value);
  }
  QCOMPARE(m.current.high_water.back(), m.arena_bytes);
  QCOMPARE(m.sequential.high_water.back(), m.sequential_arena_bytes);
  QVERIFY(m.concurrent_bound_bytes <= m.arena_bytes);
  QVERIFY(m.linear_bound_bytes <= m.sequential_arena_bytes);
  QVERIFY(m.arena_bytes <= m.no_reuse_bytes);
  for (const auto& b : m.blocks) {
    QVERIFY(b.first_step <= b.last_step);
    QVERIFY(b.offset >= 0 && b.offset + b.size <= m.arena_bytes);
    QVERIFY(b.start_us <= b.end_us);
  }
}

/// The view's model of `loaded` through the studio's own path: the document studies the schedule
/// in its worker, the view adapts that study (MemoryView::model() waits for it).
MemoryModel studied_model(weft::ui::LoadedModel loaded) {
  weft::ui::StudioDocument doc;
  doc.setModel(std::move(loaded));
  weft::ui::MemoryView view(&doc);
  return view.model();
}

}  // namespace

class TestMemoryView : public QObject {
  Q_OBJECT
 private slots:
  void twoBranchesPayForConcurrency();
  void oneStreamCostsNothingExtra();
  void realModelSeries();
  void largeModelIsCutOff();
  void cutoffSizedModelPlansWithinAnEdit();
  void decimationKeepsEachColumnsPeak();
  void axisLabelsTellTicksApart();
  void chartFollowsItsWidth();
  void viewReplansAfterEdit();
  void largeModelReplansInWorker();
  void largeModelAdaptsInWorker();
  void repairedArenaComesFirst();
  void offsetMapHoverAndClick();
};

void TestMemoryView::twoBranchesPayForConcurrency() {
  // Two chains of three (float32 [1,1024] = 4096 B each): on two streams the four intermediates
  // are pairwise concurrent, so the arena is all four; one stream reuses.
  const auto graph = weft::test::make_two_branches(3);
  const MemoryModel m = studied_model(weft::test::make_loaded(weft::test::make_two_branches(3), {{0, 1, 2}, {3, 4, 5}}));
  check_invariants(graph, m);
  QCOMPARE(m.blocks.size(), std::size_t{4});
  QCOMPARE(m.no_reuse_bytes, std::int64_t{4 * 4096});
  QCOMPARE(m.arena_bytes, std::int64_t{4 * 4096});
  QCOMPARE(m.concurrent_bound_bytes, std::int64_t{4 * 4096});
  QVERIFY(m.sequential_arena_bytes < m.arena_bytes);
  QVERIFY(m.sequential_arena_bytes >= 2 * 4096);  // a producer and its reader's output overlap
  QVERIFY(m.price_of_concurrency > 1.0);
  QVERIFY(m.hasTime());
  QCOMPARE(static_cast<std::int64_t>(m.current.high_water_over_time.back().value), m.arena_bytes);
  QVERIFY(m.current.makespan_us > 0);
  // Every block is findable at its own centre (step axis).
  for (std::size_t i = 0; i < m.blocks.size(); ++i) {
    const auto& b = m.blocks[i];
    const int at = m.blockAt(b.first_step + 0.5, false, static_cast<double>(b.offset) + static_cast<double>(b.size) / 2);
    QCOMPARE(at, static_cast<int>(i));
  }
}

void TestMemoryView::oneStreamCostsNothingExtra() {
  // The sequential schedule itself: the price of concurrency is exactly 1.
  const auto graph = weft::test::make_two_branches(4);
  const MemoryModel m = studied_model(weft::test::make_loaded(weft::test::make_two_branches(4), {}));
  check_invariants(graph, m);
  QCOMPARE(m.arena_bytes, m.sequential_arena_bytes);
  QCOMPARE(m.price_of_concurrency, 1.0);
  QCOMPARE(m.current.live_bytes, m.sequential.live_bytes);
}

void TestMemoryView::realModelSeries() {
  // googlenet under the studio's default strategy: every series as long as the model, bounds hold.
  auto graph = weft::core::import_onnx(WEFT_TEST_DATA_DIR "/models/googlenet.onnx");
  QVERIFY2(graph, graph ? "" : graph.error().message.c_str());
  auto loaded = weft::test::make_loaded(std::move(*graph), {});
  auto schedule = weft::core::make_schedule("cp-list", *loaded.graph, loaded.analysis->costs, loaded.device, {});
  QVERIFY(schedule);
  QVERIFY(schedule->stream_count() > 1);
  loaded.schedule = std::move(*schedule);
  const auto g = loaded.graph;
  const MemoryModel m = studied_model(std::move(loaded));
  check_invariants(*g, m);
  QVERIFY(m.blocks.size() > 50);
  QVERIFY(m.arena_bytes >= m.sequential_arena_bytes / 2);
  QVERIFY(m.concurrent_bound_bytes > 0 && m.linear_bound_bytes > 0);
  QVERIFY(m.hasTime());
  qInfo("googlenet cp-list: arena %lld (sequential %lld, bounds %lld / %lld, no reuse %lld), %f vs %f us",
        static_cast<long long>(m.arena_bytes), static_cast<long long>(m.sequential_arena_bytes),
        static_cast<long long>(m.concurrent_bound_bytes), static_cast<long long>(m.linear_bound_bytes),
        static_cast<long long>(m.no_reuse_bytes), m.current.makespan_us, m.sequential.makespan_us);
}

void TestMemoryView::largeModelIsCutOff() {
  // Past the node cutoff (the live-study size) nothing is planned and the note says why (no
  // frozen GUI).
  const int nodes = static_cast<int>(weft::ui::kMemoryViewMaxNodes) + 1;
  const MemoryModel m = studied_model(weft::test::make_loaded(weft::test::make_chain(nodes), {}));
  QVERIFY(!m.computed);
  QVERIFY2(m.note.find(std::to_string(nodes) + " nodes") != std::string::npos, m.note.c_str());
  QVERIFY(m.note.find("up to " + std::to_string(weft::ui::kMemoryViewMaxNodes)) != std::string::npos);
}

void TestMemoryView::cutoffSizedModelPlansWithinAnEdit() {
  // At 5000 nodes (4 random streams) the document's study and the view's model are valid; their
  // time is reported (at the 100k cutoff a study takes seconds: docs/performance.md).
  auto loaded = synthetic_on_random_streams(5000, 7, 4, 3);
  const auto g = loaded.graph;
  QElapsedTimer clock;
  clock.start();
  weft::ui::StudioDocument doc;
  doc.setModel(std::move(loaded));
  weft::ui::MemoryView view(&doc);
  const MemoryModel& m = view.model();
  const qint64 ms = clock.elapsed();
  check_invariants(*g, m);
  qInfo("%zu nodes, 4 streams: study and memory model in %lld ms (arena %.2f MiB, price %.2f)", g->node_count(),
        static_cast<long long>(ms), static_cast<double>(m.arena_bytes) / 1048576.0, m.price_of_concurrency);
  // 10,000 step points per series are more than the chart's pixel columns can show: each column
  // keeps its lowest and highest point, so the envelope (here the peak live bytes and the final
  // high-water) is drawn exactly with at most two points a column.
  const weft::ui::GrowthChart* chart = view.chart();
  const auto& live = chart->points(0);
  const auto& high = chart->points(1);
  QVERIFY(live.size() <= 2 * chart->plotColumns() + 2);
  QVERIFY(live.size() < static_cast<int>(2 * m.current.live_bytes.size()));
  double peak = 0;
  for (const QPointF& p : live) peak = std::max(peak, p.y());
  const double model_peak = static_cast<double>(*std::max_element(m.current.live_bytes.begin(), m.current.live_bytes.end()));
  const double unit = view.chartUnit().bytes;
  QCOMPARE(peak, model_peak / unit);
  QCOMPARE(high.back().y(), static_cast<double>(m.current.high_water.back()) / unit);
  QCOMPARE(high.back().x(), static_cast<double>(m.current.high_water.size()));
}

namespace {

// Per pixel column of `columns` across [0, xmax], the lowest and highest y of `pts` (NaN-free:
// columns without a point hold +inf/-inf).
std::vector<std::pair<double, double>> column_extremes(const QList<QPointF>& pts, double xmax, int columns) {
  std::vector<std::pair<double, double>> ext(static_cast<std::size_t>(columns),
                                             {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()});
  for (const QPointF& p : pts) {
    const int c = std::clamp(static_cast<int>(p.x() / xmax * columns), 0, columns - 1);
    auto& e = ext[static_cast<std::size_t>(c)];
    e.first = std::min(e.first, p.y());
    e.second = std::max(e.second, p.y());
  }
  return ext;
}

}  // namespace

void TestMemoryView::decimationKeepsEachColumnsPeak() {
  // decimate_columns: at most two points a column plus the ends, in x order, and every column's
  // highest and lowest y exactly as in the whole series (a spike one step wide is never lost);
  // a series already short enough comes back as it is.
  std::mt19937 rng(11);
  for (int columns : {1, 7, 300, 1377}) {
    QList<QPointF> pts;
    double y = 0;
    for (int i = 0; i < 20000; ++i) {
      y = std::max(0.0, y + std::uniform_real_distribution<double>(-1, 1)(rng));
      const double spike = i % 4999 == 17 ? 1000.0 : 0.0;  // one-step peaks
      pts.append(QPointF(i, y + spike));
      pts.append(QPointF(i + 1, y + spike));
    }
    const double xmax = 20000;
    const QList<QPointF> kept = weft::ui::decimate_columns(pts, xmax, columns);
    QVERIFY2(kept.size() <= 2 * columns + 2, qPrintable(QString("%1 points for %2 columns").arg(kept.size()).arg(columns)));
    QCOMPARE(kept.front(), pts.front());
    QCOMPARE(kept.back(), pts.back());
    for (qsizetype i = 1; i < kept.size(); ++i) QVERIFY(kept[i].x() >= kept[i - 1].x());
    QCOMPARE(column_extremes(kept, xmax, columns), column_extremes(pts, xmax, columns));
  }
  const QList<QPointF> short_series{QPointF(0, 1), QPointF(1, 3), QPointF(2, 2)};
  QCOMPARE(weft::ui::decimate_columns(short_series, 2, 100), short_series);
}

void TestMemoryView::axisLabelsTellTicksApart() {
  // axis_labels: five labels from 0 to the maximum, all different, over small ranges too (a
  // 1-step model's axis read 0, 0, 1, 1, 1; a 0.3 MiB arena's 0.1, 0.2, 0.2); large ranges keep
  // the decimals asked for.
  for (double max : {1.0, 2.0, 3.0, 0.3, 0.02, 6.13, 139.0, 100000.0}) {
    const QStringList labels = weft::ui::axis_labels(max, 4, 0);
    QCOMPARE(labels.size(), 5);
    QCOMPARE(labels.front().toDouble(), 0.0);
    QVERIFY2(std::abs(labels.back().toDouble() - max) <= 0.5, qPrintable(labels.join(", ")));  // rounded at most
    for (qsizetype i = 1; i < labels.size(); ++i) QVERIFY2(labels[i].toDouble() > labels[i - 1].toDouble(), qPrintable(labels.join(", ")));
  }
  QCOMPARE(weft::ui::axis_labels(139, 4, 0), (QStringList{"0", "35", "70", "104", "139"}));
  QCOMPARE(weft::ui::axis_labels(6, 4, 1), (QStringList{"0.0", "1.5", "3.0", "4.5", "6.0"}));
  QCOMPARE(weft::ui::axis_labels(1, 4, 0), (QStringList{"0.00", "0.25", "0.50", "0.75", "1.00"}));
}

void TestMemoryView::chartFollowsItsWidth() {
  // The shown chart's growth series hold at most two points per pixel column of its plot and
  // keep every column's peak of the model's series; widened, they are decimated again for the
  // new width (more points, still within it).
  weft::ui::StudioDocument doc;
  doc.setModel(synthetic_on_random_streams(5000, 7, 4, 3));
  weft::ui::MemoryView view(&doc);
  view.resize(700, 700);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  const MemoryModel& m = view.model();
  QVERIFY(m.computed);
  const weft::ui::GrowthChart* chart = view.chart();
  const double unit = view.chartUnit().bytes;
  QCOMPARE(chart->lineCount(), 6);
  QCOMPARE(chart->data().y_title, view.chartUnit().name);
  const auto check = [&](int columns) {
    const double xmax = chart->data().xmax;
    QCOMPARE(xmax, static_cast<double>(m.current.live_bytes.size()));
    QList<QPointF> full;
    for (std::size_t i = 0; i < m.current.live_bytes.size(); ++i) {
      full.append(QPointF(static_cast<double>(i), static_cast<double>(m.current.live_bytes[i]) / unit));
      full.append(QPointF(static_cast<double>(i + 1), static_cast<double>(m.current.live_bytes[i]) / unit));
    }
    const auto& live = chart->points(0);
    QVERIFY2(live.size() <= 2 * columns + 2, qPrintable(QString("%1 points, %2 columns").arg(live.size()).arg(columns)));
    const auto shown = column_extremes(live, xmax, columns), model = column_extremes(full, xmax, columns);
    for (std::size_t c = 0; c < shown.size(); ++c) QCOMPARE(shown[c].second, model[c].second);
  };
  QTRY_COMPARE(chart->data().columns, chart->plotColumns());  // once the show's layout settled
  const int narrow_columns = chart->plotColumns();
  check(narrow_columns);
  const auto narrow = chart->points(0).size();
  view.resize(1400, 700);
  QTRY_VERIFY(chart->plotColumns() > narrow_columns);
  // Decimated again once the resize settles.
  QTRY_COMPARE(chart->data().columns, chart->plotColumns());
  check(chart->plotColumns());
  QVERIFY(chart->points(0).size() > narrow);
  // The lines are drawn from their picture once made (an expose does not stroke them again).
  QVERIFY(!view.chart()->grab().isNull());
  QVERIFY(view.chart()->paintedFromPicture());
}

void TestMemoryView::viewReplansAfterEdit() {
  // Merging the two branches into one stream is an edit: the shown view re-plans and the arena drops.
  weft::ui::StudioDocument doc;
  doc.setModel(weft::test::make_loaded(weft::test::make_two_branches(3), {{0, 1, 2}, {3, 4, 5}}));
  weft::ui::MemoryView view(&doc);
  view.resize(900, 700);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  doc.waitForStudy();
  QCOMPARE(view.model().arena_bytes, doc.figures().arena_bytes);  // the document's study, as the summary
  QCOMPARE(view.model().arena_bytes, std::int64_t{4 * 4096});
  // A 16 KiB arena is charted in KiB (in MiB every tick would read 0.0).
  QCOMPARE(view.chartUnit().name, QString("KiB"));
  QCOMPARE(view.chart()->data().y_title, QString("KiB"));
  const int before = view.recomputeCount();
  QVERIFY(doc.mergeStreams(0, 1));
  QVERIFY(view.isReplanning());  // the study runs in the document's worker
  doc.waitForStudy();
  QVERIFY(view.recomputeCount() > before);
  QVERIFY(view.model().arena_bytes < 4 * 4096);
  QCOMPARE(view.model().arena_bytes, doc.figures().arena_bytes);
  QCOMPARE(doc.schedule().stream_count(), std::size_t{1});
  const QString price = QString::number(view.model().price_of_concurrency, 'f', 2);
  QVERIFY2(view.figuresText().contains("price of concurrency " + price + "×"), qPrintable(view.figuresText()));
  // Undo restores the concurrent arena; the chart's step series have two points per step.
  doc.undoStack()->undo();
  QCOMPARE(view.model().arena_bytes, std::int64_t{4 * 4096});
  QCOMPARE(view.chart()->lineCount(), 6);
  QCOMPARE(view.chart()->points(0).size(), 12);
  view.setOverTime(true);
  QVERIFY(view.offsetMap()->overTime());
  // The offset map's plot lines up under the chart's plot area, at any width.
  for (int width : {900, 1300}) {
    view.resize(width, 700);
    QTRY_VERIFY(std::abs(view.offsetMap()->plotRect().left() - view.chart()->plotArea().left()) <= 1.0);
    QTRY_VERIFY(std::abs(view.offsetMap()->plotRect().right() - view.chart()->plotArea().right()) <= 1.0);
  }
  QVERIFY(view.chart()->points(0).size() > 2);
}

void TestMemoryView::largeModelReplansInWorker() {
  // An edit re-plans in the document's worker: the GUI thread returns at once, the result
  // arrives by signal and the view shows the document's own figures.
  weft::ui::StudioDocument doc;
  doc.setModel(synthetic_on_random_streams());
  weft::ui::MemoryView view(&doc);
  view.resize(900, 700);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  QTRY_VERIFY_WITH_TIMEOUT(!view.isReplanning(), 20000);
  QCOMPARE(view.model().arena_bytes, doc.figures().arena_bytes);
  QVERIFY(doc.mergeStreams(0, 1));
  QVERIFY(view.isReplanning());
  QTRY_VERIFY_WITH_TIMEOUT(!view.isReplanning(), 20000);
  QVERIFY(view.model().computed);
  QCOMPARE(view.model().arena_bytes, doc.figures().arena_bytes);
  QVERIFY(view.figuresText().contains(QString::number(view.model().price_of_concurrency, 'f', 2)));
  // Two edits in a row: only the last one's result is kept.
  QVERIFY(doc.addStream());
  QVERIFY(doc.mergeStreams(0, 1));
  doc.waitForStudy();
  QCOMPARE(view.model().arena_bytes, doc.figures().arena_bytes);
  QCOMPARE(view.model().steps.size(), std::size_t{1500});
}

void TestMemoryView::largeModelAdaptsInWorker() {
  // Past the document's async size (set to 0 here) the view adapts the memory report in the
  // worker too: what it shows once that returns is what the study gives adapted on the spot,
  // after the first study and after an edit made in the worker.
  weft::ui::StudioDocument doc;
  doc.setAsyncEditNodes(0);
  doc.setModel(synthetic_on_random_streams());
  weft::ui::MemoryView view(&doc);
  view.resize(900, 700);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  for (int round = 0; round < 2; ++round) {
    if (round == 1) {
      QVERIFY(doc.mergeStreams(0, 1));
      doc.waitForEdit();
      QCOMPARE(doc.schedule().stream_count(), std::size_t{2});
    }
    doc.waitForStudy();
    const MemoryModel expected = weft::ui::memory_model_from_study(doc.graph(), *doc.study());
    const MemoryModel& shown = view.model();  // waits for the worker's adaptation
    QVERIFY(shown.computed);
    QCOMPARE(shown.arena_bytes, expected.arena_bytes);
    QCOMPARE(shown.arena_bytes, doc.figures().arena_bytes);
    QCOMPARE(shown.blocks.size(), expected.blocks.size());
    QCOMPARE(shown.current.live_bytes, expected.current.live_bytes);
    QCOMPARE(shown.current.makespan_us, expected.current.makespan_us);
    QCOMPARE(shown.sequential.makespan_us, expected.sequential.makespan_us);
    QCOMPARE(view.offsetMap()->overTime(), false);
    // The chart shows the adapted series: two points per step before decimation.
    QVERIFY(view.chart()->points(0).size() > 2);
    QCOMPARE(view.figuresText().contains(QString::number(shown.price_of_concurrency, 'f', 2)), true);
  }
}

void TestMemoryView::repairedArenaComesFirst() {
  // After an edit the previous plan, repaired for the new schedule, is shown (summary and memory
  // view) while the planners search afresh; then the complete study replaces it. Two branches on
  // one stream reuse each other's bytes; moving one branch to a second stream makes them
  // concurrent, so the repair has tensors to move. The worker is held after the repaired stage
  // to look at it.
  weft::ui::StudioDocument doc;
  doc.setModel(weft::test::make_loaded(weft::test::make_two_branches(3), {{0, 1, 2, 3, 4, 5}, {}}));
  weft::ui::MemoryView view(&doc);
  weft::ui::SummaryPanel summary(&doc);
  view.resize(900, 700);
  view.show();
  summary.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  doc.waitForStudy();
  QVERIFY(doc.study() && doc.study()->memory);
  const weft::core::MemoryPlan before = doc.study()->memory->plan;

  struct Gate {
    std::promise<void> open;
    std::shared_future<void> opened = open.get_future().share();
    std::atomic<int> repaired{0};
    std::once_flag released;
    void release() {
      std::call_once(released, [this] { open.set_value(); });
    }
  };
  auto gate = std::make_shared<Gate>();
  const auto release_on_exit = std::shared_ptr<void>(nullptr, [gate](void*) { gate->release(); });
  doc.setStudyRunner([gate](const weft::ui::StudyRequest& r) {
    weft::ui::StudyRequest held = r;
    held.on_repaired = [gate, forward = r.on_repaired](weft::ui::StudyResult partial) {
      forward(std::move(partial));
      ++gate->repaired;
      gate->opened.wait_for(std::chrono::seconds(30));
    };
    return weft::ui::run_study(held);
  });
  QSignalSpy repaired(&doc, &weft::ui::StudioDocument::memoryRepaired);
  QSignalSpy studied(&doc, &weft::ui::StudioDocument::studyChanged);
  QVERIFY(doc.moveNodes({3, 4, 5}, 1, 0));
  QVERIFY(repaired.wait(20000));
  QCOMPARE(gate->repaired.load(), 1);
  QCOMPARE(studied.count(), 0);
  QVERIFY(doc.studyPending());
  QVERIFY(doc.arenaRepaired());
  QVERIFY(doc.figures().memory_repaired);
  QVERIFY(!doc.figures().memory_stale);
  // The repaired arena is core's repair of the previous plan for the new schedule: valid, with
  // the tensors that now overlap in time moved apart.
  auto order = weft::core::ExecutionOrder::build(doc.graph(), doc.schedule());
  QVERIFY(order);
  auto expected = weft::core::repair_plan(doc.graph(), *order, before);
  QVERIFY(expected);
  QVERIFY(expected->moved > 0);
  QVERIFY(weft::core::check_plan(doc.graph(), *order, expected->plan));
  QCOMPARE(doc.figures().arena_bytes, expected->plan.arena_bytes);
  QCOMPARE(doc.study()->memory->plan.offset, expected->plan.offset);
  QCOMPARE(doc.study()->schedule.streams, doc.schedule().streams);
  const MemoryModel& shown = view.shownModel();  // model() would wait for the held study
  QCOMPARE(shown.arena_bytes, expected->plan.arena_bytes);
  QCOMPARE(shown.planner, std::string("repaired"));
  QVERIFY2(QString::fromStdString(shown.note).contains("repaired for this schedule"), shown.note.c_str());
  QVERIFY2(summary.text().contains("(repaired)"), qPrintable(summary.text()));
  QVERIFY(summary.text().contains("optimising"));  // "optimising the arena", spaces made non-breaking

  // Released: the complete study, planned afresh as `weft plan` plans, replaces it.
  gate->release();
  QVERIFY(studied.wait(20000));
  QVERIFY(!doc.arenaRepaired());
  QVERIFY(!doc.figures().memory_repaired);
  const auto options =
      weft::ui::studio_study_options(doc.graph().node_count(), weft::core::launch_mode_of(doc.strategyOptions()));
  auto full = weft::core::study_schedule(doc.graph(), doc.analysis().costs, doc.device(), doc.schedule(), options);
  QVERIFY(full && full->memory);
  QCOMPARE(doc.figures().arena_bytes, full->memory->arena_bytes());
  QVERIFY(full->memory->arena_bytes() <= expected->plan.arena_bytes);
  QCOMPARE(view.model().arena_bytes, full->memory->arena_bytes());
  QVERIFY(view.model().planner != "repaired");
  QVERIFY(!summary.text().contains("(repaired)"));
  QCOMPARE(repaired.count(), 1);
}

void TestMemoryView::offsetMapHoverAndClick() {
  // Moving the mouse over each rectangle names its tensor; a click selects the producer.
  weft::ui::StudioDocument doc;
  doc.setModel(weft::test::make_loaded(weft::test::make_two_branches(3), {{0, 1, 2}, {3, 4, 5}}));
  weft::ui::MemoryView view(&doc);
  view.resize(900, 700);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  auto* map = view.offsetMap();
  const MemoryModel& m = view.model();
  QCOMPARE(m.blocks.size(), std::size_t{4});
  for (std::size_t i = 0; i < m.blocks.size(); ++i) {
    const QPoint c = map->blockCenter(static_cast<int>(i)).toPoint();
    QCOMPARE(map->blockAt(c), static_cast<int>(i));
    QTest::mouseMove(map, c);
    QTRY_VERIFY(!map->hoverText().isEmpty());
    const QString name = QString::fromStdString(doc.graph().tensor(m.blocks[i].tensor).name);
    QVERIFY2(map->hoverText().startsWith(name + "\n"), qPrintable(map->hoverText()));
    QVERIFY(map->hoverText().contains(QString::fromStdString(doc.graph().key(m.blocks[i].producer))));
    if (QToolTip::isVisible()) QCOMPARE(QToolTip::text(), map->hoverText());
    QTest::mouseClick(map, Qt::LeftButton, {}, c);
    QCOMPARE(doc.selection(), std::vector<NodeId>{m.blocks[i].producer});
  }
  // Over predicted time the rectangles move; hover still names each tensor.
  view.setOverTime(true);
  QVERIFY(map->overTime());
  for (std::size_t i = 0; i < m.blocks.size(); ++i) {
    const QPoint c = map->blockCenter(static_cast<int>(i)).toPoint();
    QCOMPARE(map->blockAt(c), static_cast<int>(i));
    QTest::mouseMove(map, c);
    const QString name = QString::fromStdString(doc.graph().tensor(m.blocks[i].tensor).name);
    QTRY_VERIFY2(map->hoverText().startsWith(name + "\n"), qPrintable(map->hoverText()));
    QVERIFY(map->hoverText().contains(" µs"));
  }
  // Outside every rectangle: nothing named, a click clears the selection.
  QTest::mouseMove(map, QPoint(2, 2));
  QTRY_VERIFY(map->hoverText().isEmpty());
  QTest::mouseClick(map, Qt::LeftButton, {}, QPoint(2, 2));
  QVERIFY(doc.selection().empty());
}

QTEST_MAIN(TestMemoryView)
#include "test_memory_view.moc"
