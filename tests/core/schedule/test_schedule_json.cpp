#include <gtest/gtest.h>

#include <filesystem>

#include "schedule_test_util.h"
#include "test_graphs.h"
#include "weft/core/base/file_io.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/strategy/registry.h"
#include "weft/core/schedule/sync.h"

using namespace weft;
using core::Schedule;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// a -> {b, c} -> d with a model path and hash, as the importer would set them.
core::Graph model(const std::string& sha) {
  core::GraphBuilder b;
  b.add_input("x", core::DType::Float32, {core::Dim{4, {}}});
  b.add_node("a", "Relu", {"x"}, {"ta"});
  b.add_node("b", "Relu", {"ta"}, {"tb"});
  b.add_node("c", "Relu", {"ta"}, {"tc"});
  b.add_node("d", "Sum", {"tb", "tc"}, {"td"});
  b.mark_output("td");
  b.info().model_path = "models/diamond.onnx";
  b.info().model_sha256 = sha;
  auto g = std::move(b).build();
  if (!g) std::abort();
  return std::move(*g);
}

const std::string kSha = core::sha256_hex("diamond");

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string refusal(const core::Graph& g, const std::string& text) {
  auto s = core::schedule_from_json(g, text);
  EXPECT_FALSE(s) << text;
  if (s) return {};
  EXPECT_EQ(s.error().kind, core::ErrorKind::InvalidInput);
  return s.error().message;
}

}  // namespace

// The written format: keys, streams of node names, events by name (golden).
TEST(ScheduleJson, GoldenExport) {
  const core::Graph g = model(kSha);
  const Schedule s{{{0, 1, 3}, {2}}, {{0, 2}, {2, 3}}, "chains", "streams=8 granularity_us=0"};
  const std::string expected = R"({
  "format": "weft-schedule",
  "version": 1,
  "model": {
    "path": "models/diamond.onnx",
    "sha256": ")" + kSha + R"("
  },
  "device": "h100-sxm",
  "strategy": "chains",
  "options": "streams=8 granularity_us=0",
  "streams": [
    [
      "a",
      "b",
      "d"
    ],
    [
      "c"
    ]
  ],
  "events": [
    {
      "from": "a",
      "to": "c"
    },
    {
      "from": "c",
      "to": "d"
    }
  ]
}
)";
  EXPECT_EQ(core::schedule_to_json(g, s, "h100-sxm"), expected);
}

// Export then import is lossless for every strategy on random DAGs, and through a file.
TEST(ScheduleJson, RoundTripIsLossless) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const core::Graph g = test::make_random_dag(50, 0.1, seed);
    for (const std::string& name : core::fixed_strategy_names()) {
      auto s = core::make_schedule(name, g, test::uniform_costs(g, 1.0), core::DeviceSpec{});
      ASSERT_TRUE(s);
      auto back = core::schedule_from_json(g, core::schedule_to_json(g, *s, "h100-sxm"));
      ASSERT_TRUE(back) << back.error().message;
      EXPECT_EQ(back->streams, s->streams);
      EXPECT_EQ(back->events, s->events);
      EXPECT_EQ(back->strategy, s->strategy);
      EXPECT_EQ(back->options, s->options);
    }
  }
  const core::Graph g = model(kSha);
  const Schedule s{{{0, 1, 3}, {2}}, {{0, 2}, {2, 3}}, "hand", ""};
  const std::string path = (std::filesystem::temp_directory_path() / "weft_test_schedule.json").string();
  ASSERT_TRUE(core::save_schedule(path, g, s, "h100-sxm"));
  auto loaded = core::load_schedule(path, g);
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded->streams, s.streams);
  EXPECT_EQ(loaded->events, s.events);
  std::filesystem::remove(path);
  EXPECT_FALSE(core::load_schedule(path, g));
}

