// The CPU executor under concurrency: any valid multi-stream schedule gives outputs bit-identical
// to the sequential run (random DAGs and real models); schedules that miss a dependency or would
// deadlock, and plans that do not fit, are refused; the measured timeline respects the events.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>

#include <sched.h>

#include "exec_test_util.h"
#include "test_graphs.h"
#include "weft/core/memory/allocation_problem.h"
#include "weft/core/exec/compare_outputs.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/memory/plan_checker.h"
#include "weft/core/exec/run_checks.h"
#include "weft/core/schedule/node_teams.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/strategy/registry.h"
#include "weft/core/schedule/sync.h"

using namespace weft;

namespace {

void expect_bit_identical(const core::RunResult& a, const core::RunResult& b) {
  ASSERT_EQ(a.outputs.size(), b.outputs.size());
  for (const auto& [name, t] : a.outputs) {
    const auto it = b.outputs.find(name);
    ASSERT_NE(it, b.outputs.end()) << name;
    EXPECT_EQ(t.shape, it->second.shape) << name;
    EXPECT_TRUE(t.bytes == it->second.bytes) << "output " << name << " differs";
  }
}

// A measured timeline keeps the schedule: each node on its stream, after its stream predecessor
// and after the producers of the events it waits for.
void expect_respects(const core::Schedule& s, const std::vector<core::TimelineItem>& items) {
  for (std::size_t st = 0; st < s.streams.size(); ++st)
    for (std::size_t i = 0; i < s.streams[st].size(); ++i) {
      const auto& it = items[static_cast<std::size_t>(s.streams[st][i])];
      EXPECT_EQ(it.stream, static_cast<int>(st));
      EXPECT_LE(it.start_us, it.end_us);
      if (i > 0) {
        EXPECT_GE(it.start_us, items[static_cast<std::size_t>(s.streams[st][i - 1])].end_us);
      }
    }
  for (const core::Event& e : s.events)
    EXPECT_GE(items[static_cast<std::size_t>(e.to)].start_us, items[static_cast<std::size_t>(e.from)].end_us);
}

core::Graph load_model(const std::string& name) {
  auto g = core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/" + name);
  if (!g) {
    ADD_FAILURE() << g.error().message;
    std::abort();
  }
  return std::move(*g);
}

}  // namespace

// Random DAGs on 1..4 streams with random placement: outputs equal the sequential run bit for bit.
TEST(CpuExecutor, RandomSchedulesMatchSequentialOnRandomDags) {
  auto exec = core::make_cpu_executor();
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const core::Graph g = test::make_random_dag(40, 0.12, seed);
    auto seq = test::run_sequential(g);
    ASSERT_TRUE(seq) << seq.error().message;
    for (int streams : {2, 3, 4}) {
      const core::Schedule s = test::random_schedule(g, streams, seed * 10 + static_cast<std::uint64_t>(streams), {.events_for_cross_edges = true});
      core::RunOptions o;
      o.warmup = 0;
      auto r = exec->run(g, s, core::plan_no_reuse(g), o);
      ASSERT_TRUE(r) << r.error().message;
      expect_bit_identical(*seq, *r);
    }
  }
}

namespace {

/// A random DAG (test::random_edges) whose operators are not idempotent and whose tensors hold
/// distinct values, so that a plan that lets two live tensors share bytes changes some output:
/// a source multiplies its own graph input by its own weight, one predecessor gets its own
/// weight added, two are subtracted (order matters), more are averaged. float32 [elems].
core::Graph make_distinct_value_dag(int nodes, double p, std::uint64_t seed, std::int64_t elems) {
  std::vector<std::vector<std::string>> ins(static_cast<std::size_t>(nodes));
  std::vector<bool> has_succ(static_cast<std::size_t>(nodes), false);
  for (auto [u, v] : test::random_edges(nodes, p, seed)) {
    ins[static_cast<std::size_t>(v)].push_back("n" + std::to_string(u));
    has_succ[static_cast<std::size_t>(u)] = true;
  }
  core::GraphBuilder b;
  for (int i = 0; i < nodes; ++i) {
    auto& in = ins[static_cast<std::size_t>(i)];
    const std::string out = "n" + std::to_string(i);
    const std::string w = "w" + std::to_string(i);
    std::string op = in.size() == 2 ? "Sub" : in.size() > 2 ? "Mean" : in.empty() ? "Mul" : "Add";
    if (in.size() <= 1) {
      if (in.empty()) {
        in.push_back("x" + std::to_string(i));
        b.add_input(in.back(), core::DType::Float32, {core::Dim{elems, {}}});
      }
      std::vector<float> wv(static_cast<std::size_t>(elems));
      for (std::size_t k = 0; k < wv.size(); ++k) wv[k] = 0.25f + 0.01f * static_cast<float>(i) + 0.001f * static_cast<float>(k % 7);
      b.add_weight(w, core::DType::Float32, {elems}, test::inline_weight(wv));
      in.push_back(w);
    }
    b.add_node(out, op, std::span<const std::string>(in), std::span<const std::string>(&out, 1));
    b.set_shape(out, core::DType::Float32, {elems});
  }
  for (int i = 0; i < nodes; ++i)
    if (!has_succ[static_cast<std::size_t>(i)]) b.mark_output("n" + std::to_string(i));
  auto g = std::move(b).build();
  if (!g) std::abort();
  return std::move(*g);
}

}  // namespace

