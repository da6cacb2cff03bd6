// `weft analyze` and `weft devices` through the built binary, on every shared model.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <fstream>
#include <random>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "model_dims.h"

#include "weft/core/base/file_io.h"

namespace {

using Result = weft::test::CliResult;
Result run_weft(const std::string& args) { return weft::test::run_cli(args, weft::test::StderrMode::Separate); }
std::string model(const std::string& name) { return weft::test::model_path(name); }
std::string temp(const std::string& name) { return weft::test::temp_path(name); }
using weft::test::contains;

// `weft COMMAND ARGS --json`'s output, parsed (a test failure, and null, where it is not JSON).
nlohmann::json command_json(const std::string& command, const std::string& args) {
  const Result r = run_weft(command + " " + args + " --json");
  EXPECT_EQ(r.code, 0) << args << ": " << r.err;
  try {
    return nlohmann::json::parse(r.out);
  } catch (const nlohmann::json::exception& e) {
    ADD_FAILURE() << args << ": not JSON: " << e.what() << "\n" << r.out.substr(0, 400);
    return {};
  }
}

nlohmann::json analyze_json(const std::string& name, const std::string& extra = "") {
  return command_json("analyze", model(name) + extra);
}

}  // namespace

// The figures of the table in shared/models/README.md, exactly.
TEST(CliAnalyze, ReadmeTableFigures) {
  struct Row {
    const char* name;
    int ops, edges, depth, widest, antichain;
  };
  for (const Row& row : {Row{"googlenet", 139, 165, 58, 4, 4}, Row{"resnet50", 122, 137, 118, 2, 2},
                         Row{"squeezenet1_1", 65, 72, 49, 2, 2}, Row{"mobilenet_v3_large", 161, 199, 161, 1, 1}}) {
    const auto j = analyze_json(row.name);
    ASSERT_TRUE(j.is_object()) << row.name;
    EXPECT_EQ(j["operators"], row.ops) << row.name;
    EXPECT_EQ(j["edges"], row.edges) << row.name;
    EXPECT_EQ(j["depth"], row.depth) << row.name;
    EXPECT_EQ(j["widest_level"], row.widest) << row.name;
    EXPECT_EQ(j["antichain_width"], row.antichain) << row.name;
    EXPECT_EQ(j["unknown_shapes"], 0) << row.name;
    EXPECT_EQ(j["unknown_costs"], 0) << row.name;
  }
  // A chain model gets the "cannot help" verdict.
  EXPECT_EQ(analyze_json("mobilenet_v3_large")["verdict"], "chain: concurrency cannot help (width 1)");
}

