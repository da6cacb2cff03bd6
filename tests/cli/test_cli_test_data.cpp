// `weft run --test-data` on every committed ONNX Runtime set (tests/data/test_data, made by
// scripts/ort-test-data.py): each model's whole-model outputs match ORT's on the CPU backend at
// relative 1e-4 (float32) or the half-precision model's own tolerance; a mismatch is exit 5;
// --inputs with --save-outputs and --save-model give back what the run computed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "weft/core/exec/tensor_files.h"

namespace {

namespace fs = std::filesystem;
using weft::test::contains;

const std::string kSets = std::string(WEFT_TEST_DATA_DIR) + "/test_data";

std::vector<std::string> set_names() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(kSets))
    if (e.is_directory()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The model a set belongs to: tests/data/models/NAME.onnx, or the set folder's own model.onnx.
std::string model_of(const std::string& name) {
  const std::string own = kSets + "/" + name + "/model.onnx";
  return fs::exists(own) ? own : weft::test::model_path(name);
}

std::vector<std::string> quick(std::vector<std::string> args) {
  for (const char* a : {"--iterations", "1", "--warmup", "0", "--rounds", "1"}) args.emplace_back(a);
  return args;
}

class OrtTestData : public ::testing::TestWithParam<std::string> {};

std::string fresh(const std::string& name) {
  const std::string p = weft::test::temp_path(name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

}  // namespace

// Every committed set exists for every test model (none silently left out).
TEST(OrtTestDataSets, EveryTestModelHasOne) {
  for (const auto& e : fs::directory_iterator(std::string(WEFT_TEST_DATA_DIR) + "/models")) {
    if (e.path().extension() != ".onnx") continue;
    EXPECT_TRUE(fs::exists(kSets + "/" + e.path().stem().string() + "/test_data_set_0/output_0.pb")) << e.path();
  }
  EXPECT_GE(set_names().size(), 17u);
}

// One model against ONNX Runtime: exit 0, both runs pass at the set's data.json tolerance, and
// the largest error is within relative 1e-4 of the output's scale (2e-3, two float16 steps, for
// the half-precision model).
TEST_P(OrtTestData, MatchesOnnxRuntime) {
  const std::string name = GetParam();
  const auto r = weft::test::run_argv(quick({"run", model_of(name), "--backend", "cpu", "--test-data", kSets + "/" + name, "--json"}),
                                      weft::test::StderrMode::Discard);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  const auto& t = j["test_data"];
  EXPECT_EQ(t["passed"], true);
  EXPECT_EQ(t["tolerance_from"], "data.json");
  const bool half = name.find("fp16") != std::string::npos;
  EXPECT_EQ(t["rtol"].get<double>(), half ? 2e-3 : 1e-4);
  ASSERT_EQ(t["sets"].size(), 1u);
  int checked = 0;
  for (const auto& o : t["sets"][0]["outputs"]) {
    SCOPED_TRACE(o.dump());
    EXPECT_EQ(o["passed"], true);
    ASSERT_TRUE(o["max_scaled_error"].is_number());
    EXPECT_LE(o["max_scaled_error"].get<double>(), half ? 2e-3 : 1e-4);
    ++checked;
  }
  EXPECT_GE(checked, 2) << "the schedule's and the reference's outputs";
}

INSTANTIATE_TEST_SUITE_P(Models, OrtTestData, ::testing::ValuesIn(set_names()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string n = param_info.param;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

// Tolerances tighter than the runtimes agree to: exit 5 with the failing outputs in the report;
// the same at the ONNX backend tests' defaults is no failure of the tolerance's making.
TEST(CliTestData, MismatchIsExitFive) {
  const std::string set = kSets + "/resnet50";
  const auto tight = weft::test::run_argv(quick({"run", weft::test::model_path("resnet50"), "--test-data", set, "--rtol", "0", "--atol", "0"}));
  EXPECT_EQ(tight.code, 5) << tight.out;
  EXPECT_TRUE(contains(tight.out, "elements outside the tolerance")) << tight.out;
  EXPECT_TRUE(contains(tight.out, "test data: FAILED (1 of 1 set)")) << tight.out;
  EXPECT_TRUE(contains(tight.out, "the outputs differ from the test data (exit 5)")) << tight.out;
  EXPECT_TRUE(contains(tight.out, "from --rtol/--atol")) << tight.out;
  // Usage: --rtol without --test-data, --inputs with --test-data.
  EXPECT_EQ(weft::test::run_argv({"run", weft::test::model_path("resnet50"), "--rtol", "1e-3"}).code, 1);
  EXPECT_EQ(weft::test::run_argv({"run", weft::test::model_path("resnet50"), "--test-data", set, "--inputs", set}).code, 1);
  EXPECT_EQ(weft::test::run_argv({"run", weft::test::model_path("resnet50"), "--test-data", set, "--atol", "-1"}).code, 1);
}

// --inputs DIR --save-outputs DIR completes an ONNX test data set (output_N.pb beside
// input_N.pb) that --test-data then passes exactly; with .npy inputs the outputs are .npy, and a
// path ending in .npz is one archive; the symbolic batch is bound from the inputs' shapes.
TEST(CliTestData, SavedOutputsAreTheRunsOutputs) {
  const std::string set = fresh("weft_cli_saved_set");
  fs::create_directories(set);
  fs::copy_file(kSets + "/transformer4h/test_data_set_0/input_0.pb", set + "/input_0.pb");
  const std::string model = weft::test::model_path("transformer4h");
  const auto saved = weft::test::run_argv(quick({"run", model, "--strategy", "level-rr", "--inputs", set, "--save-outputs", set}));
  ASSERT_EQ(saved.code, 0) << saved.out;
  EXPECT_TRUE(contains(saved.out, "bound from the given inputs' shapes: batch=1")) << saved.out;
  ASSERT_TRUE(fs::exists(set + "/output_0.pb"));
  const auto exact = weft::test::run_argv(quick({"run", model, "--test-data", set, "--rtol", "0", "--atol", "0", "--json"}),
                                          weft::test::StderrMode::Discard);
  ASSERT_EQ(exact.code, 0) << exact.out;
  const auto j = nlohmann::json::parse(exact.out, nullptr, false);
  EXPECT_EQ(j["test_data"]["sets"][0]["outputs"][0]["max_abs_error"], 0.0);

  const std::string npz = fresh("weft_cli_saved") + ".npz";
  ASSERT_EQ(weft::test::run_argv(quick({"run", model, "--inputs", set, "--save-outputs", npz})).code, 0);
  auto archive = weft::core::read_tensor_files(npz);
  ASSERT_TRUE(archive) << archive.error().message;
  ASSERT_EQ(archive->tensors.size(), 1u);
  EXPECT_EQ(archive->tensors[0].name, "y");
  auto pb = weft::core::read_tensor_files(set, "output");
  ASSERT_TRUE(pb);
  EXPECT_EQ(archive->tensors[0].value.bytes, pb->tensors[0].value.bytes);

  const std::string npy_in = fresh("weft_cli_npy_in"), npy_out = fresh("weft_cli_npy_out");
  auto x = weft::core::read_tensor_files(set, "input");
  ASSERT_TRUE(x);
  const std::vector<std::pair<std::string, const weft::core::HostTensor*>> as_npy{{"x", &x->tensors[0].value}};
  ASSERT_TRUE(weft::core::write_tensor_files(npy_in, weft::core::TensorFormat::Npy, as_npy));
  ASSERT_EQ(weft::test::run_argv(quick({"run", model, "--inputs", npy_in, "--save-outputs", npy_out})).code, 0);
  auto npy = weft::core::read_tensor_files(npy_out);
  ASSERT_TRUE(npy) << npy.error().message;
  EXPECT_EQ(npy->format, weft::core::TensorFormat::Npy);
  EXPECT_EQ(npy->tensors[0].value.bytes, pb->tensors[0].value.bytes);
  for (const std::string& p : {set, npz, npy_in, npy_out}) fs::remove_all(p);
}

// --save-model writes the model as the run ran it, weights inline: run on the same inputs, it
// gives the same outputs bit for bit with no seeded weight left.
TEST(CliTestData, SavedModelRunsToTheSameOutputs) {
  const std::string dir = fresh("weft_cli_saved_model");
  fs::create_directories(dir);
  const std::string inputs = kSets + "/squeezenet1_1/test_data_set_0";
  const auto first = weft::test::run_argv(quick({"run", weft::test::model_path("squeezenet1_1"), "--inputs", inputs, "--save-model",
                                                 dir + "/m.onnx", "--save-outputs", dir + "/a"}));
  ASSERT_EQ(first.code, 0) << first.out;
  EXPECT_TRUE(contains(first.out, "seeded random values used")) << first.out;
  const auto second = weft::test::run_argv(quick({"run", dir + "/m.onnx", "--inputs", inputs, "--save-outputs", dir + "/b"}));
  ASSERT_EQ(second.code, 0) << second.out;
  EXPECT_FALSE(contains(second.out, "seeded random values used")) << second.out;
  auto a = weft::core::read_tensor_files(dir + "/a", "output");
  auto b = weft::core::read_tensor_files(dir + "/b", "output");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->tensors[0].value.bytes, b->tensors[0].value.bytes);
  fs::remove_all(dir);
}
