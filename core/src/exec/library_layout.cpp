// The channels-last plan: which intermediate tensors the library kernels keep in NHWC order (and
// its 1-D and 3-D forms) between them, so that convolutions and pools pass tensors on without a
// transposition each way (a 28x28x64 depthwise convolution: 8 µs, 31 µs with its two reorders).
// Follows the idea of ONNX Runtime's NCHWc transformer, without changing the graph: every node
// still runs alone, and only the bytes of the tensors between library kernels change order.
#include <algorithm>
#include <numeric>

#include "library_kernel.h"
#include "weft/core/graph/fused_node.h"

namespace weft::core::detail {
namespace {

bool is_one_of(std::string_view op, std::initializer_list<std::string_view> ops) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

/// Union-find over tensor ids, for the groups that elementwise nodes tie to one layout.
class Groups {
 public:
  explicit Groups(std::size_t n) : m_parent(n) { std::iota(m_parent.begin(), m_parent.end(), std::size_t{0}); }
  std::size_t find(std::size_t x) {
    while (m_parent[x] != x) x = m_parent[x] = m_parent[m_parent[x]];
    return x;
  }
  void unite(std::size_t a, std::size_t b) { m_parent[find(a)] = find(b); }

 private:
  std::vector<std::size_t> m_parent;
};

}  // namespace

LayoutRole library_layout_role(const Node& node) {
  // A fused chain computes as its producer (a Conv) does.
  if (is_fused_node(node)) return library_registry().find(kernel_key(node)) ? LayoutRole::Native : LayoutRole::None;
  if (!node.domain.empty() && node.domain != "ai.onnx") return LayoutRole::None;
  if (!library_registry().find(kernel_key(node))) return LayoutRole::None;  // a build without oneDNN
  const std::string_view op = node.op_type;
  if (is_one_of(op, {"Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "Concat", "BatchNormalization"}))
    return LayoutRole::Native;
  if (is_one_of(op, {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Elu", "Exp", "Log", "Sqrt", "Abs", "Neg", "HardSwish", "Clip", "Add",
                     "Sub", "Mul", "Div", "Sum", "Mean", "Max", "Min"}))
    return LayoutRole::Agnostic;
  return LayoutRole::None;
}

bool layout_free(std::span<const std::int64_t> shape) {
  if (shape.size() < 3) return true;
  std::int64_t spatial = 1;
  for (std::size_t d = 2; d < shape.size(); ++d) spatial *= shape[d];
  return shape[1] == 1 || spatial == 1;
}

std::vector<char> plan_channels_last(const Graph& graph, const std::vector<char>& plain) {
  const std::size_t n = graph.tensor_count();
  const auto candidate = [&](TensorId id) {
    const auto t = static_cast<std::size_t>(id);
    const Tensor& x = graph.tensor(id);
    return !(t < plain.size() && plain[t]) && x.kind == TensorKind::Intermediate && x.producer != kNoNode && x.dtype == DType::Float32 &&
           x.shape_known() && x.dims.size() >= 3 && x.dims.size() <= 5 && !x.is_view() && x.views.empty() && !layout_free(x.shape());
  };
  // An input a native kernel reads in either layout: the data operand (Conv's X, a pool's X), any
  // of Concat's, a fused chain's residual (in its output's layout, tied below). Its output 0 likewise.
  const auto native_reads = [](const Node& node, std::size_t i) {
    return i == 0 || node.op_type == "Concat" || (is_fused_node(node) && static_cast<int>(i) == fused_residual_input(node));
  };
  Groups groups(n);
  std::vector<char> bad(n, 0), touches_native(n, 0);
  // Elementwise nodes keep their full-size operands and output in one layout: tie them together.
  std::vector<std::pair<TensorId, bool>> forced;  // (tensor, its group must stay plain)
  for (const Node& node : graph.nodes()) {
    if (library_layout_role(node) != LayoutRole::Agnostic || node.outputs.empty() || node.outputs[0] == kNoTensor) continue;
    const TensorId out = node.outputs[0];
    const bool out_ok = candidate(out);
    const bool out_known = graph.tensor(out).shape_known();
    for (TensorId in : node.inputs) {
      if (in == kNoTensor) continue;
      if (!out_known || !graph.tensor(in).shape_known()) {
        if (candidate(in)) forced.emplace_back(in, true);
        continue;
      }
      if (graph.tensor(in).shape() != graph.tensor(out).shape()) continue;  // a broadcast operand: read in its own (plain) layout
      if (out_ok && candidate(in)) groups.unite(static_cast<std::size_t>(in), static_cast<std::size_t>(out));
      else if (out_ok) forced.emplace_back(out, true);
      else if (candidate(in)) forced.emplace_back(in, true);
    }
    for (std::size_t o = 1; o < node.outputs.size(); ++o)
      if (node.outputs[o] != kNoTensor && candidate(node.outputs[o])) forced.emplace_back(node.outputs[o], true);
  }
  // A fused chain's residual is added in its output's layout: one group, as an elementwise Add ties them.
  for (const Node& node : graph.nodes()) {
    const int r = fused_residual_input(node);
    if (r < 0 || node.outputs.empty() || node.outputs[0] == kNoTensor) continue;
    const TensorId in = node.inputs[static_cast<std::size_t>(r)], out = node.outputs[0];
    if (candidate(in) && candidate(out)) groups.unite(static_cast<std::size_t>(in), static_cast<std::size_t>(out));
    else if (candidate(out)) forced.emplace_back(out, true);
    else if (candidate(in)) forced.emplace_back(in, true);
  }
  for (const auto& [t, _] : forced) bad[groups.find(static_cast<std::size_t>(t))] = 1;
  // A group stays plain where any reader or writer needs Weft's layout, and goes channels-last
  // only where a native kernel reads or writes it (elementwise chains alone gain nothing).
  for (std::size_t t = 0; t < n; ++t) {
    const auto id = static_cast<TensorId>(t);
    if (!candidate(id)) continue;
    const std::size_t g = groups.find(t);
    const Tensor& x = graph.tensor(id);
    const Node& producer = graph.node(x.producer);
    const LayoutRole made_by = library_layout_role(producer);
    if (made_by == LayoutRole::None || producer.outputs.empty() || producer.outputs[0] != id) bad[g] = 1;
    if (made_by == LayoutRole::Native) touches_native[g] = 1;
    for (NodeId c : graph.consumers(id)) {
      const Node& reader = graph.node(c);
      const LayoutRole role = library_layout_role(reader);
      if (role == LayoutRole::None) {
        bad[g] = 1;
        continue;
      }
      for (std::size_t i = 0; i < reader.inputs.size(); ++i)
        if (reader.inputs[i] == id && role == LayoutRole::Native && !native_reads(reader, i)) bad[g] = 1;
      if (role == LayoutRole::Native) touches_native[g] = 1;
    }
  }
  std::vector<char> out(n, 0);
  for (std::size_t t = 0; t < n; ++t)
    if (candidate(static_cast<TensorId>(t))) {
      const std::size_t g = groups.find(t);
      out[t] = !bad[g] && touches_native[g] ? 1 : 0;
    }
  // A group is one layout: a member that is no candidate was marked bad above, so every member of
  // a good group is channels-last.
  return out;
}

}  // namespace weft::core::detail