// Every shared model analyses; the JSON is self-consistent: one entry per operator, levels within
// depth, level widths sum to the operator count, node times sum to work, the critical path's to span.
TEST(CliAnalyze, EveryModelIsConsistent) {
  std::size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(WEFT_TEST_DATA_DIR) + "/models")) {
    if (entry.path().extension() != ".onnx") continue;
    ++seen;
    const std::string name = entry.path().stem().string();
    const auto j = analyze_json(name, weft::test::model_dim_args(name));
    ASSERT_TRUE(j.is_object()) << name;
    for (const char* key : {"operators", "edges", "tensors", "folded", "depth", "widest_level", "antichain_width",
                            "work_us", "span_us", "parallelism", "verdict", "unknown_shapes", "device",
                            "level_widths", "critical_path", "nodes", "advice", "advice_evidence"})
      EXPECT_TRUE(j.contains(key)) << name << ": missing " << key;
    const auto& nodes = j["nodes"];
    ASSERT_EQ(nodes.size(), j["operators"].get<std::size_t>()) << name;
    double work = 0;
    std::map<std::string, double> time_of;
    for (const auto& n : nodes) {
      EXPECT_GE(n["level"].get<int>(), 0);
      EXPECT_LT(n["level"].get<int>(), j["depth"].get<int>()) << name;
      EXPECT_EQ(n["slack"].get<int>(), n["alap"].get<int>() - n["level"].get<int>()) << name;
      EXPECT_GE(n["time_us"].get<double>(), 0) << name;
      work += n["time_us"].get<double>();
      time_of[n["name"].get<std::string>()] = n["time_us"].get<double>();
    }
    EXPECT_NEAR(work, j["work_us"].get<double>(), 1e-6 * work + 1e-9) << name;
    double span = 0;
    for (const auto& k : j["critical_path"]) span += time_of.at(k.get<std::string>());
    EXPECT_NEAR(span, j["span_us"].get<double>(), 1e-6 * span + 1e-9) << name;
    int total = 0;
    for (const auto& w : j["level_widths"]) total += w.get<int>();
    EXPECT_EQ(total, j["operators"].get<int>()) << name;
    EXPECT_EQ(j["level_widths"].size(), j["depth"].get<std::size_t>()) << name;
    // A level is an antichain, so the widest level never beats the maximum antichain.
    EXPECT_LE(j["widest_level"].get<int>(), j["antichain_width"].get<int>()) << name;
    EXPECT_EQ(j["antichain"].size(), j["antichain_width"].get<std::size_t>()) << name;
    EXPECT_GE(j["parallelism"].get<double>(), 1.0 - 1e-9) << name;
    EXPECT_FALSE(j["advice"].get<std::string>().empty()) << name;
    EXPECT_GE(j["advice_evidence"]["best_speedup"].get<double>(), 1.0) << name;
    if (j["antichain_width"] == 1) {
      EXPECT_EQ(j["advice_evidence"]["kind"], "chain") << name;
    }
    if (name != "silero_vad_v5" && name != "vad_if") {
      EXPECT_EQ(j["unknown_shapes"], 0) << name;
      EXPECT_EQ(j["unknown_costs"], 0) << name;
    } else {
      EXPECT_GE(j["unknown_costs"].get<int>(), 1) << name << ": a top-level If on a runtime input is opaque";
      EXPECT_FALSE(j["notes"].empty());
    }
  }
  EXPECT_GE(seen, 12u);
}

// The readable summary has every figure and the critical path's heaviest operators.
TEST(CliAnalyze, TextSummary) {
  const Result r = run_weft("analyze " + model("googlenet") + " --device a100-sxm");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* part : {"operators       139", "edges           165", "depth           58",
                           "widest level    4", "antichain width 4", "work/span", "verdict", "a100-sxm",
                           "critical path, heaviest operators", "Conv"})
    EXPECT_TRUE(contains(r.out, part)) << part << "\n" << r.out;
}

// ppocr without --dim: the unresolved dims are named and analysis still completes.
TEST(CliAnalyze, UnresolvedDimsAreReported) {
  const Result r = run_weft("analyze " + model("ppocr_v4_det") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["unresolved_dims"].empty());
  EXPECT_GT(j["unknown_shapes"].get<int>(), 0);
  EXPECT_TRUE(contains(r.err, "p2o.DynamicDimension"));
}

// What the import had to assume is said on stderr: a --dim that binds nothing, and a re-batched
// model that keeps its exported batch (shufflenet_v2 fixes it in a Reshape); resnet50 re-batches
// cleanly and says nothing.
TEST(CliAnalyze, ImportWarningsAreShown) {
  const Result unused = run_weft("analyze " + model("grouped_mlp") + " --dim batch=1 --dim nosuch=3");
  ASSERT_EQ(unused.code, 0) << unused.err;
  EXPECT_TRUE(contains(unused.err, "weft: warning: --dim nosuch=3 matches no symbolic dimension")) << unused.err;
  const Result kept = run_weft("analyze " + model("shufflenet_v2_x1_0") + " --batch 8");
  ASSERT_EQ(kept.code, 0) << kept.err;
  EXPECT_TRUE(contains(kept.err, "--batch 8: output 'output' has 1 at dim 0, not 8")) << kept.err;
  const Result clean = run_weft("analyze " + model("resnet50") + " --batch 8");
  ASSERT_EQ(clean.code, 0) << clean.err;
  EXPECT_FALSE(contains(clean.err, "warning")) << clean.err;
}

