// `weft run` through the built binary: JSON figures on a real model, bit-identical outputs,
// trace export, usage and backend errors.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace {

using Result = weft::test::CliResult;
Result run_weft(const std::string& args) { return weft::test::run_cli(args); }
std::string model(const std::string& name) { return weft::test::model_path(name); }
std::string temp(const std::string& name) { return weft::test::temp_path(name); }
using weft::test::contains;

}  // namespace

// squeezenet on 4 streams (cp-list): the JSON has the figures, outputs are bit-identical, and the
// trace holds both measured runs.
TEST(CliRun, SqueezenetJsonAndTrace) {
  const std::string trace = temp("weft_cli_run_trace.json");
  std::filesystem::remove(trace);
  const Result r = run_weft("run " + model("squeezenet1_1") + " --backend cpu --strategy cp-list --streams 4 --iterations 2 --json --trace " + trace);
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
  const Result r = run_weft("run " + model("squeezenet1_1") + " --strategy level-rr --iterations 1 --warmup 0");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "speedup:")) << r.out;
  EXPECT_TRUE(contains(r.out, "bit-identical")) << r.out;
}

// --backend cuda: exit 3 with the reason where CUDA cannot run (no module, or no GPU as on CI
// machines), exit 0 where a GPU is (`weft devices` says which); bad options: exit 1.
TEST(CliRun, BackendAndUsageErrors) {
  ::setenv("WEFT_CUDA_MODULE", "/nonexistent/libweft_cuda.so", 1);
  const Result absent = run_weft("run " + model("squeezenet1_1") + " --backend cuda");
  ::unsetenv("WEFT_CUDA_MODULE");
  EXPECT_EQ(absent.code, 3) << absent.out;
  EXPECT_TRUE(contains(absent.out, "CUDA module")) << absent.out;
  const bool gpu = run_weft("devices").code == 0;
  const Result cuda = run_weft("run " + model("squeezenet1_1") + " --backend cuda --iterations 1 --warmup 0");
  EXPECT_EQ(cuda.code, gpu ? 0 : 3) << cuda.out;
  if (!gpu) {
    EXPECT_TRUE(contains(cuda.out, "CUDA")) << cuda.out;
  }
  EXPECT_EQ(run_weft("run " + model("squeezenet1_1") + " --tf32").code, 1);
  EXPECT_EQ(run_weft("run " + model("squeezenet1_1") + " --backend tpu").code, 1);
  EXPECT_EQ(run_weft("run " + model("squeezenet1_1") + " --iterations 0").code, 1);
  EXPECT_EQ(run_weft("run " + model("squeezenet1_1") + " --strategy nope").code, 1);
}

// A missing model file is exit 2 with --backend cuda too, on any machine: the model loads before
// the CUDA module (which, absent, would be exit 3).
TEST(CliRun, MissingModelIsExitTwoOnEveryBackend) {
  const std::string missing = temp("weft_cli_run_no_such_model.onnx");
  std::filesystem::remove(missing);
  for (const char* backend : {"cpu", "cuda"}) {
    const Result r = run_weft("run " + missing + " --backend " + backend);
    EXPECT_EQ(r.code, 2) << backend << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "weft_cli_run_no_such_model.onnx")) << r.out;
  }
  ::setenv("WEFT_CUDA_MODULE", "/nonexistent/libweft_cuda.so", 1);
  const Result absent = run_weft("run " + missing + " --backend cuda");
  ::unsetenv("WEFT_CUDA_MODULE");
  EXPECT_EQ(absent.code, 2) << absent.out;
}

// The CPU runs a strategy's schedule made for the CPU: with no --device or --granularity, cp-list on
// a branchy model (RandWire) uses the two streams it is given and says it was made for the CPU
// device calibrated from a sequential run; --device makes it for the named preset, and says that.
TEST(CliRun, CpuScheduleIsMadeForTheCpu) {
  const std::string args = "run " + model("randwire_ws") + " --dim batch=1 --backend cpu --strategy cp-list --streams 2 --iterations 1 --warmup 0 --json";
  const Result r = run_weft(args);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["streams"], 2);
  EXPECT_EQ(j["schedule_device_kind"], "cpu");
  EXPECT_TRUE(contains(j["schedule_made_for"].get<std::string>(), "calibrated from a sequential run")) << j["schedule_made_for"];
  EXPECT_TRUE(contains(j["schedule_made_for"].get<std::string>(), "latch")) << j["schedule_made_for"];
  EXPECT_TRUE(j["predicted_speedup"].is_number());

  const Result given = run_weft(args + " --device h100-sxm");
  ASSERT_EQ(given.code, 0) << given.out;
  const auto g = nlohmann::json::parse(given.out);
  EXPECT_EQ(g["schedule_device"], "h100-sxm");
  EXPECT_EQ(g["schedule_device_kind"], "gpu");
  EXPECT_TRUE(contains(g["schedule_made_for"].get<std::string>(), "--device h100-sxm")) << g["schedule_made_for"];

  const Result granularity = run_weft(args + " --granularity 0");
  ASSERT_EQ(granularity.code, 0) << granularity.out;
  const auto k = nlohmann::json::parse(granularity.out);
  EXPECT_EQ(k["schedule_device_kind"], "cpu");
  EXPECT_TRUE(contains(k["schedule_made_for"].get<std::string>(), "granularity 0 us as given")) << k["schedule_made_for"];
  EXPECT_EQ(k["options"], "streams=2 granularity_us=0");
}

