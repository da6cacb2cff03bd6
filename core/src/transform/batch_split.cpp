// Batch split check: follows the batch axis through the graph and names the operator that mixes it.
#include "weft/core/transform/batch_split.h"
#include "weft/core/graph/fused_node.h"
#include "weft/core/transform/merge_graph.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>

namespace weft::core {

namespace {

// Operators that act on each element (or each broadcast position) independently.
const std::set<std::string, std::less<>> kElementwise = {
    "Abs", "Acos", "Add", "And", "Asin", "Atan", "BitShift", "Cast", "CastLike", "Ceil", "Celu", "Clip", "Cos", "Cosh",
    "Div", "Dropout", "Elu", "Equal", "Erf", "Exp", "Floor", "Gelu", "Greater", "GreaterOrEqual", "HardSigmoid",
    "HardSwish", "Identity", "IsInf", "IsNaN", "LeakyRelu", "Less", "LessOrEqual", "Log", "Max", "Mean", "Min", "Mish",
    "Mod", "Mul", "Neg", "Not", "Or", "Pow", "PRelu", "Reciprocal", "Relu", "Round", "Selu", "Shrink", "Sigmoid", "Sign",
    "Sin", "Sinh", "Softplus", "Softsign", "Sqrt", "Sub", "Sum", "Tan", "Tanh", "ThresholdedRelu", "Where", "Xor"};

// Operators whose first input is [N, C, spatial...] and whose output keeps N: each sample alone.
const std::set<std::string, std::less<>> kPerSample = {
    "AveragePool", "Conv", "ConvTranspose", "DepthToSpace", "GlobalAveragePool", "GlobalLpPool", "GlobalMaxPool",
    "InstanceNormalization", "LpNormalization", "LpPool", "LRN", "MaxPool", "MaxRoiPool", "SpaceToDepth", "Upsample"};

std::int64_t normalise(std::int64_t axis, std::size_t rank) {
  return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
}

std::size_t rank_of(const Graph& g, TensorId t) { return g.tensor(t).dims.size(); }

// Dim 0 of a tensor when known.
std::optional<std::int64_t> dim0(const Graph& g, TensorId t) {
  const Tensor& x = g.tensor(t);
  if (x.dims.empty() || !x.dims[0].known()) return std::nullopt;
  return x.dims[0].value;
}

// int64 values of a weight input (axes, starts, shape operands), when its data is in memory.
std::optional<std::vector<std::int64_t>> int_values(const Graph& g, const Node& node, std::size_t input) {
  if (input >= node.inputs.size() || node.inputs[input] == kNoTensor) return std::nullopt;
  const Tensor& t = g.tensor(node.inputs[input]);
  if (t.kind != TensorKind::Weight || !t.data.inline_bytes || t.dtype != DType::Int64) return std::nullopt;
  std::vector<std::int64_t> v(t.data.inline_bytes->size() / sizeof(std::int64_t));
  if (!v.empty()) std::memcpy(v.data(), t.data.inline_bytes->data(), v.size() * sizeof(std::int64_t));
  return v;
}

// The axes a node's attribute or (opset ≥ 13/18) input lists; nullopt when given but unreadable.
std::optional<std::vector<std::int64_t>> axes_of(const Graph& g, const Node& node, std::size_t input) {
  if (node.attribute("axes")) return node.attr_ints("axes");
  if (input < node.inputs.size() && node.inputs[input] != kNoTensor) return int_values(g, node, input);
  return std::vector<std::int64_t>{};
}

// Why a batch-independent input of `node` meets the batch axis, or "": an input of the output's
// rank (`out_rank`) broadcasts along dim 0 only where that dim is 1; any other would pair one
// micro-batch with rows meant for the whole batch.
std::string spans_batch(const Graph& g, const Node& node, const std::vector<bool>& batch_in, std::size_t out_rank,
                        std::size_t from = 0) {
  for (std::size_t i = from; i < node.inputs.size(); ++i) {
    if (batch_in[i] || node.inputs[i] == kNoTensor || out_rank == 0 || rank_of(g, node.inputs[i]) != out_rank) continue;
    const auto d0 = dim0(g, node.inputs[i]);
    if (!d0) return "batch-independent input " + std::to_string(i) + " may span the batch axis (its dim 0 is not static)";
    if (*d0 != 1)
      return "batch-independent input " + std::to_string(i) + " spans the batch axis (dim 0 is " + std::to_string(*d0) + ", not 1)";
  }
  return "";
}

// Why `node` mixes the batch, or "" when every batch-carrying output keeps it at axis 0.
// `batch_in[i]`: input i carries the batch.
std::string mixes(const Graph& g, const Node& node, const std::vector<bool>& batch_in) {
  const std::string& op = node.op_type;
  const auto in_rank = [&](std::size_t i) { return rank_of(g, node.inputs[i]); };
  const bool first = !batch_in.empty() && batch_in[0];
  if (is_merged_node(node)) return "a merged launch: split the model before merging it (--split K with --merge)";
  if (is_fused_node(node)) return "a fused chain: split the model before fusing it (--split K with --fuse)";
  if (!node.domain.empty() && node.domain != "ai.onnx") return "operator of domain '" + node.domain + "': its treatment of the batch is unknown";
  if (kElementwise.count(op)) {
    // Broadcasting aligns trailing axes: the batch stays at axis 0 only if each batch input has the output's rank.
    const std::size_t out_rank = node.outputs.empty() || node.outputs[0] == kNoTensor ? 0 : rank_of(g, node.outputs[0]);
    for (std::size_t i = 0; i < node.inputs.size(); ++i)
      if (batch_in[i] && in_rank(i) != out_rank) return "broadcasting moves the batch axis of input " + std::to_string(i);
    return spans_batch(g, node, batch_in, out_rank);
  }
  if (kPerSample.count(op)) return first ? "" : "the batch reaches an input other than the data";
  if (op == "BatchNormalization") {
    if (node.attr_int("training_mode", 0) != 0) return "BatchNormalization in training mode computes statistics over the batch";
    return first ? "" : "the batch reaches the statistics inputs";
  }
  if (op == "LayerNormalization" || op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") {
    const std::int64_t def = op == "LayerNormalization" ? -1 : (g.info().opset >= 13 ? -1 : 1);
    // LayerNormalization (and softmax before opset 13) normalise over axis and every axis after
    // it, later softmax over axis alone: either way the batch is mixed exactly when axis is 0.
    if (normalise(node.attr_int("axis", def), in_rank(0)) == 0) return "normalises over the batch axis";
    return "";
  }
  if (op.rfind("Reduce", 0) == 0 || op == "ArgMax" || op == "ArgMin") {
    if (op == "ArgMax" || op == "ArgMin")
      return normalise(node.attr_int("axis", 0), in_rank(0)) == 0 ? "reduces over the batch axis" : "";
    const auto axes = axes_of(g, node, 1);
    if (!axes) return "its axes are not known";
    if (axes->empty()) return node.attr_int("noop_with_empty_axes", 0) ? "" : "reduces over every axis, the batch included";
    for (std::int64_t a : *axes)
      if (normalise(a, in_rank(0)) == 0) return "reduces over the batch axis";
    return "";
  }
  if (op == "MatMul" || op == "MatMulInteger") {
    // Each sample alone where the batch is a leading (broadcast) axis of the product: the left
    // operand's dim 0 at the output's rank, or both operands' dim 0 in a batched product.
    const std::size_t out_rank = node.outputs.empty() || node.outputs[0] == kNoTensor ? 0 : rank_of(g, node.outputs[0]);
    const bool right = batch_in.size() > 1 && batch_in[1];
    if (first && in_rank(0) < 2) return "the batch is the contraction axis";
    // A vector right operand drops the last axis ([B, K] x [K] -> [B]); otherwise the ranks match.
    const bool vector_right = node.inputs.size() > 1 && in_rank(1) == 1;
    if (first && in_rank(0) != out_rank + (vector_right ? 1 : 0))
      return "broadcasting against a right operand of higher rank moves the batch axis";
    // MatMulInteger's zero points: a per-row one of A holds a row per sample of the whole batch.
    if (first && op == "MatMulInteger" && node.inputs.size() > 2 && node.inputs[2] != kNoTensor) {
      const Tensor& zero = g.tensor(node.inputs[2]);
      if (batch_in[2] || zero.elements() != 1) return "a per-row zero point of A spans the batch";
    }
    if (right && in_rank(1) < 3) return "the batch reaches the right operand's contraction axis";
    if (right && in_rank(1) != out_rank) return "broadcasting against a left operand of higher rank moves the batch axis";
    // At rank 2 the right operand's dim 0 is the contraction axis, not a broadcast one.
    return out_rank >= 3 ? spans_batch(g, node, batch_in, out_rank) : "";
  }
  if (op == "Gemm") {
    if (node.attr_int("transA", 0) != 0) return "transA makes the batch the contraction axis";
    for (std::size_t i = 1; i < batch_in.size(); ++i)
      if (batch_in[i]) return "the batch reaches input " + std::to_string(i);
    // C broadcasts to [M, N]: one of [M, N] (or [M, 1]) would add per-sample rows to other samples.
    return spans_batch(g, node, batch_in, 2, 2);
  }
  if (op == "Transpose") {
    const auto perm = node.attr_ints("perm");
    if (perm.empty() ? in_rank(0) > 1 : perm[0] != 0) return "moves the batch axis";
    return "";
  }
  if (op == "Reshape" || op == "Expand" || op == "Tile" || op == "Resize" || op == "Pad") {
    // Row-major order is kept, so the batch survives exactly when dim 0 does.
    const auto in0 = dim0(g, node.inputs[0]);
    const auto out0 = node.outputs.empty() ? std::nullopt : dim0(g, node.outputs[0]);
    if (!in0 || !out0) return "its shapes are not static";
    if (*in0 != *out0) return "changes dim 0 from " + std::to_string(*in0) + " to " + std::to_string(*out0) + ", merging the batch";
    for (std::size_t i = 1; i < batch_in.size(); ++i)
      if (batch_in[i]) return "the batch reaches a shape or parameter input";
    return "";
  }
  if (op == "Flatten") return node.attr_int("axis", 1) == 0 ? "flattens the batch into one row" : "";
  if (op == "Squeeze" || op == "Unsqueeze") {
    const auto axes = axes_of(g, node, 1);
    if (!axes) return "its axes are not known";
    for (std::int64_t a : *axes) {
      const std::size_t rank = op == "Squeeze" ? in_rank(0) : in_rank(0) + axes->size();
      if (normalise(a, rank) == 0) return op == "Squeeze" ? "removes the batch axis" : "moves the batch axis";
    }
    if (op == "Squeeze" && axes->empty()) return "may remove the batch axis (no axes)";
    return "";
  }
  if (op == "Concat") {
    if (normalise(node.attr_int("axis", 0), in_rank(0)) == 0) return "concatenates along the batch axis";
    for (std::size_t i = 0; i < batch_in.size(); ++i)
      if (!batch_in[i]) return "joins the batch with batch-independent input " + std::to_string(i);
    return "";
  }
  if (op == "Split") return normalise(node.attr_int("axis", 0), in_rank(0)) == 0 ? "splits along the batch axis" : "";
  if (op == "Slice") {
    const auto axes = node.inputs.size() > 3 ? int_values(g, node, 3) : std::optional<std::vector<std::int64_t>>(std::vector<std::int64_t>{});
    if (!axes) return "its axes are not known";
    if (axes->empty()) return "slices the batch axis (default axes)";
    for (std::int64_t a : *axes)
      if (normalise(a, in_rank(0)) == 0) return "slices the batch axis";
    return "";
  }
  if (op == "Gather" || op == "GatherElements") {
    if (batch_in.size() > 1 && batch_in[1]) return "its indices carry the batch";
    return normalise(node.attr_int("axis", 0), in_rank(0)) == 0 ? "gathers along the batch axis" : "";
  }
  if (op == "Shape" || op == "Size") return "reads the batch size";
  if (op == "If" || op == "Loop" || op == "Scan") return "control flow: its treatment of the batch is unknown";
  return "its treatment of the batch is unknown (not in the split rules)";
}

}  // namespace

BatchSplitCheck check_batch_split(const Graph& graph) {
  BatchSplitCheck c;
  c.carries_batch.assign(graph.tensor_count(), false);
  for (TensorId t : graph.inputs())
    if (rank_of(graph, t) > 0) c.carries_batch[static_cast<std::size_t>(t)] = true;
  for (NodeId n : graph.topo_order()) {
    const Node& node = graph.node(n);
    std::vector<bool> batch_in(node.inputs.size(), false);
    bool any = false;
    for (std::size_t i = 0; i < node.inputs.size(); ++i)
      if (node.inputs[i] != kNoTensor && c.carries_batch[static_cast<std::size_t>(node.inputs[i])]) batch_in[i] = any = true;
    if (!any) continue;  // batch-independent: each copy computes the same values
    const std::string why = mixes(graph, node, batch_in);
    if (!why.empty()) {
      c.blocker = n;
      c.reason = node.op_type + " '" + graph.key(n) + "': " + why;
      return c;
    }
    for (TensorId t : node.outputs)
      if (t != kNoTensor) c.carries_batch[static_cast<std::size_t>(t)] = true;
  }
  c.splittable = true;
  return c;
}

}  // namespace weft::core
