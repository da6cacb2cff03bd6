// `weft ... --split K|auto` and `--batch N`: a split schedule saved and reloaded, refusals with
// their exit codes, and a split CPU run bit-identical to the sequential one.
#include <gtest/gtest.h>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "weft/core/base/file_io.h"

using nlohmann::json;

namespace {

using Result = weft::test::CliResult;
Result run(const std::string& args) { return weft::test::run_cli(args, weft::test::StderrMode::Merge); }
std::string model(const std::string& name) { return weft::test::model_path(name); }
std::string temp(const std::string& name) { return weft::test::temp_path(name); }

}  // namespace

// resnet50 (static batch 1) re-batched to 8 and split in two: the schedule file records the
// split, validate and simulate reload it onto the model split the same way, and a model split
// another way refuses it with the option to give.
TEST(CliSplit, SavedSplitScheduleReloads) {
  const std::string file = temp("split_resnet50.json");
  const std::string m = model("resnet50.onnx") + " --batch 8";
  const Result saved = run("schedule " + m + " --split 2 --strategy split-overlap --graph -o " + file);
  ASSERT_EQ(saved.code, 0) << saved.out;
  EXPECT_NE(saved.out.find("split: k=2 of batch 8"), std::string::npos) << saved.out;
  auto text = weft::core::read_file(file);
  ASSERT_TRUE(text);
  const json j = json::parse(*text);
  EXPECT_EQ(j["split"]["k"], 2);
  EXPECT_EQ(j["split"]["batch"], 8);
  EXPECT_EQ(j["streams"].size(), 2u);

  // validate splits the model as the file records, as --schedule does; another --split is refused.
  EXPECT_EQ(run("validate " + m + " " + file).code, 0);
  EXPECT_EQ(run("validate " + m + " --split 2 " + file).code, 0);
  // Without --batch the static-batch export is re-batched to the batch the file splits, and said so.
  const Result rebatched = run("validate " + model("resnet50.onnx") + " " + file);
  EXPECT_EQ(rebatched.code, 0) << rebatched.out;
  EXPECT_NE(rebatched.out.find("re-batched to 8"), std::string::npos) << rebatched.out;
  const Result other = run("validate " + m + " --split 4 " + file);
  EXPECT_EQ(other.code, 2) << other.out;
  EXPECT_NE(other.out.find("load it with --split 2"), std::string::npos) << other.out;

  const Result sim = run("simulate " + m + " --schedule " + file + " --graph --json");
  ASSERT_EQ(sim.code, 0) << sim.out;
  const auto brace = sim.out.find('{');
  ASSERT_NE(brace, std::string::npos);
  const json s = json::parse(sim.out.substr(brace));
  EXPECT_EQ(s["streams"], 2);
}

// simulate on a split model quotes the schedule against the unsplit model's sequential runs, the
// figure the split's own summary line gives (its own baselines are the copies one after another).
TEST(CliSplit, SimulateQuotesTheUnsplitModel) {
  const Result r = run("simulate " + model("resnet50.onnx") + " --batch 8 --split 2 --strategy split-overlap --graph --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto said = r.out.find("split-overlap predicts ");
  ASSERT_NE(said, std::string::npos) << r.out;
  const std::string quoted = r.out.substr(said + 23, 4);  // "1.19"
  const json j = json::parse(r.out.substr(r.out.find('{')));
  const json& split = j["split"];
  EXPECT_EQ(split["k"], 2);
  EXPECT_EQ(split["batch"], 8);
  const double makespan = j["makespan_us"].get<double>();
  EXPECT_DOUBLE_EQ(split["speedup_vs_unsplit_graph"].get<double>(), split["unsplit_sequential_graph_us"].get<double>() / makespan);
  EXPECT_DOUBLE_EQ(split["speedup_vs_unsplit_eager"].get<double>(), split["unsplit_sequential_eager_us"].get<double>() / makespan);
  char text[16];
  std::snprintf(text, sizeof text, "%.2f", split["speedup_vs_unsplit_graph"].get<double>());
  EXPECT_EQ(quoted, text) << r.out;
  EXPECT_GT(split["speedup_vs_unsplit_graph"].get<double>(), 1.0);
  EXPECT_NE(split["speedup_vs_unsplit_graph"].get<double>(), j["speedup_vs_graph"].get<double>());
  const Result plain = run("simulate " + model("resnet50.onnx") + " --batch 8 --split 2 --strategy split-overlap --graph");
  ASSERT_EQ(plain.code, 0) << plain.out;
  EXPECT_NE(plain.out.find(std::string("split     k=2 of batch 8: ") + text + "x vs the unsplit sequential CUDA Graph"), std::string::npos)
      << plain.out;
  // A model that is not split has no such block.
  const Result whole = run("simulate " + model("resnet50.onnx") + " --strategy chains --json");
  ASSERT_EQ(whole.code, 0) << whole.out;
  EXPECT_FALSE(json::parse(whole.out.substr(whole.out.find('{'))).contains("split"));
}

// Bad splits: a k that does not divide the batch names the batch (exit 2), a non-number is a
// usage error (exit 1), and a model that mixes the batch names the node (exit 2).
TEST(CliSplit, Refusals) {
  const Result three = run("simulate " + model("squeezenet1_1.onnx") + " --batch 4 --split 3 --strategy split-overlap");
  EXPECT_EQ(three.code, 2) << three.out;
  EXPECT_NE(three.out.find("k = 3 does not divide the batch 4"), std::string::npos) << three.out;
  EXPECT_EQ(run("schedule " + model("squeezenet1_1.onnx") + " --split banana --strategy split-overlap").code, 1);
  EXPECT_EQ(run("schedule " + model("squeezenet1_1.onnx") + " --batch 0 --strategy sequential").code, 1);
}

// A split run on the CPU: every copy on its own thread writes its slice of the output in place,
// and the outputs equal the sequential run's bit for bit.
TEST(CliSplit, CpuRunIsBitIdentical) {
  const Result r = run("run " + model("squeezenet1_1.onnx") +
                       " --batch 4 --split 2 --strategy split-overlap --backend cpu --iterations 1 --warmup 0 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const json j = json::parse(r.out.substr(r.out.find('{')));
  EXPECT_TRUE(j["bit_identical"].get<bool>());
}

// analyze and frontier take --split as the other commands do: the advice line quotes the split
// model over the unsplit sequential CUDA Graph, and the front is computed on the split copies
// (split-overlap's point among them, on k streams).
TEST(CliSplit, AnalyzeAndFrontierOnASplitModel) {
  const std::string m = model("squeezenet1_1.onnx") + " --batch 4 --split 2 --device h200";
  const Result a = run("analyze " + m + " --json");
  ASSERT_EQ(a.code, 0) << a.out;
  const json aj = json::parse(a.out.substr(a.out.find('{')));
  const std::string line = aj["advice"].get<std::string>();
  EXPECT_TRUE(aj["advice_evidence"]["over_unsplit"].get<bool>());
  EXPECT_EQ(line.rfind("split k=2: ", 0), 0u) << line;
  EXPECT_NE(line.find("over the unsplit sequential CUDA Graph at batch 4"), std::string::npos) << line;

  const Result f = run("frontier " + m + " --graph --caps 1,2 --levels 0 --json");
  ASSERT_EQ(f.code, 0) << f.out;
  const json fj = json::parse(f.out.substr(f.out.find('{')));
  bool split_overlap = false;
  for (const auto& p : fj["points"])
    if (p["strategy"] == "split-overlap" && p["streams"] == 2) split_overlap = true;
  EXPECT_TRUE(split_overlap) << f.out;
}
