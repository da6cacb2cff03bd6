#include <gtest/gtest.h>

#include <filesystem>

#include "sim_fixtures.h"
#include "test_graphs.h"
#include "weft/core/sim/calibrate.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/study/prediction.h"
#include "weft/core/strategy/reference.h"
#include "weft/core/schedule/timeline.h"
#include "weft/core/sim/timeline_json.h"

using namespace weft;

// A timeline survives save and load: its identity (kind, backend, strategy), items, events and
// counters, matched by node key.
TEST(TimelineJson, RoundTrip) {
  const core::Graph g = test::make_diamond();
  const auto costs = test::table({test::compute_bound(10), test::bandwidth_bound(20), test::compute_bound(30),
                                  test::bandwidth_bound(5)});
  const core::Schedule s{{{0, 1, 3}, {2}}, {{0, 2}, {2, 3}}, "hand", ""};
  const core::Timeline tl = core::simulate(g, s, costs, test::test_device());
  const std::string path = (std::filesystem::temp_directory_path() / "weft_test_timeline.json").string();
  ASSERT_TRUE(core::save_timeline(path, g, tl));
  auto back = core::load_timeline(path, g);
  std::filesystem::remove(path);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->label, tl.label);
  EXPECT_EQ(back->kind, core::RunKind::Predicted);
  EXPECT_EQ(back->strategy, "hand");
  EXPECT_TRUE(back->identity() == tl.identity());
  EXPECT_EQ(back->stream_count, 2);
  ASSERT_EQ(back->items.size(), tl.items.size());
  for (std::size_t i = 0; i < tl.items.size(); ++i) {
    EXPECT_EQ(back->items[i].node, tl.items[i].node);
    EXPECT_EQ(back->items[i].stream, tl.items[i].stream);
    EXPECT_DOUBLE_EQ(back->items[i].start_us, tl.items[i].start_us);
    EXPECT_DOUBLE_EQ(back->items[i].end_us, tl.items[i].end_us);
  }
  EXPECT_EQ(back->events, tl.events);
  EXPECT_EQ(back->compute_use.size(), tl.compute_use.size());
}

// A measured timeline (hand-written JSON) calibrates the costs; unknown nodes and other models are refused.
TEST(TimelineJson, CalibrationFromJsonAndRefusals) {
  const core::Graph g = test::make_chain(3);
  const auto costs = test::table({test::compute_bound(10), test::compute_bound(20), test::compute_bound(30)});
  const std::string text = R"({"format": "weft-timeline", "version": 1, "kind": "measured", "device": "H200",
    "nodes": [{"name": "n1", "stream": 0, "start_us": 100.0, "end_us": 112.5},
              {"name": "n2", "stream": 0, "start_us": 113.0, "end_us": 115.0}]})";
  auto tl = core::timeline_from_json(g, text, "run.json");
  ASSERT_TRUE(tl) << tl.error().message;
  const auto cal = core::calibrate_costs(costs, *tl);
  EXPECT_DOUBLE_EQ(cal.nodes[0].time_us, 10 + test::kTestLaunch);
  EXPECT_FALSE(cal.nodes[0].measured);
  EXPECT_DOUBLE_EQ(cal.nodes[1].time_us, 12.5);
  EXPECT_TRUE(cal.nodes[1].measured);
  EXPECT_DOUBLE_EQ(cal.nodes[2].time_us, 2);

  auto unknown = core::timeline_from_json(g, R"({"format": "weft-timeline", "version": 1,
    "nodes": [{"name": "conv9", "start_us": 0, "end_us": 1}]})", "run.json");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("conv9"), std::string::npos);
  EXPECT_NE(unknown.error().message.find("run.json"), std::string::npos);

  auto reversed = core::timeline_from_json(g, R"({"format": "weft-timeline", "version": 1,
    "nodes": [{"name": "n0", "start_us": 5, "end_us": 1}]})");
  ASSERT_FALSE(reversed);
  EXPECT_NE(reversed.error().message.find("invalid times"), std::string::npos);

  EXPECT_FALSE(core::timeline_from_json(g, "{not json"));
  EXPECT_FALSE(core::timeline_from_json(g, R"({"format": "chrome", "nodes": []})"));
  EXPECT_FALSE(core::timeline_from_json(g, R"({"format": "weft-timeline", "version": 1, "nodes": [{"name": 3}]})"));
}
