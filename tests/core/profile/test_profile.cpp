#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "test_graphs.h"
#include "weft/core/chrome_trace.h"
#include "weft/core/cost_model.h"
#include "weft/core/device.h"
#include "weft/core/file_io.h"
#include "weft/core/onnx_import.h"
#include "weft/core/profile.h"
#include "weft/core/simulator.h"
#include "weft/core/strategies.h"

using namespace weft;

namespace {

const std::string kData = std::string(WEFT_TEST_DATA_DIR);

struct Opened {
  core::Graph graph;
  core::CostTable costs;
};

/// A model as core opens it for a profile: imported, costs on the default preset.
Opened open(const std::string& path) {
  auto g = core::import_onnx(path);
  if (!g) {
    ADD_FAILURE() << g.error().message;
    std::abort();
  }
  auto device = core::load_device(core::default_device_name());
  if (!device) std::abort();
  core::CostTable costs = core::estimate_costs(*g, *device);
  return {std::move(*g), std::move(costs)};
}

core::DeviceSpec default_device() {
  auto d = core::load_device(core::default_device_name());
  if (!d) std::abort();
  return *d;
}

double operator_share(const core::Profile& p) {
  const double matched = static_cast<double>(p.matched_count());
  return matched / (matched + static_cast<double>(p.unmatched_nodes.size()));
}

std::string text_of(const std::string& path) {
  auto t = core::read_file(path);
  if (!t) std::abort();
  return *t;
}

struct Case {
  std::string model;    ///< path under tests/data
  std::string profile;  ///< path under tests/data/profiles
};

class RealProfile : public ::testing::TestWithParam<Case> {};

}  // namespace

// Each real profile (ONNX Runtime at "basic" and "all", PyTorch CPU traces) maps at least 95% of
// the model's operators, and replaying the profiled run's own schedule comes within 5% of its
// measured iteration time.
TEST_P(RealProfile, MapsNearlyEveryOperatorAndReplaysWithinFivePercent) {
  const Case& c = GetParam();
  Opened m = open(kData + "/" + c.model);
  auto p = core::load_profile(m.graph, m.costs, kData + "/profiles/" + c.profile);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_GE(operator_share(*p), 0.95) << c.profile << ": " << p->unmatched_nodes.size() << " unmatched";
  EXPECT_GT(p->iteration_us, 0);
  EXPECT_GE(p->runs, 3);
  ASSERT_EQ(p->iterations.size(), static_cast<std::size_t>(p->runs));
  const core::ProfileReplay r = core::replay_profile(m.graph, m.costs, *p, default_device());
  EXPECT_LT(std::abs(r.error), 0.05) << c.profile << ": replayed " << r.replayed_us << " us, measured " << r.measured_us << " us";
  // The profiled run's schedule holds every node once.
  std::size_t placed = 0;
  for (const auto& s : p->schedule.streams) placed += s.size();
  EXPECT_EQ(placed, m.graph.node_count());
}

INSTANTIATE_TEST_SUITE_P(
    Profiles, RealProfile,
    ::testing::Values(Case{"models/googlenet.onnx", "googlenet.ort-basic.json"}, Case{"models/googlenet.onnx", "googlenet.ort-all.json"},
                      Case{"models/squeezenet1_1.onnx", "squeezenet1_1.ort-basic.json"},
                      Case{"models/squeezenet1_1.onnx", "squeezenet1_1.ort-all.json"},
                      Case{"models/mobilenet_v3_large.onnx", "mobilenet_v3_large.ort-basic.json"},
                      Case{"models/mobilenet_v3_large.onnx", "mobilenet_v3_large.ort-all.json"},
                      Case{"profiles/googlenet.torch.onnx", "googlenet.torch-cpu.json"},
                      Case{"profiles/squeezenet1_1.torch.onnx", "squeezenet1_1.torch-cpu.json"}),
    [](const auto& test_info) {
      std::string name = test_info.param.profile.substr(0, test_info.param.profile.size() - 5);
      std::replace_if(name.begin(), name.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); }, '_');
      return name;
    });

