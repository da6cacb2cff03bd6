#include <gtest/gtest.h>

#include <cstdlib>

#include "test_graphs.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"

using namespace weft;

using weft::test::int_attr;
using weft::test::ints_attr;

namespace {

// 1 GFLOP/s and 1 GB/s: flops and bytes read directly as nanoseconds, launch 5 µs.
core::DeviceSpec toy_device() {
  auto d = core::parse_device(R"({"name": "toy", "peak_fp32_tflops": 0.001, "memory_bandwidth_gb_s": 1,
    "sm_count": 1, "launch_us": 5, "graph_launch_per_node_us": 1, "event_record_us": 2,
    "event_wait_us": 2, "kernel_min_us": 1})", "toy.json");
  if (!d) std::abort();
  return *d;
}

// One node `op` reading `inputs` (name, shape) and writing y of shape `out` (empty optional: unknown).
core::Graph one_node(const std::string& op, const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& inputs,
                     std::optional<std::vector<std::int64_t>> out, std::vector<core::Attribute> attrs = {}) {
  core::GraphBuilder b;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& [name, shape] = inputs[i];
    if (i == 0) {
      std::vector<core::Dim> dims;
      for (auto d : shape) dims.push_back(core::Dim{d, {}});
      b.add_input(name, core::DType::Float32, dims);
    } else {
      b.add_weight(name, core::DType::Float32, shape);
    }
    names.push_back(name);
  }
  const std::vector<std::string> outs{"y"};
  b.add_node("node", op, names, outs, std::move(attrs));
  if (out) b.set_shape("y", core::DType::Float32, *out);
  b.mark_output("y");
  auto g = std::move(b).build();
  if (!g) std::abort();
  return std::move(*g);
}

core::NodeCost cost_of(const core::Graph& g) { return core::estimate_costs(g, toy_device())[0]; }

}  // namespace

// Golden: Conv 3->4 channels, 3x3 kernel, 8x8 -> 6x6: flops 2*144*27, bytes (192+108+144)*4.
TEST(CostModel, Conv) {
  const auto c = cost_of(one_node("Conv", {{"x", {1, 3, 8, 8}}, {"w", {4, 3, 3, 3}}}, std::vector<std::int64_t>{1, 4, 6, 6}));
  EXPECT_TRUE(c.known);
  EXPECT_DOUBLE_EQ(c.flops, 7776);
  EXPECT_DOUBLE_EQ(c.bytes, 1776);
  EXPECT_NEAR(c.time_us, 7.776 + 5, 1e-9);
  EXPECT_NEAR(c.intensity, 7776.0 / 1776.0, 1e-12);
  EXPECT_EQ(c.bound, core::Bound::Compute);
}

// Golden: depthwise Conv (group 8) with bias: weights [8,1,3,3] -> 2*512*9 + 512 flops.
TEST(CostModel, GroupedConvWithBias) {
  const auto c = cost_of(one_node("Conv", {{"x", {1, 8, 10, 10}}, {"w", {8, 1, 3, 3}}, {"b", {8}}},
                                  std::vector<std::int64_t>{1, 8, 8, 8}, {int_attr("group", 8)}));
  EXPECT_DOUBLE_EQ(c.flops, 9728);
  EXPECT_DOUBLE_EQ(c.bytes, (800 + 72 + 8 + 512) * 4.0);
}

// Golden: ConvTranspose scatters each input element into (M/group) x kernel outputs.
TEST(CostModel, ConvTranspose) {
  // x [1,4,5,5], w [4,2,2,2] (C_in, M/group, kH, kW), stride 2 -> y [1,2,10,10]
  const auto c = cost_of(one_node("ConvTranspose", {{"x", {1, 4, 5, 5}}, {"w", {4, 2, 2, 2}}},
                                  std::vector<std::int64_t>{1, 2, 10, 10}));
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 100 * 8);
}

// Golden: batched MatMul with a broadcast 2-D right operand: [2,3,4,5] x [5,6] -> [2,3,4,6].
TEST(CostModel, BatchedBroadcastMatMul) {
  const auto c = cost_of(one_node("MatMul", {{"a", {2, 3, 4, 5}}, {"b", {5, 6}}}, std::vector<std::int64_t>{2, 3, 4, 6}));
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 144 * 5);
  EXPECT_DOUBLE_EQ(c.bytes, (120 + 30 + 144) * 4.0);
  EXPECT_NEAR(c.time_us, 1.44 + 5, 1e-9);  // 1440 flops (1.44 µs) outweigh 1176 bytes (1.176 µs)
  EXPECT_EQ(c.bound, core::Bound::Compute);
}

// Golden: Gemm [2,3] x [3,4] + C: 2*8*3 + 2*8 flops; transA reads K from the first axis.
TEST(CostModel, Gemm) {
  EXPECT_DOUBLE_EQ(cost_of(one_node("Gemm", {{"a", {2, 3}}, {"b", {3, 4}}, {"c", {4}}}, std::vector<std::int64_t>{2, 4})).flops, 64);
  EXPECT_DOUBLE_EQ(cost_of(one_node("Gemm", {{"a", {3, 2}}, {"b", {3, 4}}}, std::vector<std::int64_t>{2, 4},
                                    {int_attr("transA", 1)})).flops, 48);
}

// Golden: Relu on 1000 floats: 1000 flops, 8000 bytes, memory-bound: 8 µs + launch.
TEST(CostModel, Relu) {
  const auto c = cost_of(one_node("Relu", {{"x", {1, 1000}}}, std::vector<std::int64_t>{1, 1000}));
  EXPECT_DOUBLE_EQ(c.flops, 1000);
  EXPECT_DOUBLE_EQ(c.bytes, 8000);
  EXPECT_NEAR(c.time_us, 13, 1e-9);
  EXPECT_EQ(c.bound, core::Bound::Memory);
}

