// compare_runs, the run comparison `weft run` (CPU and CUDA) and the studio share, on CPU
// executors: the plain pair, and the device comparison `weft run --backend cuda` makes (timed
// pair, graph-executor pair, reference check) through the same call, with its progress, cancel,
// the options each run gets and the identity of the measured runs.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "test_graphs.h"
#include "weft/core/cpu_executor.h"
#include "weft/core/study/run_comparison.h"
#include "weft/core/sync.h"

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
    return m_cpu->run(graph, schedule, plan, options);
  }
  std::vector<Call> calls;

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

}  // namespace

// Without extras: two runs on the executor, the outputs compared, the stages of the studio's
// progress bar (2, 10, 55, 98, 100) and the measured runs' identity set by core.
TEST(RunComparison, ReferenceAndScheduleOnOneExecutor) {
  const core::Graph g = test::make_two_branches(3);
  RecordingExecutor cpu("cpu");
  core::RunComparisonOptions options;
  options.run.iterations = 2;
  options.run.warmup = 0;
  std::vector<Stage> stages;
  options.progress = [&](int percent, std::string_view what) {
    stages.push_back({percent, std::string(what)});
    return true;
  };
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
  options.timed_runs = true;
  options.graph_executor = &graphed;
  options.check_executor = &check;
  std::vector<Stage> stages;
  options.progress = [&](int percent, std::string_view what) {
    stages.push_back({percent, std::string(what)});
    return true;
  };
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
