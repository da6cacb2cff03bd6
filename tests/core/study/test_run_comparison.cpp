// compare_runs, the run comparison `weft run` (CPU and CUDA) and the studio share, on CPU
// executors: the plain pair, and the device comparison `weft run --backend cuda` makes (timed
// pair, graph-executor pair, reference check) through the same call, with its progress, cancel,
// the options each run gets and the identity of the measured runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "test_graphs.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/cost/device.h"
#include "weft/core/exec/run_checks.h"
#include "weft/core/strategy/reference.h"
#include "weft/core/study/run_comparison.h"
#include "weft/core/schedule/sync.h"

using namespace weft;

namespace {

/// The CPU executor under another name, recording what each run was asked.
class RecordingExecutor : public core::Executor {
 public:
  struct Call {
    std::string strategy;
    bool per_node_timing;
    int iterations;
    int warmup;
  };
  explicit RecordingExecutor(std::string name) : m_name(std::move(name)), m_cpu(core::make_cpu_executor()) {}
  std::string name() const override { return m_name; }
  core::Expected<core::RunResult> run(const core::Graph& graph, const core::Schedule& schedule, const core::MemoryPlan& plan,
                                      const core::RunOptions& options) override {
    calls.push_back({schedule.strategy, options.per_node_timing, options.iterations, options.warmup});
    if (!fail_on.empty() && schedule.strategy == fail_on)
      return core::make_error(core::ErrorKind::Runtime, m_name + ": capture failed for " + schedule.strategy);
    return m_cpu->run(graph, schedule, plan, options);
  }
  std::vector<Call> calls;
  /// When set, the run of this schedule (by strategy name) fails with a Runtime error.
  std::string fail_on;

 private:
  std::string m_name;
  std::unique_ptr<core::Executor> m_cpu;
};

/// Two chains of three on two streams (strategy "hand").
core::Schedule two_streams(const core::Graph& g) {
  core::Schedule s;
  s.streams = {{0, 1, 2}, {3, 4, 5}};
  s.strategy = "hand";
  s.events = core::compute_events(g, s);
  return s;
}

struct Stage {
  int percent;
  std::string what;
};

/// A progress callback that records every stage and never cancels.
core::RunProgress record_stages(std::vector<Stage>& stages) {
  return [&stages](int percent, std::string_view what) {
    stages.push_back({percent, std::string(what)});
    return true;
  };
}

}  // namespace

// Without extras: two runs on the executor, the outputs compared, the stages of the studio's
// progress bar (2, 10, 55, 98, 100) and the measured runs' identity set by core.
TEST(RunComparison, ReferenceAndScheduleOnOneExecutor) {
  const core::Graph g = test::make_two_branches(3);
  RecordingExecutor cpu("cpu");
  core::RunComparisonOptions options;
  options.run.iterations = 2;
  options.run.warmup = 0;
  options.rounds = 1;
  std::vector<Stage> stages;
  options.progress = record_stages(stages);
  auto c = core::compare_runs(cpu, g, two_streams(g), options);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_FALSE(c->cancelled);
  ASSERT_EQ(cpu.calls.size(), 2u);
  EXPECT_EQ(cpu.calls[0].strategy, "sequential");
  EXPECT_EQ(cpu.calls[1].strategy, "hand");
  EXPECT_TRUE(c->diff.identical);
  EXPECT_GT(c->speedup(), 0.0);
  EXPECT_FALSE(c->sequential_timed || c->scheduled_timed || c->sequential_graph || c->scheduled_graph || c->check);
  EXPECT_EQ(c->speedup_vs_graph(), 0.0);
  EXPECT_TRUE((c->sequential_timeline().identity() == core::RunIdentity{core::RunKind::Measured, "cpu", "sequential"}));
  EXPECT_TRUE((c->scheduled_timeline().identity() == core::RunIdentity{core::RunKind::Measured, "cpu", "hand"}));
  EXPECT_EQ(c->sequential.timeline.label, "measured cpu sequential");
  EXPECT_EQ(c->scheduled.timeline.label, "measured cpu hand");
  EXPECT_EQ(c->overlapped_pairs, core::overlapped_pairs(c->scheduled.timeline));
  std::vector<int> percents;
  for (const Stage& s : stages) percents.push_back(s.percent);
  EXPECT_EQ(percents, (std::vector<int>{2, 10, 55, 98, 100}));
  EXPECT_EQ(stages[2].what, "Running hand");
}

