// Cost model v1: per-node flops / bytes / roofline time from shapes.
#include "weft/core/cost/cost_model.h"

#include "weft/core/graph/fused_node.h"
#include "weft/core/cost/device.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>

namespace weft::core {

double CostTable::total_us() const {
  double t = 0;
  for (const NodeCost& c : nodes) t += c.time_us;
  return t;
}

std::string_view bound_name(Bound b) {
  switch (b) {
    case Bound::Compute: return "compute";
    case Bound::Memory: return "memory";
    case Bound::Unknown: return "unknown";
  }
  return "unknown";
}

// ---------------------------------------------------------------------------------------------
// Per-node estimates

namespace {

// What one operator costs, before the device turns it into time.
struct Estimate {
  double flops = 0;
  double bytes = 0;
  bool known = true;
  bool metadata_only = false;  // no kernel at all (a runtime aliases the buffer)
};

class NodeView {
 public:
  NodeView(const Graph& g, const Node& n) : m_g(g), m_n(n) {}
  const Node& node() const { return m_n; }
  std::size_t inputs() const { return m_n.inputs.size(); }
  const Tensor* in(std::size_t i) const {
    return i < m_n.inputs.size() && m_n.inputs[i] != kNoTensor ? &m_g.tensor(m_n.inputs[i]) : nullptr;
  }
  const Tensor* out(std::size_t i) const {
    return i < m_n.outputs.size() && m_n.outputs[i] != kNoTensor ? &m_g.tensor(m_n.outputs[i]) : nullptr;
  }
  // Element count of input / output i, or -1 when absent or not static.
  double in_elems(std::size_t i) const { const Tensor* t = in(i); return t ? static_cast<double>(t->elements()) : -1; }
  double out_elems(std::size_t i) const { const Tensor* t = out(i); return t ? static_cast<double>(t->elements()) : -1; }
  // Bytes read (every present input, each tensor once) + written (every present output); -1 if any is unknown.
  double io_bytes() const {
    double b = 0;
    std::vector<TensorId> seen;
    for (TensorId t : m_n.inputs) {
      if (t == kNoTensor || std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
      seen.push_back(t);
      const std::int64_t tb = m_g.tensor(t).bytes();
      if (tb < 0) return -1;
      b += static_cast<double>(tb);
    }
    return b + out_bytes();
  }
  double out_bytes() const {
    double b = 0;
    for (TensorId t : m_n.outputs) {
      if (t == kNoTensor) continue;
      const std::int64_t tb = m_g.tensor(t).bytes();
      if (tb < 0) return -1;
      b += static_cast<double>(tb);
    }
    return b;
  }
  double tensor_bytes(const Tensor* t) const { return t && t->bytes() >= 0 ? static_cast<double>(t->bytes()) : -1; }

 private:
  const Graph& m_g;
  const Node& m_n;
};

Estimate unknown() { return Estimate{0, 0, false, false}; }

double product(const std::vector<std::int64_t>& v, std::size_t from = 0) {
  double p = 1;
  for (std::size_t i = from; i < v.size(); ++i) p *= static_cast<double>(v[i]);
  return p;
}

// Flops per output element of elementwise operators (multiply-add = 2). Transcendental functions
// count a few flops each: GPUs evaluate them with a handful of FMAs on the SFU path.
const std::unordered_map<std::string_view, double>& elementwise_flops() {
  static const std::unordered_map<std::string_view, double> k = {
      {"Relu", 1},     {"LeakyRelu", 2},  {"PRelu", 2},     {"Clip", 2},     {"HardSigmoid", 3},
      {"HardSwish", 4}, {"Sigmoid", 4},   {"Tanh", 4},      {"Erf", 4},      {"Gelu", 8},
      {"Elu", 4},      {"Selu", 5},       {"Celu", 4},      {"Softplus", 4}, {"Softsign", 3},
      {"Mish", 8},     {"Exp", 1},        {"Log", 1},       {"Sqrt", 1},     {"Reciprocal", 1},
      {"Abs", 1},      {"Neg", 1},        {"Floor", 1},     {"Ceil", 1},     {"Round", 1},
      {"Sign", 1},     {"Sin", 4},        {"Cos", 4},       {"Tan", 4},      {"Not", 1},
      {"IsNaN", 1},    {"IsInf", 1},      {"Cast", 0},      {"Add", 1},      {"Sub", 1},
      {"Mul", 1},      {"Div", 1},        {"Pow", 4},       {"Max", 1},      {"Min", 1},
      {"Sum", 1},      {"Mean", 1},       {"Mod", 1},       {"Equal", 1},    {"Less", 1},
      {"LessOrEqual", 1}, {"Greater", 1}, {"GreaterOrEqual", 1}, {"And", 1}, {"Or", 1},
      {"Xor", 1},      {"Where", 1},      {"BitShift", 1},  {"ThresholdedRelu", 1},
      {"Shrink", 2},   {"Dropout", 0},
  };
  return k;
}

bool is_metadata_only(std::string_view op) {
  // Runtimes alias these outputs to their input buffers (ONNX Runtime's Alias(0, 0) kernels,
  // TensorRT's shuffle elimination) or compute them on the host from shapes: no kernel runs.
  return op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity" ||
         op == "Shape" || op == "Size" || op == "Dropout";
}

bool is_data_movement(std::string_view op) {
  return op == "Concat" || op == "Split" || op == "Transpose" || op == "Pad" || op == "Expand" || op == "Tile" ||
         op == "ConstantOfShape" || op == "Range" || op == "DepthToSpace" || op == "SpaceToDepth" ||
         op == "ScatterND" || op == "ScatterElements" || op == "Trilu" || op == "OneHot" || op == "EyeLike" ||
         op == "ReverseSequence";
}

bool is_reduction(std::string_view op) {
  return op == "ReduceMean" || op == "ReduceSum" || op == "ReduceMax" || op == "ReduceMin" || op == "ReduceProd" ||
         op == "ReduceL1" || op == "ReduceL2" || op == "ReduceLogSum" || op == "ReduceLogSumExp" ||
         op == "ReduceSumSquare" || op == "ArgMax" || op == "ArgMin";
}

bool is_opaque(std::string_view op) { return op == "If" || op == "Loop" || op == "Scan"; }

Estimate estimate_node(const NodeView& v) {
  const std::string& op = v.node().op_type;
  if (!v.node().domain.empty() && v.node().domain != "ai.onnx") return unknown();
  if (is_metadata_only(op)) return Estimate{0, 0, true, true};
  if (is_opaque(op)) return unknown();

  const double io = v.io_bytes();
  if (io < 0) return unknown();  // every estimate below needs every tensor's size
  const double out = v.out_elems(0);
  if (out < 0) return unknown();

  if (op == "Conv") {
    // Each output element is a dot product over (C / group) × kernel taps of its group's weights.
    const Tensor* w = v.in(1);
    if (!w || !w->shape_known() || w->dims.size() < 2) return unknown();
    double flops = 2 * out * product(w->shape(), 1);
    if (v.in(2)) flops += out;  // bias
    return Estimate{flops, io};
  }
  if (op == "ConvTranspose") {
    // Each input element scatters into (M / group) × kernel taps outputs.
    const Tensor* w = v.in(1);
    const double in = v.in_elems(0);
    if (!w || !w->shape_known() || w->dims.size() < 2 || in < 0) return unknown();
    double flops = 2 * in * product(w->shape(), 1);
    if (v.in(2)) flops += out;
    return Estimate{flops, io};
  }
  if (op == "MatMul" || op == "MatMulInteger") {
    const Tensor* a = v.in(0);
    if (!a || !a->shape_known() || a->dims.empty()) return unknown();
    const double k = static_cast<double>(a->shape().back());
    // A 1-D B drops the N axis from the output, so out already is batch × M (× N).
    return Estimate{2 * out * k, io};
  }
  if (op == "Gemm") {
    const Tensor* a = v.in(0);
    if (!a || !a->shape_known() || a->dims.size() != 2) return unknown();
    const auto s = a->shape();
    const double k = static_cast<double>(v.node().attr_int("transA", 0) ? s[0] : s[1]);
    double flops = 2 * out * k;
    if (v.in(2)) flops += 2 * out;  // beta * C added
    return Estimate{flops, io};
  }
  if (op == "MaxPool" || op == "AveragePool" || op == "LpPool") {
    // One compare or add per kernel tap per output element.
    const auto kernel = v.node().attr_ints("kernel_shape");
    if (kernel.empty()) return unknown();
    return Estimate{out * product(kernel), io};
  }
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool" || op == "GlobalLpPool" || is_reduction(op)) {
    const double in = v.in_elems(0);
    if (in < 0) return unknown();
    return Estimate{in, io};  // one add / compare per element read
  }
  if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") {
    return Estimate{5 * out, io};  // max, subtract, exp, sum, divide
  }
  if (op == "BatchNormalization") {
    return Estimate{2 * out, io};  // inference: scale and shift folded into one FMA
  }
  if (op == "LayerNormalization" || op == "InstanceNormalization" || op == "GroupNormalization" ||
      op == "LpNormalization" || op == "MeanVarianceNormalization") {
    return Estimate{8 * out, io};  // mean, variance, subtract, scale, shift
  }
  if (op == "Resize" || op == "Upsample") {
    const std::string mode = v.node().attr_string("mode", "nearest");
    const double per = mode == "linear" ? 8 : mode == "cubic" ? 32 : 1;  // taps × 2 for interpolation
    // Resize reads only the data input, not its roi/scales/sizes vectors; those were counted in io.
    return Estimate{per * out, io};
  }
  if (op == "Gather" || op == "GatherElements" || op == "GatherND" || op == "Slice") {
    // Only the selected elements are read: output-sized traffic plus the index / parameter inputs.
    double small = 0;
    for (std::size_t i = 1; i < v.inputs(); ++i) {
      const double b = v.tensor_bytes(v.in(i));
      if (b > 0) small += b;
    }
    return Estimate{0, 2 * v.out_bytes() + small};
  }
  if (is_data_movement(op)) return Estimate{0, io};
  if (op == "LSTM" || op == "GRU" || op == "RNN") {
    // X [seq, batch, in], W [dirs, gates·H, in], R [dirs, gates·H, H]: two GEMMs per step and gate.
    const Tensor* x = v.in(0);
    const Tensor* w = v.in(1);
    const Tensor* r = v.in(2);
    if (!x || !w || !r || !x->shape_known() || !w->shape_known() || !r->shape_known() || x->dims.size() != 3 ||
        w->dims.size() != 3 || r->dims.size() != 3)
      return unknown();
    const auto xs = x->shape();
    const auto ws = w->shape();
    const auto rs = r->shape();
    const double steps = static_cast<double>(xs[0] * xs[1] * ws[0]);
    const double gemm = 2 * static_cast<double>(ws[1]) * static_cast<double>(ws[2] + rs[2]);
    return Estimate{steps * (gemm + 10 * static_cast<double>(rs[2])), io};
  }
  if (const auto it = elementwise_flops().find(op); it != elementwise_flops().end()) {
    // n-ary ops (Sum, Mean, Max, Min) combine n inputs with n - 1 operations.
    const double arity = static_cast<double>(std::count_if(v.node().inputs.begin(), v.node().inputs.end(),
                                                           [](TensorId t) { return t != kNoTensor; }));
    const bool variadic = op == "Sum" || op == "Mean" || op == "Max" || op == "Min";
    const double per = it->second * (variadic ? std::max(1.0, arity - 1) : 1.0);
    return Estimate{per * out, io};
  }
  return unknown();
}

double peak_for(const Graph& g, const Node& n, const DeviceSpec& d) {
  // Half-precision operands run on the tensor-core path; everything else at the FP32 rate.
  for (TensorId t : n.inputs) {
    if (t == kNoTensor) continue;
    const DType dt = g.tensor(t).dtype;
    if (dt == DType::Float16 || dt == DType::BFloat16) return d.peak_fp16_flops;
  }
  return d.peak_fp32_flops;
}

// The share of a GPU's SMs a kernel's grid covers (one block of kThreadsPerBlock threads per
// kThreadsPerBlock output elements, the simulator's convention): a grid smaller than one wave
// computes at that share of the peak rate. So a small kernel, e.g. one micro-batch's copy of a
// late convolution, is not modelled as free: its time does not shrink below the full wave's.
double node_grid_fill(const Graph& g, const Node& n, const DeviceSpec& d) {
  double elems = 0;
  for (TensorId t : n.outputs)
    if (t != kNoTensor) elems += static_cast<double>(std::max<std::int64_t>(0, g.tensor(t).elements()));
  return grid_fill(elems, d);
}

}  // namespace