// Memory-reusing plans from every planner, under the sequential schedule and random 2..4-stream
// schedules, give outputs bit-identical to the no-reuse sequential run on DAGs whose tensors all
// hold different values (a wrongly shared byte would show).
TEST(CpuExecutor, EveryPlannerMatchesSequentialOnDistinctValueDags) {
  auto exec = core::make_cpu_executor();
  core::PlanOptions po;
  po.search_steps = 5000;
  int reusing_plans = 0;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const core::Graph g = make_distinct_value_dag(40, 0.12, seed, 256 + 64 * static_cast<std::int64_t>(seed));
    auto seq = test::run_sequential(g);
    ASSERT_TRUE(seq) << seq.error().message;
    const std::int64_t no_reuse = core::plan_no_reuse(g).arena_bytes;
    for (int streams : {1, 2, 3, 4}) {
      const core::Schedule s = streams == 1 ? test::sequential_schedule(g)
                                            : test::random_schedule(g, streams, seed * 10 + static_cast<std::uint64_t>(streams),
                                                                    {.events_for_cross_edges = true});
      for (const std::string& planner : core::planner_names()) {
        auto plan = core::plan_memory(g, s, planner, po);
        ASSERT_TRUE(plan) << planner << ": " << plan.error().message;
        reusing_plans += plan->arena_bytes < no_reuse ? 1 : 0;
        core::RunOptions o;
        o.warmup = 0;
        auto r = exec->run(g, s, *plan, o);
        ASSERT_TRUE(r) << planner << ": " << r.error().message;
        SCOPED_TRACE(planner + " on " + std::to_string(streams) + " streams, seed " + std::to_string(seed));
        expect_bit_identical(*seq, *r);
      }
    }
  }
  // The check means something only if the plans do reuse memory, and only if a wrong sharing
  // shows: every tensor at offset 0 (the checker turned off) must change some output.
  EXPECT_GT(reusing_plans, 30);
  const core::Graph g = make_distinct_value_dag(40, 0.12, 1, 320);
  auto seq = test::run_sequential(g);
  ASSERT_TRUE(seq);
  core::MemoryPlan broken = core::plan_no_reuse(g);
  for (auto& off : broken.offset)
    if (off != core::kNotPlanned) off = 0;
  broken.arena_bytes = *std::max_element(broken.size.begin(), broken.size.end());
  core::RunOptions o;
  o.warmup = 0;
  o.check_plan = false;
  auto r = exec->run(g, test::sequential_schedule(g), broken, o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NE(core::compare_outputs(*seq, *r).max_abs_diff, 0.0);
}

