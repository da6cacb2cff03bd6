// Paint time of the studio's views while panning (issue 16: pan and zoom at 60 frames per second,
// 16.7 ms a frame, at 10k operators). A synthetic model (ui::make_synthetic_graph, 4 random
// streams with their events) is loaded into a document, its study applied, and each iteration
// moves the view and renders it into a pixmap (QWidget::grab: the view's whole paint, as a frame
// would draw it). Offscreen unless QT_QPA_PLATFORM says otherwise. Args: nodes.
// BM_EditFrames (issue 45): the longest stretch the GUI thread spends at once from one edit in
// the studio (a node moved to another stream, then undone) until its study has arrived and every
// view has redrawn, with the lanes, graph (fitted) and timeline views shown, on issue 45's wide
// model (100k operators: bench/synthetic_models.h, cp-list on 8 streams, as the studio opens
// it). Edits of models that large run in the worker (ui::kAsyncEditNodes). Args: operators, and
// 1 to show the memory view as well. BM_PaintGrowthLines: the memory view's growth chart drawing
// its lines on the GUI thread (after a resize, or a model adapted there).
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QString>
#include <QScrollBar>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <type_traits>
#include <time.h>
#include <utility>
#include <vector>

#include "synthetic_models.h"

#include "test_graphs.h"
#include "weft/core/schedule/sync.h"
#include "weft/ui/graph_view.h"
#include "weft/ui/growth_chart.h"
#include "weft/ui/lanes_view.h"
#include "weft/ui/memory_view.h"
#include "weft/ui/studio_document.h"
#include "weft/ui/synthetic_model.h"
#include "weft/ui/timeline_view.h"
#include "weft/core/analysis/analyze.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/schedule/schedule_edit.h"
#include "weft/core/strategy/strategies.h"

using namespace weft;