// At level "all" ONNX Runtime names the fused Conv+Relu after the Relu's output plus "_nchwc":
// both nodes get the one kernel's time, spread by their predicted cost share, and say so.
TEST(OnnxRuntimeProfile, FusedChainSpreadsTheKernelByPredictedShare) {
  Opened m = open(kData + "/models/googlenet.onnx");
  const std::string path = kData + "/profiles/googlenet.ort-all.json";
  auto p = core::load_profile(m.graph, m.costs, path);
  ASSERT_TRUE(p) << p.error().message;
  const core::NodeId conv = *m.graph.find_node("/conv1/conv/Conv");
  const core::NodeId relu = *m.graph.find_node("/conv1/Relu");
  EXPECT_EQ(p->match[static_cast<std::size_t>(conv)], core::ProfileMatch::FusedChain);
  EXPECT_EQ(p->match[static_cast<std::size_t>(relu)], core::ProfileMatch::FusedChain);
  const double a = *p->node_us[static_cast<std::size_t>(conv)];
  const double b = *p->node_us[static_cast<std::size_t>(relu)];
  EXPECT_NEAR(a / b, m.costs[conv].time_us / m.costs[relu].time_us, 1e-6);
  // Their sum is the kernel's median over the runs (nothing follows it on the stream to absorb).
  const auto events = nlohmann::json::parse(text_of(path));
  std::vector<double> durs;
  for (const auto& e : events)
    if (e.value("name", "") == "/conv1/Relu_output_0_nchwc_kernel_time") durs.push_back(e["dur"].get<double>());
  ASSERT_EQ(durs.size(), static_cast<std::size_t>(p->runs));
  std::sort(durs.begin(), durs.end());
  EXPECT_NEAR(a + b, durs[durs.size() / 2], 1e-6);
  // At level "basic" the same node is named exactly.
  auto basic = core::load_profile(m.graph, m.costs, kData + "/profiles/googlenet.ort-basic.json");
  ASSERT_TRUE(basic);
  EXPECT_EQ(basic->match[static_cast<std::size_t>(conv)], core::ProfileMatch::Exact);
  EXPECT_EQ(basic->source, "ONNX Runtime CPU EP, median of 5 runs");
  EXPECT_EQ(basic->format, core::ProfileFormat::OnnxRuntime);
}

// Measured times replace predictions node by node; nodes without one keep theirs.
TEST(ApplyProfile, ReplacesOnlyMeasuredNodes) {
  Opened m = open(kData + "/models/googlenet.onnx");
  auto p = core::load_profile(m.graph, m.costs, kData + "/profiles/googlenet.ort-basic.json");
  ASSERT_TRUE(p);
  core::Profile partial = *p;
  const std::size_t kept = 3;
  partial.node_us[kept].reset();
  const core::CostTable applied = core::apply_profile(m.costs, partial);
  for (std::size_t v = 0; v < m.graph.node_count(); ++v) {
    if (partial.node_us[v]) {
      EXPECT_TRUE(applied.nodes[v].measured);
      EXPECT_DOUBLE_EQ(applied.nodes[v].time_us, *partial.node_us[v]);
    } else {
      EXPECT_FALSE(applied.nodes[v].measured);
      EXPECT_DOUBLE_EQ(applied.nodes[v].time_us, m.costs.nodes[v].time_us);
    }
  }
}

// A profile of another model (almost nothing matches) is refused, naming the share matched.
TEST(ProfileErrors, ProfileOfAnotherModelIsRefused) {
  Opened m = open(kData + "/models/squeezenet1_1.onnx");
  auto p = core::load_profile(m.graph, m.costs, kData + "/profiles/googlenet.ort-all.json");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(p.error().message.find("a profile of another model"), std::string::npos) << p.error().message;
  EXPECT_NE(p.error().message.find("0 of 64 operators"), std::string::npos) << p.error().message;
  // PyTorch's module scopes refuse too.
  auto t = core::load_profile(m.graph, m.costs, kData + "/profiles/googlenet.torch-cpu.json");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("a profile of another model"), std::string::npos) << t.error().message;
}

// Truncated and malformed JSON are refused as such, with the byte where parsing stopped.
TEST(ProfileErrors, TruncatedAndMalformedJsonAreRefused) {
  Opened m = open(kData + "/models/googlenet.onnx");
  for (const char* file : {"googlenet.ort-all.json", "googlenet.torch-cpu.json"}) {
    const std::string text = text_of(kData + "/profiles/" + file);
    auto p = core::import_profile(m.graph, m.costs, std::string_view(text).substr(0, text.size() / 2), "half.json");
    ASSERT_FALSE(p) << file;
    EXPECT_EQ(p.error().kind, core::ErrorKind::InvalidInput);
    EXPECT_NE(p.error().message.find("half.json: truncated JSON at byte"), std::string::npos) << p.error().message;
  }
  auto bad = core::import_profile(m.graph, m.costs, R"([{"cat": "Node", "name": "x_kernel_time",, }])", "bad.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("bad.json: malformed JSON at byte"), std::string::npos) << bad.error().message;
  auto empty = core::import_profile(m.graph, m.costs, "", "empty.json");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().kind, core::ErrorKind::InvalidInput);
}