CostTable cpu_team_costs(const Graph& graph, const CostTable& costs, const DeviceSpec& from, const DeviceSpec& to) {
  const CostTable a = estimate_costs(graph, from), b = estimate_costs(graph, to);
  CostTable out = costs;
  out.device = to.name;
  for (std::size_t v = 0; v < out.nodes.size() && v < a.nodes.size(); ++v) {
    NodeCost& c = out.nodes[v];
    const Node& node = graph.node(static_cast<NodeId>(v));
    if (c.known && !a.nodes[v].known && is_fused_node(node)) {
      // A fused chain scales as its members do on the two team sizes (its convolution, mostly).
      const Attribute* body = node.attribute("body");
      const double from_us = body && body->graph ? estimate_costs(*body->graph, from).total_us() : 0;
      if (from_us > 0) c.time_us *= estimate_costs(*body->graph, to).total_us() / from_us;
      continue;
    }
    if (!c.known || !a.nodes[v].known || a.nodes[v].time_us <= 0) continue;
    c.time_us *= b.nodes[v].time_us / a.nodes[v].time_us;
  }
  return out;
}

namespace {
/// A fitted device's efficiency for the node's family (1 for presets).
double family_efficiency(const DeviceSpec& device, std::string_view op) {
  if (device.op_efficiency.empty()) return 1.0;
  const auto it = device.op_efficiency.find(std::string(op_family(op)));
  return it == device.op_efficiency.end() || !(it->second > 0) ? 1.0 : it->second;
}
}  // namespace

