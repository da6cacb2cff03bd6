// `weft simulate` on real models: JSON fields, trace file, calibration, --graph, errors.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include <set>

#include "weft/core/base/file_io.h"

using nlohmann::json;

namespace {

using Result = weft::test::CliResult;
Result run(const std::string& args) { return weft::test::run_cli(args, weft::test::StderrMode::Discard); }
std::string model(const std::string& name) { return weft::test::model_path(name); }
std::string temp(const std::string& name) { return weft::test::temp_path(name); }

}  // namespace

// The JSON report has every documented field, consistent speedups and a timeline covering all 139 operators.
TEST(CliSimulate, GooglenetJson) {
  const Result r = run("simulate " + model("googlenet.onnx") + " --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const json j = json::parse(r.out);
  for (const char* k : {"makespan_us", "sequential_eager_us", "sequential_graph_us", "speedup_vs_graph",
                        "speedup_vs_eager", "verdict", "streams", "nodes"})
    EXPECT_TRUE(j.contains(k)) << k;
  const double m = j["makespan_us"];
  ASSERT_GT(m, 0);
  EXPECT_NEAR(j["speedup_vs_graph"].get<double>(), j["sequential_graph_us"].get<double>() / m, 1e-9);
  EXPECT_NEAR(j["speedup_vs_eager"].get<double>(), j["sequential_eager_us"].get<double>() / m, 1e-9);
  EXPECT_LE(j["speedup_vs_graph"].get<double>(), j["speedup_bound"].get<double>() + 1e-9);
  EXPECT_FALSE(j["verdict"].get<std::string>().empty());
  ASSERT_EQ(j["nodes"].size(), 139u);
  std::set<std::string> names;
  for (const json& n : j["nodes"]) {
    names.insert(n["name"].get<std::string>());
    EXPECT_LE(n["start_us"].get<double>(), n["end_us"].get<double>());
    EXPECT_LT(n["stream"].get<int>(), j["streams"].get<int>());
  }
  EXPECT_EQ(names.size(), 139u);
}

// One stream in topological order predicts exactly the sequential eager baseline; a schedule with
// streams is no slower than the span allows; --graph switches the mode.
TEST(CliSimulate, SequentialMatchesBaselineAndGraphMode) {
  const Result seq = run("simulate " + model("googlenet.onnx") + " --strategy sequential --json");
  ASSERT_EQ(seq.code, 0) << seq.out;
  const json s = json::parse(seq.out);
  EXPECT_EQ(s["streams"], 1);
  EXPECT_EQ(s["events"], 0);
  EXPECT_NEAR(s["speedup_vs_eager"].get<double>(), 1.0, 1e-9);
  EXPECT_EQ(s["verdict"].get<std::string>().rfind("single stream", 0), 0u) << s["verdict"];
  const Result g = run("simulate " + model("googlenet.onnx") + " --strategy sequential --graph --json");
  ASSERT_EQ(g.code, 0);
  const json gj = json::parse(g.out);
  EXPECT_EQ(gj["mode"], "graph");
  EXPECT_NEAR(gj["speedup_vs_graph"].get<double>(), 1.0, 1e-9);
}

// --trace writes a Chrome trace with the three runs and Weft's metadata.
TEST(CliSimulate, TraceFile) {
  const std::string out = temp("weft_cli_sim_trace.json");
  const Result r = run("simulate " + model("googlenet.onnx") + " --trace " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("verdict"), std::string::npos);
  auto text = weft::core::read_file(out);
  ASSERT_TRUE(text);
  std::filesystem::remove(out);
  EXPECT_EQ(text->rfind("{\"displayTimeUnit\"", 0), 0u);
  const json j = json::parse(*text);
  std::set<int> pids;
  int x = 0;
  for (const json& e : j["traceEvents"]) {
    pids.insert(e["pid"].get<int>());
    if (e["ph"] == "X") ++x;
  }
  EXPECT_EQ(pids, (std::set<int>{1, 2, 3}));
  EXPECT_EQ(x, 3 * 139);
  EXPECT_FALSE(j["otherData"]["sha256"].get<std::string>().empty());
  EXPECT_FALSE(j["otherData"]["strategy"].get<std::string>().empty());
}

// --calibrate: a measured 5 ms for one node shows up in the makespan and the calibrated count.
TEST(CliSimulate, CalibrationReplacesTimes) {
  const Result base = run("simulate " + model("googlenet.onnx") + " --strategy sequential --json");
  ASSERT_EQ(base.code, 0);
  const json b = json::parse(base.out);
  const std::string first = b["nodes"][0]["name"];
  const std::string path = temp("weft_cli_sim_cal.json");
  {
    std::ofstream f(path);
    f << json{{"format", "weft-timeline"}, {"version", 1}, {"kind", "measured"},
              {"nodes", json::array({{{"name", first}, {"stream", 0}, {"start_us", 0}, {"end_us", 5000}}})}}.dump();
  }
  const Result cal = run("simulate " + model("googlenet.onnx") + " --strategy sequential --json --calibrate " + path);
  ASSERT_EQ(cal.code, 0) << cal.out;
  const json c = json::parse(cal.out);
  EXPECT_EQ(c["calibrated_nodes"], 1);
  double old_dur = 0, new_dur = 0;
  for (const json& n : b["nodes"]) if (n["name"] == first) old_dur = n["end_us"].get<double>() - n["start_us"].get<double>();
  for (const json& n : c["nodes"]) if (n["name"] == first) new_dur = n["end_us"].get<double>() - n["start_us"].get<double>();
  EXPECT_DOUBLE_EQ(new_dur, 5000);
  EXPECT_LT(old_dur, 5000);
  // Eager googlenet is launch-bound: the host keeps issuing during the long node, so the makespan
  // grows by less than 5000 − old, but the run now lasts at least the measured node.
  EXPECT_GE(c["makespan_us"].get<double>(), 5000);
  EXPECT_GT(c["makespan_us"].get<double>(), b["makespan_us"].get<double>());
  // A timeline naming a node the model lacks is refused as invalid input.
  {
    std::ofstream f(path);
    f << R"({"format":"weft-timeline","version":1,"nodes":[{"name":"no_such_node","start_us":0,"end_us":1}]})";
  }
  EXPECT_EQ(run("simulate " + model("googlenet.onnx") + " --calibrate " + path).code, 2);
  std::filesystem::remove(path);
}

// Usage and input errors map to their exit codes.
TEST(CliSimulate, Errors) {
  EXPECT_EQ(run("simulate").code, 1);
  EXPECT_EQ(run("simulate " + model("googlenet.onnx") + " --strategy cp-list --schedule x.json").code, 1);
  EXPECT_EQ(run("simulate " + model("googlenet.onnx") + " --strategy no-such-strategy").code, 1);
  EXPECT_EQ(run("simulate " + model("googlenet.onnx") + " --streams zero").code, 1);
  EXPECT_EQ(run("simulate " + model("googlenet.onnx") + " --bogus").code, 1);
  EXPECT_NE(run("simulate /nonexistent/model.onnx").code, 0);
}

// `weft schedule --compare` carries the predicted time and both speedups; sequential is 1.00x vs eager.
TEST(CliSimulate, CompareHasPredictedColumns) {
  const Result r = run("schedule " + model("googlenet.onnx") + " --compare --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const json j = json::parse(r.out);
  ASSERT_FALSE(j["strategies"].empty());
  for (const json& row : j["strategies"]) {
    ASSERT_TRUE(row.contains("predicted us")) << row.dump();
    EXPECT_GT(row["predicted us"].get<double>(), 0);
    EXPECT_TRUE(row.contains("vs graph"));
    EXPECT_TRUE(row.contains("vs eager"));
    if (row["strategy"] == "sequential") {
      EXPECT_NEAR(row["vs eager"].get<double>(), 1.0, 1e-9);
    }
  }
}

// Eager launches pay host time per event, so the automatic granularity keeps googlenet's small
// operators together; scheduled for CUDA Graph replay (--graph) the same strategy spreads the
// inception branches over streams and beats the sequential graph; --granularity overrides both.
TEST(CliSimulate, GranularityFollowsLaunchMode) {
  const Result eager = run("simulate " + model("googlenet.onnx") + " --strategy chains --json");
  ASSERT_EQ(eager.code, 0) << eager.out;
  const json e = json::parse(eager.out);
  const Result graph = run("simulate " + model("googlenet.onnx") + " --strategy chains --graph --json");
  ASSERT_EQ(graph.code, 0) << graph.out;
  const json g = json::parse(graph.out);
  EXPECT_GT(g["streams"].get<int>(), e["streams"].get<int>());
  EXPECT_GT(g["speedup_vs_graph"].get<double>(), 1.5);
  EXPECT_NE(g["options"].get<std::string>().find("cuda_graph=on"), std::string::npos) << g["options"];
  const Result forced = run("simulate " + model("googlenet.onnx") + " --strategy chains --graph --granularity 1000 --json");
  ASSERT_EQ(forced.code, 0) << forced.out;
  EXPECT_EQ(json::parse(forced.out)["streams"], 1);
  // Strategy options do not apply to a loaded schedule; a negative granularity is refused.
  EXPECT_EQ(run("simulate " + model("googlenet.onnx") + " --strategy chains --granularity -1").code, 1);
  const std::string file = temp("granularity_schedule.json");
  ASSERT_EQ(run("schedule " + model("googlenet.onnx") + " --strategy chains -o " + file).code, 0);
  EXPECT_EQ(run("simulate " + model("googlenet.onnx") + " --schedule " + file + " --granularity 0").code, 1);
}
