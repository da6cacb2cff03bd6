// `weft sweep`, `weft calibrate`, the predicted speedup of `weft run --backend cpu` and the advice
// line of `weft analyze`, through the built binary.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace {

using Result = weft::test::CliResult;
Result run_weft(const std::string& args) { return weft::test::run_cli(args); }
Result run_quiet(const std::string& args) { return weft::test::run_cli(args, weft::test::StderrMode::Discard); }
std::string model(const std::string& name) { return weft::test::model_path(name); }
std::string temp(const std::string& name) { return weft::test::temp_path(name); }
using weft::test::contains;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

// A predicted sweep: the table has a row per batch and a column per strategy; the CSV a row per
// point; the PNG is a PNG of the default size.
TEST(CliSweep, TableCsvAndChart) {
  const std::string csv = temp("weft_cli_sweep.csv"), png = temp("weft_cli_sweep.png");
  std::filesystem::remove(csv);
  std::filesystem::remove(png);
  const Result r = run_weft("sweep " + model("randwire_ws") + " --batches 1,4,16 --strategies sequential,cp-list --csv " + csv +
                            " --png " + png);
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* part : {"batch", "sequential", "cp-list", "1.00x", "predicted speedup over the reference schedule"})
    EXPECT_TRUE(contains(r.out, part)) << part << "\n" << r.out;
  const std::string text = slurp(csv);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 3 * 2) << text;
  EXPECT_TRUE(contains(text, "model,batch,strategy,device,mode")) << text;
  const std::string image = slurp(png);
  ASSERT_GT(image.size(), 33u);
  EXPECT_EQ(image.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(image.substr(12, 4), "IHDR");
  // Width and height (big-endian) in IHDR: 900 × 540.
  const auto be32 = [&](std::size_t at) {
    return (static_cast<unsigned>(static_cast<unsigned char>(image[at])) << 24) |
           (static_cast<unsigned>(static_cast<unsigned char>(image[at + 1])) << 16) |
           (static_cast<unsigned>(static_cast<unsigned char>(image[at + 2])) << 8) |
           static_cast<unsigned>(static_cast<unsigned char>(image[at + 3]));
  };
  EXPECT_EQ(be32(16), 900u);
  EXPECT_EQ(be32(20), 540u);
  EXPECT_EQ(image.substr(image.size() - 8, 4), "IEND");
}

// Points run separately (as a job array would) merge into the same table as one run.
TEST(CliSweep, MergeJoinsPoints) {
  const std::string a = temp("weft_cli_sweep_a.csv"), b = temp("weft_cli_sweep_b.csv"), all = temp("weft_cli_sweep_all.csv");
  ASSERT_EQ(run_quiet("sweep " + model("randwire_ws") + " --batches 2 --strategies cp-list --csv " + a).code, 0);
  ASSERT_EQ(run_quiet("sweep " + model("randwire_ws") + " --batches 1 --strategies cp-list --csv " + b).code, 0);
  const Result merged = run_weft("sweep --merge " + a + " " + b + " --csv " + all + " --json");
  ASSERT_EQ(merged.code, 0) << merged.out;
  const auto j = nlohmann::json::parse(merged.out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["batch"], 1);  // sorted by batch
  EXPECT_EQ(j[1]["batch"], 2);
  const Result together = run_weft("sweep " + model("randwire_ws") + " --batches 1,2 --strategies cp-list --json");
  ASSERT_EQ(together.code, 0) << together.out;
  const auto t = nlohmann::json::parse(together.out);
  EXPECT_NEAR(t[0]["predicted_speedup"].get<double>(), j[0]["predicted_speedup"].get<double>(), 1e-6);
  EXPECT_NEAR(t[1]["predicted_speedup"].get<double>(), j[1]["predicted_speedup"].get<double>(), 1e-6);
}

