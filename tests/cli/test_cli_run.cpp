// `weft run` through the built binary: JSON figures on a real model, bit-identical outputs,
// trace export, usage and backend errors.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

namespace {

struct Result {
  int code = -1;
  std::string out;  // stdout and stderr together
};

Result weft(const std::string& args) {
  Result r;
  const std::string cmd = std::string(WEFT_CLI_PATH) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), p)) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string model(const std::string& name) { return std::string(WEFT_TEST_DATA_DIR) + "/models/" + name + ".onnx"; }
std::string temp(const std::string& name) { return (std::filesystem::temp_directory_path() / name).string(); }
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

// squeezenet on 4 streams (cp-list): the JSON has the figures, outputs are bit-identical, and the
// trace holds both measured runs.
TEST(CliRun, SqueezenetJsonAndTrace) {
  const std::string trace = temp("weft_cli_run_trace.json");
  std::filesystem::remove(trace);
  const Result r = weft("run " + model("squeezenet1_1") + " --backend cpu --strategy cp-list --streams 4 --iterations 2 --json --trace " + trace);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"sequential_ms", "schedule_ms", "speedup", "max_abs_diff", "arena_bytes", "strategy", "streams", "backend"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["max_abs_diff"], 0.0);
  EXPECT_EQ(j["bit_identical"], true);
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_EQ(j["strategy"], "cp-list");
  EXPECT_GT(j["sequential_ms"].get<double>(), 0.0);
  EXPECT_GT(j["arena_bytes"].get<std::int64_t>(), 0);
  EXPECT_EQ(j["schedule_iteration_ms"].size(), 2u);
  std::ifstream in(trace);
  ASSERT_TRUE(in.good());
  const auto t = nlohmann::json::parse(in);
  int complete = 0;
  for (const auto& e : t["traceEvents"])
    if (e["ph"] == "X") ++complete;
  EXPECT_GT(complete, 2 * 60);  // squeezenet has 66 operators, twice
}

// The text report names the figures a person reads.
TEST(CliRun, TextReport) {
  const Result r = weft("run " + model("squeezenet1_1") + " --strategy level-rr --iterations 1 --warmup 0");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "speedup:")) << r.out;
  EXPECT_TRUE(contains(r.out, "bit-identical")) << r.out;
}

// No CUDA executor in this build: exit 3 with the reason; bad options: exit 1.
TEST(CliRun, BackendAndUsageErrors) {
  const Result cuda = weft("run " + model("squeezenet1_1") + " --backend cuda");
  EXPECT_EQ(cuda.code, 3) << cuda.out;
  EXPECT_TRUE(contains(cuda.out, "CUDA")) << cuda.out;
  EXPECT_EQ(weft("run " + model("squeezenet1_1") + " --backend tpu").code, 1);
  EXPECT_EQ(weft("run " + model("squeezenet1_1") + " --iterations 0").code, 1);
  EXPECT_EQ(weft("run " + model("squeezenet1_1") + " --strategy nope").code, 1);
}