// Real models (random weights, seeded): squeezenet under random 4-stream schedules and googlenet
// under one, bit-identical to the sequential run.
TEST(CpuExecutor, RandomSchedulesMatchSequentialOnModels) {
  auto exec = core::make_cpu_executor();
  for (const char* model : {"squeezenet1_1.onnx", "googlenet.onnx"}) {
    const core::Graph g = load_model(model);
    auto seq = test::run_sequential(g);
    ASSERT_TRUE(seq) << model << ": " << seq.error().message;
    for (const auto& [name, t] : seq->outputs) {
      // Sanity: random weights keep activations finite and not all zero.
      const auto v = test::as_f32(t);
      bool finite = true, nonzero = false;
      for (float x : v) {
        finite = finite && std::isfinite(x);
        nonzero = nonzero || x != 0.0f;
      }
      EXPECT_TRUE(finite && nonzero) << model << " output " << name;
    }
    const int schedules = std::string(model) == "googlenet.onnx" ? 1 : 2;
    for (int i = 0; i < schedules; ++i) {
      const core::Schedule s = test::random_schedule(g, 4, 100 + static_cast<std::uint64_t>(i), {.events_for_cross_edges = true});
      core::RunOptions o;
      o.warmup = 0;
      auto r = exec->run(g, s, core::plan_no_reuse(g), o);
      ASSERT_TRUE(r) << model << ": " << r.error().message;
      expect_bit_identical(*seq, *r);
    }
  }
}

// Where a tensor sits in the arena does not change any output bit.
TEST(CpuExecutor, OutputsDoNotDependOnArenaPlacement) {
  const core::Graph g = load_model("squeezenet1_1.onnx");
  auto exec = core::make_cpu_executor();
  const core::Schedule s = test::sequential_schedule(g);
  core::MemoryPlan a = core::plan_no_reuse(g);
  // Same tensors, placed in reverse order with gaps (still aligned).
  core::MemoryPlan b = a;
  std::int64_t top = 0;
  for (std::size_t t = b.offset.size(); t-- > 0;) {
    if (b.offset[t] == core::kNotPlanned) continue;
    top += b.alignment * static_cast<std::int64_t>(t % 5);
    b.offset[t] = top;
    top += b.size[t];
  }
  b.arena_bytes = top;
  core::RunOptions o;
  o.warmup = 0;
  auto ra = exec->run(g, s, a, o);
  auto rb = exec->run(g, s, b, o);
  ASSERT_TRUE(ra) << ra.error().message;
  ASSERT_TRUE(rb) << rb.error().message;
  expect_bit_identical(*ra, *rb);
}