// With --backend cpu every point is measured too.
TEST(CliSweep, MeasuredOnTheCpu) {
  const Result r = run_quiet("sweep " + model("grouped_mlp") + " --batches 1,2 --strategies cp-list --backend cpu --iterations 1 --warmup 0 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 2u);
  for (const auto& p : j) {
    EXPECT_EQ(p["mode"], "cpu");
    EXPECT_GT(p["measured_speedup"].get<double>(), 0);
    EXPECT_GT(p["predicted_speedup"].get<double>(), 0);
  }
}

// --backend cuda: exit 3 with the reason where CUDA cannot run (no module, or no GPU), measured
// points in the launch mode asked for where a GPU is; --graph does not apply to the CPU.
TEST(CliSweep, MeasuredOnCuda) {
  const std::string args = "sweep " + model("grouped_mlp") + " --batches 1,2 --strategies cp-list --iterations 2 --warmup 1 --json";
  ::setenv("WEFT_CUDA_MODULE", "/nonexistent/libweft_cuda.so", 1);
  const Result absent = run_weft(args + " --backend cuda");
  ::unsetenv("WEFT_CUDA_MODULE");
  EXPECT_EQ(absent.code, 3) << absent.out;
  EXPECT_TRUE(contains(absent.out, "CUDA module")) << absent.out;
  const bool gpu = run_weft("devices").code == 0;
  // JSON alone on stdout where it runs; the reason on stderr where it cannot.
  const Result cuda = gpu ? run_quiet(args + " --backend cuda --graph") : run_weft(args + " --backend cuda --graph");
  ASSERT_EQ(cuda.code, gpu ? 0 : 3) << cuda.out;
  if (gpu) {
    const auto j = nlohmann::json::parse(cuda.out);
    ASSERT_EQ(j.size(), 2u);
    for (const auto& p : j) {
      EXPECT_EQ(p["mode"], "graph");
      EXPECT_GT(p["measured_speedup"].get<double>(), 0);
    }
  } else {
    EXPECT_TRUE(contains(cuda.out, "CUDA")) << cuda.out;
  }
  EXPECT_EQ(run_weft("sweep " + model("grouped_mlp") + " --batches 1 --backend cpu --graph").code, 1);
}

// --hybrid measured on the CPU: every point's JSON counts its nodes on wide teams and the table
// says how many; a usage error (exit 1) on CUDA, on a GPU device without --backend, with --merge.
TEST(CliSweep, HybridTeams) {
  const std::string args = "sweep " + model("squeezenet1_1") + " --batches 1 --strategies cp-list --iterations 1 --warmup 0";
  if (std::thread::hardware_concurrency() >= 2) {
    const Result json = run_quiet(args + " --backend cpu --hybrid --json");
    ASSERT_EQ(json.code, 0) << json.out;
    const auto j = nlohmann::json::parse(json.out);
    ASSERT_EQ(j.size(), 1u);
    EXPECT_GT(j[0]["hybrid_nodes"].get<int>(), 0) << json.out;
    EXPECT_GT(j[0]["measured_speedup"].get<double>(), 0);
    const Result table = run_quiet(args + " --backend cpu --hybrid");
    ASSERT_EQ(table.code, 0) << table.out;
    EXPECT_TRUE(contains(table.out, "nodes per point run alone on teams of")) << table.out;
  }
  // Predicted only on a CPU device file with its team sizes: the alone nodes on 2 threads.
  const std::string device = temp("weft_cli_sweep_cpu_teams.json");
  std::ofstream(device) << R"({"name": "cpu-teams", "kind": "cpu", "cores": 2, "peak_fp32_tflops": 0.01,
      "memory_bandwidth_gb_s": 10, "launch_us": 1, "event_record_us": 0, "event_wait_us": 0.2,
      "teams": [{"threads": 1, "peak_fp32_tflops": 0.01, "memory_bandwidth_gb_s": 10, "launch_us": 1},
                {"threads": 2, "peak_fp32_tflops": 0.019, "memory_bandwidth_gb_s": 16, "launch_us": 1.5}]})";
  const Result predicted = run_quiet(args + " --device " + device + " --hybrid --json");
  ASSERT_EQ(predicted.code, 0) << predicted.out;
  const auto p = nlohmann::json::parse(predicted.out);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0]["hybrid_threads"].get<int>(), 2) << predicted.out;
  EXPECT_FALSE(p[0].contains("measured_speedup"));
  const Result cuda = run_weft(args + " --backend cuda --hybrid");
  EXPECT_EQ(cuda.code, 1) << cuda.out;
  EXPECT_TRUE(contains(cuda.out, "--hybrid needs --backend cpu")) << cuda.out;
  const Result gpu = run_weft(args + " --hybrid");
  EXPECT_EQ(gpu.code, 1) << gpu.out;
  EXPECT_TRUE(contains(gpu.out, "a CPU --device")) << gpu.out;
  EXPECT_EQ(run_weft("sweep --merge " + temp("weft_cli_sweep_none.csv") + " --hybrid").code, 1);
}