// The device comparison on CPU executors (the CUDA executors implement the same interface):
// throughput pair, per-node timed pair, the pair on the graph executor, one check run of the
// reference; every output agrees, the figures come from those runs.
TEST(RunComparison, DeviceComparisonThroughTheSameCall) {
  const core::Graph g = test::make_two_branches(4);
  RecordingExecutor eager("cpu"), graphed("cpu-graph"), check("cpu-check");
  core::RunComparisonOptions options;
  options.run.iterations = 3;
  options.run.warmup = 1;
  options.run.per_node_timing = false;
  options.rounds = 1;
  options.timed_runs = true;
  options.graph_executor = &graphed;
  options.check_executor = &check;
  std::vector<Stage> stages;
  options.progress = record_stages(stages);
  core::Schedule s;
  s.streams = {{0, 1, 2, 3}, {4, 5, 6, 7}};
  s.strategy = "hand";
  s.events = core::compute_events(g, s);
  auto c = core::compare_runs(eager, g, s, options);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_FALSE(c->cancelled);

  // What ran where, with which options.
  ASSERT_EQ(eager.calls.size(), 4u);
  EXPECT_EQ(eager.calls[0].strategy, "sequential");
  EXPECT_FALSE(eager.calls[0].per_node_timing);
  EXPECT_EQ(eager.calls[1].strategy, "hand");
  EXPECT_FALSE(eager.calls[1].per_node_timing);
  EXPECT_EQ(eager.calls[2].strategy, "sequential");
  EXPECT_TRUE(eager.calls[2].per_node_timing);
  EXPECT_EQ(eager.calls[3].strategy, "hand");
  EXPECT_TRUE(eager.calls[3].per_node_timing);
  for (const auto& call : eager.calls) EXPECT_EQ(call.iterations, 3);
  ASSERT_EQ(graphed.calls.size(), 2u);
  EXPECT_EQ(graphed.calls[0].strategy, "sequential");
  EXPECT_EQ(graphed.calls[1].strategy, "hand");
  EXPECT_FALSE(graphed.calls[1].per_node_timing);
  ASSERT_EQ(check.calls.size(), 1u);
  EXPECT_EQ(check.calls[0].strategy, "sequential");
  EXPECT_EQ(check.calls[0].iterations, 1);
  EXPECT_EQ(check.calls[0].warmup, 0);

  // The figures `weft run --backend cuda` prints.
  ASSERT_TRUE(c->sequential_timed && c->scheduled_timed && c->sequential_graph && c->scheduled_graph && c->check);
  EXPECT_TRUE(c->diff.identical);
  EXPECT_TRUE(c->graph_diff.identical);
  EXPECT_TRUE(c->check_diff.identical);
  EXPECT_EQ(c->check_diff.max_abs_diff, 0.0);
  EXPECT_GT(c->speedup(), 0.0);
  EXPECT_DOUBLE_EQ(c->speedup_vs_graph(), c->sequential_graph->wall_ms / c->scheduled_graph->wall_ms);
  EXPECT_EQ(c->scheduled_graph->iteration_ms.size(), 3u);
  // The timelines are the timed runs', identified by kind, backend and strategy.
  EXPECT_EQ(&c->scheduled_timeline(), &c->scheduled_timed->timeline);
  EXPECT_EQ(&c->sequential_timeline(), &c->sequential_timed->timeline);
  EXPECT_EQ(c->scheduled_timeline().items.size(), g.node_count());
  EXPECT_TRUE((c->scheduled_timeline().identity() == core::RunIdentity{core::RunKind::Measured, "cpu", "hand"}));
  EXPECT_TRUE((c->scheduled_graph->timeline.identity() == core::RunIdentity{core::RunKind::Measured, "cpu", "hand"}));
  EXPECT_EQ(c->overlapped_pairs, core::overlapped_pairs(c->scheduled_timed->timeline));
  EXPECT_EQ(c->plan.arena_bytes, c->scheduled.arena_bytes);

  // Progress: planning, seven runs, the comparison, done; never backwards.
  ASSERT_EQ(stages.size(), 10u);
  EXPECT_EQ(stages.front().percent, 2);
  EXPECT_EQ(stages.back().percent, 100);
  for (std::size_t i = 1; i < stages.size(); ++i) EXPECT_LE(stages[i - 1].percent, stages[i].percent) << stages[i].what;
  EXPECT_EQ(stages[5].what, "Timing each node of hand");
  EXPECT_EQ(stages[7].what, "Running hand on cpu-graph");
  EXPECT_EQ(stages[8].what, "Checking outputs on cpu-check");
}

