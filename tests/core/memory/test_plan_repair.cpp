// Plan repair after an edit: the repaired plan passes the exact (listed) check under the new
// schedule, keeps every offset that did not clash, leaves a plan that is already valid as it is,
// and refuses a plan of another model.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "memory_test_util.h"
#include "test_graphs.h"
#include "test_models.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/transform/micro_batch.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/memory/plan_checker.h"
#include "weft/core/memory/plan_repair.h"
#include "weft/core/schedule/schedule_edit.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/strategy/reference.h"

using namespace weft;

namespace {

core::Graph load(const std::string& name) { return test::load_with_batch(name, 2); }

struct Outcome {
  bool was_valid = false;
  std::size_t moved = 0;
};

// Repairs `plan` for `schedule` and checks everything the repair promises.
Outcome expect_repair_is_valid(const core::Graph& g, const core::Schedule& schedule, const core::MemoryPlan& plan,
                               const std::string& what) {
  SCOPED_TRACE(what);
  Outcome out;
  auto order = core::ExecutionOrder::build(g, schedule);
  EXPECT_TRUE(order) << order.error().message;
  if (!order) return out;
  out.was_valid = static_cast<bool>(core::check_plan(g, *order, plan));
  auto repaired = core::repair_plan(g, *order, plan);
  EXPECT_TRUE(repaired) << repaired.error().message;
  if (!repaired) return out;
  out.moved = repaired->moved;
  EXPECT_EQ(repaired->plan.planner, "repaired");
  auto ok = core::check_plan(g, *order, repaired->plan);  // the exact, listed liveness
  EXPECT_TRUE(ok) << ok.error().message;
  // Only the tensors taken out move; a valid plan takes none out and comes back as it was.
  std::size_t changed = 0;
  for (std::size_t t = 0; t < g.tensor_count(); ++t) {
    if (repaired->plan.offset[t] != plan.offset[t] && !g.tensor(static_cast<core::TensorId>(t)).is_view()) ++changed;
    EXPECT_EQ(repaired->plan.size[t], plan.size[t]);
  }
  EXPECT_LE(changed, repaired->moved);
  EXPECT_LE(repaired->conflicts, repaired->shared_pairs);
  if (out.was_valid) {
    EXPECT_EQ(repaired->moved, 0u);
    EXPECT_EQ(repaired->conflicts, 0u);
    EXPECT_EQ(repaired->plan.offset, plan.offset);
    EXPECT_EQ(repaired->plan.arena_bytes, plan.arena_bytes);
  } else {
    EXPECT_GT(repaired->conflicts, 0u);  // the repair found what the check refused
    EXPECT_GT(repaired->moved, 0u);
  }
  EXPECT_GE(repaired->plan.arena_bytes, plan.arena_bytes);  // kept offsets: it never shrinks
  return out;
}

}  // namespace

TEST(PlanRepair, RandomMovesOnRandomSchedules) {
  // Random DAGs and schedules, then chains of random valid moves, each repaired from the plan
  // before it: every repair passes the exact check, and some moves do need one.
  std::size_t repaired = 0, kept = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const core::Graph g = test::make_random_dag(40, 0.12, seed);
    core::Schedule schedule = test::random_schedule(g, 1 + static_cast<int>(seed % 4), seed, {.drop_empty_streams = true});
    auto plan = core::study_plan(g, schedule);
    ASSERT_TRUE(plan) << plan.error().message;
    std::mt19937_64 rng(seed);
    core::MemoryPlan current = *plan;
    for (int step = 0, moves = 0; step < 200 && moves < 12; ++step) {
      std::uniform_int_distribution<int> node(0, static_cast<int>(g.node_count()) - 1);
      std::uniform_int_distribution<int> stream(0, static_cast<int>(schedule.stream_count()));  // one past: a new stream
      int s = stream(rng);
      core::Schedule base = schedule;
      if (s == static_cast<int>(base.stream_count())) {
        auto added = core::add_stream(g, base);
        ASSERT_TRUE(added);
        base = std::move(*added);
      }
      const int size = static_cast<int>(base.streams[static_cast<std::size_t>(s)].size());
      std::uniform_int_distribution<int> pos(0, size);
      auto moved = core::move_node(g, base, static_cast<core::NodeId>(node(rng)), s, pos(rng));
      if (!moved) continue;
      ++moves;
      schedule = std::move(*moved);
      const Outcome o = expect_repair_is_valid(g, schedule, current, "seed " + std::to_string(seed) + " step " + std::to_string(step));
      if (o.was_valid) ++kept; else ++repaired;
      auto order = core::ExecutionOrder::build(g, schedule);
      ASSERT_TRUE(order);
      auto next = core::repair_plan(g, *order, current);
      ASSERT_TRUE(next);
      current = std::move(next->plan);  // the next edit repairs the repaired plan, as the studio does
    }
  }
  EXPECT_GT(repaired, 10u);
  EXPECT_GT(kept, 10u);
}