// A schedule without the event for a cross-stream data edge is refused and the edge is named.
TEST(CpuExecutor, MissingEventIsRefused) {
  const core::Graph g = test::make_diamond();  // n0 -> {n1, n2} -> n3
  core::Schedule s{{{0, 1, 3}, {2}}, {{0, 2}}, "hand", ""};  // lacks n2 -> n3
  auto r = core::make_cpu_executor()->run(g, s, core::plan_no_reuse(g), {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(r.error().message.find("'n2' -> 'n3'"), std::string::npos) << r.error().message;
}

// Events that close a cycle with stream order would deadlock the threads: refused, not hung.
TEST(CpuExecutor, DeadlockingEventsAreRefused) {
  const core::Graph g = test::make_two_branches(2);  // n0 -> n1, n2 -> n3
  core::Schedule s{{{0, 1}, {2, 3}}, {{1, 2}, {3, 0}}, "hand", ""};
  auto r = core::make_cpu_executor()->run(g, s, core::plan_no_reuse(g), {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("deadlock"), std::string::npos) << r.error().message;
}

// A node placed twice or not at all is refused with its name.
TEST(CpuExecutor, BadPlacementIsRefused) {
  const core::Graph g = test::make_chain(3);
  core::Schedule twice{{{0, 1, 2}, {1}}, {}, "hand", ""};
  auto r = core::make_cpu_executor()->run(g, twice, core::plan_no_reuse(g), {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("'n1' is placed twice"), std::string::npos) << r.error().message;
}

// A plan whose slot is smaller than its tensor is refused before anything runs.
TEST(CpuExecutor, PlanThatDoesNotFitIsRefused) {
  const core::Graph g = test::make_chain(3);
  core::MemoryPlan p = core::plan_no_reuse(g);
  p.size[static_cast<std::size_t>(*g.find_tensor("n0_out"))] = 16;
  auto r = core::make_cpu_executor()->run(g, test::sequential_schedule(g), p, {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("n0_out"), std::string::npos) << r.error().message;
}

// The measured timeline: one item per node on its stream, stream order kept, every waiter starts
// after its event's source ended; iterations are all timed and the wall time is their median.
TEST(CpuExecutor, TimelineRespectsStreamsAndEvents) {
  const core::Graph g = test::make_random_dag(30, 0.15, 7);
  const core::Schedule s = test::random_schedule(g, 3, 77, {.events_for_cross_edges = true});
  core::RunOptions o;
  o.warmup = 1;
  o.iterations = 3;
  auto r = core::make_cpu_executor()->run(g, s, core::plan_no_reuse(g), o);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->iteration_ms.size(), 3u);
  auto sorted = r->iteration_ms;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(r->wall_ms, sorted[1]);
  const auto& items = r->timeline.items;
  ASSERT_EQ(items.size(), g.node_count());
  EXPECT_EQ(r->timeline.kind, core::RunKind::Measured);
  EXPECT_EQ(r->timeline.stream_count, 3);
  expect_respects(s, items);
  // Every node ran and was timed in each iteration: a median duration each.
  ASSERT_EQ(r->node_median_us.size(), g.node_count());
  for (double us : r->node_median_us) EXPECT_GE(us, 0.0);
}

namespace {

// Restricts the calling thread (the executor reads its affinity) to its first `count` allowed
// CPUs for the scope; false when it has fewer.
class AllowedCpus {
 public:
  explicit AllowedCpus(int count) {
    CPU_ZERO(&m_saved);
    if (sched_getaffinity(0, sizeof(m_saved), &m_saved) != 0 || CPU_COUNT(&m_saved) < count) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c = 0, taken = 0; c < CPU_SETSIZE && taken < count; ++c)
      if (CPU_ISSET(c, &m_saved)) {
        CPU_SET(c, &set);
        ++taken;
      }
    m_ok = sched_setaffinity(0, sizeof(set), &set) == 0;
  }
  ~AllowedCpus() {
    if (m_ok) sched_setaffinity(0, sizeof(m_saved), &m_saved);
  }
  AllowedCpus(const AllowedCpus&) = delete;
  AllowedCpus& operator=(const AllowedCpus&) = delete;
  bool ok() const { return m_ok; }

 private:
  cpu_set_t m_saved;
  bool m_ok = false;
};

// The most timeline items running at one instant.
int most_at_once(const std::vector<core::TimelineItem>& items) {
  std::vector<std::pair<double, int>> edges;
  for (const auto& it : items) {
    edges.emplace_back(it.start_us, 1);
    edges.emplace_back(it.end_us, -1);
  }
  std::sort(edges.begin(), edges.end());  // an end sorts before a start at the same instant
  int now = 0, most = 0;
  for (const auto& [t, d] : edges) most = std::max(most, now += d);
  return most;
}

}  // namespace

// More streams than CPUs: one worker per CPU takes the streams in turn. On 1 and on 2 allowed
// CPUs, 5-stream random schedules give the sequential run's outputs bit for bit, keep each
// stream's order and events, report the schedule's streams, and never run more nodes at once
// than there are CPUs.
TEST(CpuExecutor, MoreStreamsThanCpusShareOneWorkerPerCpu) {
  const core::Graph g = test::make_random_dag(40, 0.1, 5);
  auto seq = test::run_sequential(g);
  ASSERT_TRUE(seq) << seq.error().message;
  for (int cpus : {1, 2}) {
    SCOPED_TRACE(cpus);
    const AllowedCpus allowed(cpus);
    if (!allowed.ok()) {
      EXPECT_GT(cpus, 1) << "a thread may always run on one of its CPUs";
      continue;
    }
    EXPECT_EQ(core::cpu_count(), cpus);
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const core::Schedule s = test::random_schedule(g, 5, seed, {.events_for_cross_edges = true});
      core::RunOptions o;
      o.warmup = 1;
      o.iterations = 3;
      auto r = core::make_cpu_executor()->run(g, s, core::plan_no_reuse(g), o);
      ASSERT_TRUE(r) << r.error().message;
      expect_bit_identical(*seq, *r);
      const auto& items = r->timeline.items;
      ASSERT_EQ(items.size(), g.node_count());
      EXPECT_EQ(r->timeline.stream_count, 5);
      EXPECT_LE(most_at_once(items), cpus);
      expect_respects(s, items);
    }
  }
}

// Per node, the median of its durations over the timed iterations, not the median iteration's
// own: node 0 is slow in the median iteration, node 1 in another; node 2 never ran.
TEST(CpuExecutor, NodeTimesAreMediansOverIterations) {
  core::RunResult r;
  r.iteration_ms = {1.0, 3.0, 2.0};
  std::vector<std::vector<core::TimelineItem>> runs{
      {{0, 0, 0, 10}, {1, 0, 10, 90}, {3, 0, 90, 95}},
      {{0, 0, 0, 12}, {1, 0, 12, 32}, {3, 0, 32, 36}},
      {{0, 0, 0, 50}, {1, 0, 50, 70}, {3, 0, 70, 76}},
  };
  core::finish_measured_run(r, runs, core::Schedule{}, 64, "cpu", "cpu");
  EXPECT_EQ(r.wall_ms, 2.0);
  ASSERT_EQ(r.timeline.items.size(), 3u);
  EXPECT_EQ(r.timeline.items[0].end_us, 50);  // the median iteration's own timeline
  EXPECT_EQ(r.node_median_us, (std::vector<double>{12, 20, -1, 5}));
}

// Seeded inputs and weights are reproducible across runs and change with the seed.
TEST(CpuExecutor, SeedsAreDeterministic) {
  const core::Graph g = test::make_chain(4);
  core::RunOptions a;
  auto r1 = test::run_sequential(g, a);
  auto r2 = test::run_sequential(g, a);
  a.seed = 7;
  auto r3 = test::run_sequential(g, a);
  ASSERT_TRUE(r1 && r2 && r3);
  expect_bit_identical(*r1, *r2);
  EXPECT_FALSE(r1->outputs.begin()->second.bytes == r3->outputs.begin()->second.bytes);
}

// A plan made for the sequential order, used under a concurrent schedule that keeps two reused
// tensors live together: check_plan refuses it; with the check off, the outputs are wrong; a plan
// made for the concurrent schedule gives the sequential outputs. The checker is what prevents it.
TEST(CpuExecutor, SequentialPlanUnderConcurrentScheduleIsRefusedByTheChecker) {
  core::GraphBuilder b;
  b.add_input("x", core::DType::Float32, {core::Dim{1, {}}, core::Dim{4096, {}}});
  b.add_node("a0", "Neg", {"x"}, {"a0_out"});
  b.add_node("a1", "Relu", {"a0_out"}, {"a"});
  b.add_node("b0", "Sigmoid", {"x"}, {"b0_out"});
  b.add_node("b1", "Relu", {"b0_out"}, {"b"});
  for (const char* t : {"a0_out", "a", "b0_out", "b"}) b.set_shape(t, core::DType::Float32, {1, 4096});
  b.mark_output("a");
  b.mark_output("b");
  auto built = std::move(b).build();
  ASSERT_TRUE(built);
  const core::Graph& g = *built;
  const core::NodeId a0 = *g.find_node("a0"), a1 = *g.find_node("a1"), b0 = *g.find_node("b0"), b1 = *g.find_node("b1");
  const core::Schedule seq{{{a0, a1, b0, b1}}, {}, "sequential", ""};
  auto seq_plan = core::plan_memory(g, seq, "best");
  ASSERT_TRUE(seq_plan) << seq_plan.error().message;
  // Sequentially a0_out is dead before b0_out is born: they share bytes.
  ASSERT_EQ(seq_plan->offset[static_cast<std::size_t>(*g.find_tensor("a0_out"))],
            seq_plan->offset[static_cast<std::size_t>(*g.find_tensor("b0_out"))]);
  auto exec = core::make_cpu_executor();
  core::RunOptions o;
  o.warmup = 0;
  auto reference = exec->run(g, seq, *seq_plan, o);
  ASSERT_TRUE(reference) << reference.error().message;

  // Two streams; the events force b0 to write between a0's write and a1's read.
  const core::Schedule conc{{{a0, a1}, {b0, b1}}, {{a0, b0}, {b0, a1}}, "hand", ""};
  ASSERT_TRUE(core::validate_schedule(g, conc));
  EXPECT_FALSE(core::check_plan(g, conc, *seq_plan));
  auto refused = exec->run(g, conc, *seq_plan, o);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("memory plan is not valid for this schedule"), std::string::npos)
      << refused.error().message;

  core::RunOptions unchecked = o;
  unchecked.check_plan = false;
  auto wrong = exec->run(g, conc, *seq_plan, unchecked);
  ASSERT_TRUE(wrong) << wrong.error().message;
  EXPECT_FALSE(wrong->outputs.at("a").bytes == reference->outputs.at("a").bytes) << "the race did not corrupt 'a'";

  auto conc_plan = core::plan_memory(g, conc, "best");
  ASSERT_TRUE(conc_plan);
  ASSERT_TRUE(core::check_plan(g, conc, *conc_plan));
  auto right = exec->run(g, conc, *conc_plan, o);
  ASSERT_TRUE(right) << right.error().message;
  expect_bit_identical(*reference, *right);
}

// Every registered strategy's schedule on squeezenet, with a memory plan made for that schedule,
// gives outputs bit-identical to the sequential run.
TEST(CpuExecutor, EveryStrategyMatchesSequentialOnSqueezenet) {
  const core::Graph g = load_model("squeezenet1_1.onnx");
  auto device = core::load_device(core::default_device_name());
  ASSERT_TRUE(device) << device.error().message;
  const core::CostTable costs = core::estimate_costs(g, *device);
  auto exec = core::make_cpu_executor();
  auto seq = test::run_sequential(g);
  ASSERT_TRUE(seq) << seq.error().message;
  for (const std::string& name : core::fixed_strategy_names()) {
    core::StrategyOptions so;
    so.max_streams = 4;
    so.granularity_us = 0;  // split even small operators: the most concurrency to race on
    auto s = core::make_schedule(name, g, costs, *device, so);
    ASSERT_TRUE(s) << name << ": " << s.error().message;
    auto plan = core::plan_memory(g, *s, "best");
    ASSERT_TRUE(plan) << name << ": " << plan.error().message;
    core::RunOptions o;
    o.warmup = 0;
    auto r = exec->run(g, *s, *plan, o);
    ASSERT_TRUE(r) << name << ": " << r.error().message;
    EXPECT_EQ(r->timeline.stream_count, static_cast<int>(s->stream_count()));
    expect_bit_identical(*seq, *r);
  }
}

// A kernel that throws on the calling thread's stream (an output sized by data that no memory
// holds: 2^44 bytes, which the allocator refuses; under the sanitizers ctest sets
// allocator_may_return_null so that operator new throws there too) fails the run with the node's name, and the
// other stream's thread is released, not left waiting (the run hung joining it). Past 2^48 bytes
// the output is refused before any allocation.
TEST(CpuExecutor, DataSizedOutputsPastMemoryFailTheRun) {
  for (const auto& [elements, says] : {std::pair<std::int64_t, const char*>{std::int64_t{1} << 42, "out of memory"},
                                       std::pair<std::int64_t, const char*>{std::int64_t{1} << 61, "2^48 bytes"}}) {
    SCOPED_TRACE(elements);
    core::GraphBuilder b;
    b.add_weight("shape", core::DType::Int64, {1}, test::inline_weight(std::vector<std::int64_t>{elements}));
    b.add_input("x", core::DType::Float32, {core::Dim{4, {}}});
    b.add_node("huge", "ConstantOfShape", {"shape"}, {"y"});
    b.add_node("relu", "Relu", {"x"}, {"z"});
    b.mark_output("y");
    b.mark_output("z");
    auto g = std::move(b).build();
    ASSERT_TRUE(g) << g.error().message;
    // "huge" on stream 0, which the calling thread runs.
    const core::Schedule s{{{*g->find_node("huge")}, {*g->find_node("relu")}}, {}, "hand", ""};
    core::RunOptions options;
    options.iterations = 2;
    auto r = core::make_cpu_executor()->run(*g, s, core::plan_no_reuse(*g), options);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("huge"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
  }
}

// Streams of two threads each (intra-operator parallelism in every stream's library team):
// every schedule still gives the sequential run's bits at that team size, and the run reports
// its team size; more streams than the teams the CPUs hold are taken in turn.
TEST(CpuExecutor, StreamsOfSeveralThreadsStayBitIdentical) {
  const core::Graph g = load_model("googlenet.onnx");
  auto exec = core::make_cpu_executor();
  core::RunOptions o;
  o.warmup = 0;
  o.threads_per_stream = std::min(2, core::cpu_count());
  auto seq = exec->run(g, test::sequential_schedule(g), core::plan_no_reuse(g), o);
  ASSERT_TRUE(seq) << seq.error().message;
  EXPECT_EQ(seq->threads_per_stream, o.threads_per_stream);
  for (int streams : {2, 3}) {
    const core::Schedule s = test::random_schedule(g, streams, 7 + static_cast<std::uint64_t>(streams), {.events_for_cross_edges = true});
    auto r = exec->run(g, s, core::plan_no_reuse(g), o);
    ASSERT_TRUE(r) << r.error().message;
    expect_bit_identical(*seq, *r);
  }
}

// Hybrid teams: a 2-stream schedule of GoogLeNet whose alone nodes (its stem, every block's
// Concat) run on a team of every CPU gives outputs bit-identical to the sequential run with the
// same teams, twice, and within 1e-4 of the one-thread sequential run; the run counts the nodes
// on teams of their own. A team of more threads than the CPUs is refused.
TEST(CpuExecutor, HybridTeamsStayBitIdentical) {
  const core::Graph g = load_model("googlenet.onnx");
  auto exec = core::make_cpu_executor();
  core::RunOptions o;
  o.warmup = 0;
  o.iterations = 1;
  const int cpus = core::cpu_count();
  core::Schedule s = test::random_schedule(g, 2, 11, {.events_for_cross_edges = true});
  s.events = core::compute_events(g, s);
  ASSERT_TRUE(core::assign_alone_teams(g, s, std::max(cpus, 2)));
  if (cpus < 2) {
    auto refused = exec->run(g, s, core::plan_no_reuse(g), o);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("more than the 1 CPUs"), std::string::npos) << refused.error().message;
    GTEST_SKIP() << "one CPU: no team of 2";
  }
  const core::NodeTeamCount teams = core::count_node_teams(s);
  ASSERT_GT(teams.nodes, 0u);
  core::Schedule seq = test::sequential_schedule(g);
  seq.node_threads = s.node_threads;
  auto a = exec->run(g, seq, core::plan_no_reuse(g), o);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->node_team_nodes, static_cast<std::int64_t>(teams.nodes));
  EXPECT_EQ(a->node_team_threads, teams.threads);
  for (int round = 0; round < 2; ++round) {
    auto r = exec->run(g, s, core::plan_no_reuse(g), o);
    ASSERT_TRUE(r) << r.error().message;
    expect_bit_identical(*a, *r);
  }
  auto plain = exec->run(g, test::sequential_schedule(g), core::plan_no_reuse(g), o);
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(plain->node_team_nodes, 0);
  const core::OutputDiff diff = core::compare_outputs(*plain, *a);
  EXPECT_LT(diff.max_rel_diff(), 1e-4) << diff.max_abs_diff;
  core::Schedule too_wide = s;
  too_wide.node_threads.assign(g.node_count(), 0);
  too_wide.node_threads[0] = cpus + 1;
  auto refused = exec->run(g, too_wide, core::plan_no_reuse(g), o);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(refused.error().message.find("more than the " + std::to_string(cpus) + " CPUs"), std::string::npos) << refused.error().message;
}