// A stage that fails after the reference and the schedule ran (graph replay of the schedule, or
// the CPU check) keeps every result measured before it, drops its own pair, names the stage and
// runs nothing after it; a failure of the reference or the schedule itself is the call's error.
TEST(RunComparison, FailedStageKeepsTheStagesDone) {
  const core::Graph g = test::make_two_branches(4);
  core::Schedule s;
  s.streams = {{0, 1, 2, 3}, {4, 5, 6, 7}};
  s.strategy = "hand";
  s.events = core::compute_events(g, s);
  const auto options_with = [](core::Executor& graphed, core::Executor& check) {
    core::RunComparisonOptions o;
    o.run.iterations = 2;
    o.run.warmup = 0;
    o.run.per_node_timing = false;
    o.rounds = 1;
    o.timed_runs = true;
    o.graph_executor = &graphed;
    o.check_executor = &check;
    return o;
  };
  {
    RecordingExecutor eager("cpu"), graphed("cpu-graph"), check("cpu-check");
    graphed.fail_on = "hand";
    auto c = core::compare_runs(eager, g, s, options_with(graphed, check));
    ASSERT_TRUE(c) << c.error().message;
    ASSERT_TRUE(c->failure);
    EXPECT_EQ(c->failure->stage, "Running hand on cpu-graph");
    EXPECT_NE(c->failure->error.message.find("capture failed"), std::string::npos);
    EXPECT_GT(c->sequential.wall_ms, 0.0);
    EXPECT_GT(c->scheduled.wall_ms, 0.0);
    EXPECT_TRUE(c->diff.identical);
    EXPECT_TRUE(c->sequential_timed && c->scheduled_timed) << "the timed pair ran before the failure";
    EXPECT_FALSE(c->sequential_graph || c->scheduled_graph) << "half a pair has no speedup";
    EXPECT_EQ(c->speedup_vs_graph(), 0.0);
    EXPECT_TRUE(check.calls.empty()) << "nothing runs after the failed stage";
    EXPECT_EQ(c->overlapped_pairs, core::overlapped_pairs(c->scheduled_timed->timeline));
  }
  {
    RecordingExecutor eager("cpu"), graphed("cpu-graph"), check("cpu-check");
    check.fail_on = "sequential";
    auto c = core::compare_runs(eager, g, s, options_with(graphed, check));
    ASSERT_TRUE(c) << c.error().message;
    ASSERT_TRUE(c->failure);
    EXPECT_EQ(c->failure->stage, "Checking outputs on cpu-check");
    EXPECT_TRUE(c->sequential_graph && c->scheduled_graph) << "the graph pair is kept";
    EXPECT_GT(c->speedup_vs_graph(), 0.0);
    EXPECT_FALSE(c->check);
  }
  {
    RecordingExecutor eager("cpu"), graphed("cpu-graph"), check("cpu-check");
    eager.fail_on = "hand";
    auto c = core::compare_runs(eager, g, s, options_with(graphed, check));
    ASSERT_FALSE(c) << "without the schedule's own run there is nothing to report";
    EXPECT_NE(c.error().message.find("capture failed"), std::string::npos);
  }
}

