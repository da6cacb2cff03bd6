// Liveness too dense to list (PlanOptions::max_conflict_pairs): the conflicts are counted, not
// listed; every block gets a conservative live range, and under several streams its dead-from
// frontiers; the stream sweep (by the frontiers) or the interval sweep (by the ranges: one stream,
// or views with several writers) plans them. A plan made that way passes the exact check (an
// independent, listed liveness) on real models, strategies and a micro-batch split with views.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "test_models.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/memory/liveness.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/transform/micro_batch.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/memory/plan_checker.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/memory_budget.h"
#include "weft/core/study/memory_report.h"

using namespace weft;

namespace {

core::Graph load(const std::string& name) { return test::load_with_batch(name, 2); }

// Listed pairs of a liveness (each once).
std::int64_t listed_pairs(const core::Liveness& live) {
  std::int64_t n = 0;
  for (const auto& list : live.problem.conflicts) n += static_cast<std::int64_t>(list.size());
  return n / 2;
}

// A planned block written by several nodes (a split output's parent, with outputs in the arena).
bool has_several_writers(const core::Graph& g, const core::Liveness& live) {
  return std::any_of(live.tensors.begin(), live.tensors.end(), [&](core::TensorId t) { return g.writers(t).size() > 1; });
}

void expect_sweep_plan_is_valid(const core::Graph& g, const core::Schedule& schedule, const std::string& what) {
  SCOPED_TRACE(what);
  auto order = core::ExecutionOrder::build(g, schedule);
  ASSERT_TRUE(order) << order.error().message;
  const core::Liveness exact = core::compute_liveness(g, *order);
  ASSERT_FALSE(exact.problem.conflicts_omitted());
  core::PlanOptions dense;
  dense.max_conflict_pairs = 1;
  const core::Liveness counted = core::compute_liveness(g, *order, dense);
  if (listed_pairs(exact) <= 1) return;  // nothing to omit
  ASSERT_TRUE(counted.problem.conflicts_omitted());
  EXPECT_EQ(counted.problem.omitted_conflict_pairs, listed_pairs(exact));  // counted exactly
  EXPECT_TRUE(counted.problem.conflicts.empty());
  EXPECT_EQ(counted.problem.conflicts_are_overlaps, order->stream_count() <= 1);
  // Each range still spans at least its producer through its last reader (in the order of the
  // ranges, by depth in happens-before for several streams).
  for (std::size_t b = 0; b < counted.tensors.size(); ++b) EXPECT_LE(counted.problem.start[b], counted.problem.end[b]);

  // Several streams and one writer per block: the frontiers, and the stream sweep plans.
  const bool by_streams = order->stream_count() > 1 && !has_several_writers(g, counted);
  EXPECT_EQ(counted.problem.frontiers.empty(), !by_streams);
  const std::string sweep = by_streams ? "stream-sweep" : "sweep";
  auto plans = core::plan_memory_all(g, counted, dense, 0);
  ASSERT_TRUE(plans) << plans.error().message;
  ASSERT_EQ(plans->size(), 1u);
  const core::MemoryPlan& plan = plans->front();
  EXPECT_EQ(plan.planner, sweep);
  auto ok = core::check_plan(g, *order, plan);  // the exact, listed liveness
  EXPECT_TRUE(ok) << ok.error().message;
  ok = core::check_plan(g, *order, plan, 1);  // the same verdict without listing
  EXPECT_TRUE(ok) << ok.error().message;

  // A listed planner's plan reuses bytes the conservative ranges would keep apart: the unlisted
  // check still accepts it (it tests those pairs by the clocks), and refuses it once two tensors
  // that may be live at once are made to share bytes.
  auto listed = core::study_plan(g, *order);
  ASSERT_TRUE(listed) << listed.error().message;
  ok = core::check_plan(g, *order, *listed, 1);
  EXPECT_TRUE(ok) << ok.error().message;
  bool broke = false;
  for (std::size_t b = 0; b < exact.tensors.size() && !broke; ++b)
    for (std::int32_t c : exact.problem.conflicts[b]) {
      core::MemoryPlan bad = *listed;
      bad.offset[static_cast<std::size_t>(exact.tensors[static_cast<std::size_t>(c)])] =
          bad.offset[static_cast<std::size_t>(exact.tensors[b])];
      auto refused = core::check_plan(g, *order, bad, 1);
      ASSERT_FALSE(refused);
      EXPECT_NE(refused.error().message.find("may be live at once"), std::string::npos) << refused.error().message;
      broke = true;
      break;
    }
  EXPECT_TRUE(broke);
  const auto bound = core::concurrent_lower_bound(g, *order, dense);
  EXPECT_GE(plan.arena_bytes, bound.bytes);
  EXPECT_LE(plan.arena_bytes, core::plan_no_reuse(g, dense.alignment, false).arena_bytes);

  // The study's pipeline takes the same path: one planner, the sweep.
  auto studied = core::study_plan(g, *order, core::kReferencePlanner, dense);
  ASSERT_TRUE(studied) << studied.error().message;
  EXPECT_EQ(studied->planner, sweep);
  EXPECT_EQ(studied->arena_bytes, plan.arena_bytes);
  // A planner asked for by name gets the sweep too (nothing else can place such a problem).
  auto named = core::plan_memory(g, counted, "exact", dense, 0);
  ASSERT_TRUE(named) << named.error().message;
  EXPECT_EQ(named->planner, sweep);
}

}  // namespace

