#include <gtest/gtest.h>

#include <limits>

#include "memory_test_util.h"
#include "test_models.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/transform/micro_batch.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/strategy/strategies.h"
#include "test_graphs.h"
#include "weft/core/memory/allocation_problem.h"
#include "weft/core/memory/bounds.h"
#include "weft/core/memory/memory_aware_order.h"
#include "weft/core/memory/memory_growth.h"
#include "weft/core/memory/memory_planner.h"

using namespace weft;

namespace {
constexpr std::int64_t kTensor = 4096;
}

// Golden growth of a 4-chain on one stream: live bytes per step and the arena high-water mark.
TEST(Growth, ChainSteps) {
  const core::Graph g = test::make_chain(4);  // n0_out..n2_out planned; n3_out is the output
  const core::Schedule s{{{0, 1, 2, 3}}, {}, "hand", ""};
  auto plan = core::plan_memory(g, s, "greedy-by-size");
  ASSERT_TRUE(plan);
  auto growth = core::memory_growth(g, s, *plan);
  ASSERT_TRUE(growth) << growth.error().message;
  EXPECT_EQ(growth->steps, (std::vector<core::NodeId>{0, 1, 2, 3}));
  EXPECT_EQ(growth->live_bytes, (std::vector<std::int64_t>{kTensor, 2 * kTensor, 2 * kTensor, kTensor}));
  EXPECT_EQ(growth->high_water, (std::vector<std::int64_t>{kTensor, 2 * kTensor, 2 * kTensor, 2 * kTensor}));
  EXPECT_TRUE(growth->live_over_time.empty());
}

// With a timeline, growth is sampled at its times: a tensor lives from producer start to last reader end.
TEST(Growth, OverTime) {
  const core::Graph g = test::make_chain(3);  // n0_out, n1_out planned
  const core::Schedule s{{{0, 1, 2}}, {}, "hand", ""};
  auto plan = core::plan_memory(g, s, "best");
  ASSERT_TRUE(plan);
  core::Timeline tl;
  tl.items = {{0, 0, 0.0, 10.0}, {1, 0, 10.0, 20.0}, {2, 0, 20.0, 30.0}};
  auto growth = core::memory_growth(g, s, *plan, &tl);
  ASSERT_TRUE(growth);
  ASSERT_EQ(growth->live_over_time.size(), 4u);  // t = 0, 10, 20, 30
  EXPECT_EQ(growth->live_over_time[0].value, static_cast<double>(kTensor));
  EXPECT_EQ(growth->live_over_time[1].value, static_cast<double>(2 * kTensor));
  EXPECT_EQ(growth->live_over_time[2].value, static_cast<double>(kTensor));
  EXPECT_EQ(growth->live_over_time[3].value, 0.0);
  EXPECT_EQ(growth->high_water_over_time.back().value, static_cast<double>(plan->arena_bytes));
}

// Live bytes never exceed the arena, and the high-water mark ends at the plan's arena.
TEST(Growth, RandomSchedulesStayUnderArena) {
  for (std::uint64_t seed = 1; seed <= 15; ++seed) {
    const core::Graph g = test::make_random_dag(40, 0.1, seed);
    const core::Schedule s = test::random_schedule(g, 3, seed, {.drop_empty_streams = true});
    core::PlanOptions o;
    o.search_ms = 2;
    auto plan = core::plan_memory(g, s, "best", o);
    ASSERT_TRUE(plan);
    auto growth = core::memory_growth(g, s, *plan);
    ASSERT_TRUE(growth);
    for (std::int64_t live : growth->live_bytes) EXPECT_LE(live, plan->arena_bytes);
    if (!growth->high_water.empty() && plan->arena_bytes > 0) {
      EXPECT_EQ(growth->high_water.back(), plan->arena_bytes);
    }
  }
}

// The memory-aware order is topological and never peaks above the file order; it helps somewhere.
TEST(MemoryAwareOrder, NoWorseThanFileOrder) {
  int better = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const core::Graph g = test::make_random_dag(40, 0.08, seed);
    const std::vector<core::NodeId> order = core::memory_aware_order(g);
    ASSERT_EQ(order.size(), g.node_count());
    std::vector<int> pos(g.node_count(), -1);
    for (std::size_t i = 0; i < order.size(); ++i) pos[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
    for (std::size_t u = 0; u < g.node_count(); ++u)
      for (core::NodeId v : g.successors(static_cast<core::NodeId>(u))) ASSERT_LT(pos[u], pos[static_cast<std::size_t>(v)]);
    const std::int64_t file = core::linear_lower_bound(g, g.topo_order());
    const std::int64_t aware = core::linear_lower_bound(g, order);
    EXPECT_LE(aware, file) << "seed " << seed;
    better += aware < file;
  }
  EXPECT_GT(better, 0);
}

