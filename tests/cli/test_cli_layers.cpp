// `weft layers` through the built binary: the grouped MLP's 48 -> 12 launches, schedule and user
// wires, and the usage and input errors with their exit codes; --merge and --fuse in schedule,
// simulate, run.
#include <gtest/gtest.h>

#include <cstdio>
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

// simulate --merge: the grouped MLP merged (48 -> 12 launches) and replayed as a CUDA Graph beats
// the unmerged sequential CUDA Graph at least 3x on the H200 preset.
TEST(CliMerge, SimulateMergedGroupedMlp) {
  for (const char* batch : {"1", "32"}) {
    const auto r = run_weft("simulate " + model("grouped_mlp") + " --dim batch=" + batch + " --device h200 --graph --merge --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_TRUE(j.contains("merge"));
    EXPECT_EQ(j["merge"]["groups"], 12);
    EXPECT_EQ(j["merge"]["launches_before"], 48);
    EXPECT_EQ(j["merge"]["launches_after"], 12);
    EXPECT_GE(j["merge"]["speedup_vs_unmerged_graph"].get<double>(), 3.0) << "batch " << batch;
    EXPECT_NEAR(j["merge"]["speedup_vs_unmerged_graph"].get<double>(),
                j["merge"]["unmerged_sequential_graph_us"].get<double>() / j["makespan_us"].get<double>(), 1e-9);
    std::size_t merged_nodes = 0;
    for (const auto& n : j["nodes"]) merged_nodes += n["op"] == "Merged" ? 1 : 0;
    EXPECT_EQ(merged_nodes, 12u);
  }
  const auto plain = run_weft("simulate " + model("grouped_mlp") + " --dim batch=1 --device h200 --graph --json");
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_FALSE(nlohmann::json::parse(plain.out).contains("merge"));
  const auto text = run_weft("simulate " + model("grouped_mlp") + " --dim batch=1 --device h200 --graph --merge");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "launches 48 -> 12")) << text.out;
  EXPECT_TRUE(contains(text.out, "vs the unmerged sequential CUDA Graph")) << text.out;
}

// schedule --merge -o saves the merges with the schedule; simulate, run, validate and plan reload
// them without --merge.
TEST(CliMerge, SavedScheduleReloadsItsMerges) {
  const std::string path = weft::test::temp_path("weft_merged_schedule.json");
  const std::string m = model("transformer4h") + " --dim batch=1 --device h200";
  auto r = run_weft("schedule " + m + " --strategy cp-list --merge -o " + path);
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(path);
  const auto saved = nlohmann::json::parse(in);
  ASSERT_TRUE(saved.contains("merges"));
  EXPECT_GT(saved["merges"].size(), 0u);

  r = run_weft("simulate " + m + " --schedule " + path + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("merge"));
  EXPECT_EQ(j["merge"]["groups"], saved["merges"].size());
  EXPECT_LT(j["merge"]["launches_after"].get<int>(), j["merge"]["launches_before"].get<int>());

  r = run_weft("run " + m + " --backend cpu --schedule " + path + " --iterations 1 --warmup 0 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["bit_identical"], true);
  EXPECT_EQ(j["merge"]["groups"], saved["merges"].size());

  r = run_weft("validate " + m + " " + path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "operators merged")) << r.out;

  r = run_weft("plan " + m + " --schedule " + path + " --planner best-fit");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "merged: 72 -> 17 operators")) << r.out;
  std::remove(path.c_str());
}

// run --merge on the CPU: bit-identical to the unmerged sequential run, under every planner.
TEST(CliMerge, RunMergedOnCpuIsBitIdentical) {
  for (const char* planner : {"greedy-by-size", "best-fit", "best"}) {
    const auto r = run_weft("run " + model("grouped_mlp") + " --dim batch=4 --backend cpu --merge --planner " + planner +
                            " --iterations 1 --warmup 0 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["bit_identical"], true) << planner;
    EXPECT_EQ(j["max_abs_diff"], 0.0);
    EXPECT_EQ(j["merge"]["groups"], 12);
    EXPECT_EQ(j["merge"]["nodes_before"].get<int>() - j["merge"]["nodes_after"].get<int>(), 36);
    // How the merged nodes ran: the reference executor runs each one's members in turn.
    EXPECT_EQ(j["merged_paths"], nlohmann::json({{"members in turn", 12}})) << planner;
  }
  const auto text = run_weft("run " + model("grouped_mlp") + " --dim batch=4 --backend cpu --merge --iterations 1 --warmup 0");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "merged nodes: 12 members in turn")) << text.out;
  const auto plain = run_weft("run " + model("grouped_mlp") + " --dim batch=4 --backend cpu --iterations 1 --warmup 0 --json");
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_FALSE(nlohmann::json::parse(plain.out).contains("merged_paths"));
}

