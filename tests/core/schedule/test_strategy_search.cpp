// The search strategy and the strategy registry: search never predicts worse than the best fixed
// strategy, is deterministic for a seed under a candidate budget, keeps the stream cap, stops when
// progress says so, and gains on a RandWire graph; strategies registered by a program are listed,
// run through make_schedule and validated, and bad registrations are refused.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "model_dims.h"
#include "schedule_test_util.h"
#include "test_graphs.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/strategy/registry.h"
#include "weft/core/schedule/sync.h"

namespace weft::core {
namespace {

Graph load(const std::string& stem) {
  ImportOptions o;
  o.dims = test::model_dims(stem);
  auto g = import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/" + stem + ".onnx", o);
  if (!g) ADD_FAILURE() << g.error().message;
  return std::move(*g);
}

double predicted(const Graph& g, const Schedule& s, const CostTable& c, const DeviceSpec& d, bool graph_mode) {
  SimOptions o;
  o.cuda_graph = graph_mode;
  return simulate(g, s, c, d, o).makespan_us();
}

StrategyOptions search_options(bool graph_mode, std::int64_t evaluations, std::uint64_t seed = 1) {
  StrategyOptions o;
  o.cuda_graph = graph_mode;
  o.search_evaluations = evaluations;
  o.search_budget_ms = 1e12;
  o.seed = seed;
  return o;
}

// Never worse than the best fixed strategy, in both launch modes, on real models; valid and
// within the cap.
TEST(StrategySearch, NeverWorseThanTheBestFixedStrategy) {
  const DeviceSpec device = *load_device("h200");
  for (const std::string stem : {"googlenet", "squeezenet1_1", "transformer4h"}) {
    const Graph g = load(stem);
    const CostTable costs = estimate_costs(g, device);
    for (const bool graph_mode : {false, true}) {
      StrategyOptions o = search_options(graph_mode, 300);
      o.max_streams = 4;
      double best_fixed = std::numeric_limits<double>::infinity();
      for (const std::string& name : fixed_strategy_names()) {
        auto s = make_schedule(name, g, costs, device, o);
        ASSERT_TRUE(s) << s.error().message;
        if (static_cast<int>(s->stream_count()) <= o.max_streams)
          best_fixed = std::min(best_fixed, predicted(g, *s, costs, device, graph_mode));
      }
      auto s = make_schedule("search", g, costs, device, o);
      ASSERT_TRUE(s) << s.error().message;
      EXPECT_TRUE(validate_schedule(g, *s));
      EXPECT_LE(static_cast<int>(s->stream_count()), o.max_streams);
      EXPECT_LE(predicted(g, *s, costs, device, graph_mode), best_fixed + 1e-9) << stem << " graph=" << graph_mode;
      EXPECT_NE(s->options.find("evaluations="), std::string::npos) << s->options;
    }
  }
}

// The same seed and candidate budget give the same schedule; another seed may differ but is valid.
TEST(StrategySearch, DeterministicForASeed) {
  const DeviceSpec device = *load_device("h200");
  const Graph g = load("randwire_ws");
  const CostTable costs = estimate_costs(g, device);
  auto a = make_schedule("search", g, costs, device, search_options(true, 400, 7));
  auto b = make_schedule("search", g, costs, device, search_options(true, 400, 7));
  auto c = make_schedule("search", g, costs, device, search_options(true, 400, 8));
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a->streams, b->streams);
  EXPECT_EQ(a->events, b->events);
  EXPECT_TRUE(validate_schedule(g, *c));
}

// Progress reports rise to 1 and a false return stops the search early with a valid schedule.
TEST(StrategySearch, ProgressAndCancel) {
  const DeviceSpec device = *load_device("h200");
  const Graph g = load("googlenet");
  const CostTable costs = estimate_costs(g, device);
  StrategyOptions o = search_options(true, 100000);
  int calls = 0;
  double last = -1;
  o.progress = [&](double fraction, double best_us) {
    EXPECT_GE(fraction, last);
    EXPECT_GT(best_us, 0);
    last = fraction;
    return ++calls < 3;  // stop at the third report
  };
  auto s = make_schedule("search", g, costs, device, o);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(validate_schedule(g, *s));
  EXPECT_EQ(last, 1.0);  // the final report
  const auto at = s->options.find("evaluations=");
  ASSERT_NE(at, std::string::npos);
  EXPECT_LT(std::stoll(s->options.substr(at + 12)), 1000) << s->options;
}

// On the wide graphs (RandWire-WS, Inception-v3) under CUDA Graph replay: the search never loses
// to the best fixed strategy, and the bound it reports is a true lower bound (no fixed strategy's
// prediction and not its own goes below it). The figures are printed: the gain the issue asks for
// (10% on RandWire) is not reachable where the best fixed strategy is already within a few percent
// of the bound (the device's bandwidth, shared by concurrent kernels, is the limit there).
TEST(StrategySearch, WideGraphsAgainstTheBound) {
  const DeviceSpec device = *load_device("h200");
  for (const char* stem : {"randwire_ws", "inception_v3"}) {
    const Graph g = load(stem);
    const CostTable costs = estimate_costs(g, device);
    const StrategyOptions o = search_options(true, 1500);
    auto s = make_schedule("search", g, costs, device, o);
    ASSERT_TRUE(s) << s.error().message;
    const auto at = s->options.find("bound_us=");
    ASSERT_NE(at, std::string::npos) << s->options;
    const double bound = std::stod(s->options.substr(at + 9));
    double best_fixed = std::numeric_limits<double>::infinity();
    for (const std::string& name : fixed_strategy_names()) {
      const double t = predicted(g, *make_schedule(name, g, costs, device, o), costs, device, true);
      EXPECT_GE(t, bound - 1e-6) << stem << " " << name;
      best_fixed = std::min(best_fixed, t);
    }
    const double searched = predicted(g, *s, costs, device, true);
    EXPECT_LE(searched, best_fixed + 1e-9) << stem;
    EXPECT_GE(searched, bound - 1e-6) << stem;
    EXPECT_GT(bound, 0) << stem;
    std::printf("%s, graph replay: best fixed %.2f us, search %.2f us (%.3fx better), bound %.2f us (search at %.3fx of it) [%s]\n",
                stem, best_fixed, searched, best_fixed / searched, bound, searched / bound, s->options.c_str());
  }
}

class ReverseChains final : public Strategy {
 public:
  std::string name() const override { return "test-one-stream-per-level-parity"; }
  std::string description() const override { return "even ASAP levels on stream 0, odd on stream 1"; }
  Expected<Schedule> schedule(const StrategyInput& in) const override {
    std::vector<int> level(in.graph.node_count(), 0);
    Schedule s;
    s.streams.resize(2);
    for (NodeId v : in.graph.topo_order()) {
      for (NodeId p : in.graph.predecessors(v))
        level[static_cast<std::size_t>(v)] = std::max(level[static_cast<std::size_t>(v)], level[static_cast<std::size_t>(p)] + 1);
      s.streams[static_cast<std::size_t>(level[static_cast<std::size_t>(v)] % 2)].push_back(v);
    }
    s.options = "parity=on";
    return s;
  }
};

// A program's own strategy joins the registry: listed after the built-ins, run by make_schedule
// with events and validation, its options kept; duplicates and bad names are refused.
TEST(StrategyRegistry, ProgramStrategiesRegisterAndRun) {
  ASSERT_TRUE(register_strategy(std::make_shared<ReverseChains>()));
  const auto names = strategy_names();
  EXPECT_EQ(names.back(), "test-one-stream-per-level-parity");
  EXPECT_EQ(names.front(), "sequential");
  const Graph g = test::make_random_dag(60, 0.1, 3);
  const CostTable costs = test::uniform_costs(g, 1.0);
  auto s = make_schedule("test-one-stream-per-level-parity", g, costs, DeviceSpec{}, {});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->strategy, "test-one-stream-per-level-parity");
  EXPECT_NE(s->options.find("parity=on"), std::string::npos);
  EXPECT_TRUE(validate_schedule(g, *s));
  EXPECT_EQ(s->events, compute_events(g, *s));

  auto again = register_strategy(std::make_shared<ReverseChains>());
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("already registered"), std::string::npos);
  EXPECT_FALSE(register_strategy(make_strategy("chains", "shadow a built-in", 1, [](const StrategyInput&) -> Expected<Schedule> {
    return Schedule{};
  })));
  EXPECT_FALSE(register_strategy(make_strategy("two words", "", 1, [](const StrategyInput&) -> Expected<Schedule> {
    return Schedule{};
  })));
  EXPECT_FALSE(register_strategy(nullptr));

  // A strategy whose schedule leaves a node out is an internal error naming it, not a crash.
  ASSERT_TRUE(register_strategy(make_strategy("test-drops-a-node", "broken on purpose", 2000,
                                              [](const StrategyInput& in) -> Expected<Schedule> {
                                                Schedule bad;
                                                bad.streams.push_back({});
                                                for (std::size_t v = 1; v < in.graph.node_count(); ++v)
                                                  bad.streams[0].push_back(static_cast<NodeId>(v));
                                                return bad;
                                              })));
  auto broken = make_schedule("test-drops-a-node", g, costs, DeviceSpec{}, {});
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("test-drops-a-node"), std::string::npos) << broken.error().message;
}

}  // namespace
}  // namespace weft::core