// A profile with only session events (recorded without operators) is refused: no node events.
TEST(ProfileErrors, NoNodeEventsIsRefused) {
  Opened m = open(kData + "/models/googlenet.onnx");
  auto events = nlohmann::json::parse(text_of(kData + "/profiles/googlenet.ort-basic.json"));
  nlohmann::json sessions = nlohmann::json::array();
  for (const auto& e : events)
    if (e.value("cat", "") == "Session") sessions.push_back(e);
  ASSERT_FALSE(sessions.empty());
  auto p = core::import_profile(m.graph, m.costs, sessions.dump(), "sessions.json", {core::ProfileFormat::OnnxRuntime, 0.5});
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("sessions.json: no node events"), std::string::npos) << p.error().message;
  // A PyTorch trace of steps alone, without operators, likewise.
  auto t = core::import_profile(m.graph, m.costs, R"({"traceEvents": [{"name": "ProfilerStep#0", "ph": "X", "ts": 0, "dur": 10}]})",
                                "steps.json");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("no node events"), std::string::npos) << t.error().message;
}

// Weft's own Chrome trace reads back: every node by its key, with its item's duration, on its stream.
TEST(WeftTraceProfile, RoundTripKeepsTimesAndStreams) {
  Opened m = open(kData + "/models/googlenet.onnx");
  const core::DeviceSpec device = default_device();
  core::StrategyOptions so;
  so.max_streams = 4;
  auto schedule = core::make_schedule("cp-list", m.graph, m.costs, device, so);
  ASSERT_TRUE(schedule) << schedule.error().message;
  const core::Timeline tl = core::simulate(m.graph, *schedule, m.costs, device);
  const std::string text = core::chrome_trace_json(m.graph, std::span<const core::Timeline>(&tl, 1), &m.costs);
  auto p = core::import_profile(m.graph, m.costs, text, "trace.json");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->format, core::ProfileFormat::WeftTrace);
  EXPECT_EQ(p->matched_count(), tl.items.size());
  std::map<int, int> stream_of_stream;
  for (const core::TimelineItem& it : tl.items) {
    const auto v = static_cast<std::size_t>(it.node);
    ASSERT_TRUE(p->node_us[v]) << m.graph.key(it.node);
    EXPECT_EQ(p->match[v], core::ProfileMatch::RoundTrip);
    EXPECT_NEAR(*p->node_us[v], it.end_us - it.start_us, 1e-6);
    // Streams are renumbered by first appearance, one to one.
    auto [at, fresh] = stream_of_stream.emplace(it.stream, p->stream[v]);
    EXPECT_EQ(at->second, p->stream[v]);
  }
  EXPECT_EQ(p->schedule.stream_count(), stream_of_stream.size());
  EXPECT_NEAR(p->iteration_us, tl.makespan_us(), 1e-6);
}

// Kineto's format on a GPU: CUDA kernels join their CPU operator through the runtime call's
// correlation id, and keep their streams; the step lasts until its last kernel ends.
TEST(PyTorchProfile, KernelsJoinOperatorsByCorrelationOnTheirStreams) {
  // n0 -> {n1, n2} -> n3 (a Sum): three aten::relu and an aten::add, n2's kernel on a side stream.
  const core::Graph g = test::make_diamond();
  const core::CostTable costs = core::estimate_costs(g, default_device());
  const char* trace = R"({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 100, "dur": 50},
    {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 101, "dur": 8},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 102, "dur": 4, "args": {"correlation": 11}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 110, "dur": 8},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 111, "dur": 4, "args": {"correlation": 12}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::relu_", "pid": 1, "tid": 1, "ts": 120, "dur": 8},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 121, "dur": 4, "args": {"correlation": 13}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 130, "dur": 8},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 131, "dur": 4, "args": {"correlation": 14}},
    {"ph": "X", "cat": "kernel", "name": "relu_kernel_a", "pid": 0, "tid": 7, "ts": 105, "dur": 20, "args": {"correlation": 11}},
    {"ph": "X", "cat": "kernel", "name": "relu_kernel_b", "pid": 0, "tid": 7, "ts": 126, "dur": 30, "args": {"correlation": 12}},
    {"ph": "X", "cat": "kernel", "name": "relu_kernel_c", "pid": 0, "tid": 8, "ts": 126, "dur": 10, "args": {"correlation": 13}},
    {"ph": "X", "cat": "kernel", "name": "add_kernel", "pid": 0, "tid": 7, "ts": 157, "dur": 3, "args": {"correlation": 14}}
  ]})";
  auto p = core::import_profile(g, costs, trace, "kineto.json");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->format, core::ProfileFormat::PyTorch);
  EXPECT_EQ(p->device_kind, core::DeviceKind::Gpu);
  EXPECT_EQ(p->runs, 1);
  ASSERT_EQ(p->matched_count(), 4u);
  EXPECT_DOUBLE_EQ(*p->node_us[0], 20);
  EXPECT_DOUBLE_EQ(*p->node_us[1], 30);
  EXPECT_DOUBLE_EQ(*p->node_us[2], 10);
  EXPECT_DOUBLE_EQ(*p->node_us[3], 3);
  EXPECT_EQ(p->stream[0], p->stream[1]);
  EXPECT_NE(p->stream[0], p->stream[2]);
  EXPECT_EQ(p->stream[3], p->stream[0]);
  EXPECT_EQ(p->schedule.stream_count(), 2u);
  EXPECT_FALSE(p->schedule.events.empty());  // n2 on the side stream waits for n0, n3 for n2
  EXPECT_DOUBLE_EQ(p->iteration_us, 60);       // step start 100 to the add kernel's end 160
}