// Usage errors exit 1, input errors 2, each naming the problem.
TEST(CliSweep, Errors) {
  const Result no_batches = run_weft("sweep " + model("randwire_ws"));
  EXPECT_EQ(no_batches.code, 1);
  EXPECT_TRUE(contains(no_batches.out, "--batches")) << no_batches.out;
  EXPECT_EQ(run_weft("sweep " + model("randwire_ws") + " --batches 1,x").code, 1);
  EXPECT_EQ(run_weft("sweep " + model("randwire_ws") + " --batches 0").code, 1);
  EXPECT_EQ(run_weft("sweep " + model("randwire_ws") + " --batches 1 --strategies nope").code, 1);
  EXPECT_EQ(run_weft("sweep " + model("randwire_ws") + " --batches 1 --backend tpu").code, 1);
  // A static batch is re-batched at each point (a note says so); one the model fixes inside is refused.
  const Result static_batch = run_weft("sweep " + model("squeezenet1_1") + " --batches 1,2 --strategies cp-list");
  EXPECT_EQ(static_batch.code, 0) << static_batch.out;
  EXPECT_TRUE(contains(static_batch.out, "has a static batch (1): each point re-batches")) << static_batch.out;
  const Result fixed = run_weft("sweep " + model("shufflenet_v2_x1_0") + " --batches 1,2 --strategies cp-list");
  EXPECT_EQ(fixed.code, 2);
  EXPECT_TRUE(contains(fixed.out, "output 'output' keeps the exported batch")) << fixed.out;
  const Result unnamed = run_weft("sweep " + model("grouped_mlp") + " --batches 1 --batch-dim nope");
  EXPECT_EQ(unnamed.code, 2) << unnamed.out;
  EXPECT_EQ(run_weft("sweep " + temp("no_such_model.onnx") + " --batches 1").code, 2);
  const std::string bad = temp("weft_cli_sweep_bad.csv");
  std::ofstream(bad) << "not,a,sweep\n";
  const Result merge = run_weft("sweep --merge " + bad);
  EXPECT_EQ(merge.code, 2);
  EXPECT_TRUE(contains(merge.out, "sweep CSV header")) << merge.out;
}

// weft calibrate writes a CPU device file that other commands accept as --device.
TEST(CliCalibrate, WritesADeviceFileOthersAccept) {
  const std::string dev = temp("weft_cli_cpu_device.json");
  std::filesystem::remove(dev);
  const Result r = run_weft("calibrate " + model("squeezenet1_1") + " --cores 2 --iterations 1 --warmup 0 -o " + dev + " --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["device"]["kind"], "cpu");
  EXPECT_EQ(j["device"]["cores"], 2);
  EXPECT_GT(j["fitted_nodes"].get<int>(), 10);
  EXPECT_GE(j["median_node_error"].get<double>(), 0.0);
  ASSERT_TRUE(std::filesystem::exists(dev));
  // (stderr apart: the default cap of 8 streams is above the file's 2 cores, which it warns about)
  const Result sim = run_quiet("simulate " + model("squeezenet1_1") + " --strategy cp-list --device " + dev + " --json");
  ASSERT_EQ(sim.code, 0) << sim.out;
  EXPECT_EQ(nlohmann::json::parse(sim.out)["device"], "cpu");
  const Result an = run_weft("analyze " + model("squeezenet1_1") + " --device " + dev);
  ASSERT_EQ(an.code, 0) << an.out;
  EXPECT_FALSE(contains(an.out, "CUDA Graph")) << an.out;
  // A broken device file is the input's fault (2); a calibrate usage error is 1.
  const std::string broken = temp("weft_cli_broken_device.json");
  std::ofstream(broken) << "{\"name\": \"x\"}";
  EXPECT_EQ(run_weft("analyze " + model("squeezenet1_1") + " --device " + broken).code, 2);
  EXPECT_EQ(run_weft("analyze " + model("squeezenet1_1") + " --device " + temp("absent_device.json")).code, 2);
  EXPECT_EQ(run_weft("calibrate " + model("squeezenet1_1") + " --backend cuda").code, 1);
  EXPECT_EQ(run_weft("calibrate " + model("squeezenet1_1") + " --name Bad!").code, 1);
}

// weft calibrate --backend cuda measures a GPU's launch figures into a copy of a preset: on a GPU
// machine the file is written and accepted as --device; without one, a Runtime error (3) saying
// why. Options of the CPU calibration, a model or a bad count are usage errors (1).
TEST(CliCalibrate, CudaLaunchCosts) {
  const std::string dev = temp("weft_cli_cuda_device.json");
  std::filesystem::remove(dev);
  const Result r = run_weft("calibrate --backend cuda --device h200 --kernels 100 -o " + dev + " --json");
  if (r.code == 0) {
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["device"]["name"], "h200-measured");
    EXPECT_EQ(j["device"]["kernel_min_us"], j["measured"]["graph_chain_us"]);
    EXPECT_EQ(j["device"]["launch_us"], j["measured"]["launch_us"]);
    EXPECT_DOUBLE_EQ(j["device"]["peak_fp32_tflops"].get<double>(), 66.9);  // the preset's rates kept
    const Result sim = run_quiet("simulate " + model("squeezenet1_1") + " --strategy cp-list --graph --device " + dev + " --json");
    ASSERT_EQ(sim.code, 0) << sim.out;
    EXPECT_EQ(nlohmann::json::parse(sim.out)["device"], "h200-measured");
  } else {
    EXPECT_EQ(r.code, 3) << r.out;
    EXPECT_TRUE(contains(r.out, "no CUDA device") || contains(r.out, "libweft_cuda.so")) << r.out;
    EXPECT_FALSE(std::filesystem::exists(dev));
  }
  EXPECT_EQ(run_weft("calibrate --backend cuda --kernels 3").code, 1);
  EXPECT_EQ(run_weft("calibrate --backend cuda --cores 2").code, 1);
  EXPECT_EQ(run_weft("calibrate --backend cuda --device no-such-gpu").code, 2);
  EXPECT_EQ(run_weft("calibrate " + model("squeezenet1_1") + " --kernels 100").code, 1);
  EXPECT_EQ(run_weft("calibrate --backend tpu").code, 1);
}

