// `weft layers` through the built binary: the grouped MLP's 48 -> 12 launches, schedule and user
// wires, and the usage and input errors with their exit codes.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace {

using weft::test::contains;
weft::test::CliResult run_weft(const std::string& args) {
  return weft::test::run_cli(args, weft::test::StderrMode::Separate);
}
std::string model(const std::string& name) { return weft::test::model_path(name); }

// The seed's grouped MLP layers into 12 layers of four Gemms, each merged into one launch.
TEST(CliLayers, GroupedMlpJson) {
  for (const char* batch : {"1", "32"}) {
    const auto r = run_weft("layers " + model("grouped_mlp") + " --dim batch=" + batch + " --device h200 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["depth"], 12);
    EXPECT_EQ(j["asap_depth"], 12);
    EXPECT_EQ(j["max_width"], 4);
    EXPECT_EQ(j["launches_before"], 48);
    EXPECT_EQ(j["launches_after"], 12);
    EXPECT_EQ(j["merge_groups"].size(), 12u);
    EXPECT_EQ(j["wires"]["origin"], "graph chains");
    EXPECT_GT(j["time_before_us"].get<double>(), 3.0 * j["time_after_us"].get<double>());
  }
}

// Wires from a schedule name its strategy; user wires from a file are read and checked.
TEST(CliLayers, ScheduleAndFileWires) {
  auto r = run_weft("layers " + model("googlenet") + " --strategy chains --graph --json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["wires"]["origin"], "schedule chains");
  EXPECT_GE(j["depth"].get<int>(), j["asap_depth"].get<int>());

  const std::string wires = weft::test::temp_path("weft_layers_wires.json");
  {
    std::ofstream out(wires);
    nlohmann::json w = {{"format", "weft-wires"}, {"version", 1}, {"wires", nlohmann::json::array()}};
    for (int g = 0; g < 4; ++g) {
      nlohmann::json nodes = nlohmann::json::array();
      for (int l = 0; l < 12; ++l) nodes.push_back("gemm_g" + std::to_string(g) + "_l" + std::to_string(l));
      w["wires"].push_back({{"name", "group" + std::to_string(g)}, {"nodes", nodes}});
    }
    out << w.dump();
  }
  r = run_weft("layers " + model("grouped_mlp") + " --dim batch=1 --wires " + wires + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["wires"]["count"], 4);
  EXPECT_EQ(j["wires"]["names"][2], "group2");
  EXPECT_EQ(j["launches_after"], 12);

  {
    std::ofstream out(wires);
    out << R"({"format": "weft-wires", "version": 1, "wires": [{"nodes": ["gemm_g0_l0", "nope"]}]})";
  }
  r = run_weft("layers " + model("grouped_mlp") + " --dim batch=1 --wires " + wires);
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "unknown node 'nope'")) << r.err;
  std::remove(wires.c_str());
}

// Usage errors exit 1; a missing model or wires file exits 2.
TEST(CliLayers, Errors) {
  EXPECT_EQ(run_weft("layers").code, 1);
  EXPECT_EQ(run_weft("layers " + model("googlenet") + " --wires a.json --strategy chains").code, 1);
  EXPECT_EQ(run_weft("layers " + model("googlenet") + " --streams 2").code, 1);
  EXPECT_EQ(run_weft("layers " + model("googlenet") + " --wires /nonexistent/w.json").code, 2);
  const auto r = run_weft("layers " + model("googlenet") + " --strategy nope");
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "unknown strategy")) << r.err;
}

}  // namespace
