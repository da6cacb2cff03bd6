#include "weft/core/transform/horizontal_merge.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace weft::core {

namespace {

// A byte string equal for two nodes exactly when they compute the same function of
// equally-shaped inputs (weights may differ: they are data, not part of the signature).
std::string signature(const Graph& graph, const Node& node) {
  std::string s = node.domain + "|" + node.op_type + "|";
  auto add_tensor = [&](TensorId t) {
    if (t == kNoTensor) {
      s += "-;";
      return;
    }
    const Tensor& x = graph.tensor(t);
    s += std::to_string(static_cast<int>(x.dtype)) + ":" + format_shape(x) + ";";
  };
  for (TensorId t : node.inputs) add_tensor(t);
  s += "|";
  for (TensorId t : node.outputs) add_tensor(t);
  s += "|";
  std::vector<const Attribute*> attrs;
  for (const Attribute& a : node.attributes) attrs.push_back(&a);
  std::sort(attrs.begin(), attrs.end(), [](const Attribute* a, const Attribute* b) { return a->name < b->name; });
  for (const Attribute* a : attrs) {
    s += a->name + "=" + std::to_string(static_cast<int>(a->type)) + ":" + std::to_string(a->i) + "," +
         std::to_string(a->f) + "," + a->s;
    for (float f : a->floats) s += "," + std::to_string(f);
    for (std::int64_t i : a->ints) s += "," + std::to_string(i);
    for (const std::string& str : a->strings) s += "," + str;
    s += "," + std::to_string(static_cast<int>(a->tensor_dtype));
    for (std::int64_t d : a->tensor_dims) s += "," + std::to_string(d);
    s.append(a->tensor_bytes.begin(), a->tensor_bytes.end());
    s += ";";
  }
  return s;
}

// Convolutions and GEMMs that read the same input and differ only in their output channels merge
// into one launch over concatenated weights (IOS's operator merge): the key is the input tensor,
// the attributes and the weight's shape without its output-channel dimension.
std::string concat_signature(const Graph& graph, const Node& node) {
  const std::string& op = node.op_type;
  if ((op != "Conv" && op != "MatMul" && op != "Gemm") || node.inputs.size() < 2 || node.inputs[0] == kNoTensor ||
      node.inputs[1] == kNoTensor)
    return {};
  const Tensor& w = graph.tensor(node.inputs[1]);
  if (w.kind != TensorKind::Weight || !w.shape_known()) return {};
  std::vector<std::int64_t> shape = w.shape();
  if (shape.size() < 2) return {};
  // The output-channel axis: Conv [M, C/g, k...] and Gemm with transB [N, K] lead with it,
  // MatMul [K, N] and Gemm without transB end with it.
  const bool leading = op == "Conv" || (op == "Gemm" && node.attr_int("transB", 0) != 0);
  if (op == "Conv" && node.attr_int("group", 1) != 1) return {};
  shape.erase(leading ? shape.begin() : shape.end() - 1);
  std::string s = "concat|" + op + "|" + std::to_string(node.inputs[0]) + "|" + std::to_string(static_cast<int>(w.dtype));
  for (std::int64_t d : shape) s += "," + std::to_string(d);
  s += "|bias=" + std::to_string(node.inputs.size() > 2 && node.inputs[2] != kNoTensor);
  // Attributes that shape the computation must agree (kernel, strides, pads, dilations, alpha...).
  Node stripped = node;
  stripped.inputs.clear();
  stripped.outputs.clear();
  return s + "|" + signature(graph, stripped);
}

bool all_shapes_static(const Graph& graph, const Node& node) {
  for (TensorId t : node.inputs)
    if (t != kNoTensor && !graph.tensor(t).shape_known()) return false;
  for (TensorId t : node.outputs)
    if (t != kNoTensor && !graph.tensor(t).shape_known()) return false;
  return true;
}

}  // namespace

bool mergeable_op(std::string_view op) {
  static const std::set<std::string_view> kOps = {
      // One batched / grouped GEMM, one grouped convolution.
      "MatMul", "Gemm", "Conv",
      // Elementwise over the concatenated range.
      "Add", "Sub", "Mul", "Div", "Pow", "Relu", "LeakyRelu", "PRelu", "Sigmoid", "Tanh", "HardSigmoid",
      "HardSwish", "Erf", "Gelu", "Exp", "Log", "Sqrt", "Neg", "Abs", "Clip", "Elu", "Selu", "Softplus",
      "Mish", "Where", "Cast",
      // Row-wise over concatenated rows.
      "Softmax", "LogSoftmax", "LayerNormalization", "BatchNormalization", "InstanceNormalization",
      "Transpose", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "ReduceMean", "ReduceSum"};
  return kOps.count(op) > 0;
}

