// Bodies of control-flow nodes (If branches, Loop and Scan bodies) run inside their node, on the
// same reference kernels, sequentially on the node's own thread: the node stays one node of the
// schedule, and the body sees its formal inputs and what it captures from enclosing scopes.
#include <cstring>

#include "kernel.h"
#include "weft/core/exec/executor.h"
#include "weft/core/exec/initial_values.h"

namespace weft::core::detail {
namespace {

/// Kernel context of a body node: outputs get buffers of their own (a body's shapes may change
/// from one iteration to the next, so nothing is planned).
class BodyContext final : public KernelContext {
 public:
  BodyContext(const Graph& body, NodeId n, std::span<const View> inputs, std::int64_t opset, std::vector<View>& values,
              std::vector<std::vector<std::uint8_t>>& own)
      : KernelContext(body.node(n), inputs, opset, &body), m_values(values), m_own(own) {}

  Expected<View> output(std::size_t i, DType dtype, Shape shape) override {
    View v{dtype, std::move(shape), nullptr};
    const TensorId t = i < node().outputs.size() ? node().outputs[i] : kNoTensor;
    std::vector<std::uint8_t>& buf = t == kNoTensor ? m_scratch.emplace_back() : m_own[static_cast<std::size_t>(t)];
    // Over-allocate to a multiple of 8 so that every element type is aligned and 0 bytes is valid.
    buf.assign((v.bytes() + 15) / 8 * 8, 0);
    v.data = buf.data();
    if (t != kNoTensor) m_values[static_cast<std::size_t>(t)] = v;
    return v;
  }

 private:
  std::vector<View>& m_values;
  std::vector<std::vector<std::uint8_t>>& m_own;
  std::vector<std::vector<std::uint8_t>> m_scratch;
};

}  // namespace

View view_of(const HostTensor& h) {
  return View{h.dtype, h.shape, const_cast<std::uint8_t*>(h.bytes.data())};
}

HostTensor host_of(const View& v) {
  HostTensor h;
  h.dtype = v.dtype;
  h.shape = v.shape;
  h.bytes.resize(v.bytes());
  if (!h.bytes.empty()) std::memcpy(h.bytes.data(), v.data, h.bytes.size());
  return h;
}

const View* captured_input(const KernelContext& ctx, std::string_view name) {
  const Graph* g = ctx.graph();
  if (!g) return nullptr;
  const Node& node = ctx.node();
  for (std::size_t i = 0; i < node.inputs.size(); ++i)
    if (node.inputs[i] != kNoTensor && g->tensor(node.inputs[i]).name == name && ctx.has_input(i)) return &ctx.in(i);
  return nullptr;
}

Expected<std::vector<HostTensor>> run_subgraph(const KernelContext& ctx, const Graph& body, std::span<const View> formal) {
  const auto inputs = body.inputs();
  const std::size_t captures = body.info().captures.size();
  if (inputs.size() < captures || formal.size() != inputs.size() - captures)
    return kernel_error(ctx, "body takes " + std::to_string(inputs.size() - std::min(inputs.size(), captures)) +
                                 " inputs, the node gives " + std::to_string(formal.size()));
  std::vector<View> values(body.tensor_count());
  std::vector<std::vector<std::uint8_t>> own(body.tensor_count());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = body.tensor(inputs[i]);
    if (i < formal.size()) {
      values[static_cast<std::size_t>(inputs[i])] = formal[i];
      continue;
    }
    const View* v = captured_input(ctx, t.name);
    if (!v) return kernel_error(ctx, "body reads '" + t.name + "', which the node does not capture");
    values[static_cast<std::size_t>(inputs[i])] = *v;
  }
  // The body's own initializers.
  RunOptions no_inputs;
  for (std::size_t i = 0; i < body.tensor_count(); ++i) {
    const Tensor& t = body.tensor(static_cast<TensorId>(i));
    if (t.kind != TensorKind::Weight) continue;
    WEFT_TRY_ASSIGN(auto h, initial_value(body, static_cast<TensorId>(i), no_inputs));
    own[i] = std::move(h.bytes);
    values[i] = View{h.dtype, h.shape, own[i].data()};
  }
  const KernelRegistry& registry = kernel_registry();
  for (NodeId n : body.topo_order()) {
    const Node& node = body.node(n);
    std::vector<View> in(node.inputs.size());
    for (std::size_t i = 0; i < node.inputs.size(); ++i)
      if (node.inputs[i] != kNoTensor) in[i] = values[static_cast<std::size_t>(node.inputs[i])];
    BodyContext bctx(body, n, in, ctx.opset(), values, own);
    const KernelFn* fn = registry.find(kernel_key(node));
    if (!fn) return unsupported(bctx, "operator");
    WEFT_TRY(run_kernel(*fn, bctx));
  }
  std::vector<HostTensor> out;
  for (TensorId t : body.outputs()) {
    const View& v = values[static_cast<std::size_t>(t)];
    if (!v.present()) return kernel_error(ctx, "body output '" + body.tensor(t).name + "' was not computed");
    out.push_back(host_of(v));
  }
  return out;
}

}  // namespace weft::core::detail
