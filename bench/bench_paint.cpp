// Paint time of the studio's views while panning (issue 16: pan and zoom at 60 frames per second,
// 16.7 ms a frame, at 10k operators). A synthetic model (ui::make_synthetic_graph, 4 random
// streams with their events) is loaded into a document, its study applied, and each iteration
// moves the view and renders it into a pixmap (QWidget::grab: the view's whole paint, as a frame
// would draw it). Offscreen unless QT_QPA_PLATFORM says otherwise. Args: nodes.
// BM_EditFrames (issue 45): the longest stretch the GUI thread spends at once from one edit in
// the studio (a node moved to another stream) until its study has arrived and every view has
// redrawn, with the lanes, graph and timeline views shown, on issue 45's wide model (100k
// operators: bench/synthetic_models.h, cp-list on 8 streams, as the studio opens it).
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QScrollBar>
#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>

#include "synthetic_models.h"

#include "test_graphs.h"
#include "weft/core/schedule/sync.h"
#include "weft/ui/graph_view.h"
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
}

// The graph fitted: every node on screen.
void BM_PaintGraphFitted(benchmark::State& state) {
  auto& doc = document(static_cast<int>(state.range(0)));
  auto view = shown<ui::GraphView>(doc);
  view->fit();
  for (auto _ : state) benchmark::DoNotOptimize(view->grab());
}

// The memory view (growth chart and offset map) redrawn.
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

// One random valid move per iteration; the time is the GUI thread's longest stretch (the edit
// itself, then each batch of events until the study is in and drawn): the longest frame.
void BM_EditFrames(benchmark::State& state) {
  auto& doc = wide_document(static_cast<int>(state.range(0)));
  auto lanes = shown<ui::LanesView>(doc);
  auto graph = shown<ui::GraphView>(doc);
  auto timeline = shown<ui::TimelineView>(doc);
  std::mt19937_64 rng(5);
  const auto n = static_cast<core::NodeId>(doc.graph().node_count());
  double edit_ms = 0, longest_ms = 0;
  for (auto _ : state) {
    QElapsedTimer clock;
    bool moved = false;
    for (int tries = 0; tries < 1000 && !moved; ++tries) {
      const core::Schedule& s = doc.schedule();
      const core::NodeId v = static_cast<core::NodeId>(rng() % static_cast<std::uint64_t>(n));
      const int stream = static_cast<int>(rng() % s.stream_count());
      const auto& target = s.streams[static_cast<std::size_t>(stream)];
      const int position = target.empty() ? 0 : static_cast<int>(rng() % target.size());
      clock.start();
      moved = doc.moveNodes({v}, stream, position);
    }
    double longest = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    edit_ms += longest;
    while (doc.studyPending()) {
      clock.start();
      QApplication::processEvents(QEventLoop::AllEvents, 1);
      longest = std::max(longest, static_cast<double>(clock.nsecsElapsed()) / 1e6);
    }
    clock.start();
    QApplication::processEvents();  // the views' redraw of what arrived last
    longest = std::max(longest, static_cast<double>(clock.nsecsElapsed()) / 1e6);
    longest_ms = std::max(longest_ms, longest);
    state.SetIterationTime(longest / 1e3);
  }
  state.counters["edit_ms"] = edit_ms / static_cast<double>(state.iterations());
  state.counters["longest_frame_ms"] = longest_ms;
}

}  // namespace

BENCHMARK(BM_EditFrames)->Arg(10000)->Arg(100000)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_PaintTimelinePan)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PaintTimelineFitted)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PaintLanesPan)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PaintGraphPan)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PaintGraphFitted)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PaintMemory)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 0);
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