double merged_time_us(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                      std::span<const NodeId> nodes) {
  double compute_us = 0, bytes = 0, elements = 0;
  for (NodeId n : nodes) {
    const NodeCost& c = costs[n];
    const double peak = peak_flops(graph, n, device);
    if (peak > 0) compute_us += c.flops / peak * 1e6;
    bytes += c.bytes;
    for (TensorId t : graph.node(n).outputs)
      if (t != kNoTensor) elements += static_cast<double>(std::max<std::int64_t>(0, graph.tensor(t).elements()));
  }
  // The merged launch's grid is its members' grids side by side: it fills the SMs they fill
  // together, as estimate_costs scales a lone kernel by its own grid (a merge of small kernels
  // gains fill, but no more than the device has).
  compute_us /= grid_fill(elements, device);
  const double memory_us = device.memory_bandwidth > 0 ? bytes / device.memory_bandwidth * 1e6 : 0;
  return std::max(compute_us, memory_us) + device.launch_us;
}

MergeGroup make_merge_group(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                            std::vector<NodeId> nodes) {
  MergeGroup g;
  g.nodes = std::move(nodes);
  std::sort(g.nodes.begin(), g.nodes.end());
  if (g.nodes.empty()) return g;
  const Node& head = graph.node(g.nodes.front());
  const TensorId first = head.inputs.empty() ? kNoTensor : head.inputs[0];
  g.shared_input = first != kNoTensor && std::all_of(g.nodes.begin(), g.nodes.end(), [&](NodeId n) {
    return !graph.node(n).inputs.empty() && graph.node(n).inputs[0] == first;
  });
  g.time_us = merged_time_us(graph, costs, device, g.nodes);
  if (g.shared_input) {
    // The merged launch reads the shared input once.
    const std::int64_t in_bytes = graph.tensor(first).bytes();
    const double saved_us = device.memory_bandwidth > 0 && in_bytes > 0
                                ? static_cast<double>(in_bytes) * static_cast<double>(g.nodes.size() - 1) /
                                      device.memory_bandwidth * 1e6
                                : 0;
    g.time_us = std::max(device.launch_us, g.time_us - saved_us);
  }
  return g;
}

MergePlan make_merge_plan(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                          std::vector<std::vector<NodeId>> groups) {
  MergePlan plan;
  plan.group_of.assign(graph.node_count(), -1);
  for (std::size_t i = 0; i < graph.node_count(); ++i) {
    const NodeCost& c = costs.nodes[i];
    plan.time_before_us += c.time_us;
    if (c.time_us > 0) ++plan.launches_before;
  }
  for (auto& members : groups) plan.groups.push_back(make_merge_group(graph, costs, device, std::move(members)));
  std::sort(plan.groups.begin(), plan.groups.end(), [](const MergeGroup& a, const MergeGroup& b) {
    return !a.nodes.empty() && (b.nodes.empty() || a.nodes.front() < b.nodes.front());
  });
  for (std::size_t gi = 0; gi < plan.groups.size(); ++gi)
    for (NodeId n : plan.groups[gi].nodes) plan.group_of[static_cast<std::size_t>(n)] = static_cast<int>(gi);
  plan.launches_after = plan.launches_before;
  plan.time_after_us = plan.time_before_us;
  for (const MergeGroup& g : plan.groups) {
    if (g.nodes.empty()) continue;
    plan.launches_after -= g.nodes.size() - 1;
    for (NodeId n : g.nodes) plan.time_after_us -= costs[n].time_us;
    plan.time_after_us += g.time_us;
  }
  return plan;
}

MergePlan find_merge_groups(const Graph& graph, const WireLayering& layering, const CostTable& costs,
                            const DeviceSpec& device) {
  std::vector<std::vector<NodeId>> groups;
  for (const auto& layer : layering.layers) {
    // Equal signatures first (batched launches), then what is left by shared input (concat merges).
    std::map<std::string, std::vector<NodeId>> by_signature, by_input;
    for (NodeId v : layer) {
      const Node& node = graph.node(v);
      if (!mergeable_op(node.op_type) || !costs[v].known || costs[v].time_us <= 0 || !all_shapes_static(graph, node))
        continue;
      by_signature[signature(graph, node)].push_back(v);
    }
    // A concat merge takes every convolution or GEMM of the layer that reads its input, including
    // equal-signature siblings: an inception module's 1x1 branch and 3x3-reduce convolutions may
    // have equal widths, and batching only those two would leave the 5x5-reduce sibling a launch of
    // its own. Equal-signature groups whose members read different inputs stay batched launches.
    for (auto& [sig, members] : by_signature) {
      std::string key = concat_signature(graph, graph.node(members.front()));
      for (NodeId v : members)
        if (!key.empty() && concat_signature(graph, graph.node(v)) != key) key.clear();
      if (!key.empty()) {
        auto& bucket = by_input[key];
        bucket.insert(bucket.end(), members.begin(), members.end());
      } else if (members.size() >= 2) {
        groups.push_back(std::move(members));
      }
    }
    for (auto& [key, members] : by_input)
      if (members.size() >= 2) groups.push_back(std::move(members));
  }
  return make_merge_plan(graph, costs, device, std::move(groups));
}

}  // namespace weft::core
