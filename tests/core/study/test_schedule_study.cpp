// The study's stages: the prediction is made before the memory report and handed to
// on_prediction (memory empty, no arena counter yet); the complete study carries the same
// prediction, with the arena counter the plan adds, equal to simulating with the plan.
#include <gtest/gtest.h>

#include <string>

#include "weft/core/analysis/analyze.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/schedule_study.h"

using namespace weft;

namespace {

struct Model {
  core::Graph graph;
  core::DeviceSpec device;
  core::CostTable costs;
};

Model load(const std::string& name) {
  core::ImportOptions o;
  o.dims = {{"batch", 1}};  // the exports' dynamic batch: real tensor sizes to plan
  auto g = core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/" + name + ".onnx", o);
  if (!g) ADD_FAILURE() << g.error().message;
  auto d = core::load_device("h200");
  if (!d) ADD_FAILURE() << d.error().message;
  core::CostTable costs = core::estimate_costs(*g, *d);
  return {std::move(*g), std::move(*d), std::move(costs)};
}

void expect_same_samples(const std::vector<core::CounterSample>& a, const std::vector<core::CounterSample>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].time_us, b[i].time_us) << i;
    EXPECT_EQ(a[i].value, b[i].value) << i;
  }
}

}  // namespace

TEST(ScheduleStudy, PredictionArrivesBeforeTheMemoryReport) {
  for (const char* name : {"randwire_ws", "inception_v3"}) {
    SCOPED_TRACE(name);
    const Model m = load(name);
    core::StrategyOptions so;
    so.cuda_graph = true;
    auto schedule = core::make_schedule("cp-list", m.graph, m.costs, m.device, so);
    ASSERT_TRUE(schedule) << schedule.error().message;
    ASSERT_GT(schedule->stream_count(), 1u);

    core::StudyOptions options;
    options.mode = core::LaunchMode::Graph;
    options.memory_options.growth = true;
    int calls = 0;
    std::optional<core::ScheduleStudy> early;
    options.on_prediction = [&](const core::ScheduleStudy& s) {
      ++calls;
      early = s;
    };
    auto study = core::study_schedule(m.graph, m.costs, m.device, *schedule, options);
    ASSERT_TRUE(study) << study.error().message;
    ASSERT_EQ(calls, 1);
    ASSERT_TRUE(early->prediction);
    EXPECT_FALSE(early->memory);                              // planned after the prediction
    EXPECT_TRUE(early->prediction->timeline.arena_bytes.empty());  // the plan's counter comes later
    EXPECT_EQ(early->ideal_makespan_us, study->ideal_makespan_us);

    ASSERT_TRUE(study->prediction && study->memory);
    const core::Prediction& p = *study->prediction;
    EXPECT_EQ(early->prediction->makespan_us, p.makespan_us);
    EXPECT_EQ(early->prediction->speedup_vs_graph, p.speedup_vs_graph);
    EXPECT_EQ(early->prediction->speedup_vs_eager, p.speedup_vs_eager);
    ASSERT_EQ(early->prediction->timeline.items.size(), p.timeline.items.size());
    for (std::size_t i = 0; i < p.timeline.items.size(); ++i) {
      EXPECT_EQ(early->prediction->timeline.items[i].start_us, p.timeline.items[i].start_us);
      EXPECT_EQ(early->prediction->timeline.items[i].end_us, p.timeline.items[i].end_us);
    }
    // The arena counter the plan added equals simulating with the plan, as before the split.
    ASSERT_FALSE(p.timeline.arena_bytes.empty());
    core::SimOptions sim;
    sim.cuda_graph = true;
    sim.plan = &study->memory->plan;
    const core::Timeline with_plan = core::simulate(m.graph, study->schedule, m.costs, m.device, sim);
    expect_same_samples(p.timeline.arena_bytes, with_plan.arena_bytes);
    double peak = 0;
    for (const auto& s : p.timeline.arena_bytes) peak = std::max(peak, s.value);
    EXPECT_GT(peak, 0);
    EXPECT_LE(peak, static_cast<double>(study->memory->arena_bytes()));
    EXPECT_FALSE(study->memory->growth.live_over_time.empty());  // growth over the predicted run
  }
}

TEST(ScheduleStudy, NoEarlyCallWithoutAMemoryReportOrWhenCancelled) {
  const Model m = load("squeezenet1_1");
  const core::Schedule schedule = core::make_schedule("chains", m.graph, m.costs, m.device, {}).value();
  int calls = 0;
  core::StudyOptions options;
  options.on_prediction = [&](const core::ScheduleStudy&) { ++calls; };
  options.memory = false;  // the study is complete with its prediction: nothing comes early
  auto study = core::study_schedule(m.graph, m.costs, m.device, schedule, options);
  ASSERT_TRUE(study && study->prediction);
  EXPECT_EQ(calls, 0);
  options.memory = true;
  options.cancelled = [] { return true; };
  study = core::study_schedule(m.graph, m.costs, m.device, schedule, options);
  ASSERT_TRUE(study);
  EXPECT_TRUE(study->cancelled);
  EXPECT_EQ(calls, 0);
  EXPECT_FALSE(study->prediction);
}

TEST(ScheduleStudy, ANewerEditStopsTheMemoryReport) {
  // Cancelled once the prediction is out (as a newer edit in the studio does): the memory report
  // stops at its next stage and the study comes back cancelled, with its prediction, no memory.
  const Model m = load("randwire_ws");
  const core::Schedule schedule = core::make_schedule("cp-list", m.graph, m.costs, m.device, {}).value();
  bool superseded = false;
  core::StudyOptions options;
  options.cancelled = [&] { return superseded; };
  options.on_prediction = [&](const core::ScheduleStudy&) { superseded = true; };
  auto study = core::study_schedule(m.graph, m.costs, m.device, schedule, options);
  ASSERT_TRUE(study) << study.error().message;
  EXPECT_TRUE(study->cancelled);
  EXPECT_TRUE(study->prediction);
  EXPECT_FALSE(study->memory);
  // The report itself, asked to stop, says so.
  core::MemoryReportOptions stop;
  stop.cancelled = [] { return true; };
  auto report = core::memory_report(m.graph, schedule, stop);
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().message, "cancelled");
}