CostTable estimate_costs(const Graph& graph, const DeviceSpec& device) {
  CostTable table;
  table.device = device.name;
  table.nodes.resize(graph.node_count());
  for (std::size_t i = 0; i < graph.node_count(); ++i) {
    const Node& node = graph.node(static_cast<NodeId>(i));
    const Estimate e = estimate_node(NodeView(graph, node));
    NodeCost& c = table.nodes[i];
    c.known = e.known;
    if (!e.known) {
      c.time_us = device.launch_us;  // a kernel of unknown size still pays its launch
      c.bound = Bound::Unknown;
      continue;
    }
    c.flops = e.flops;
    c.bytes = e.bytes;
    c.intensity = e.bytes > 0 ? e.flops / e.bytes : 0;
    if (e.metadata_only) {
      c.time_us = 0;
      c.bound = Bound::Memory;
      continue;
    }
    const double peak = peak_for(graph, node, device) * node_grid_fill(graph, node, device);
    const double compute_us = peak > 0 ? e.flops / peak * 1e6 : 0;
    const double memory_us = device.memory_bandwidth > 0 ? e.bytes / device.memory_bandwidth * 1e6 : 0;
    c.bound = compute_us >= memory_us && e.flops > 0 ? Bound::Compute : Bound::Memory;
    c.time_us = std::max(compute_us, memory_us) / family_efficiency(device, node.op_type) + device.launch_us;
  }
  return table;
}

