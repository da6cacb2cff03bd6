// One line of advice per model: chains get the micro-batch hint, wide graphs the best
// configuration with its speedup and memory price, CPU devices no CUDA Graph talk.
#include <gtest/gtest.h>

#include <atomic>
#include <map>

#include "weft/core/analysis/analyze.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/study/advice.h"
#include "weft/core/analysis/verdict.h"

using namespace weft;

namespace {

core::Advice advise_model(const std::string& name, const core::DeviceSpec& device, std::map<std::string, std::int64_t> dims = {}) {
  core::ImportOptions o;
  o.dims = std::move(dims);
  auto g = core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/" + name + ".onnx", o);
  EXPECT_TRUE(g) << g.error().message;
  const auto report = core::analyze(*g, core::estimate_costs(*g, device));
  auto a = core::advise(*g, report, device);
  EXPECT_TRUE(a) << a.error().message;
  return *a;
}

core::DeviceSpec h100() { return *core::load_device("h100-sxm"); }

}  // namespace

// A chain (mnasnet, width 1): concurrency cannot help; splitting pays from a batch above 1.
TEST(Advice, ChainGetsTheSplitHint) {
  const core::Advice a = advise_model("mnasnet1_0", h100());
  EXPECT_EQ(a.kind, core::Advice::Kind::Chain);
  EXPECT_EQ(a.width, 1u);
  EXPECT_NE(a.line.find("chain: concurrency cannot help at batch 1"), std::string::npos) << a.line;
  EXPECT_NE(a.line.find(core::chain_verdict(1, " at batch 1")), std::string::npos) << a.line;  // the verdict's words
  EXPECT_GE(a.split_batch, 2);
  EXPECT_NE(a.line.find("micro-batch splitting at batch >= " + std::to_string(a.split_batch)), std::string::npos) << a.line;
}

// A wide graph (googlenet's inception branches): the best configuration, its gain and memory price.
TEST(Advice, WideGraphNamesTheBestConfiguration) {
  const core::Advice a = advise_model("googlenet", h100());
  EXPECT_EQ(a.kind, core::Advice::Kind::Concurrency) << a.line;
  EXPECT_GT(a.width, 1u);
  EXPECT_GT(a.best_speedup, 1.05);
  EXPECT_GT(a.best_streams, 1);
  EXPECT_GT(a.memory_ratio, 0);
  EXPECT_NE(a.line.find(a.best_strategy + " on " + std::to_string(a.best_streams) + " streams"), std::string::npos) << a.line;
  EXPECT_NE(a.line.find("over the sequential CUDA Graph"), std::string::npos) << a.line;
  EXPECT_NE(a.line.find("x the memory"), std::string::npos) << a.line;
}

// A model whose batch is left symbolic has no costs to advise on: the line says so and names the
// dimension to bind; bound, the caution goes.
TEST(Advice, CautionsWhereCostsAreUnknown) {
  const core::Advice unbound = advise_model("grouped_mlp", h100());
  EXPECT_EQ(unbound.unknown_costs, 48u);
  EXPECT_NE(unbound.line.find("; caution: 48 of 48 operators have unknown cost, counted as launches only (bind the symbolic "
                              "dimension 'batch' for real figures)"),
            std::string::npos)
      << unbound.line;
  const core::Advice bound = advise_model("grouped_mlp", h100(), {{"batch", 1}});
  EXPECT_EQ(bound.unknown_costs, 0u);
  EXPECT_EQ(bound.line.find("caution"), std::string::npos) << bound.line;
}

