// `weft profile` and --profile on the study commands: the mapping report (replay error first),
// measured times named in the advice, a fitted device, and exit 2 for every profile refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "weft/core/base/file_io.h"

using nlohmann::json;

namespace {

using Result = weft::test::CliResult;
Result run(const std::string& args) { return weft::test::run_cli(args, weft::test::StderrMode::Separate); }
std::string model(const std::string& name) { return weft::test::model_path(name); }
std::string profile(const std::string& name) { return std::string(WEFT_TEST_DATA_DIR) + "/profiles/" + name; }
std::string temp(const std::string& name) { return weft::test::temp_path(name); }
using weft::test::contains;

/// `text` written to a temporary file; its path.
std::string written(const std::string& name, const std::string& text) {
  const std::string path = temp(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace

// The report's first line is the replay error; --json carries the same figures per node.
TEST(CliProfile, ReportsReplayErrorFirstAndMatchesEveryOperator) {
  const Result r = run("profile " + model("googlenet") + " " + profile("googlenet.ort-all.json"));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("replay error: ", 0), 0u) << r.out;
  EXPECT_TRUE(contains(r.out, "matched: 139 of 139 operators (100.0%)")) << r.out;
  EXPECT_TRUE(contains(r.out, "fused-chain")) << r.out;
  const Result j = run("profile " + model("googlenet") + " " + profile("googlenet.ort-all.json") + " --json");
  ASSERT_EQ(j.code, 0) << j.err;
  const json doc = json::parse(j.out);
  EXPECT_EQ(doc["operators_matched"], 139);
  EXPECT_LT(std::abs(doc["replay"]["error"].get<double>()), 0.05);
  EXPECT_EQ(doc["nodes"].size(), 139u);
  EXPECT_EQ(doc["profile"]["source"], "ONNX Runtime CPU EP, median of 5 runs");
}

// --profile on advise: measured times replace predictions and the advice line says so, naming
// the profile; the study commands accept it and say the replay error on stderr.
TEST(CliProfile, StudiesUseMeasuredTimesAndSaySo) {
  const std::string p = profile("googlenet.torch-cpu.json");
  const std::string m = std::string(WEFT_TEST_DATA_DIR) + "/profiles/googlenet.torch.onnx";
  const Result advice = run("advise " + m + " --profile " + p);
  ASSERT_EQ(advice.code, 0) << advice.err;
  EXPECT_TRUE(contains(advice.out, "computed from measured times (PyTorch CPU trace, median of 3 steps, " + p + ")")) << advice.out;
  EXPECT_TRUE(contains(advice.err, "weft: measured times from " + p)) << advice.err;
  const Result plain = run("advise " + m);
  EXPECT_FALSE(contains(plain.out, "measured times")) << plain.out;
  // The simulated sequential run is the measured node times' sum.
  const Result sim = run("simulate " + m + " --strategy sequential --profile " + p + " --json");
  ASSERT_EQ(sim.code, 0) << sim.err;
  const Result report = run("profile " + m + " " + p + " --json");
  ASSERT_EQ(report.code, 0) << report.err;
  double measured = 0;
  const json nodes = json::parse(report.out)["nodes"];
  for (const auto& n : nodes) measured += n["measured_us"].get<double>();
  EXPECT_NEAR(json::parse(sim.out)["makespan_us"].get<double>(), measured, 1e-6 * measured + 1e-3);
  for (const char* command : {"analyze ", "schedule --strategy cp-list ", "plan --strategy cp-list ", "frontier --caps 1,2 "}) {
    std::string c = command;
    const std::size_t space = c.find(' ');
    const Result r = run(c.substr(0, space) + " " + m + " " + c.substr(space + 1) + "--profile " + p);
    EXPECT_EQ(r.code, 0) << c << r.err;
  }
  const Result sweep = run("sweep " + m + " --batches 1,2 --strategies sequential,cp-list --profile " + p + " --json");
  ASSERT_EQ(sweep.code, 0) << sweep.err;
  EXPECT_TRUE(contains(sweep.err, "batch 1 from measured times")) << sweep.err;
}

// A CPU profile with no --device is studied on a CPU fitted to it, not on the default GPU preset
// (whose launches and CUDA Graphs would be advised for a CPU); a device asked for is kept.
TEST(CliProfile, CpuProfileIsStudiedOnACpu) {
  const std::string p = profile("googlenet.ort-all.json");
  const Result fitted = run("advise " + model("googlenet") + " --profile " + p + " --json");
  ASSERT_EQ(fitted.code, 0) << fitted.err;
  EXPECT_EQ(json::parse(fitted.out)["device"], "cpu-profile") << fitted.out;
  EXPECT_TRUE(contains(fitted.err, "studied on cpu-profile: a CPU fitted to ONNX Runtime CPU EP")) << fitted.err;
  const Result text = run("advise " + model("googlenet") + " --profile " + p);
  EXPECT_FALSE(contains(text.out, "CUDA Graph")) << text.out;
  const Result asked = run("advise " + model("googlenet") + " --profile " + p + " --device h100-sxm --json");
  ASSERT_EQ(asked.code, 0) << asked.err;
  EXPECT_EQ(json::parse(asked.out)["device"], "h100-sxm") << asked.out;
}

// calibrate --profile writes a device file of the profile's kind with per-family efficiencies
// that loads back as --device.
TEST(CliProfile, CalibrateFitsADeviceToTheProfile) {
  const std::string out = temp("weft_profile_device.json");
  std::filesystem::remove(out);
  const Result r = run("calibrate " + model("googlenet") + " --profile " + profile("googlenet.ort-basic.json") + " -o " + out + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["device"]["kind"], "cpu");
  EXPECT_TRUE(j["device"]["op_efficiency"].contains("conv"));
  const Result use = run("simulate " + model("squeezenet1_1") + " --strategy sequential --device " + out);
  EXPECT_EQ(use.code, 0) << use.err;
  EXPECT_EQ(run("calibrate " + model("googlenet") + " --profile " + profile("googlenet.ort-basic.json") + " --iterations 3").code, 1);
}

// Refused profiles exit 2 naming the problem, and nothing runs half-applied.
TEST(CliProfile, RefusedProfilesExitTwo) {
  const std::string text = *weft::core::read_file(profile("squeezenet1_1.ort-all.json"));
  const std::string truncated = written("weft_profile_truncated.json", text.substr(0, text.size() / 3));
  const std::string sessions =
      written("weft_profile_sessions.json", R"([{"cat":"Session","pid":1,"tid":1,"dur":10,"ts":0,"ph":"X","name":"model_run","args":{}}])");
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"profile " + model("squeezenet1_1") + " " + profile("googlenet.ort-all.json"), "a profile of another model?"},
      {"analyze " + model("squeezenet1_1") + " --profile " + profile("googlenet.torch-cpu.json"), "a profile of another model?"},
      {"profile " + model("squeezenet1_1") + " " + truncated, "truncated JSON at byte"},
      {"advise " + model("squeezenet1_1") + " --profile " + truncated, "truncated JSON at byte"},
      {"simulate " + model("squeezenet1_1") + " --strategy cp-list --profile " + sessions, "no node events"},
      {"profile " + model("squeezenet1_1") + " /nonexistent/profile.json", "cannot open"},
      {"schedule " + model("squeezenet1_1") + " --strategy cp-list --split 2 --profile " + profile("squeezenet1_1.ort-all.json"),
       "not with a split or merges"},
  };
  for (const Case& c : cases) {
    const Result r = run(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out << r.err;
    EXPECT_TRUE(contains(r.err, c.message)) << c.args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << c.args << "\n" << r.out;
  }
  EXPECT_EQ(run("profile " + model("squeezenet1_1")).code, 1);
  EXPECT_EQ(run("sweep " + model("squeezenet1_1") + " --batches 1 --backend cpu --profile " + profile("squeezenet1_1.ort-all.json")).code, 1);
}
