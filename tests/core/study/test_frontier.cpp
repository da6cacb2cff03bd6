// The speed-versus-memory front: every point is a valid schedule whose planned arena is as
// reported (and within its budget); the front is monotone; CSV and SVG carry every point.
#include <gtest/gtest.h>

#include <string>

#include "weft/core/onnx/onnx_import.h"
#include "weft/core/memory/plan_checker.h"
#include "weft/core/study/frontier.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/schedule/sync.h"

using namespace weft;

namespace {

core::Frontier frontier_of(const std::string& model, bool cuda_graph, std::int64_t batch = 0) {
  core::ImportOptions io;
  if (batch > 0) io.dims["batch"] = batch;
  auto g = core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/" + model, io);
  if (!g) std::abort();
  auto d = core::load_device(core::default_device_name());
  if (!d) std::abort();
  const core::CostTable costs = core::estimate_costs(*g, *d);
  core::FrontierOptions o;
  o.strategy.cuda_graph = cuda_graph;
  auto f = core::memory_frontier(*g, costs, *d, o);
  EXPECT_TRUE(f) << f.error().message;
  // Check every point against an independent plan on the same graph.
  for (const core::FrontierPoint& p : f->points) {
    EXPECT_TRUE(core::validate_schedule(*g, p.schedule)) << p.label();
    auto plan = core::study_plan(*g, p.schedule);
    EXPECT_TRUE(plan);
    if (!plan) continue;
    EXPECT_EQ(plan->arena_bytes, p.arena_bytes) << p.label();
    EXPECT_TRUE(core::check_plan(*g, p.schedule, *plan)) << p.label();
    if (p.budget_bytes > 0) {
      EXPECT_LE(p.arena_bytes, p.budget_bytes) << p.label();
    }
    EXPECT_DOUBLE_EQ(p.predicted_us, core::predicted_makespan_us(*g, p.schedule, costs, *d, f->mode)) << p.label();
  }
  return std::move(*f);
}

void expect_monotone(const core::Frontier& f) {
  ASSERT_FALSE(f.front.empty());
  for (std::size_t k = 1; k < f.front.size(); ++k) {
    const core::FrontierPoint& a = f.points[f.front[k - 1]];
    const core::FrontierPoint& b = f.points[f.front[k]];
    EXPECT_LT(a.arena_bytes, b.arena_bytes);
    EXPECT_GT(a.predicted_us, b.predicted_us) << "more memory must predict faster along the front";
  }
  // Pareto: no point beats a front point in both arena and time.
  for (std::size_t i : f.front)
    for (const core::FrontierPoint& q : f.points)
      EXPECT_FALSE(q.arena_bytes <= f.points[i].arena_bytes && q.predicted_us < f.points[i].predicted_us)
          << q.label() << " dominates " << f.points[i].label();
  // The cheapest point in memory is on the front and no larger than the sequential arena.
  EXPECT_LE(f.points[f.front.front()].arena_bytes, f.sequential_arena_bytes);
}

}  // namespace

// A transformer at batch 8 under CUDA Graph replay: its heads run concurrently only at a
// memory price, so the front spans from the sequential arena to the fastest schedule's, and
// budget-constrained variants sit on it between the two.
TEST(Frontier, TransformerGraphReplayIsMonotone) {
  const core::Frontier f = frontier_of("transformer4h.onnx", true, 8);
  expect_monotone(f);
  EXPECT_GE(f.front.size(), 3u);
  bool budgeted_on_front = false;
  for (std::size_t i : f.front) budgeted_on_front = budgeted_on_front || f.points[i].budget_bytes > 0;
  EXPECT_TRUE(budgeted_on_front);
  EXPECT_GT(f.points[f.front.back()].arena_bytes, f.sequential_arena_bytes);
  EXPECT_GT(f.points[f.front.back()].speedup, 1.5);
}

// googlenet: one large early activation sets every schedule's arena, so concurrency is free in
// memory and the front is a single point, the fastest schedule.
TEST(Frontier, GooglenetFrontIsOnePoint) {
  const core::Frontier f = frontier_of("googlenet.onnx", true);
  expect_monotone(f);
  ASSERT_EQ(f.front.size(), 1u);
  for (const core::FrontierPoint& p : f.points) EXPECT_GE(p.predicted_us, f.points[f.front[0]].predicted_us);
}

// squeezenet with eager launches: still a monotone front, and the exports carry every point.
TEST(Frontier, SqueezenetEagerExports) {
  const core::Frontier f = frontier_of("squeezenet1_1.onnx", false);
  expect_monotone(f);
  const std::string csv = core::frontier_csv(f);
  std::size_t lines = 0;
  for (char c : csv) lines += c == '\n';
  EXPECT_EQ(lines, f.points.size() + 1);
  EXPECT_EQ(csv.rfind("strategy,stream_cap,budget_bytes,", 0), 0u);
  const std::string svg = core::frontier_svg(f, "squeezenet <front>", f.points.front().arena_bytes, 1.0);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("squeezenet &lt;front&gt;"), std::string::npos);
  std::size_t circles = 0;
  for (std::size_t at = svg.find("<circle"); at != std::string::npos; at = svg.find("<circle", at + 1)) ++circles;
  EXPECT_EQ(circles, f.points.size() + 1);  // every point and the current schedule's marker
}

// pareto_front on hand-made points: dominated and equal points drop out, order by arena.
TEST(Frontier, ParetoFilter) {
  std::vector<core::FrontierPoint> pts(5);
  const std::int64_t arena[] = {300, 100, 200, 200, 400};
  const double us[] = {50, 100, 60, 80, 55};
  for (std::size_t i = 0; i < 5; ++i) {
    pts[i].arena_bytes = arena[i];
    pts[i].predicted_us = us[i];
  }
  EXPECT_EQ(core::pareto_front(pts), (std::vector<std::size_t>{1, 2, 0}));
}