// The pairs whose speedups are reported alternate in rounds sharing the iterations (5 in 3
// rounds: 2, 2, 1), each round warmed up; the results hold every round's iterations, their
// median as the wall time and per node the median of the rounds' node medians. The timed pair
// and the check run once.
TEST(RunComparison, PairsAlternateInRounds) {
  const core::Graph g = test::make_two_branches(3);
  RecordingExecutor eager("cpu"), graphed("cpu-graph");
  core::RunComparisonOptions options;
  options.run.iterations = 5;
  options.run.warmup = 1;
  options.graph_executor = &graphed;
  std::vector<Stage> stages;
  options.progress = record_stages(stages);
  auto c = core::compare_runs(eager, g, two_streams(g), options);
  ASSERT_TRUE(c) << c.error().message;
  for (RecordingExecutor* e : {&eager, &graphed}) {
    ASSERT_EQ(e->calls.size(), 6u) << e->name();
    for (std::size_t i = 0; i < 6; ++i) {
      // Which side goes first alternates by round: reference, schedule; schedule, reference; ...
      EXPECT_EQ(e->calls[i].strategy, (i % 2 == 0) == (i / 2 % 2 == 0) ? "sequential" : "hand") << e->name() << " call " << i;
      EXPECT_EQ(e->calls[i].iterations, i < 4 ? 2 : 1) << e->name() << " call " << i;
      EXPECT_EQ(e->calls[i].warmup, 1);
    }
  }
  for (const core::RunResult* r : {&c->sequential, &c->scheduled, &*c->sequential_graph, &*c->scheduled_graph}) {
    ASSERT_EQ(r->iteration_ms.size(), 5u);
    std::vector<double> sorted = r->iteration_ms;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(r->wall_ms, sorted[2]);
    ASSERT_EQ(r->node_median_us.size(), g.node_count());
    for (double us : r->node_median_us) EXPECT_GE(us, 0.0);
    EXPECT_EQ(r->timeline.items.size(), g.node_count());
  }
  EXPECT_TRUE(c->diff.identical);
  EXPECT_TRUE(c->graph_diff.identical);
  ASSERT_GE(stages.size(), 5u);
  EXPECT_EQ(stages[1].what, "Running sequentially (round 1 of 3)");
  EXPECT_EQ(stages[3].what, "Running hand (round 2 of 3)");
  EXPECT_EQ(stages[4].what, "Running sequentially (round 2 of 3)");
  for (std::size_t i = 1; i < stages.size(); ++i) EXPECT_LE(stages[i - 1].percent, stages[i].percent) << stages[i].what;
}

// Rounds combined: iterations in run order, their median, the timeline of the round whose median
// is nearest, node medians of the rounds' medians, outputs of the last round.
TEST(RunComparison, CombineRounds) {
  std::vector<core::RunResult> rounds(3);
  rounds[0].iteration_ms = {3.9, 4.1};
  rounds[0].wall_ms = 4.1;
  rounds[0].node_median_us = {10, 1};
  rounds[0].timeline.label = "first";
  rounds[1].iteration_ms = {2, 3};
  rounds[1].wall_ms = 3;
  rounds[1].node_median_us = {30, -1};
  rounds[1].timeline.label = "second";
  rounds[2].iteration_ms = {6};
  rounds[2].wall_ms = 6;
  rounds[2].node_median_us = {20, 3};
  rounds[2].timeline.label = "third";
  rounds[2].arena_bytes = 64;
  const core::RunResult r = core::combine_rounds(std::move(rounds));
  EXPECT_EQ(r.iteration_ms, (std::vector<double>{3.9, 4.1, 2, 3, 6}));
  EXPECT_EQ(r.wall_ms, 3.9);
  EXPECT_EQ(r.timeline.label, "first");
  EXPECT_EQ(r.node_median_us, (std::vector<double>{20, 3}));  // node 1: the upper of {1, 3}
  EXPECT_EQ(r.arena_bytes, 64);
}