// A device fitted to a profile predicts each operator family's measured nodes at their median
// measured time: the family's efficiency is the median roofline / measured ratio.
TEST(FitDevice, FamilyEfficiencyReproducesTheMedianNode) {
  Opened m = open(kData + "/models/googlenet.onnx");
  auto p = core::load_profile(m.graph, m.costs, kData + "/profiles/googlenet.ort-basic.json");
  ASSERT_TRUE(p);
  auto fit = core::fit_device_to_profile(m.graph, *p, default_device(), "fitted");
  ASSERT_TRUE(fit) << fit.error().message;
  EXPECT_EQ(fit->kind, core::DeviceKind::Cpu);  // the profile's kind
  EXPECT_DOUBLE_EQ(fit->launch_us, p->gap_us);
  ASSERT_TRUE(fit->op_efficiency.count("conv"));
  core::DeviceSpec bare = *fit;
  bare.launch_us = 0;
  const core::CostTable predicted = core::estimate_costs(m.graph, bare);
  std::vector<double> ratios;
  for (std::size_t v = 0; v < m.graph.node_count(); ++v)
    if (m.graph.node(static_cast<core::NodeId>(v)).op_type == "Conv" && p->node_us[v])
      ratios.push_back(predicted.nodes[v].time_us / *p->node_us[v]);
  ASSERT_FALSE(ratios.empty());
  std::sort(ratios.begin(), ratios.end());
  const double median = ratios.size() % 2 ? ratios[ratios.size() / 2] : (ratios[ratios.size() / 2 - 1] + ratios[ratios.size() / 2]) / 2;
  EXPECT_NEAR(median, 1.0, 1e-9);
  // The efficiencies survive a device file's round trip.
  auto back = core::parse_device(core::device_to_json(*fit), "fitted.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->op_efficiency.size(), fit->op_efficiency.size());
  for (const auto& [family, e] : fit->op_efficiency) EXPECT_NEAR(back->op_efficiency.at(family), e, 1e-12 * e);
}

// The report prints the replay error first, then what matched how.
TEST(ProfileReport, ReplayErrorComesFirst) {
  Opened m = open(kData + "/models/squeezenet1_1.onnx");
  auto p = core::load_profile(m.graph, m.costs, kData + "/profiles/squeezenet1_1.ort-all.json");
  ASSERT_TRUE(p);
  const core::ProfileReplay r = core::replay_profile(m.graph, m.costs, *p, default_device());
  const std::string text = core::profile_report_text(m.graph, *p, r);
  EXPECT_EQ(text.rfind("replay error: ", 0), 0u) << text;
  EXPECT_NE(text.find("matched: 65 of 65 operators"), std::string::npos) << text;
  EXPECT_NE(text.find("fused-chain"), std::string::npos) << text;
  const auto j = nlohmann::json::parse(core::profile_report_json(m.graph, *p, r));
  EXPECT_EQ(j["format"], "weft-profile-report");
  EXPECT_EQ(j["operators_matched"], 65);
  EXPECT_NEAR(j["replay"]["error"].get<double>(), r.error, 1e-12);
}
