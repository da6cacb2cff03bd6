// The test data pipeline (core::read_test_data, compare_test_data) on the committed ONNX Runtime
// sets, and the model with the run's weights inline (core::save_model_with_weights) that those
// sets were made from: running it gives the seeded run's outputs bit for bit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_runner.h"
#include "../exec/exec_test_util.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/cost/device.h"
#include "weft/core/exec/initial_values.h"
#include "weft/core/onnx/seeded_model.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/strategy/reference.h"
#include "weft/core/study/test_data.h"
#include "weft/core/proto/tensor_pb.h"

namespace {

using namespace weft;
namespace fs = std::filesystem;

const std::string kData = std::string(WEFT_TEST_DATA_DIR);

std::string fresh_dir(const std::string& name) {
  const std::string dir = test::temp_path(name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

core::RunComparisonOptions once() {
  core::RunComparisonOptions o;
  o.run.iterations = 1;
  o.run.warmup = 0;
  o.rounds = 1;
  return o;
}

// A copy of squeezenet's set whose expected output is moved by `shift` (0: an exact copy).
void copy_set(const std::string& to, float shift) {
  const std::string from = kData + "/test_data/squeezenet1_1/test_data_set_0";
  fs::create_directories(to);
  fs::copy_file(from + "/input_0.pb", to + "/input_0.pb");
  std::string name;
  auto out = core::read_tensor_pb(from + "/output_0.pb", &name);
  ASSERT_TRUE(out) << out.error().message;
  auto v = test::as_f32(*out);
  for (float& x : v) x += shift;
  ASSERT_TRUE(core::write_tensor_pb(to + "/output_0.pb", name, test::host_f32(out->shape, v)));
}

}  // namespace

// A folder of sets and one set read alike; data.json beside the sets gives their tolerance.
TEST(TestData, ReadsSetsAndTheirTolerance) {
  auto folder = core::read_test_data(kData + "/test_data/squeezenet1_1");
  ASSERT_TRUE(folder) << folder.error().message;
  ASSERT_EQ(folder->sets.size(), 1u);
  EXPECT_EQ(folder->sets[0].inputs.tensors.size(), 1u);
  EXPECT_EQ(folder->sets[0].outputs.tensors.size(), 1u);
  ASSERT_TRUE(folder->tolerance);
  EXPECT_EQ(folder->tolerance->rtol, 1e-4);
  auto one = core::read_test_data(kData + "/test_data/squeezenet1_1/test_data_set_0");
  ASSERT_TRUE(one) << one.error().message;
  ASSERT_TRUE(one->tolerance) << "a single set's data.json sits beside it";
  EXPECT_EQ(one->tolerance->atol, folder->tolerance->atol);
  auto none = core::read_test_data(kData + "/models");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("holds no input_N.pb"), std::string::npos) << none.error().message;
}

// squeezenet against ONNX Runtime's outputs: the reference and a 4-stream schedule both pass at
// the set's tolerance (relative 1e-4) and agree with ORT to float32 noise; a second set whose
// expected values are off by 1e-2 fails on every element, and the timings come from the first.
TEST(TestData, ChecksEverySetOnEveryRun) {
  const std::string dir = fresh_dir("weft_test_data_sets");
  copy_set(dir + "/test_data_set_0", 0.0f);
  copy_set(dir + "/test_data_set_1", 1e-2f);
  auto data = core::read_test_data(dir);
  ASSERT_TRUE(data) << data.error().message;
  ASSERT_EQ(data->sets.size(), 2u);
  auto g = core::import_onnx(kData + "/models/squeezenet1_1.onnx");
  ASSERT_TRUE(g) << g.error().message;
  auto device = core::load_device(core::default_device_name());
  ASSERT_TRUE(device) << device.error().message;
  core::StrategyOptions so;
  so.max_streams = 4;
  auto schedule = core::make_schedule("cp-list", *g, core::estimate_costs(*g, *device), *device, so);
  ASSERT_TRUE(schedule) << schedule.error().message;
  auto executor = core::make_cpu_executor();
  const core::Tolerance tolerance{1e-4, 6e-4};
  auto tested = core::compare_test_data(*executor, *g, *schedule, *data, once(), tolerance);
  ASSERT_TRUE(tested) << tested.error().message;
  ASSERT_EQ(tested->sets.size(), 2u);
  const core::TestDataSetResult& good = tested->sets[0];
  ASSERT_EQ(good.scheduled.size(), 1u);
  ASSERT_EQ(good.sequential.size(), 1u);
  EXPECT_TRUE(good.check.empty());
  EXPECT_TRUE(good.passed());
  EXPECT_LT(good.scheduled[0].max_scaled_error, 1e-5);
  EXPECT_GT(good.scheduled[0].max_abs_error, 0) << "two runtimes summing in other orders";
  const core::TestDataSetResult& bad = tested->sets[1];
  EXPECT_FALSE(bad.passed());
  EXPECT_EQ(bad.scheduled[0].mismatched, 1000);
  EXPECT_EQ(bad.sequential[0].mismatched, 1000);
  EXPECT_FALSE(tested->passed());
  EXPECT_EQ(tested->compared.scheduled.iteration_ms.size(), 1u);
  EXPECT_TRUE(tested->compared.diff.identical);
  fs::remove_all(dir);
}

// A stage after the pair that fails (here the check executor's run) ends the sets: the first
// set's checks are kept, the failure names its stage, the second set does not run.
TEST(TestData, AFailedStageEndsTheSets) {
  class Failing : public core::Executor {
   public:
    std::string name() const override { return "failing"; }
    core::Expected<core::RunResult> run(const core::Graph&, const core::Schedule&, const core::MemoryPlan&,
                                        const core::RunOptions&) override {
      return core::make_error(core::ErrorKind::Runtime, "device lost");
    }
  } failing;
  const std::string dir = fresh_dir("weft_test_data_failing");
  copy_set(dir + "/test_data_set_0", 0.0f);
  copy_set(dir + "/test_data_set_1", 0.0f);
  auto data = core::read_test_data(dir);
  ASSERT_TRUE(data) << data.error().message;
  auto g = core::import_onnx(kData + "/models/squeezenet1_1.onnx");
  ASSERT_TRUE(g);
  core::RunComparisonOptions o = once();
  o.check_executor = &failing;
  auto executor = core::make_cpu_executor();
  auto tested = core::compare_test_data(*executor, *g, core::reference_schedule(*g), *data, o, core::Tolerance{1e-4, 6e-4});
  ASSERT_TRUE(tested) << tested.error().message;
  ASSERT_EQ(tested->sets.size(), 1u);
  EXPECT_TRUE(tested->sets[0].passed());
  EXPECT_TRUE(tested->sets[0].check.empty());
  ASSERT_TRUE(tested->compared.failure);
  EXPECT_EQ(tested->compared.failure->error.message, "device lost");
  EXPECT_NE(tested->compared.failure->stage.find("failing"), std::string::npos) << tested->compared.failure->stage;
  fs::remove_all(dir);
}

// A weight-only node over an absent weight folds into a seeded weight of its own (Transpose(w)):
// the saved model carries that value, so importing and running it (the same seeded inputs)
// reproduces the seeded run bit for bit; so does silero (seed 7), whose If bodies' weights the
// executor seeds with the default seed.
TEST(TestData, SavedModelCarriesTheRunsWeights) {
  const std::string dir = fresh_dir("weft_saved_model");
  struct Case {
    std::string model;
    core::ImportOptions import;
    std::uint64_t seed;
    bool main_graph_seeded;  ///< silero's seeded weights are all in its If bodies (not counted)
  };
  core::ImportOptions silero;
  silero.dims = {{"input:0", 1}, {"input:1", 256}, {"state:1", 1}};
  for (const Case& c : {Case{kData + "/bad/inputs/folded_weight.onnx", {}, 42, true},
                       Case{kData + "/models/silero_vad_v5.onnx", silero, 7, false}}) {
    SCOPED_TRACE(c.model);
    const std::string saved = dir + "/saved.onnx";
    ASSERT_TRUE(core::save_model_with_weights(c.model, c.import, saved, c.seed));
    auto original = core::import_onnx(c.model, c.import);
    auto copy = core::import_onnx(saved);
    ASSERT_TRUE(original) << original.error().message;
    ASSERT_TRUE(copy) << copy.error().message;
    core::RunOptions o;
    o.seed = c.seed;
    auto a = test::run_sequential(*original, o);
    auto b = test::run_sequential(*copy, o);
    ASSERT_TRUE(a) << a.error().message;
    ASSERT_TRUE(b) << b.error().message;
    if (c.main_graph_seeded) {
      EXPECT_GT(a->random_weights, 0);
    }
    EXPECT_EQ(b->random_weights, 0) << "every weight of the saved model is inline";
    for (const auto& [name, t] : a->outputs) EXPECT_TRUE(t.bytes == b->outputs.at(name).bytes) << name;
  }
  fs::remove_all(dir);
}