// The prediction calibrated with the comparison's own sequential node times (the timed run's
// when there is one): the reference predicts exactly 1x in both launch modes; two independent
// chains predict more than 1x on a GPU preset, once eager launches no longer bind (long
// measured nodes); a comparison whose reference ran another graph is refused.
TEST(RunComparison, CalibratedSpeedups) {
  const core::Graph g = test::make_two_branches(3);
  auto device = core::load_device("h200");
  ASSERT_TRUE(device) << device.error().message;
  const core::CostTable costs = core::estimate_costs(g, *device);
  RecordingExecutor cpu("cpu");
  core::RunComparisonOptions options;
  options.run.iterations = 3;
  options.run.warmup = 0;
  options.run.per_node_timing = false;
  options.timed_runs = true;
  auto c = core::compare_runs(cpu, g, two_streams(g), options);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->sequential_timed->node_median_us.size(), g.node_count());
  auto same = core::calibrated_speedups(g, core::reference_schedule(g), costs, *device, *c);
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_DOUBLE_EQ(same->eager, 1.0);
  EXPECT_DOUBLE_EQ(same->graph, 1.0);
  // Every node measured at 1 ms: the two chains overlap whatever the launch costs.
  c->sequential_timed->node_median_us.assign(g.node_count(), 1000.0);
  auto two = core::calibrated_speedups(g, two_streams(g), costs, *device, *c);
  ASSERT_TRUE(two) << two.error().message;
  EXPECT_GT(two->eager, 1.5);
  EXPECT_GT(two->graph, 1.5);
  c->sequential_timed->node_median_us.pop_back();
  auto other = core::calibrated_speedups(g, two_streams(g), costs, *device, *c);
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("another graph"), std::string::npos) << other.error().message;
}

// A cancel between runs stops before the next one: the graph pair and the check never run.
TEST(RunComparison, CancelStopsBetweenRuns) {
  const core::Graph g = test::make_two_branches(3);
  RecordingExecutor eager("cpu"), graphed("cpu-graph"), check("cpu-check");
  core::RunComparisonOptions options;
  options.run.warmup = 0;
  options.graph_executor = &graphed;
  options.check_executor = &check;
  options.progress = [](int, std::string_view what) { return what.find("cpu-graph") == std::string_view::npos; };
  auto c = core::compare_runs(eager, g, two_streams(g), options);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->cancelled);
  EXPECT_EQ(eager.calls.size(), 2u);
  EXPECT_TRUE(graphed.calls.empty());
  EXPECT_TRUE(check.calls.empty());
  EXPECT_TRUE(c->diff.identical);  // compared before the cancel
}

// A schedule that misses a node is refused with the planner's error before anything runs.
TEST(RunComparison, InvalidScheduleIsRefusedBeforeRunning) {
  const core::Graph g = test::make_two_branches(3);
  RecordingExecutor eager("cpu");
  core::Schedule bad = two_streams(g);
  bad.streams[1].pop_back();  // the chains share nothing: no events to drop with it
  core::RunComparisonOptions options;
  options.run.warmup = 0;
  auto c = core::compare_runs(eager, g, bad, options);
  EXPECT_FALSE(c);
  EXPECT_TRUE(eager.calls.empty());
}