// Split and merged together: the saved schedule records both, and validate and simulate reload it
// onto the model split and merged the same way; the CPU run is bit-identical to the split model's.
TEST(CliMerge, SplitAndMergedTogether) {
  const std::string file = weft::test::temp_path("weft_cli_split_merged.json");
  const std::string m = model("grouped_mlp") + " --dim batch=8";
  const auto saved = run_weft("schedule " + m + " --split 2 --merge --strategy cp-list -o " + file);
  ASSERT_EQ(saved.code, 0) << saved.err;
  const auto valid = run_weft("validate " + m + " " + file);
  ASSERT_EQ(valid.code, 0) << valid.err;
  EXPECT_NE(valid.out.find("96 -> 12 operators merged"), std::string::npos) << valid.out;
  EXPECT_EQ(run_weft("simulate " + m + " --schedule " + file).code, 0);
  const auto ran = run_weft("run " + m + " --schedule " + file + " --backend cpu --iterations 1 --warmup 0 --json");
  ASSERT_EQ(ran.code, 0) << ran.err;
  EXPECT_EQ(nlohmann::json::parse(ran.out)["bit_identical"], true);
}

// --merge on CUDA runs the merged model against the unmerged sequential run where a GPU is
// present (outputs equal the CPU's), else fails as any CUDA run does there (Runtime, 3).
TEST(CliMerge, RunsOnCuda) {
  auto r = run_weft("run " + model("grouped_mlp") + " --dim batch=1 --backend cuda --merge --iterations 2 --json");
  if (r.code == 0) {
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["merge"]["groups"], 12);
    EXPECT_LE(j["max_abs_error_vs_cpu"].get<double>(), 1e-4);
    // Every group of four equal Gemms is one batched launch (cuBLASLt's bias epilogue, or the
    // bias kernel and batched GEMM where cuBLASLt has no algorithm), never members in turn.
    std::int64_t launched = 0;
    for (const auto& [path, count] : j["merged_paths"].items()) {
      EXPECT_NE(path, "members in turn");
      launched += count.get<std::int64_t>();
    }
    EXPECT_EQ(launched, 12) << j["merged_paths"].dump();
  } else {
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_TRUE(contains(r.err, "no CUDA device") || contains(r.err, "libweft_cuda.so")) << r.err;
  }
}

// --merge's usage errors exit 1 and say why.
TEST(CliMerge, Errors) {
  const std::string path = weft::test::temp_path("weft_unmerged_schedule.json");
  auto r = run_weft("schedule " + model("grouped_mlp") + " --dim batch=1 --strategy chains -o " + path);
  ASSERT_EQ(r.code, 0) << r.err;
  r = run_weft("simulate " + model("grouped_mlp") + " --dim batch=1 --schedule " + path + " --merge");
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "records no merges")) << r.err;
  std::remove(path.c_str());
}

// schedule --fuse -o saves the fusions; run reloads them without --fuse and runs the fused model
// bit-identical to the unfused sequential run; layers --fuse counts them; --fuse with a file that
// records none is a usage error.
TEST(CliFuse, SavedScheduleReloadsItsFusionsAndRunsBitIdentical) {
  const std::string path = weft::test::temp_path("weft_fused_schedule.json"), m = model("resnet50");
  auto r = run_weft("schedule " + m + " --strategy cp-list --fuse -o " + path);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto saved = nlohmann::json::parse(std::ifstream(path));
  EXPECT_EQ(saved.value("fusions", nlohmann::json::array()).size(), 49u);
  EXPECT_FALSE(saved.contains("merges"));

  r = run_weft("run " + m + " --backend cpu --schedule " + path + " --iterations 1 --warmup 0 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["bit_identical"], true);
  EXPECT_EQ(j["fusion"]["chains"], 49);
  EXPECT_EQ(j["fusion"]["nodes_before"], 122);
  EXPECT_EQ(j["fusion"]["nodes_after"], 57);
  EXPECT_FALSE(j.contains("merge"));

  r = run_weft("layers " + m + " --fuse");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "fused         49 chains of 114 operators (Conv+Relu 33, Conv+Add+Relu 16); 122 -> 57 nodes")) << r.out;

  const std::string plain = weft::test::temp_path("weft_unfused_schedule.json");
  ASSERT_EQ(run_weft("schedule " + m + " --strategy sequential -o " + plain).code, 0);
  r = run_weft("run " + m + " --backend cpu --schedule " + plain + " --fuse --iterations 1 --warmup 0");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "records no fusions")) << r.err;
  std::remove(path.c_str());
  std::remove(plain.c_str());
}

}  // namespace