// Golden: MaxPool counts one compare per kernel tap; GlobalAveragePool one add per input element.
TEST(CostModel, Pooling) {
  EXPECT_DOUBLE_EQ(cost_of(one_node("MaxPool", {{"x", {1, 2, 4, 4}}}, std::vector<std::int64_t>{1, 2, 2, 2},
                                    {ints_attr("kernel_shape", {2, 2})})).flops, 32);
  EXPECT_DOUBLE_EQ(cost_of(one_node("GlobalAveragePool", {{"x", {1, 2, 4, 4}}}, std::vector<std::int64_t>{1, 2, 1, 1})).flops, 32);
}

// Golden: reshape-like operators run no kernel: zero bytes, zero time, known.
TEST(CostModel, ReshapeIsMetadataOnly) {
  const auto c = cost_of(one_node("Reshape", {{"x", {2, 6}}, {"s", {2}}}, std::vector<std::int64_t>{3, 4}));
  EXPECT_TRUE(c.known);
  EXPECT_DOUBLE_EQ(c.bytes, 0);
  EXPECT_DOUBLE_EQ(c.time_us, 0);
}

// Golden: Transpose moves every byte once each way and does no arithmetic.
TEST(CostModel, TransposeIsMemoryBound) {
  const auto c = cost_of(one_node("Transpose", {{"x", {2, 6}}}, std::vector<std::int64_t>{6, 2}));
  EXPECT_DOUBLE_EQ(c.flops, 0);
  EXPECT_DOUBLE_EQ(c.bytes, 96);
  EXPECT_EQ(c.bound, core::Bound::Memory);
}

// Unknown operators, control flow and unknown shapes are marked unknown and cost a launch only.
TEST(CostModel, UnknownCostsAreLaunchOnly) {
  for (const auto& g : {one_node("FancyOp", {{"x", {4}}}, std::vector<std::int64_t>{4}),
                        one_node("If", {{"x", {1}}}, std::vector<std::int64_t>{4}),
                        one_node("Relu", {{"x", {4}}}, std::nullopt)}) {
    const auto c = cost_of(g);
    EXPECT_FALSE(c.known) << g.node(0).op_type;
    EXPECT_EQ(c.bound, core::Bound::Unknown);
    EXPECT_DOUBLE_EQ(c.time_us, 5);
  }
}

// Every bundled preset loads, names itself after its file and has plausible figures.
TEST(DevicePresets, AllLoad) {
  const auto names = core::device_names();
  for (const char* required : {"a100-sxm", "h100-sxm", "h200", "l4", "rtx-4090"})
    EXPECT_NE(std::find(names.begin(), names.end(), required), names.end()) << required;
  for (const std::string& n : names) {
    auto d = core::load_device(n);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_EQ(d->name, n);
    EXPECT_GT(d->peak_fp32_flops, 1e12);
    EXPECT_GE(d->peak_fp16_flops, d->peak_fp32_flops);
    EXPECT_GT(d->memory_bandwidth, 1e11);
    EXPECT_GT(d->sm_count, 0);
    EXPECT_GT(d->launch_us, d->graph_launch_per_node_us);
    EXPECT_EQ(d->hardware_queues, 8);
  }
  auto h100 = core::load_device("h100-sxm");
  ASSERT_TRUE(h100);
  EXPECT_DOUBLE_EQ(h100->memory_bandwidth, 3.35e12);
  EXPECT_EQ(h100->sm_count, 132);
}

// An unknown preset is invalid input (core never returns Usage) listing the known names.
TEST(DevicePresets, UnknownNameListsKnown) {
  auto d = core::load_device("tpu-v9");
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(d.error().message.find("tpu-v9"), std::string::npos);
  EXPECT_NE(d.error().message.find("h100-sxm"), std::string::npos);
  EXPECT_FALSE(core::load_device("../devices/h100-sxm"));
}

// Malformed presets are InvalidInput errors naming the file and the problem.
TEST(DevicePresets, ParseErrors) {
  const std::string base = R"("name": "x", "peak_fp32_tflops": 1, "memory_bandwidth_gb_s": 1, "sm_count": 1,
    "launch_us": 5, "graph_launch_per_node_us": 1, "event_record_us": 2, "event_wait_us": 2, "kernel_min_us": 1)";
  ASSERT_TRUE(core::parse_device("{" + base + "}", "ok.json"));
  struct Case {
    std::string text;
    std::string expect;
  };
  const Case cases[] = {
      {"", "not valid JSON"},
      {"{\"name\": ", "not valid JSON"},
      {"[1, 2]", "JSON object"},
      {R"({"name": "x"})", "missing key 'peak_fp32_tflops'"},
      {"{" + base + R"(, "lanuch_us": 3})", "unknown key 'lanuch_us'"},
      {"{" + base + R"(, "peak_fp16_tflops": "fast"})", "must be a number"},
      {"{" + base + R"(, "max_threads_per_sm": 1.5})", "whole number"},
      {R"({"name": "X Y", "peak_fp32_tflops": 1})", "lower-case"},
      {R"({"name": 3})", "must be a string"},
      {"{" + base + R"(, "peak_tf32_tflops": -2})", "must be positive"},
  };
  for (const Case& c : cases) {
    auto d = core::parse_device(c.text, "bad.json");
    ASSERT_FALSE(d) << c.text;
    EXPECT_EQ(d.error().kind, core::ErrorKind::InvalidInput);
    EXPECT_NE(d.error().message.find("bad.json"), std::string::npos) << d.error().message;
    EXPECT_NE(d.error().message.find(c.expect), std::string::npos) << d.error().message;
  }
}
