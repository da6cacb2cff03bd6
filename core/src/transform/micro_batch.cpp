// Micro-batch split: the batch-carrying part of a graph instantiated k times over views of the
// graph's inputs and outputs (zero-copy), weights and batch-independent nodes shared.
#include "weft/core/transform/micro_batch.h"

#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "weft/core/transform/batch_split.h"

namespace weft::core {
namespace {

Error split_error(const std::string& what) { return make_error(ErrorKind::InvalidInput, "cannot split the batch: " + what); }

std::string copy_prefix(int c) { return "mb" + std::to_string(c) + "/"; }

// Declares tensor `t` of `from` in `b` under `name` with its dtype, dims and kind.
void declare(GraphBuilder& b, const Tensor& src, const std::string& name) {
  if (src.kind == TensorKind::Input) {
    b.add_input(name, src.dtype, src.dims);
    return;
  }
  if (src.kind == TensorKind::Weight) {
    b.add_weight(name, src.dtype, src.shape_known() ? src.shape() : std::vector<std::int64_t>{}, src.data);
    return;
  }
  Tensor& dst = b.tensor_ref(b.tensor(name));
  dst.dtype = src.dtype;
  dst.dims = src.dims;
  dst.rank_known = src.rank_known;
}

// The input index of a constant shape operand whose first value is the batch, for operators whose
// output's dim 0 it sets; -1 for none.
int shape_operand(const Node& node) {
  if (node.op_type == "Reshape" || node.op_type == "Expand") return 1;
  if (node.op_type == "Resize") return 3;  // sizes
  return -1;
}

// Graph inputs in their order, then weights.
void declare_sources(const Graph& graph, GraphBuilder& b) {
  for (TensorId t : graph.inputs()) declare(b, graph.tensor(t), graph.tensor(t).name);
  for (const Tensor& t : graph.tensors())
    if (t.kind == TensorKind::Weight) declare(b, t, t.name);
}

Expected<Graph> rebuild_unchanged(const Graph& graph, GraphBuilder b) {
  declare_sources(graph, b);
  for (const Node& node : graph.nodes()) {
    std::vector<std::string> ins, outs;
    for (TensorId t : node.inputs) ins.push_back(t == kNoTensor ? std::string() : graph.tensor(t).name);
    for (TensorId t : node.outputs) {
      outs.push_back(t == kNoTensor ? std::string() : graph.tensor(t).name);
      if (t != kNoTensor) declare(b, graph.tensor(t), graph.tensor(t).name);
    }
    b.add_node(node.name, node.op_type, ins, outs, node.attributes, node.domain);
  }
  for (TensorId t : graph.outputs()) b.mark_output(graph.tensor(t).name);
  return std::move(b).build();
}

/// The batch of a split: dim 0 of every batch-carrying graph input, equal and static, divisible by
/// k, and dim 0 of every tensor that carries it; a graph output that is a graph input refused.
Expected<std::int64_t> split_batch_size(const Graph& graph, const std::vector<bool>& carries_batch, int k) {
  const auto carries = [&](TensorId t) { return t != kNoTensor && carries_batch[static_cast<std::size_t>(t)]; };
  std::int64_t batch = -1;
  for (TensorId t : graph.inputs()) {
    if (!carries(t)) continue;
    const Tensor& x = graph.tensor(t);
    if (!x.shape_known()) return split_error("input '" + x.name + "' has no static shape (bind its dims with --dim)");
    if (batch >= 0 && x.dims[0].value != batch)
      return split_error("inputs have different batch sizes (" + std::to_string(batch) + " and " +
                         std::to_string(x.dims[0].value) + " of '" + x.name + "')");
    batch = x.dims[0].value;
  }
  if (batch < 0) return split_error("no graph input carries a batch");
  if (batch % k != 0)
    return split_error("k = " + std::to_string(k) + " does not divide the batch " + std::to_string(batch));
  for (std::size_t i = 0; i < graph.tensor_count(); ++i) {
    const auto t = static_cast<TensorId>(i);
    if (!carries(t)) continue;
    const Tensor& x = graph.tensor(t);
    if (!x.shape_known()) return split_error("tensor '" + x.name + "' carries the batch but its shape is not static");
    if (x.dims.empty() || x.dims[0].value != batch)
      return split_error("tensor '" + x.name + "' carries the batch but its dim 0 is " +
                         (x.dims.empty() ? std::string("absent") : std::to_string(x.dims[0].value)) + ", not " +
                         std::to_string(batch));
  }
  for (TensorId t : graph.outputs())
    if (carries(t) && graph.tensor(t).producer == kNoNode)
      return split_error("graph output '" + graph.tensor(t).name + "' is a graph input");
  return batch;
}

/// Constant shape operands that name the batch (Reshape, Expand, Resize sizes): one shared copy
/// holding the micro-batch, added to `b`, by the operand it replaces.
Expected<std::map<TensorId, std::string>> micro_shape_operands(const Graph& graph, const std::vector<bool>& carries_batch,
                                                               std::int64_t batch, std::int64_t micro, GraphBuilder& b) {
  const auto carries = [&](TensorId t) { return t != kNoTensor && carries_batch[static_cast<std::size_t>(t)]; };
  std::map<TensorId, std::string> micro_shape;
  for (NodeId v : graph.topo_order()) {
    const Node& node = graph.node(v);
    const int op = shape_operand(node);
    if (op < 0 || static_cast<std::size_t>(op) >= node.inputs.size() || !carries(node.outputs.empty() ? kNoTensor : node.outputs[0]))
      continue;
    const TensorId s = node.inputs[static_cast<std::size_t>(op)];
    if (s == kNoTensor || micro_shape.count(s)) continue;
    const Tensor& st = graph.tensor(s);
    if (st.kind != TensorKind::Weight || st.dtype != DType::Int64 || !st.data.inline_bytes)
      return split_error(node.op_type + " '" + graph.key(v) + "': its shape operand '" + st.name + "' is not a constant");
    std::vector<std::int64_t> values(st.data.inline_bytes->size() / sizeof(std::int64_t));
    if (values.empty()) continue;
    std::memcpy(values.data(), st.data.inline_bytes->data(), values.size() * sizeof(std::int64_t));
    if (values[0] != batch) continue;  // 0 (copy) or -1 (inferred) already follow the input
    values[0] = micro;
    auto bytes = std::make_shared<std::vector<std::uint8_t>>(values.size() * sizeof(std::int64_t));
    std::memcpy(bytes->data(), values.data(), bytes->size());
    const std::string name = st.name + "/micro" + std::to_string(micro);
    WeightData data;
    data.inline_bytes = std::move(bytes);
    b.add_weight(name, DType::Int64, st.shape(), std::move(data));
    micro_shape[s] = name;
  }
  return micro_shape;
}

}  // namespace

std::int64_t graph_batch(const Graph& graph) {
  for (TensorId t : graph.inputs()) {
    const Tensor& x = graph.tensor(t);
    if (x.dims.empty()) continue;
    return x.dims[0].known() ? x.dims[0].value : -1;
  }
  return -1;
}

std::vector<int> split_factors(std::int64_t batch, int max_k) {
  std::vector<int> out{1};
  for (int k = 2; k <= max_k && batch > 0; k *= 2)
    if (batch % k == 0) out.push_back(k);
  return out;
}

Expected<Graph> split_batch(const Graph& graph, int k) {
  if (k < 1) return split_error("k must be at least 1, got " + std::to_string(k));
  GraphBuilder b;
  b.info() = graph.info();
  b.info().micro_batches = k;
  b.info().split_batch = graph_batch(graph);
  b.info().micro_batch_of.clear();
  b.info().origin_key.clear();

  if (k == 1) {
    b.info().micro_batch_of.assign(graph.node_count(), 0);
    for (std::size_t v = 0; v < graph.node_count(); ++v) b.info().origin_key.push_back(graph.key(static_cast<NodeId>(v)));
    return rebuild_unchanged(graph, std::move(b));
  }

  const BatchSplitCheck check = check_batch_split(graph);
  if (!check.splittable) return split_error(check.reason);
  const auto carries = [&](TensorId t) { return t != kNoTensor && check.carries_batch[static_cast<std::size_t>(t)]; };

  WEFT_TRY_ASSIGN(const std::int64_t batch, split_batch_size(graph, check.carries_batch, k));
  const std::int64_t micro = batch / k;
  b.info().split_batch = batch;

  // Tensor names per copy; shared tensors keep their names.
  const auto name_in = [&](TensorId t, int c) {
    return carries(t) ? copy_prefix(c) + graph.tensor(t).name : graph.tensor(t).name;
  };
  const auto declare_micro = [&](TensorId t, int c) {
    Tensor src = Tensor{};
    const Tensor& x = graph.tensor(t);
    src.dtype = x.dtype;
    src.dims = x.dims;
    src.dims[0] = Dim{micro, {}};
    src.rank_known = true;
    declare(b, src, name_in(t, c));
  };

  // Shared: weights, graph inputs (full buffers) and outputs (full buffers, written by the views).
  declare_sources(graph, b);
  for (TensorId t : graph.inputs()) {
    if (!carries(t)) continue;
    const std::int64_t slice = graph.tensor(t).bytes() / k;
    for (int c = 0; c < k; ++c) {
      declare_micro(t, c);
      b.set_view(name_in(t, c), graph.tensor(t).name, c * slice);
    }
  }
  WEFT_TRY_ASSIGN(auto micro_shape, micro_shape_operands(graph, check.carries_batch, batch, micro, b));

  const auto add = [&](NodeId v, int c) {
    const Node& node = graph.node(v);
    const bool copied = c >= 0;
    std::vector<std::string> ins, outs;
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      const TensorId t = node.inputs[i];
      if (t == kNoTensor) {
        ins.emplace_back();
      } else if (copied && static_cast<int>(i) == shape_operand(node) && micro_shape.count(t)) {
        ins.push_back(micro_shape[t]);
      } else {
        ins.push_back(copied ? name_in(t, c) : graph.tensor(t).name);
      }
    }
    for (TensorId t : node.outputs) {
      if (t == kNoTensor) {
        outs.emplace_back();
        continue;
      }
      if (copied) {
        declare_micro(t, c);
      } else {
        declare(b, graph.tensor(t), graph.tensor(t).name);
      }
      outs.push_back(copied ? name_in(t, c) : graph.tensor(t).name);
    }
    b.add_node(copied ? copy_prefix(c) + graph.key(v) : graph.key(v), node.op_type, ins, outs, node.attributes, node.domain);
    b.info().micro_batch_of.push_back(c);
    b.info().origin_key.push_back(graph.key(v));
  };
  const auto node_carries = [&](NodeId v) {
    for (TensorId t : graph.node(v).outputs)
      if (carries(t)) return true;
    return false;
  };
  // Shared nodes first (they depend on weights only), then each copy whole: the reference order
  // runs one micro-batch after another, so one copy's activations are live at a time.
  for (NodeId v : graph.topo_order())
    if (!node_carries(v)) add(v, -1);
  for (int c = 0; c < k; ++c)
    for (NodeId v : graph.topo_order())
      if (node_carries(v)) add(v, c);

  for (TensorId t : graph.outputs()) {
    const Tensor& out = graph.tensor(t);
    if (!carries(t)) {
      b.mark_output(out.name);
      continue;
    }
    declare(b, out, out.name);
    b.mark_output(out.name);
    const std::int64_t slice = out.bytes() / k;
    for (int c = 0; c < k; ++c) b.set_view(name_in(t, c), out.name, c * slice);
  }
  return std::move(b).build();
}

}  // namespace weft::core