// Horizontal merging is tried on GPU devices: the grouped MLP merged (48 -> 12 launches) beats
// every unmerged schedule, so the line leads with it and quotes the unmerged best beside it;
// GoogLeNet's merges tie streams alone there, so its line keeps to streams; a CPU device, or
// merging switched off, does not try it.
TEST(Advice, MergingLeadsWhereItBeatsStreams) {
  const core::DeviceSpec h200 = *core::load_device("h200");
  const core::Advice mlp = advise_model("grouped_mlp", h200, {{"batch", 1}});
  EXPECT_EQ(mlp.kind, core::Advice::Kind::Concurrency);
  EXPECT_TRUE(mlp.merge_advised) << mlp.line;
  EXPECT_EQ(mlp.merge_operators_before, 48u);
  EXPECT_EQ(mlp.merge_operators_after, 12u);
  EXPECT_GE(mlp.merge_speedup, 3.0);  // issue 19's goal, as MergePrediction pins it
  EXPECT_GT(mlp.merge_speedup, mlp.best_speedup);
  EXPECT_NE(mlp.line.find("merge equal operators (48 -> 12 launches), then " + mlp.merge_strategy), std::string::npos) << mlp.line;
  EXPECT_NE(mlp.line.find("(unmerged, " + mlp.best_strategy), std::string::npos) << mlp.line;

  const core::Advice googlenet = advise_model("googlenet", h200);
  EXPECT_FALSE(googlenet.merge_advised) << googlenet.line;
  EXPECT_LT(googlenet.merge_operators_after, googlenet.merge_operators_before);
  EXPECT_EQ(googlenet.line.find("merge equal operators"), std::string::npos) << googlenet.line;

  core::ImportOptions o;
  o.dims = {{"batch", 1}};
  auto g = core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/grouped_mlp.onnx", o);
  ASSERT_TRUE(g) << g.error().message;
  const auto report = core::analyze(*g, core::estimate_costs(*g, h200));
  core::AdviceOptions off;
  off.merging = false;
  auto without = core::advise(*g, report, h200, off);
  ASSERT_TRUE(without) << without.error().message;
  EXPECT_EQ(without->merge_operators_before, 0u);
  EXPECT_FALSE(without->merge_advised);
  EXPECT_EQ(without->line.find("merge"), std::string::npos) << without->line;
}

// The advice's speedup is a real optimum: no fixed strategy in either mode beats it (checked
// through its own figures: it is never below 1x, the reference being a candidate).
TEST(Advice, NeverBelowTheReference) {
  for (const char* name : {"squeezenet1_1", "resnet50", "randwire_ws", "transformer4h"}) {
    std::map<std::string, std::int64_t> dims;
    if (std::string(name) == "randwire_ws" || std::string(name) == "transformer4h") dims["batch"] = 1;
    const core::Advice a = advise_model(name, h100(), dims);
    EXPECT_GE(a.best_speedup, 1.0) << name;
    EXPECT_FALSE(a.line.empty()) << name;
    // One threshold: a graph with width is "little to gain" exactly below kWorthwhileSpeedup.
    if (a.width > 1) {
      EXPECT_EQ(a.kind == core::Advice::Kind::LittleToGain, a.best_speedup < core::kWorthwhileSpeedup) << name << ": " << a.line;
      EXPECT_EQ(a.line.find("little to gain from concurrency") != std::string::npos,
                a.kind == core::Advice::Kind::LittleToGain) << name << ": " << a.line;
    }
  }
}

// Tiny kernels at batch 1 on an H100 (randwire): launches dominate the eager run, so the advice
// leads with CUDA Graph replay.
TEST(Advice, LaunchBoundLeadsWithGraphReplay) {
  const core::Advice a = advise_model("randwire_ws", h100(), {{"batch", 1}});
  EXPECT_TRUE(a.launch_bound) << a.line;
  EXPECT_GT(a.launch_share, 0.2);
  EXPECT_EQ(a.line.rfind("launch-bound in eager mode", 0), 0u) << a.line;
}

// On a CPU device there is no launch mode to change: the baseline is the sequential run.
TEST(Advice, CpuDeviceSpeaksOfTheSequentialRun) {
  core::DeviceSpec cpu;
  cpu.name = "cpu";
  cpu.kind = core::DeviceKind::Cpu;
  cpu.sm_count = 4;
  cpu.peak_fp32_flops = cpu.peak_tf32_flops = cpu.peak_fp16_flops = 2e10;
  cpu.memory_bandwidth = 1e10;
  cpu.launch_us = 2;
  cpu.event_wait_us = 5;
  const core::Advice a = advise_model("googlenet", cpu);
  EXPECT_FALSE(a.launch_bound);
  EXPECT_EQ(a.merge_operators_before, 0u);  // merging saves launches: not tried on a CPU device
  EXPECT_EQ(a.best_mode, core::LaunchMode::Eager);
  EXPECT_EQ(a.line.find("CUDA Graph"), std::string::npos) << a.line;
  EXPECT_EQ(a.split_batch, 0);
  if (a.kind == core::Advice::Kind::Concurrency) {
    EXPECT_NE(a.line.find("over the sequential run"), std::string::npos) << a.line;
  }
}