TEST(PlanRepair, SequentialPlansRepairedForConcurrentSchedules) {
  // The reference plan (one stream, the most reuse) under each strategy's concurrent schedule
  // mostly clashes: the repair moves some tensors, keeps the rest, and passes the exact check.
  auto device = core::load_device(core::default_device_name());
  ASSERT_TRUE(device);
  for (const char* name : {"googlenet", "randwire_ws", "transformer4h"}) {
    const core::Graph g = load(name);
    const core::CostTable costs = core::estimate_costs(g, *device);
    auto reference = core::study_plan(g, core::reference_schedule(g));
    ASSERT_TRUE(reference);
    std::size_t moved = 0;
    for (const char* strategy : {"level-rr", "chains", "cp-list"}) {
      core::StrategyOptions so;
      so.cuda_graph = true;
      auto schedule = core::make_schedule(strategy, g, costs, *device, so);
      ASSERT_TRUE(schedule) << schedule.error().message;
      const Outcome o = expect_repair_is_valid(g, *schedule, *reference, std::string(name) + " " + strategy);
      moved += o.moved;
      // The other way: a concurrent schedule's plan stays valid on one stream in an order that
      // extends its happens-before (fewer pairs may be live at once), so nothing moves.
      auto concurrent = core::study_plan(g, *schedule);
      ASSERT_TRUE(concurrent);
      auto order = core::ExecutionOrder::build(g, *schedule);
      ASSERT_TRUE(order);
      const Outcome back = expect_repair_is_valid(g, test::one_stream(order->order()), *concurrent, std::string(name) + " back");
      EXPECT_TRUE(back.was_valid);
    }
    EXPECT_GT(moved, 0u) << name;
  }
}

TEST(PlanRepair, SplitModelsWithViewsInTheArena) {
  // A micro-batch split with outputs in the arena: the output is one block written by several
  // nodes (its views); the repair tests it by every writer and keeps the views inside it.
  auto device = core::load_device(core::default_device_name());
  ASSERT_TRUE(device);
  const core::Graph g = load("randwire_ws");
  auto split = core::split_batch(g, 2);
  ASSERT_TRUE(split) << split.error().message;
  const core::CostTable costs = core::estimate_costs(*split, *device);
  auto schedule = core::make_schedule("split-overlap", *split, costs, *device, {});
  ASSERT_TRUE(schedule) << schedule.error().message;
  core::PlanOptions options = core::reference_plan_options();
  options.outputs_in_arena = true;
  auto sequential = core::study_plan(*split, core::reference_schedule(*split), core::kReferencePlanner, options);
  ASSERT_TRUE(sequential) << sequential.error().message;
  const Outcome o = expect_repair_is_valid(*split, *schedule, *sequential, "randwire_ws split 2");
  EXPECT_FALSE(o.was_valid);
}

TEST(PlanRepair, UnplacedTensorsArePlaced) {
  // A plan that leaves planned tensors out (here: all of them) is completed by first fit.
  const core::Graph g = test::make_random_dag(30, 0.15, 7);
  const core::Schedule schedule = test::random_schedule(g, 3, 7, {.drop_empty_streams = true});
  core::MemoryPlan empty = core::plan_no_reuse(g);
  for (auto& o : empty.offset) o = core::kNotPlanned;
  empty.arena_bytes = 0;
  auto order = core::ExecutionOrder::build(g, schedule);
  ASSERT_TRUE(order);
  auto repaired = core::repair_plan(g, *order, empty);
  ASSERT_TRUE(repaired) << repaired.error().message;
  EXPECT_GT(repaired->moved, 0u);
  auto ok = core::check_plan(g, *order, repaired->plan);
  EXPECT_TRUE(ok) << ok.error().message;
  EXPECT_LT(repaired->plan.arena_bytes, core::plan_no_reuse(g).arena_bytes);  // first fit reuses bytes
}

TEST(PlanRepair, RefusesPlansOfAnotherModel) {
  const core::Graph g = test::make_chain(6);
  const core::Graph other = test::make_chain(9);
  auto order = core::ExecutionOrder::build(g, test::one_stream(g.topo_order()));
  ASSERT_TRUE(order);
  auto wrong = core::repair_plan(g, *order, core::plan_no_reuse(other));
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(wrong.error().message.find("tensors"), std::string::npos) << wrong.error().message;
  core::MemoryPlan small = core::plan_no_reuse(g);
  for (std::size_t t = 0; t < g.tensor_count(); ++t)
    if (small.size[t] > 0) {
      small.size[t] -= small.alignment;
      break;
    }
  auto short_bytes = core::repair_plan(g, *order, small);
  ASSERT_FALSE(short_bytes);
  EXPECT_NE(short_bytes.error().message.find("needs"), std::string::npos) << short_bytes.error().message;
}

TEST(PlanRepair, StopsBeforeMovingMoreThanAsked) {
  // The sequential plan of googlenet under cp-list needs dozens of moves: asked to move at most
  // one, the repair stops before moving any and says how many it would have moved.
  auto device = core::load_device(core::default_device_name());
  ASSERT_TRUE(device);
  const core::Graph g = load("googlenet");
  auto reference = core::study_plan(g, core::reference_schedule(g));
  ASSERT_TRUE(reference);
  core::StrategyOptions so;
  so.cuda_graph = true;
  auto schedule = core::make_schedule("cp-list", g, core::estimate_costs(g, *device), *device, so);
  ASSERT_TRUE(schedule);
  auto order = core::ExecutionOrder::build(g, *schedule);
  ASSERT_TRUE(order);
  auto whole = core::repair_plan(g, *order, *reference);
  ASSERT_TRUE(whole);
  ASSERT_TRUE(whole->complete);
  ASSERT_GT(whole->moved, 1u);
  auto bounded = core::repair_plan(g, *order, *reference, 1);
  ASSERT_TRUE(bounded);
  EXPECT_FALSE(bounded->complete);
  EXPECT_EQ(bounded->moved, whole->moved);
  EXPECT_TRUE(bounded->plan.offset.empty());
  auto enough = core::repair_plan(g, *order, *reference, whole->moved);
  ASSERT_TRUE(enough);
  EXPECT_TRUE(enough->complete);
  EXPECT_EQ(enough->plan.offset, whole->plan.offset);
}