// Warm-up on the CPU lasts RunOptions::warmup iterations and warmup_ms at least (a core that
// idled runs its first milliseconds slow); warmup 0 asks for none, warmup_ms 0 for the count only.
// Seen through before_iteration, called before every iteration's clock starts.
TEST(CpuExecutor, WarmupLastsItsTimeAndNoneWhenNoneIsAsked) {
  const core::Graph g = test::make_chain(4);
  using Clock = std::chrono::steady_clock;
  std::vector<Clock::time_point> calls;
  core::RunOptions ro;
  ro.iterations = 3;
  ro.before_iteration = [&calls] { calls.push_back(Clock::now()); };
  const auto run = [&](int warmup, double warmup_ms) {
    calls.clear();
    ro.warmup = warmup;
    ro.warmup_ms = warmup_ms;
    auto r = core::make_cpu_executor()->run(g, test::sequential_schedule(g), core::plan_no_reuse(g), ro);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->iteration_ms.size(), 3u);
  };
  run(1, 20);
  ASSERT_GE(calls.size(), 4u);
  // From the first warm-up iteration to the first timed one.
  const double warm_ms = std::chrono::duration<double, std::milli>(calls[calls.size() - 3] - calls.front()).count();
  EXPECT_GE(warm_ms, 20.0);
  run(0, 20);
  EXPECT_EQ(calls.size(), 3u);
  run(2, 0);
  EXPECT_EQ(calls.size(), 5u);
}