// resnet50 re-batched to 8 on the h200 preset: concurrency has little to offer, the split does,
// and the line names split-overlap's k and its predicted speedup (choose_split's figures).
TEST(Advice, NamesTheSplitWhereItPays) {
  const core::DeviceSpec device = *core::load_device("h200");
  core::ImportOptions o;
  o.batch = 8;
  auto g = core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/resnet50.onnx", o);
  ASSERT_TRUE(g) << g.error().message;
  const auto report = core::analyze(*g, core::estimate_costs(*g, device));
  auto a = core::advise(*g, report, device);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_GT(a->split_k, 1) << a->line;
  EXPECT_GE(a->split_speedup, 1.15) << a->line;
  EXPECT_NE(a->line.find("split-overlap k=" + std::to_string(a->split_k)), std::string::npos) << a->line;
}

// The same model opened split (weft analyze --split K, the studio's --split): the advice quotes
// the split model's schedules over the unsplit model's sequential CUDA Graph, as the split's own
// summary does, so the line, the status bar and `weft --split` agree; it suggests no further split.
TEST(Advice, SplitModelIsQuotedOverTheUnsplitModel) {
  const core::DeviceSpec device = *core::load_device("h200");
  core::ImportOptions o;
  o.batch = 8;
  auto g = core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/resnet50.onnx", o);
  ASSERT_TRUE(g) << g.error().message;
  core::SplitOptions so;
  so.k = 4;
  so.mode = core::LaunchMode::Graph;
  auto split = core::apply_split(*g, device, so);
  ASSERT_TRUE(split) << split.error().message;
  ASSERT_TRUE(split->unsplit.has_value());
  EXPECT_EQ(split->unsplit->k, 4);
  EXPECT_EQ(split->unsplit->batch, 8);
  auto choice = core::choose_split(*g, device, so);
  ASSERT_TRUE(choice) << choice.error().message;
  EXPECT_DOUBLE_EQ(split->unsplit->sequential_graph_us, choice->sequential_us);
  EXPECT_GE(split->unsplit->sequential_eager_us, split->unsplit->sequential_graph_us);  // launches hidden or not
  EXPECT_GT(split->unsplit->sequential_graph_us, 0);

  const auto report = core::analyze(split->graph, split->costs);
  core::AdviceOptions ao;
  ao.unsplit = split->unsplit;
  auto a = core::advise(split->graph, report, device, ao);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_TRUE(a->over_unsplit);
  EXPECT_EQ(a->line.rfind("split k=4: ", 0), 0u) << a->line;
  EXPECT_NE(a->line.find("over the unsplit sequential CUDA Graph at batch 8"), std::string::npos) << a->line;
  EXPECT_EQ(a->line.find("micro-batch splitting"), std::string::npos) << a->line;
  EXPECT_EQ(a->split_k, 1);
  // split-overlap in graph mode is among the candidates, so the best is at least its speedup
  // over the unsplit baseline, choose_split's figure, and not the split graph's own.
  EXPECT_GE(a->best_speedup, choice->speedup() * 0.999) << a->line;
  auto own = core::advise(split->graph, report, device);
  ASSERT_TRUE(own) << own.error().message;
  EXPECT_FALSE(own->over_unsplit);
  EXPECT_NE(own->best_speedup, a->best_speedup);
}

// The studio advises in its worker and drops an advice that newer costs superseded: a cancel stops
// it between strategies with a Runtime error, and one that never fires changes nothing.
TEST(Advice, CancelStopsBetweenStrategies) {
  auto g = core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/googlenet.onnx");
  ASSERT_TRUE(g) << g.error().message;
  const core::DeviceSpec device = h100();
  const auto report = core::analyze(*g, core::estimate_costs(*g, device));
  std::atomic<int> polls{0};
  core::AdviceOptions options;
  options.cancelled = [&] { return ++polls > 3; };  // after three strategies
  const auto stopped = core::advise(*g, report, device, options);
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().kind, core::ErrorKind::Runtime);
  EXPECT_EQ(stopped.error().message, "cancelled");
  options.cancelled = [&] { return false; };
  const auto whole = core::advise(*g, report, device, options);
  const auto plain = core::advise(*g, report, device);
  ASSERT_TRUE(whole && plain);
  EXPECT_EQ(whole->line, plain->line);
}
