// Pins every result Weft computes on the test models (analysis, every strategy's streams and
// events in both launch modes, memory plans and bounds, predictions and verdicts) to figures
// recorded before the scale optimisations (issue 16): speed work must not change one of them.
// Regenerate only for an intended change of results: WEFT_UPDATE_GOLDEN=1 test_golden_results.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "model_dims.h"
#include "weft/core/analysis/analyze.h"
#include "weft/core/analysis/antichain.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/schedule_study.h"

namespace {

using namespace weft;
using Json = nlohmann::ordered_json;

const std::string kGoldenPath = std::string(WEFT_TEST_DATA_DIR) + "/golden/results.json";

// FNV-1a over 64-bit words: long id lists and bit patterns of doubles, pinned in one number.
struct Hash {
  std::uint64_t h = 1469598103934665603ull;
  void add(std::uint64_t x) {
    for (int i = 0; i < 8; ++i) {
      h ^= (x >> (8 * i)) & 0xffu;
      h *= 1099511628211ull;
    }
  }
  void add(double x) { add(std::bit_cast<std::uint64_t>(x)); }
  void add(std::int64_t x) { add(static_cast<std::uint64_t>(x)); }
  void add(int x) { add(static_cast<std::uint64_t>(static_cast<std::int64_t>(x))); }
  std::string hex() const {
    std::ostringstream s;
    s << std::hex << h;
    return s.str();
  }
};

std::string timeline_hash(const core::Timeline& t) {
  Hash h;
  h.add(t.stream_count);
  for (const auto& item : t.items) {
    h.add(item.node);
    h.add(item.stream);
    h.add(item.start_us);
    h.add(item.end_us);
  }
  for (const auto& e : t.events) {
    h.add(e.from);
    h.add(e.to);
  }
  for (const auto* counter : {&t.arena_bytes, &t.compute_use, &t.bandwidth_use})
    for (const auto& c : *counter) {
      h.add(c.time_us);
      h.add(c.value);
    }
  return h.hex();
}

Json study_json(const core::ScheduleStudy& s) {
  Json j;
  Hash streams, events;
  for (const auto& stream : s.schedule.streams) {
    streams.add(-1);
    for (core::NodeId v : stream) streams.add(v);
  }
  for (const auto& e : s.schedule.events) {
    events.add(e.from);
    events.add(e.to);
  }
  j["options"] = s.schedule.options;
  j["streams"] = s.schedule.stream_count();
  j["streams_hash"] = streams.hex();
  j["events"] = s.schedule.events.size();
  j["events_hash"] = events.hex();
  j["ideal_makespan_us"] = s.ideal_makespan_us;
  j["reference_ideal_us"] = s.reference_ideal_us;
  j["event_host_us"] = s.event_host_us;
  j["cross_stream_edges"] = s.cross_stream_edges;
  if (s.prediction) {
    const core::Prediction& p = *s.prediction;
    j["predicted_us"] = p.makespan_us;
    j["sequential_eager_us"] = p.sequential_eager_us;
    j["sequential_graph_us"] = p.sequential_graph_us;
    j["free_events_us"] = p.free_events_us;
    j["no_bandwidth_sharing_us"] = p.no_bandwidth_sharing_us;
    j["no_compute_sharing_us"] = p.no_compute_sharing_us;
    j["span_us"] = p.critical.span_us;
    j["verdict"] = p.verdict;
    j["timeline_hash"] = timeline_hash(p.timeline);
    j["baselines_hash"] = timeline_hash(p.sequential_eager) + "/" + timeline_hash(p.sequential_graph);
  }
  if (s.memory) {
    const core::MemoryReport& m = *s.memory;
    j["planner"] = m.plan.planner;
    j["arena_bytes"] = m.arena_bytes();
    j["reference_arena_bytes"] = m.reference_arena_bytes();
    Json arenas = Json::object();
    for (const auto& p : m.planners) arenas[p.planner] = p.arena_bytes;
    j["planner_arenas"] = std::move(arenas);
    Hash offsets;
    for (std::size_t t = 0; t < m.plan.offset.size(); ++t) {
      offsets.add(m.plan.offset[t]);
      offsets.add(m.plan.size[t]);
    }
    for (std::size_t t = 0; t < m.reference_plan.offset.size(); ++t) offsets.add(m.reference_plan.offset[t]);
    j["offsets_hash"] = offsets.hex();
    j["concurrent_bound_bytes"] = m.bound.bytes;
    j["concurrent_bound_exact"] = m.bound.exact;
    j["linear_bound_bytes"] = m.linear_bound_bytes;
    j["file_order_linear_bound_bytes"] = m.file_order_linear_bound_bytes;
    j["no_reuse_bytes"] = m.no_reuse_bytes;
  }
  return j;
}

// Everything recorded for one model: its analysis and every strategy in both launch modes.
Json model_json(const std::filesystem::path& path) {
  core::ImportOptions import;
  for (const auto& [name, value] : test::model_dims(path.stem().string())) import.dims[name] = value;
  auto graph = core::import_onnx(path.string(), import);
  EXPECT_TRUE(graph) << path << ": " << graph.error().message;
  if (!graph) return {};
  auto device = core::load_device(core::default_device_name());
  EXPECT_TRUE(device);
  const core::CostTable costs = core::estimate_costs(*graph, *device);
  const core::AnalysisReport a = core::analyze(*graph, costs);
  Json j;
  j["nodes"] = graph->node_count();
  j["edges"] = graph->edge_count();
  j["folded_nodes"] = graph->info().folded_nodes;
  j["width"] = a.antichain_width;
  Hash antichain, levels;
  for (core::NodeId v : a.antichain) antichain.add(v);
  for (int l : a.levels.asap) levels.add(l);
  for (int l : a.levels.alap) levels.add(l);
  for (core::NodeId v : a.critical.nodes) antichain.add(v);  // and the critical path
  j["antichain_critical_hash"] = antichain.hex();
  j["levels_hash"] = levels.hex();
  // The min-flow width (Auto uses it above kMatchingMaxNodes only): its cover and antichain.
  const core::Width flow = core::compute_width(*graph, core::WidthMethod::MinFlow);
  Hash flow_hash;
  for (const auto& chain : flow.cover.chains) {
    flow_hash.add(-1);
    for (core::NodeId v : chain) flow_hash.add(v);
  }
  for (core::NodeId v : flow.antichain) flow_hash.add(v);
  j["min_flow_hash"] = flow_hash.hex();
  j["work_us"] = a.critical.work_us;
  j["span_us"] = a.critical.span_us;
  j["verdict"] = a.verdict;
  for (const bool graph_mode : {false, true}) {
    core::StrategyOptions options;
    options.cuda_graph = graph_mode;
    options.search_budget_ms = 1;  // `search` is bounded by wall time: run briefly, not recorded
    core::StudyOptions study;
    study.mode = core::launch_mode_of(options);
    auto all = core::study_strategies(*graph, costs, *device, options, study);
    EXPECT_TRUE(all) << path << ": " << all.error().message;
    if (!all) continue;
    Json& mode = j[graph_mode ? "graph" : "eager"];
    for (const core::StrategyStudy& s : *all)
      if (s.study.schedule.strategy != "search") mode[s.study.schedule.strategy] = study_json(s.study);
  }
  return j;
}

// The test models and the synthetic ones (bench/synthetic_models.h: layered, transformer, MoE,
// RandWire-style, wide, long-range and bursty, 2k operators each).
std::vector<std::filesystem::path> models() {
  std::vector<std::filesystem::path> out;
  for (const char* folder : {"/models", "/synthetic"})
    for (const auto& e : std::filesystem::directory_iterator(std::string(WEFT_TEST_DATA_DIR) + folder))
      if (e.path().extension() == ".onnx") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Reports the first differing leaves between the golden and the current figures.
void compare(const Json& want, const Json& got, const std::string& where, int& reported) {
  if (reported > 40) return;
  if (want.is_object() && got.is_object()) {
    for (const auto& [key, value] : want.items()) {
      if (!got.contains(key)) {
        ADD_FAILURE() << where << "/" << key << ": missing now";
        ++reported;
      } else {
        compare(value, got[key], where + "/" + key, reported);
      }
    }
    for (const auto& [key, value] : got.items())
      if (!want.contains(key)) {
        ADD_FAILURE() << where << "/" << key << ": new (not in the golden file; regenerate it if intended)";
        ++reported;
      }
    return;
  }
  if (want != got) {
    ADD_FAILURE() << where << ": golden " << want.dump() << ", now " << got.dump();
    ++reported;
  }
}

TEST(GoldenResults, EveryStrategyOnEveryTestModelIsUnchanged) {
  Json got = Json::object();
  for (const auto& path : models()) got[path.filename().string()] = model_json(path);
  if (std::getenv("WEFT_UPDATE_GOLDEN")) {
    std::filesystem::create_directories(std::filesystem::path(kGoldenPath).parent_path());
    std::ofstream(kGoldenPath) << got.dump(1) << "\n";
    GTEST_SKIP() << "wrote " << kGoldenPath;
  }
  std::ifstream in(kGoldenPath);
  ASSERT_TRUE(in) << "no golden file " << kGoldenPath;
  const Json want = Json::parse(in);
  int reported = 0;
  compare(want, got, "", reported);
}

}  // namespace