std::string_view op_family(std::string_view op) {
  static constexpr std::string_view kConv[] = {"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "DeformConv"};
  static constexpr std::string_view kGemm[] = {"Gemm", "MatMul", "MatMulInteger", "QLinearMatMul", "Einsum", "FusedMatMul"};
  static constexpr std::string_view kNorm[] = {"BatchNormalization", "LayerNormalization", "InstanceNormalization",
                                               "GroupNormalization", "LRN", "SkipLayerNormalization", "RMSNormalization"};
  static constexpr std::string_view kPool[] = {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "LpPool", "MaxRoiPool"};
  static constexpr std::string_view kData[] = {"Concat", "Split", "Slice", "Transpose", "Gather", "GatherElements", "GatherND",
                                               "Scatter", "ScatterElements", "ScatterND", "Pad", "Resize", "Upsample", "Tile",
                                               "Expand", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Cast",
                                               "DepthToSpace", "SpaceToDepth"};
  const auto in = [&](const auto& list) { return std::find(std::begin(list), std::end(list), op) != std::end(list); };
  if (in(kConv)) return "conv";
  if (in(kGemm)) return "gemm";
  if (in(kNorm)) return "norm";
  if (in(kPool)) return "pool";
  if (op.starts_with("Reduce") || op == "Softmax" || op == "LogSoftmax" || op == "ArgMax" || op == "ArgMin" || op == "TopK") return "reduce";
  if (in(kData)) return "data";
  return "elementwise";
}

double grid_fill(double output_elements, const DeviceSpec& device) {
  if (device.kind != DeviceKind::Gpu || device.sm_count <= 0) return 1.0;
  const double blocks = std::max(1.0, std::ceil(std::max(0.0, output_elements) / kThreadsPerBlock));
  return std::min(1.0, blocks / device.sm_count);
}

double peak_flops(const Graph& graph, NodeId node, const DeviceSpec& device) {
  return peak_for(graph, graph.node(node), device);
}

std::vector<double> node_times(const CostTable& costs) {
  std::vector<double> v;
  v.reserve(costs.nodes.size());
  for (const NodeCost& c : costs.nodes) v.push_back(c.time_us);
  return v;
}

}  // namespace weft::core