namespace {

constexpr int kWidth = 1600, kHeight = 900;

// One document per size, studied once (its prediction and, up to the live size, its plan).
ui::StudioDocument& document(int nodes) {
  static std::map<int, std::unique_ptr<ui::StudioDocument>> docs;
  auto& slot = docs[nodes];
  if (!slot) {
    auto graph = ui::make_synthetic_graph(nodes, 7);
    if (!graph) std::abort();
    ui::LoadedModel m;
    m.graph = std::make_shared<core::Graph>(std::move(*graph));
    auto device = core::load_device(core::default_device_name());
    if (!device) std::abort();
    m.device = *device;
    auto analysis = std::make_shared<core::AnalysisReport>(core::analyze(*m.graph, core::estimate_costs(*m.graph, m.device)));
    m.analysis = analysis;
    m.schedule = test::random_schedule(*m.graph, 4, 3);
    m.schedule.events = core::compute_events(*m.graph, m.schedule);
    slot = std::make_unique<ui::StudioDocument>();
    slot->setModel(std::move(m));
    slot->waitForStudy();
  }
  return *slot;
}

template <class View>
std::unique_ptr<View> shown(ui::StudioDocument& doc) {
  auto view = std::make_unique<View>(&doc);
  view->resize(kWidth, kHeight);
  view->show();
  QApplication::processEvents();
  if constexpr (std::is_same_v<View, ui::GraphView>)
    while (view->overviewPending()) QApplication::processEvents(QEventLoop::AllEvents, 5);  // its picture zoomed out
  return view;
}

// The timeline zoomed to a tenth of the run, panned by a twentieth per frame.
void BM_PaintTimelinePan(benchmark::State& state) {
  auto& doc = document(static_cast<int>(state.range(0)));
  auto view = shown<ui::TimelineView>(doc);
  view->fit();
  const double extent = view->axis().extent();
  double t0 = 0;
  for (auto _ : state) {
    view->setVisibleRange(t0, t0 + extent / 10);
    benchmark::DoNotOptimize(view->viewport()->grab());
    t0 += extent / 20;
    if (t0 > extent * 0.9) t0 = 0;
  }
  state.counters["items"] = view->lastPaint().items;
}

// The whole run in view (the most items and arrows on screen at once).
void BM_PaintTimelineFitted(benchmark::State& state) {
  auto& doc = document(static_cast<int>(state.range(0)));
  auto view = shown<ui::TimelineView>(doc);
  view->fit();
  for (auto _ : state) benchmark::DoNotOptimize(view->viewport()->grab());
  state.counters["items"] = view->lastPaint().items;
}

// The stream lanes scrolled right by a tenth of the window per frame.
void BM_PaintLanesPan(benchmark::State& state) {
  auto& doc = document(static_cast<int>(state.range(0)));
  auto view = shown<ui::LanesView>(doc);
  QScrollBar* bar = view->horizontalScrollBar();
  for (auto _ : state) {
    bar->setValue(bar->value() + kWidth / 10 > bar->maximum() ? 0 : bar->value() + kWidth / 10);
    benchmark::DoNotOptimize(view->viewport()->grab());
  }
}

// The graph by levels, centred on another node each frame.
void BM_PaintGraphPan(benchmark::State& state) {
  auto& doc = document(static_cast<int>(state.range(0)));
  auto view = shown<ui::GraphView>(doc);
  const auto n = static_cast<core::NodeId>(doc.graph().node_count());
  core::NodeId at = 0;
  for (auto _ : state) {
    view->centerOn(at);
    benchmark::DoNotOptimize(view->grab());
    at = (at + 97) % n;
  }
  state.counters["items"] = static_cast<double>(view->paintedItems());  // the last frame's nodes and edges in view
}

// The graph fitted: every node on screen (from 5k operators, the overview picture).
void BM_PaintGraphFitted(benchmark::State& state) {
  auto& doc = document(static_cast<int>(state.range(0)));
  auto view = shown<ui::GraphView>(doc);
  view->fit();
  for (auto _ : state) benchmark::DoNotOptimize(view->grab());
  state.counters["overview"] = view->paintedOverview();
  state.counters["items"] = static_cast<double>(view->paintedItems());
}

// The memory view (growth chart and offset map) redrawn, nothing changed (the offset map from its
// picture of the blocks).
void BM_PaintMemory(benchmark::State& state) {
  auto& doc = document(static_cast<int>(state.range(0)));
  auto view = shown<ui::MemoryView>(doc);
  for (auto _ : state) benchmark::DoNotOptimize(view->grab());
}

// The wide model in a document on the studio's first schedule (cp-list, 8 streams), studied.
ui::StudioDocument& wide_document(int operators) {
  static std::map<int, std::unique_ptr<ui::StudioDocument>> docs;
  auto& slot = docs[operators];
  if (!slot) {
    const bench::SyntheticModel model = bench::make_synthetic_model(bench::SyntheticFamily::Wide, operators);
    auto graph = core::import_onnx_bytes(model.bytes, "wide.onnx");
    auto device = core::load_device(core::default_device_name());
    if (!graph || !device) std::abort();
    ui::LoadedModel m;
    m.graph = std::make_shared<core::Graph>(std::move(*graph));
    m.device = *device;
    m.analysis = std::make_shared<core::AnalysisReport>(core::analyze(*m.graph, core::estimate_costs(*m.graph, m.device)));
    auto schedule = core::make_schedule("cp-list", *m.graph, m.analysis->costs, m.device);
    if (!schedule) std::abort();
    m.schedule = std::move(*schedule);
    slot = std::make_unique<ui::StudioDocument>();
    slot->setModel(std::move(m));
    slot->waitForStudy();
  }
  return *slot;
}

// The memory view's growth chart drawing its lines afresh (new data without a picture, as after a
// resize or on a model the view adapts on the GUI thread) and shown, on the wide model.
void BM_PaintGrowthLines(benchmark::State& state) {
  auto& doc = wide_document(static_cast<int>(state.range(0)));
  auto view = shown<ui::MemoryView>(doc);
  view->model();
  ui::GrowthChart* chart = view->chart();
  // The series as the view's own width decimates them (made again once its first layout settled).
  QElapsedTimer wait;
  wait.start();
  while (chart->data().columns != chart->plotColumns() && wait.elapsed() < 60000)
    QApplication::processEvents(QEventLoop::AllEvents, 20);
  const ui::GrowthChart::Data data = chart->data();
  for (auto _ : state) {
    chart->setData(data);
    benchmark::DoNotOptimize(chart->grab());
  }
  std::size_t points = 0;
  for (const auto& line : data.points) points += static_cast<std::size_t>(line.size());
  state.counters["points"] = static_cast<double>(points);
  state.counters["columns"] = chart->plotColumns();
}

// The GUI thread's CPU time, ms: on this shared machine a slice's wall time also counts the
// time other processes (and the studio's own workers) held the core.
double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// WEFT_BENCH_TRACE=1: each slice of BM_EditFrames over 6 ms of GUI CPU is printed on stderr with
// the events that made it (receiver class/name:QEvent type, GUI CPU ms; paint events of child
// widgets listed too, inside their window's UpdateRequest = 77): which work stacked in a slice.
struct Delivery {
  double cpu_ms;
  QString what;
};
std::vector<Delivery> g_deliveries;
const bool g_trace = std::getenv("WEFT_BENCH_TRACE") != nullptr;

// Runs the event loop in slices until the document's edit and study are in and the views have
// redrawn; returns the longest slice, wall and GUI-thread CPU ms.
std::pair<double, double> longest_slices(ui::StudioDocument& doc, double first_wall, double first_cpu) {
  double wall = first_wall, cpu = first_cpu;
  QElapsedTimer clock;
  auto slice = [&] {
    clock.start();
    const double c0 = thread_cpu_ms();
    g_deliveries.clear();
    QApplication::processEvents(QEventLoop::AllEvents, 1);
    wall = std::max(wall, static_cast<double>(clock.nsecsElapsed()) / 1e6);
    const double c = thread_cpu_ms() - c0;
    cpu = std::max(cpu, c);
    if (g_trace && c > 6) {
      std::fprintf(stderr, "slice %.1f ms cpu:", c);
      for (const auto& d : g_deliveries)
        if (d.cpu_ms > 0.3) std::fprintf(stderr, " [%s %.1f]", qPrintable(d.what), d.cpu_ms);
      std::fprintf(stderr, "\n");
    }
  };
  while (doc.editPending() || doc.studyPending()) slice();
  slice();  // the views' redraw of what arrived last
  slice();  // and of jobs they started (the overview picture, the lanes' positions)
  return {wall, cpu};
}

// One random valid move and its undo per iteration (a drop on another lane, then Ctrl+Z); the
// time is the GUI thread's longest stretch at once from the drop until the study of the move is
// in and drawn, then from the undo until its study is in and drawn: the longest frame.
void BM_EditFrames(benchmark::State& state) {
  auto& doc = wide_document(static_cast<int>(state.range(0)));
  auto lanes = shown<ui::LanesView>(doc);
  auto graph = shown<ui::GraphView>(doc);
  auto timeline = shown<ui::TimelineView>(doc);
  std::unique_ptr<ui::MemoryView> memory;
  if (state.range(1)) memory = shown<ui::MemoryView>(doc);  // its tab in front of the lanes
  longest_slices(doc, 0, 0);  // the views' first layout and pictures
  std::mt19937_64 rng(5);
  const auto n = static_cast<core::NodeId>(doc.graph().node_count());
  double edit_ms = 0, undo_ms = 0, longest_ms = 0, longest_cpu_ms = 0;
  for (auto _ : state) {
    QElapsedTimer clock;
    double c0 = 0;
    bool moved = false;
    for (int tries = 0; tries < 1000 && !moved; ++tries) {
      const core::Schedule& s = doc.schedule();
      const core::NodeId v = static_cast<core::NodeId>(rng() % static_cast<std::uint64_t>(n));
      const int stream = static_cast<int>(rng() % s.stream_count());
      const auto& target = s.streams[static_cast<std::size_t>(stream)];
      const int position = target.empty() ? 0 : static_cast<int>(rng() % target.size());
      const int steps = doc.undoStack()->count();
      clock.start();
      c0 = thread_cpu_ms();
      doc.moveNodes({v}, stream, position);
      double wall = static_cast<double>(clock.nsecsElapsed()) / 1e6, cpu = thread_cpu_ms() - c0;
      edit_ms += wall;
      auto [w, c] = longest_slices(doc, wall, cpu);  // a refused move is a try
      moved = doc.undoStack()->count() > steps;
      if (moved) {
        longest_ms = std::max(longest_ms, w);
        longest_cpu_ms = std::max(longest_cpu_ms, c);
        state.SetIterationTime(w / 1e3);
      }
    }
    clock.start();
    c0 = thread_cpu_ms();
    doc.undoStack()->undo();
    const double wall = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    undo_ms += wall;
    auto [w, c] = longest_slices(doc, wall, thread_cpu_ms() - c0);
    longest_ms = std::max(longest_ms, w);
    longest_cpu_ms = std::max(longest_cpu_ms, c);
  }
  state.counters["edit_ms"] = edit_ms / static_cast<double>(state.iterations());
  state.counters["undo_ms"] = undo_ms / static_cast<double>(state.iterations());
  state.counters["longest_frame_ms"] = longest_ms;
  state.counters["longest_frame_cpu_ms"] = longest_cpu_ms;
  state.counters["graph_overview"] = graph->paintedOverview();
  if (memory) {
    // What the growth chart holds: its lines' points and the plot's pixel columns they fit.
    std::size_t points = 0;
    for (const auto& line : memory->chart()->data().points) points += static_cast<std::size_t>(line.size());
    state.counters["chart_points"] = static_cast<double>(points);
    state.counters["chart_columns"] = memory->chart()->plotColumns();
  }
}

}  // namespace

BENCHMARK(BM_EditFrames)->Args({10000, 0})->Args({100000, 0})->Args({100000, 1})->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_PaintTimelinePan)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PaintTimelineFitted)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PaintLanesPan)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PaintGraphPan)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PaintGraphFitted)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PaintGrowthLines)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PaintMemory)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

namespace {

// Times each event the event loop delivers (and each paint event inside it) for WEFT_BENCH_TRACE.
class TracedApplication : public QApplication {
 public:
  using QApplication::QApplication;
  bool notify(QObject* receiver, QEvent* event) override {
    if (!g_trace || (m_depth > 0 && event->type() != QEvent::Paint)) return QApplication::notify(receiver, event);
    ++m_depth;
    const double c0 = thread_cpu_ms();
    const bool done = QApplication::notify(receiver, event);
    --m_depth;
    g_deliveries.push_back({thread_cpu_ms() - c0, QString("%1/%2:%3")
                                                      .arg(receiver->metaObject()->className(), receiver->objectName())
                                                      .arg(static_cast<int>(event->type()))});
    return done;
  }

 private:
  int m_depth = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 0);
  TracedApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