// Golden: the file order interleaves two independent chains (three tensors live); the aware order
// finishes one chain before starting the other (two).
TEST(MemoryAwareOrder, FinishesAChainFirst) {
  // n0 -> n2 -> n4 and n1 -> n3 -> n5; file order n0 n1 n2 n3 n4 n5.
  const core::Graph g = test::make_dag(6, {{0, 2}, {2, 4}, {1, 3}, {3, 5}});
  EXPECT_EQ(core::linear_lower_bound(g, g.topo_order()), 3 * kTensor);
  EXPECT_EQ(core::linear_lower_bound(g, core::memory_aware_order(g)), 2 * kTensor);
}

// A split model with its outputs in the arena: the output is one block written by its views'
// producers (it has no producer of its own). Growth counts it once, from its first writer, and
// never its views (their bytes are its own): live bytes stay within the arena, per step and over
// time. (It read the producer-less parent's start out of bounds and counted views twice.)
TEST(Growth, SplitOutputsInTheArenaCountedOnce) {
  auto device = core::load_device(core::default_device_name());
  ASSERT_TRUE(device);
  const core::Graph g = test::load_with_batch("randwire_ws", 2);
  auto split = core::split_batch(g, 2);
  ASSERT_TRUE(split) << split.error().message;
  const core::CostTable costs = core::estimate_costs(*split, *device);
  auto schedule = core::make_schedule("split-overlap", *split, costs, *device, {});
  ASSERT_TRUE(schedule) << schedule.error().message;
  core::PlanOptions options;
  options.outputs_in_arena = true;
  auto plan = core::plan_memory(*split, *schedule, "greedy-by-size", options);
  ASSERT_TRUE(plan) << plan.error().message;
  bool planned_parent = false;
  for (std::size_t t = 0; t < split->tensor_count(); ++t) {
    const core::Tensor& tensor = split->tensor(static_cast<core::TensorId>(t));
    planned_parent = planned_parent || (!tensor.views.empty() && tensor.producer == core::kNoNode && plan->offset[t] >= 0);
  }
  ASSERT_TRUE(planned_parent);
  const core::Timeline timeline = core::simulate(*split, *schedule, costs, *device);
  auto growth = core::memory_growth(*split, *schedule, *plan, &timeline);
  ASSERT_TRUE(growth) << growth.error().message;
  for (std::int64_t live : growth->live_bytes) EXPECT_LE(live, plan->arena_bytes);
  for (const core::CounterSample& c : growth->live_over_time) EXPECT_LE(c.value, static_cast<double>(plan->arena_bytes));
  EXPECT_EQ(growth->high_water.back(), plan->arena_bytes);
  // Live bytes per step by the definition: every planned tensor that is not a view, from its
  // first writer's step to its last access's.
  std::vector<std::int64_t> pos(split->node_count());
  for (std::size_t i = 0; i < growth->steps.size(); ++i) pos[static_cast<std::size_t>(growth->steps[i])] = static_cast<std::int64_t>(i);
  std::vector<std::int64_t> expected(growth->steps.size(), 0);
  for (std::size_t t = 0; t < split->tensor_count(); ++t) {
    if (plan->offset[t] < 0 || split->tensor(static_cast<core::TensorId>(t)).is_view()) continue;
    std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = -1;
    for (core::NodeId w : core::tensor_writers(*split, static_cast<core::TensorId>(t))) {
      first = std::min(first, pos[static_cast<std::size_t>(w)]);
      last = std::max(last, pos[static_cast<std::size_t>(w)]);
    }
    for (core::NodeId r : core::tensor_readers(*split, static_cast<core::TensorId>(t))) last = std::max(last, pos[static_cast<std::size_t>(r)]);
    for (std::int64_t i = first; i <= last; ++i) expected[static_cast<std::size_t>(i)] += plan->size[t];
  }
  EXPECT_EQ(growth->live_bytes, expected);
}