// Import refuses, with the reason: another model, unknown / missing / duplicate nodes,
// malformed JSON, wrong format or version, deadlocks and insufficient events.
// The header the studio reads without a graph: the model it names, its split and merges; refused
// with the field named when malformed.
TEST(ScheduleJson, HeaderWithoutTheGraph) {
  const core::Graph g = model(kSha);
  const Schedule s{{{0, 1, 3}, {2}}, {{0, 2}, {2, 3}}, "chains", ""};
  const std::string good = core::schedule_to_json(g, s, "h100-sxm");
  auto h = core::schedule_header_from_json(good);
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_EQ(h->model_path, "models/diamond.onnx");
  EXPECT_EQ(h->model_sha256, kSha);
  EXPECT_EQ(h->split.k, 1);
  EXPECT_EQ(h->merges, 0u);
  EXPECT_EQ(h->strategy, "chains");
  const std::string split = replace(good, "\"events\"", "\"split\": {\"k\": 2, \"batch\": 8},\n  \"events\"");
  h = core::schedule_header_from_json(split);
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_EQ(h->split.k, 2);
  EXPECT_EQ(h->split.batch, 8);
  auto header_refusal = [](const std::string& text) {
    auto r = core::schedule_header_from_json(text);
    EXPECT_FALSE(r) << text;
    return r ? std::string() : r.error().message;
  };
  EXPECT_TRUE(contains(header_refusal(good.substr(0, good.size() / 2)), "malformed JSON"));
  EXPECT_TRUE(contains(header_refusal("[1]"), "top level must be an object"));
  EXPECT_TRUE(contains(header_refusal(replace(good, "\"path\": \"models/diamond.onnx\"", "\"path\": 7")), "'model.path'"));
  EXPECT_TRUE(contains(header_refusal(replace(split, "\"k\": 2", "\"k\": 1")), "'split' k"));
  EXPECT_TRUE(contains(header_refusal(replace(split, "\"k\": 2", "\"k\": 5000")), "between 2 and 4096"));
  EXPECT_TRUE(contains(header_refusal(replace(good, "\"events\"", "\"merges\": 3,\n  \"events\"")), "'merges'"));
}

TEST(ScheduleJson, EveryRefusal) {
  const core::Graph g = model(kSha);
  const Schedule s{{{0, 1, 3}, {2}}, {{0, 2}, {2, 3}}, "hand", ""};
  const std::string good = core::schedule_to_json(g, s, "h100-sxm");
  ASSERT_TRUE(core::schedule_from_json(g, good));

  const core::Graph other = model(core::sha256_hex("another"));
  EXPECT_TRUE(contains(refusal(other, good), "made for another model"));
  EXPECT_TRUE(contains(refusal(g, replace(good, "\"b\",", "\"zz\",")), "unknown node 'zz'"));
  EXPECT_TRUE(contains(refusal(g, replace(good, "\"b\",", "")), "on no stream (first: 'b')"));
  EXPECT_TRUE(contains(refusal(g, replace(good, "\"c\"\n    ]", "\"c\", \"b\"\n    ]")), "duplicate node 'b'"));
  EXPECT_TRUE(contains(refusal(g, good.substr(0, good.size() / 2)), "malformed JSON"));
  EXPECT_TRUE(contains(refusal(g, "[1, 2]"), "top level must be an object"));
  EXPECT_TRUE(contains(refusal(g, replace(good, "weft-schedule", "other-thing")), "'format'"));
  EXPECT_TRUE(contains(refusal(g, replace(good, "\"version\": 1", "\"version\": 9")), "version"));
  // Stream 0: a d b -- d before b on one stream while d waits for b.
  EXPECT_TRUE(contains(refusal(g, replace(good, "\"b\",\n      \"d\"", "\"d\",\n      \"b\"")), "would deadlock"));
  const std::string no_join = replace(good, ",\n    {\n      \"from\": \"c\",\n      \"to\": \"d\"\n    }", "");
  EXPECT_TRUE(contains(refusal(g, no_join), "c -> d is not enforced"));
  EXPECT_TRUE(contains(refusal(g, replace(good, "\"to\": \"d\"", "\"to\": 5")), "node keys must be strings"));
  // Hostile: thousands of empty streams would cost V × streams clock entries.
  std::string many = R"({"format": "weft-schedule", "version": 1, "streams": [["a", "b", "c", "d"])";
  for (int i = 0; i < 5000; ++i) many += ", []";
  many += R"(], "events": []})";
  EXPECT_TRUE(contains(refusal(g, many), "at most 1024"));
}