// A run whose prediction cannot be made (a top-level If holds the network: two operators, too few
// to fit a device) still reports what it measured, with the prediction null and the reason; the
// text says the same.
TEST(CliRun, RunWithoutPredictionStillReports) {
  const Result r = run_weft("run " + model("vad_if") + " --dim batch=1 --backend cpu --iterations 1 --warmup 0 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["predicted_speedup"].is_null());
  EXPECT_TRUE(contains(j["prediction_unavailable"].get<std::string>(), "(3 needed)")) << j["prediction_unavailable"];
  EXPECT_GT(j["sequential_ms"].get<double>(), 0.0);
  EXPECT_EQ(j["bit_identical"], true);
  const Result text = run_weft("run " + model("vad_if") + " --dim batch=1 --backend cpu --iterations 1 --warmup 0");
  ASSERT_EQ(text.code, 0) << text.out;
  EXPECT_TRUE(contains(text.out, "no prediction (calibration: only")) << text.out;
}

// Dropout in training mode with ratio 0 (torchvision's Swin-T export) is the identity: the model
// runs, its outputs bit-identical across schedules; the import says nothing about it.
TEST(CliRun, TrainingModeDropoutWithRatioZeroRuns) {
  const Result r = run_weft("run " + model("swin_dropout") + " --dim batch=1 --backend cpu --strategy level-rr --iterations 1 --warmup 0 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_FALSE(contains(r.out, "training mode")) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["bit_identical"], true);
  EXPECT_GE(j["streams"].get<int>(), 2);
}

// The CPU run's kernels: the JSON names the library, the team size and the nodes each kernel
// ran; --kernels reference runs the oracle alone (same outputs within fp32 sums, every node on
// the reference); --threads-per-stream runs streams of that many threads (bit-identical to its
// own sequential run) and refuses a size the CPUs cannot hold, and both options need the CPU.
TEST(CliRun, KernelsAndThreadsPerStream) {
  const std::string base = "run " + model("squeezenet1_1") + " --backend cpu --strategy cp-list --streams 2 --iterations 1 --warmup 0 --json";
  const Result library = run_weft(base);
  ASSERT_EQ(library.code, 0) << library.out;
  const auto lj = nlohmann::json::parse(library.out);
  ASSERT_TRUE(lj.contains("kernels")) << library.out;
  EXPECT_TRUE(lj["kernels"]["library"].is_null() || lj["kernels"]["library"].get<std::string>().rfind("oneDNN", 0) == 0);
  EXPECT_EQ(lj["kernels"]["threads_per_stream"], 1);
  std::int64_t nodes = 0;
  for (const auto& [path, count] : lj["kernels"]["nodes"].items()) nodes += count.get<std::int64_t>();
  EXPECT_EQ(nodes, 65);  // squeezenet 1.1's operators after folding
  const Result reference = run_weft(base + " --kernels reference");
  ASSERT_EQ(reference.code, 0) << reference.out;
  const auto rj = nlohmann::json::parse(reference.out);
  EXPECT_EQ(rj["kernels"]["nodes"]["reference"], 65);
  EXPECT_EQ(rj["kernels"]["packed_weight_bytes"], 0);
  const Result teams = run_weft(base + " --threads-per-stream 2");
  const bool two_cpus = run_weft("run " + model("squeezenet1_1") + " --iterations 1 --warmup 0 --threads-per-stream 2").code == 0;
  if (two_cpus) {
    ASSERT_EQ(teams.code, 0) << teams.out;
    const auto tj = nlohmann::json::parse(teams.out);
    EXPECT_EQ(tj["kernels"]["threads_per_stream"], 2);
    EXPECT_EQ(tj["bit_identical"], true);
  }
  const Result too_many = run_weft(base + " --threads-per-stream 100000");
  EXPECT_EQ(too_many.code, 1) << too_many.out;
  EXPECT_TRUE(contains(too_many.out, "threads-per-stream")) << too_many.out;
  EXPECT_EQ(run_weft(base + " --threads-per-stream 0").code, 1);
  EXPECT_EQ(run_weft(base + " --kernels fast").code, 1);
  EXPECT_EQ(run_weft("run " + model("squeezenet1_1") + " --backend cuda --threads-per-stream 2").code, 1);
}
