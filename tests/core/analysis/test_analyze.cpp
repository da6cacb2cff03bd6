#include <gtest/gtest.h>

#include "test_graphs.h"
#include "weft/core/analysis/analyze.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/analysis/verdict.h"

using namespace weft;

namespace {

core::CostTable unit_costs(const core::Graph& g, std::vector<double> times = {}) {
  core::CostTable t;
  t.device = "test";
  t.nodes.resize(g.node_count());
  for (std::size_t i = 0; i < g.node_count(); ++i) {
    t.nodes[i].time_us = times.empty() ? 1.0 : times[i];
    t.nodes[i].known = true;
  }
  return t;
}

}  // namespace

// Golden: a chain gets the "cannot help" verdict with width 1.
TEST(Analyze, ChainVerdict) {
  const auto g = test::make_chain(4);
  const auto r = core::analyze(g, unit_costs(g));
  EXPECT_EQ(r.antichain_width, 1u);
  EXPECT_EQ(r.levels.depth, 4);
  EXPECT_DOUBLE_EQ(r.critical.span_us, 4);
  EXPECT_EQ(r.verdict, "chain: concurrency cannot help (width 1)");
  EXPECT_TRUE(r.notes.empty());
}

// Golden: the verdict quotes min(work/span, width) with one decimal and the exact figures.
TEST(Analyze, ConcurrencyVerdict) {
  // Fan-out of 4 after a root, unit costs: work 5, span 2, width 4 -> 2.5x.
  const auto g = test::make_fan_out(4);
  const auto r = core::analyze(g, unit_costs(g));
  EXPECT_EQ(r.antichain_width, 4u);
  EXPECT_EQ(r.antichain.size(), 4u);
  EXPECT_EQ(r.verdict, "up to 2.5x from concurrency (work/span 2.50, width 4)");
  // Width caps the bound: two branches of 3, work/span 2 and width 2.
  const auto b = test::make_two_branches(3);
  EXPECT_EQ(core::analyze(b, unit_costs(b)).verdict, "up to 2.0x from concurrency (work/span 2.00, width 2)");
  // A heavy chain beside a tiny node: width 2 but almost nothing to gain.
  const auto d = test::make_dag(3, {{0, 1}});
  EXPECT_EQ(core::analyze(d, unit_costs(d, {50, 50, 1})).verdict,
            "little to gain from concurrency: the critical path holds 99% of the work (work/span 1.01, width 2)");
}

// One wording and one threshold: advise() words its lines with the verdict's functions, adding
// where (the batch) and its own reason; the bound is "little to gain" exactly below the threshold.
TEST(Analyze, VerdictWordingTakesPlaceAndReason) {
  EXPECT_EQ(core::chain_verdict(1, " at batch 8"), "chain: concurrency cannot help at batch 8 (width 1)");
  EXPECT_EQ(core::little_to_gain_verdict("the best schedule (chains) predicts 1.02x", 1.03, 2, " at batch 8"),
            "little to gain from concurrency at batch 8: the best schedule (chains) predicts 1.02x (work/span 1.03, width 2)");
  EXPECT_EQ(core::concurrency_verdict(1.0, 2).rfind("little to gain from concurrency: ", 0), 0u);
  EXPECT_EQ(core::concurrency_verdict(core::kWorthwhileSpeedup * 0.999, 2).rfind("little to gain", 0), 0u);
  EXPECT_EQ(core::concurrency_verdict(core::kWorthwhileSpeedup, 2).rfind("up to ", 0), 0u);
}

// Unknown costs and shapes are counted and noted, and analysis still completes.
TEST(Analyze, UnknownCostsAreNoted) {
  const auto g = test::make_diamond();
  auto costs = unit_costs(g);
  costs.nodes[1].known = false;
  const auto r = core::analyze(g, costs);
  EXPECT_EQ(r.unknown_costs, 1u);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("1 of 4 operators have unknown cost"), std::string::npos);
  EXPECT_EQ(r.antichain_width, 2u);
}