// --no-fold keeps vit's shape arithmetic: more operators and nothing folded.
TEST(CliAnalyze, NoFold) {
  const auto folded = analyze_json("vit_b_16");
  const auto raw = analyze_json("vit_b_16", " --no-fold");
  EXPECT_GT(folded["folded"].get<int>(), 0);
  EXPECT_EQ(raw["folded"], 0);
  EXPECT_GT(raw["operators"].get<int>(), folded["operators"].get<int>());
}

// A faster device predicts less work; the device key says which preset was used.
TEST(CliAnalyze, DeviceChangesCosts) {
  const auto h200 = analyze_json("resnet50", " --device h200");
  const auto l4 = analyze_json("resnet50", " --device l4");
  EXPECT_EQ(h200["device"], "h200");
  EXPECT_LT(h200["work_us"].get<double>(), l4["work_us"].get<double>());
}

// Bad input: missing file and garbage bytes are invalid input (2), bad options usage (1); the
// message names the file.
TEST(CliAnalyze, ExitCodes) {
  const std::string missing = temp("weft_no_such_model.onnx");
  Result r = run_weft("analyze " + missing);
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, missing)) << r.err;

  const std::string garbage = temp("weft_cli_garbage.onnx");
  {
    std::ofstream out(garbage, std::ios::binary);
    std::mt19937 rng(7);
    for (int i = 0; i < 4096; ++i) out.put(static_cast<char>(rng() & 0xff));
  }
  r = run_weft("analyze " + garbage);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, garbage)) << r.err;
  {
    std::ofstream out(garbage, std::ios::binary | std::ios::trunc);
  }
  r = run_weft("analyze " + garbage);
  EXPECT_EQ(r.code, 2) << r.err;
  std::filesystem::remove(garbage);

  EXPECT_EQ(run_weft("analyze " + model("googlenet") + " --bogus").code, 1);
  EXPECT_EQ(run_weft("analyze").code, 1);
  EXPECT_EQ(run_weft("analyze " + model("googlenet") + " --dim nonsense").code, 1);
  r = run_weft("analyze " + model("googlenet") + " --device tpu-v9");
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "h100-sxm")) << "known devices are listed: " << r.err;
}

// weft devices lists the presets; without a GPU (or without the CUDA module) it says why and exits 3.
TEST(CliDevices, ListsPresets) {
  const Result r = run_weft("devices");
  ASSERT_TRUE(r.code == 0 || r.code == 3) << r.code << r.err;
  for (const char* preset : {"h100-sxm", "h200", "a100-sxm", "l4", "rtx-4090"})
    EXPECT_TRUE(contains(r.out, preset)) << preset << "\n" << r.out;
  if (r.code == 3) {
    EXPECT_TRUE(contains(r.out, "no CUDA device: ") || contains(r.out, "CUDA module")) << r.out;
  }

  const Result j = run_weft("devices --json");
  EXPECT_EQ(j.code, r.code);
  const auto doc = nlohmann::json::parse(j.out);
  std::set<std::string> names;
  for (const auto& p : doc["presets"]) names.insert(p["name"].get<std::string>());
  EXPECT_TRUE(names.count("h100-sxm"));
  EXPECT_EQ(doc.contains("gpu_error"), j.code == 3);
  EXPECT_EQ(run_weft("devices --bogus").code, 1);
}

namespace {

nlohmann::json advise_json(const std::string& args) { return command_json("advise", args); }

}  // namespace

