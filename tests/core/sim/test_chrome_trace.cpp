#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "sim_fixtures.h"
#include "test_graphs.h"
#include "weft/core/sim/chrome_trace.h"
#include "weft/core/base/file_io.h"
#include "weft/core/memory/memory_plan.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/study/prediction.h"
#include "weft/core/strategy/reference.h"

using namespace weft;
using nlohmann::json;

namespace {

struct Runs {
  core::Graph graph = test::make_diamond();
  core::CostTable costs = test::table({test::compute_bound(10), test::bandwidth_bound(20), test::compute_bound(30),
                                       test::bandwidth_bound(5)});
  core::Schedule schedule{{{0, 1, 3}, {2}}, {{0, 2}, {2, 3}}, "hand", "streams=2"};
  core::MemoryPlan plan = core::plan_no_reuse(graph);
  std::vector<core::Timeline> timelines;
  Runs() {
    core::PredictOptions o;
    o.plan = &plan;
    auto p = core::predict(graph, schedule, costs, test::test_device(), o);
    if (!p) std::abort();
    timelines = {p->timeline, p->sequential_graph};
  }
};

}  // namespace

// A saved trace parses back and carries every field Perfetto and Weft's readers rely on.
TEST(ChromeTrace, SavedTraceHasEveryRequiredField) {
  Runs r;
  const std::string path = (std::filesystem::temp_directory_path() / "weft_test_trace.json").string();
  core::TraceInfo info{"models/diamond.onnx", "abc123", "test", "hand"};
  ASSERT_TRUE(core::save_chrome_trace(path, r.graph, r.timelines, &r.costs, info));
  auto text = core::read_file(path);
  ASSERT_TRUE(text);
  std::filesystem::remove(path);
  EXPECT_EQ(text->rfind("{\"displayTimeUnit\":", 0), 0u) << "displayTimeUnit must come first";

  const json j = json::parse(*text);
  ASSERT_TRUE(j.contains("traceEvents"));
  ASSERT_TRUE(j["traceEvents"].is_array());
  EXPECT_TRUE(j["displayTimeUnit"] == "ns" || j["displayTimeUnit"] == "ms");

  std::map<int, std::string> process_names;
  std::set<std::pair<int, int>> thread_names;
  std::map<int, int> x_per_pid;
  std::map<long long, json> flow_start, flow_end;
  int arena_counters = 0;
  for (const json& e : j["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph"));
    ASSERT_TRUE(e.contains("pid"));
    const std::string ph = e["ph"];
    const int pid = e["pid"];
    if (ph == "M" && e["name"] == "process_name") process_names[pid] = e["args"]["name"];
    if (ph == "M" && e["name"] == "thread_name") thread_names.insert({pid, e["tid"].get<int>()});
    if (ph == "X") {
      ++x_per_pid[pid];
      for (const char* k : {"name", "tid", "ts", "dur", "args"}) EXPECT_TRUE(e.contains(k)) << k;
      EXPECT_TRUE(e["args"].contains("op"));
      EXPECT_TRUE(e["args"]["flops"].is_number());
      EXPECT_TRUE(e["args"]["bytes"].is_number());
      EXPECT_GE(e["dur"].get<double>(), 0.0);
      EXPECT_TRUE(thread_names.count({pid, e["tid"].get<int>()})) << "thread named before use";
    }
    if (ph == "s") flow_start[e["id"].get<long long>()] = e;
    if (ph == "f") {
      EXPECT_EQ(e["bp"], "e");
      flow_end[e["id"].get<long long>()] = e;
    }
    if (ph == "C" && e["name"] == "arena bytes") {
      ++arena_counters;
      EXPECT_TRUE(e["args"]["bytes"].is_number());
    }
  }
  // One process per run, named after the run.
  ASSERT_EQ(process_names.size(), 2u);
  EXPECT_EQ(process_names[1], "predicted hand");
  EXPECT_EQ(process_names[2], "sequential CUDA Graph");
  EXPECT_EQ(x_per_pid[1], 4);
  EXPECT_EQ(x_per_pid[2], 4);
  // Both events cross streams: two flows, each s on the producer's stream before the f on the consumer's.
  ASSERT_EQ(flow_start.size(), 2u);
  ASSERT_EQ(flow_end.size(), 2u);
  for (const auto& [id, s] : flow_start) {
    ASSERT_TRUE(flow_end.count(id));
    const json& f = flow_end[id];
    EXPECT_EQ(s["pid"], f["pid"]);
    EXPECT_NE(s["tid"], f["tid"]);
    EXPECT_LE(s["ts"].get<double>(), f["ts"].get<double>());
  }
  EXPECT_GT(arena_counters, 2);
  // Weft's metadata.
  const json& other = j["otherData"];
  EXPECT_EQ(other["model"], "models/diamond.onnx");
  EXPECT_EQ(other["sha256"], "abc123");
  EXPECT_EQ(other["device"], "test");
  EXPECT_EQ(other["strategy"], "hand");
  ASSERT_EQ(other["runs"].size(), 2u);
}

// X events carry the simulated times exactly (µs), on the node's stream.
TEST(ChromeTrace, EventsMatchTimeline) {
  Runs r;
  const json j = json::parse(core::chrome_trace_json(r.graph, std::span(r.timelines.data(), 1), &r.costs));
  const core::Timeline& tl = r.timelines[0];
  int seen = 0;
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const auto n = r.graph.find_node(e["name"].get<std::string>());
    ASSERT_TRUE(n);
    const core::TimelineItem& it = tl.items[static_cast<std::size_t>(*n)];
    EXPECT_DOUBLE_EQ(e["ts"].get<double>(), it.start_us);
    EXPECT_DOUBLE_EQ(e["dur"].get<double>(), it.end_us - it.start_us);
    EXPECT_EQ(e["tid"].get<int>(), it.stream);
    EXPECT_DOUBLE_EQ(e["args"]["flops"].get<double>(), r.costs[*n].flops);
    ++seen;
  }
  EXPECT_EQ(seen, 4);
}