TEST(DenseLiveness, SweepPlansPassTheExactCheck) {
  auto device = core::load_device(core::default_device_name());
  ASSERT_TRUE(device);
  for (const char* name : {"randwire_ws", "googlenet", "transformer4h", "inception_v3"}) {
    const core::Graph g = load(name);
    const core::CostTable costs = core::estimate_costs(g, *device);
    for (const char* strategy : {"sequential", "level-rr", "chains", "cp-list"}) {
      core::StrategyOptions so;
      so.cuda_graph = true;  // many streams, few merges
      auto schedule = core::make_schedule(strategy, g, costs, *device, so);
      ASSERT_TRUE(schedule) << schedule.error().message;
      expect_sweep_plan_is_valid(g, *schedule, std::string(name) + " " + strategy);
    }
  }
}

TEST(DenseLiveness, SplitModelsViewsStayInsideTheirParents) {
  auto device = core::load_device(core::default_device_name());
  ASSERT_TRUE(device);
  const core::Graph g = load("randwire_ws");  // batch 2
  auto split = core::split_batch(g, 2);
  ASSERT_TRUE(split) << split.error().message;
  ASSERT_GT(split->node_count(), g.node_count());
  const core::CostTable costs = core::estimate_costs(*split, *device);
  auto schedule = core::make_schedule("split-overlap", *split, costs, *device, {});
  ASSERT_TRUE(schedule) << schedule.error().message;
  ASSERT_GT(schedule->stream_count(), 1u);
  expect_sweep_plan_is_valid(*split, *schedule, "randwire_ws split 2");
  // With outputs in the arena the split output is one block with several writers (its views).
  auto order = core::ExecutionOrder::build(*split, *schedule);
  ASSERT_TRUE(order);
  core::PlanOptions dense;
  dense.max_conflict_pairs = 1;
  dense.outputs_in_arena = true;
  const core::Liveness counted = core::compute_liveness(*split, *order, dense);
  ASSERT_TRUE(counted.problem.conflicts_omitted());
  auto plans = core::plan_memory_all(*split, counted, dense, 0);
  ASSERT_TRUE(plans);
  auto ok = core::check_plan(*split, *order, plans->front());
  EXPECT_TRUE(ok) << ok.error().message;
}

TEST(DenseLiveness, IntervalCheckFindsOverlaps) {
  // Three ranges, 0 and 1 overlapping in time: a placement sharing their bytes is refused, one
  // sharing 0's bytes with 2 (disjoint in time) is not.
  core::AllocationProblem p;
  p.size = {64, 64, 64};
  p.start = {0, 1, 5};
  p.end = {3, 4, 6};
  p.alignment = 64;
  p.omitted_conflict_pairs = 1;
  core::Placement bad;
  bad.offset = {0, 0, 64};
  bad.arena_bytes = 128;
  auto refused = core::check_placement(p, bad);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("blocks 1 and 0"), std::string::npos) << refused.error().message;
  core::Placement good;
  good.offset = {0, 64, 0};
  good.arena_bytes = 128;
  EXPECT_TRUE(core::check_placement(p, good));
  auto swept = core::place_blocks(p, "greedy-by-size", {}, 0);
  ASSERT_TRUE(swept);
  EXPECT_EQ(swept->planner, "sweep");
  EXPECT_EQ(swept->arena_bytes, 128);  // 2 reuses 0's bytes
}

TEST(DenseLiveness, BudgetFitsWithoutListedConflicts) {
  // A budget between the concurrent bound and the stream sweep's arena: the fit serialises pairs chosen
  // from the overlapping ranges (there is no list to choose them from) and, when it fits, its plan
  // passes the exact check; it never reads a list that is not there.
  auto device = core::load_device(core::default_device_name());
  ASSERT_TRUE(device);
  const core::Graph g = load("randwire_ws");
  const core::CostTable costs = core::estimate_costs(g, *device);
  core::StrategyOptions so;
  so.cuda_graph = true;
  auto schedule = core::make_schedule("cp-list", g, costs, *device, so);
  ASSERT_TRUE(schedule);
  core::BudgetOptions options;
  options.plan.max_conflict_pairs = 1;
  auto swept = core::study_plan(g, *schedule, core::kReferencePlanner, options.plan);
  ASSERT_TRUE(swept);
  ASSERT_EQ(swept->planner, "stream-sweep");
  auto bound = core::concurrent_lower_bound(g, *schedule, options.plan);
  ASSERT_TRUE(bound);
  ASSERT_LT(bound->bytes, swept->arena_bytes);
  options.budget_bytes = (bound->bytes + swept->arena_bytes) / 2;
  auto fit = core::fit_memory_budget(g, costs, *device, *schedule, options);
  if (fit) {
    EXPECT_LE(fit->plan.arena_bytes, options.budget_bytes);
    auto ok = core::check_plan(g, fit->schedule, fit->plan);
    EXPECT_TRUE(ok) << ok.error().message;
  } else {
    EXPECT_FALSE(fit.error().message.empty());
  }
}