// `weft advise`: the advice line first (the same line and evidence as analyze's), then the evidence
// it rests on, the best configuration named as the JSON names it.
TEST(CliAdvise, OneLineThenTheEvidence) {
  const Result r = run_weft("advise " + model("googlenet"));
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json analysed = analyze_json("googlenet");
  const nlohmann::json advised = advise_json(model("googlenet"));
  const std::string line = analysed["advice"].get<std::string>();
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), line) << r.out;
  EXPECT_EQ(advised["advice"], analysed["advice"]);
  EXPECT_EQ(advised["advice_evidence"], analysed["advice_evidence"]);
  const auto& e = advised["advice_evidence"];
  for (const std::string& part : {std::string("work/span   ") + "2.25", std::string("width       4"), std::string("launches"),
                                 "best        " + e["best_strategy"].get<std::string>() + " on " +
                                     std::to_string(e["best_streams"].get<int>()) + " streams",
                                 std::string("split       "), std::string("merging     139 -> 119 operators")})
    EXPECT_TRUE(contains(r.out, part)) << part << "\n" << r.out;
  EXPECT_EQ(e["merge"]["operators_before"], 139);
  EXPECT_EQ(e["merge"]["operators_after"], 119);
  EXPECT_EQ(e["merge"]["advised"], false);
  // The grouped MLP's merges beat streams alone: the line leads with them.
  const nlohmann::json mlp = advise_json(model("grouped_mlp") + " --dim batch=1 --device h200");
  EXPECT_EQ(mlp["advice_evidence"]["merge"]["advised"], true);
  EXPECT_GE(mlp["advice_evidence"]["merge"]["speedup"].get<double>(), 3.0);
  EXPECT_TRUE(contains(mlp["advice"].get<std::string>(), "merge equal operators (48 -> 12 launches)")) << mlp["advice"];
}

// At batch 8 resnet50 is advised to split; --streams caps the best configuration's streams.
TEST(CliAdvise, SplitAtALargerBatchAndAStreamCap) {
  const nlohmann::json split = advise_json(model("resnet50") + " --batch 8");
  EXPECT_GT(split["advice_evidence"]["split_k"].get<int>(), 1);
  EXPECT_TRUE(contains(split["advice"].get<std::string>(), "split-overlap k=")) << split["advice"];
  const nlohmann::json one = advise_json(model("googlenet") + " --streams 1");
  EXPECT_EQ(one["advice_evidence"]["best_streams"], 1);
  EXPECT_LT(one["advice_evidence"]["best_speedup"].get<double>(), 1.2);
}

// A symbolic batch left unbound: the line ends in a caution naming the dimension (exit 0: the
// analysis stands, its costs do not), the evidence counts the operators; bound, it goes.
TEST(CliAdvise, CautionsOnAnUnboundBatch) {
  const nlohmann::json unbound = advise_json(model("inception_v3"));
  EXPECT_TRUE(contains(unbound["advice"].get<std::string>(), "caution: 218 of 219 operators have unknown cost")) << unbound["advice"];
  EXPECT_TRUE(contains(unbound["advice"].get<std::string>(), "(bind the symbolic dimension 'batch' for real figures)"))
      << unbound["advice"];
  EXPECT_EQ(unbound["advice_evidence"]["unknown_costs"], 218);
  const nlohmann::json bound = advise_json(model("inception_v3") + " --batch 1");
  EXPECT_FALSE(contains(bound["advice"].get<std::string>(), "caution")) << bound["advice"];
  EXPECT_EQ(bound["advice_evidence"]["unknown_costs"], 0);
}

// Usage errors exit 1, a missing model 2, each named.
TEST(CliAdvise, Refusals) {
  Result r = run_weft("advise");
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "missing MODEL")) << r.err;
  r = run_weft("advise " + model("googlenet") + " --streams 0");
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "--streams")) << r.err;
  r = run_weft("advise " + temp("no_such_model.onnx"));
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "no_such_model.onnx")) << r.err;
}