// weft run --backend cpu reports the predicted speedup next to the measured one, and its error.
TEST(CliRunPrediction, PredictedNextToMeasured) {
  const Result r = run_quiet("run " + model("googlenet") + " --backend cpu --strategy cp-list --streams 2 --iterations 1 --warmup 0 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  const double measured = j["speedup"].get<double>(), predicted = j["predicted_speedup"].get<double>();
  EXPECT_GT(predicted, 0.5);
  EXPECT_LE(predicted, 2.0 + 1e-9);  // two streams never predict more than 2x
  EXPECT_NEAR(j["prediction_error"].get<double>(), std::abs(predicted - measured) / measured, 1e-9);
  EXPECT_GT(j["predicted_speedup_fitted"].get<double>(), 0.5);
  EXPECT_GE(j["cpu_cores"].get<int>(), 1);
}

// weft analyze ends with one line of advice: the chain hint for a chain, a configuration for googlenet.
TEST(CliAnalyzeAdvice, OneLinePerModel) {
  const Result chain = run_weft("analyze " + model("mobilenet_v3_large"));
  ASSERT_EQ(chain.code, 0) << chain.out;
  EXPECT_TRUE(contains(chain.out, "chain: concurrency cannot help at batch 1 (width 1); try micro-batch splitting at batch >= "))
      << chain.out;
  const Result wide = run_weft("analyze " + model("googlenet"));
  ASSERT_EQ(wide.code, 0) << wide.out;
  EXPECT_TRUE(contains(wide.out, "advice          ")) << wide.out;
  EXPECT_TRUE(contains(wide.out, " streams")) << wide.out;
  EXPECT_TRUE(contains(wide.out, "x the memory")) << wide.out;
}

// scripts/sweep-array.sh: points run one by one (as GNU parallel or a Slurm array would) and the
// merge give one CSV and one chart per model.
TEST(CliSweepArray, PointsThenMerge) {
  const std::string out = temp("weft_sweep_array");
  std::filesystem::remove_all(out);
  const std::string env = "MODELS='" + model("randwire_ws") + "' BATCHES='1 4' STRATEGIES=cp-list OUT='" + out + "' WEFT='" +
                          weft::test::weft_cli() + "' ";
  const std::string script = std::string(WEFT_TEST_DATA_DIR) + "/../../scripts/sweep-array.sh";
  const auto sh = [&](const std::string& args) { return std::system((env + "bash " + script + " " + args + " > /dev/null 2>&1").c_str()); };
  ASSERT_EQ(sh("point 0"), 0);
  ASSERT_EQ(sh("point 1"), 0);
  EXPECT_NE(sh("point 2"), 0);  // only 2 points
  ASSERT_EQ(sh("merge"), 0);
  const std::string csv = slurp(out + "/randwire_ws.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;
  EXPECT_TRUE(std::filesystem::exists(out + "/randwire_ws.png"));
}
