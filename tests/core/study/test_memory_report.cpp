// The memory report plans the reference schedule's side on a second thread on large models
// (MemoryReportOptions::parallel): the report is the same as on one thread, errors and
// cancellation come back the same way. Also run under ThreadSanitizer (the tsan preset).
#include <gtest/gtest.h>

#include <atomic>

#include "test_graphs.h"
#include "weft/core/base/beside.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/study/schedule_study.h"
#include "weft/core/schedule/sync.h"

using namespace weft;

namespace {

core::Schedule schedule_of(const core::Graph& g, int streams, std::uint64_t seed) {
  core::Schedule s = test::random_schedule(g, streams, seed, {.drop_empty_streams = true});
  s.events = core::compute_events(g, s);
  return s;
}

}  // namespace

TEST(MemoryReport, BesideEqualsOneThread) {
  const core::Graph g = test::make_random_dag(1500, 0.004, 3);
  ASSERT_GE(g.node_count(), 1000u);  // large enough for the second thread
  const core::Schedule schedule = schedule_of(g, 4, 3);
  core::MemoryReportOptions beside;
  beside.growth = true;
  core::MemoryReportOptions alone = beside;
  alone.parallel = false;
  auto a = core::memory_report(g, schedule, beside);
  auto b = core::memory_report(g, schedule, alone);
  ASSERT_TRUE(a) << a.error().message;
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(a->plan.offset, b->plan.offset);
  EXPECT_EQ(a->reference_plan.offset, b->reference_plan.offset);
  EXPECT_EQ(a->reference_plan.arena_bytes, b->reference_plan.arena_bytes);
  EXPECT_EQ(a->bound.bytes, b->bound.bytes);
  EXPECT_EQ(a->linear_bound_bytes, b->linear_bound_bytes);
  EXPECT_EQ(a->file_order_linear_bound_bytes, b->file_order_linear_bound_bytes);
  EXPECT_EQ(a->no_reuse_bytes, b->no_reuse_bytes);
  EXPECT_EQ(a->growth.live_bytes, b->growth.live_bytes);
  EXPECT_EQ(a->reference_growth.live_bytes, b->reference_growth.live_bytes);
  EXPECT_EQ(a->reference_growth.high_water, b->reference_growth.high_water);
  EXPECT_GT(a->reference_plan.arena_bytes, 0);
  ASSERT_EQ(a->planners.size(), b->planners.size());
  for (std::size_t i = 0; i < a->planners.size(); ++i) EXPECT_EQ(a->planners[i].arena_bytes, b->planners[i].arena_bytes);
}

TEST(MemoryReport, ErrorsAndCancellationBesideTheSchedule) {
  // An unknown planner fails both sides: the schedule's error comes back, the other thread ends.
  const core::Graph g = test::make_random_dag(1200, 0.004, 5);
  const core::Schedule schedule = schedule_of(g, 3, 5);
  core::MemoryReportOptions options;
  options.planner = "no-such-planner";
  auto bad = core::memory_report(g, schedule, options);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(bad.error().message.find("no-such-planner"), std::string::npos) << bad.error().message;
  // Cancelled after a few polls (from either thread): the report stops with "cancelled".
  std::atomic<int> polls{0};
  core::MemoryReportOptions cancelled;
  cancelled.cancelled = [&polls] { return ++polls > 2; };
  auto stopped = core::memory_report(g, schedule, cancelled);
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().message, "cancelled");
}

TEST(MemoryReport, DeferredWorkNobodyAsksForIsNotRun) {
  // One thread (parallel off): the work waits for get(); dropped without it, it never runs.
  std::atomic<bool> ran{false};
  {
    core::Beside<int> beside([&ran] {
      ran = true;
      return 1;
    }, false);
  }
  EXPECT_FALSE(ran);
  core::Beside<int> asked([&ran] {
    ran = true;
    return 2;
  }, false);
  EXPECT_EQ(asked.get(), 2);
  EXPECT_TRUE(ran);
}

TEST(MemoryReport, RepairStageSkipsAReportItCannotRepair) {
  // A study asked to repair a report planned with another alignment makes no repaired stage and
  // still returns its complete report (the stage is optional, never the study's error).
  const core::Graph g = test::make_random_dag(60, 0.1, 9);
  const core::Schedule schedule = schedule_of(g, 3, 9);
  core::MemoryReportOptions other;
  other.plan.alignment = 512;
  auto previous = core::memory_report(g, schedule, other);
  ASSERT_TRUE(previous) << previous.error().message;
  auto order = core::ExecutionOrder::build(g, schedule);
  ASSERT_TRUE(order);
  auto direct = core::repaired_memory_report(g, *order, *previous, core::MemoryReportOptions{});
  ASSERT_FALSE(direct);
  EXPECT_NE(direct.error().message.find("other options"), std::string::npos) << direct.error().message;
  auto device = core::load_device(core::default_device_name());
  ASSERT_TRUE(device);
  core::StudyOptions options;
  options.repair_from = &*previous;
  int repaired = 0;
  options.on_repaired = [&repaired](const core::ScheduleStudy&) { ++repaired; };
  auto study = core::study_schedule(g, core::estimate_costs(g, *device), *device, schedule, options);
  ASSERT_TRUE(study) << study.error().message;
  EXPECT_EQ(repaired, 0);
  ASSERT_TRUE(study->memory);
  EXPECT_FALSE(study->memory->repaired);
  // The same report with matching options is repaired once.
  auto same = core::memory_report(g, schedule);
  ASSERT_TRUE(same);
  options.repair_from = &*same;
  study = core::study_schedule(g, core::estimate_costs(g, *device), *device, schedule, options);
  ASSERT_TRUE(study);
  EXPECT_EQ(repaired, 1);
}
