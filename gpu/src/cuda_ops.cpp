// Per-node preparation for the CUDA executor: the launch function of each operator family (cuDNN
// convolution, cuBLAS GEMM, the executor's own kernels, device copies for views) from the
// geometry op_geometry.cpp checks; a merged node's members through cuda_merged_ops.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

#include "weft/core/transform/merge_graph.h"

#include "cuda_check.h"
#include "cuda_kernels.h"
#include "cuda_ops_internal.h"

namespace weft::gpu::detail {

using core::Graph;
using core::Node;
using core::NodeId;
using core::Status;
using core::TensorId;

GemmBlas gemm_blas(const GemmGeometry& g) {
  const int mm = static_cast<int>(g.m), nn = static_cast<int>(g.n), kk = static_cast<int>(g.k);
  return {g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, mm, nn, kk, g.trans_a ? mm : kk, g.trans_b ? kk : nn};
}

core::Expected<PreparedNode> conv_launch(const PrepareContext& ctx, const Graph& g, NodeId n, const ConvGeometry& cg, const float* x,
                                         const float* w, const float* bias, float* y, std::shared_ptr<DeviceBuffer> keep) {
  PreparedNode p;
  auto to_int = [](std::int64_t v) { return static_cast<int>(v); };
  auto x_desc = std::make_shared<TensorDesc>(), y_desc = std::make_shared<TensorDesc>(), b_desc = std::make_shared<TensorDesc>();
  auto w_desc = std::make_shared<FilterDesc>();
  auto conv = std::make_shared<ConvDesc>();
  WEFT_CUDA_CHECK(cudnnCreateTensorDescriptor(x_desc->out()));
  WEFT_CUDA_CHECK(cudnnCreateTensorDescriptor(y_desc->out()));
  WEFT_CUDA_CHECK(cudnnCreateTensorDescriptor(b_desc->out()));
  WEFT_CUDA_CHECK(cudnnCreateFilterDescriptor(w_desc->out()));
  WEFT_CUDA_CHECK(cudnnCreateConvolutionDescriptor(conv->out()));
  WEFT_CUDA_CHECK(cudnnSetTensor4dDescriptor(x_desc->get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, to_int(cg.x[0]), to_int(cg.x[1]),
                                             to_int(cg.x[2]), to_int(cg.x[3])));
  WEFT_CUDA_CHECK(cudnnSetTensor4dDescriptor(y_desc->get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, to_int(cg.y[0]), to_int(cg.y[1]),
                                             to_int(cg.y[2]), to_int(cg.y[3])));
  WEFT_CUDA_CHECK(cudnnSetTensor4dDescriptor(b_desc->get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, to_int(cg.w[0]), 1, 1));
  WEFT_CUDA_CHECK(cudnnSetFilter4dDescriptor(w_desc->get(), CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, to_int(cg.w[0]), to_int(cg.w[1]),
                                             to_int(cg.w[2]), to_int(cg.w[3])));
  WEFT_CUDA_CHECK(cudnnSetConvolution2dDescriptor(conv->get(), to_int(cg.pads[0]), to_int(cg.pads[1]), to_int(cg.stride[0]),
                                                  to_int(cg.stride[1]), to_int(cg.dilation[0]), to_int(cg.dilation[1]),
                                                  CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  WEFT_CUDA_CHECK(cudnnSetConvolutionGroupCount(conv->get(), to_int(cg.group)));
  // FMA-only maths unless TF32 is asked for: outputs then compare with the CPU reference
  // (CUDNN_DEFAULT_MATH would let cuDNN use TF32 on Ampere and later).
  WEFT_CUDA_CHECK(cudnnSetConvolutionMathType(conv->get(), ctx.tf32 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH));
  int on = 0, oc = 0, oh = 0, ow = 0;
  WEFT_CUDA_CHECK(cudnnGetConvolution2dForwardOutputDim(conv->get(), x_desc->get(), w_desc->get(), &on, &oc, &oh, &ow));
  if (Shape{on, oc, oh, ow} != cg.y) return unsupported(g, n, "cuDNN's output shape differs from the graph's");
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  WEFT_CUDA_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(ctx.cudnn, x_desc->get(), w_desc->get(), conv->get(), y_desc->get(),
                                                         CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf));
  // Heuristic order is expected speed; take the first that works with the chosen maths and
  // whose workspace stays reasonable (each stream holds its largest).
  constexpr std::size_t kMaxWorkspace = std::size_t{512} << 20;
  // Never ALLOW_CONVERSION (it may compute in half precision); without TF32 an algorithm that
  // reports FMA maths first, one that reports the default maths (run as FMA here) after.
  const auto usable = [&](const cudnnConvolutionFwdAlgoPerf_t& a, bool strict) {
    if (a.status != CUDNN_STATUS_SUCCESS || a.memory > kMaxWorkspace || a.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) return false;
    if (ctx.tf32) return true;
    return a.mathType == CUDNN_FMA_MATH || (!strict && a.mathType == CUDNN_DEFAULT_MATH);
  };
  const cudnnConvolutionFwdAlgoPerf_t* chosen = nullptr;
  for (const bool strict : {true, false})
    for (int i = 0; i < returned && !chosen; ++i)
      if (usable(perf[i], strict)) chosen = &perf[i];
  if (!chosen) return unsupported(g, n, "cuDNN offers no forward algorithm for this convolution");
  const cudnnConvolutionFwdAlgo_t algo = chosen->algo;
  // With TF32 allowed the algorithm may be one that runs on tensor cores or one that does not:
  // the descriptor must carry the math type cuDNN chose it for. Without TF32 it stays FMA.
  if (ctx.tf32) WEFT_CUDA_CHECK(cudnnSetConvolutionMathType(conv->get(), chosen->mathType));
  std::size_t ws = 0;
  WEFT_CUDA_CHECK(cudnnGetConvolutionForwardWorkspaceSize(ctx.cudnn, x_desc->get(), w_desc->get(), conv->get(), y_desc->get(), algo, &ws));
  p.workspace_bytes = ws;
  p.launch = [=, keep = std::move(keep)](const StreamContext& s) -> Status {
    const float one = 1.0f, zero = 0.0f;
    WEFT_CUDA_CHECK(cudnnConvolutionForward(s.cudnn, &one, x_desc->get(), x, w_desc->get(), w, conv->get(), algo, s.workspace,
                                            s.workspace_bytes, &zero, y_desc->get(), y));
    if (bias) WEFT_CUDA_CHECK(cudnnAddTensor(s.cudnn, &one, b_desc->get(), bias, &one, y_desc->get(), y));
    return {};
  };
  return p;
}

/// Sum and Mean over any number of broadcasting inputs, as the CPU reference computes them: the
/// first two added into the output, each further input added to it in place (one thread reads and
/// writes the same element), Mean's total then divided by the count. One launch per input.
template <class Dev>
core::Expected<PreparedNode> variadic_sum(const Graph& g, NodeId n, const Dev& dev) {
  const Node& node = g.node(n);
  const Shape out = shape_of(g, node.outputs[0]);
  const std::int64_t count = product(out, 0, out.size());
  float* y = dev(node.outputs[0]);
  std::vector<TensorId> ins;
  for (const TensorId t : node.inputs)
    if (t != core::kNoTensor) ins.push_back(t);
  if (ins.empty()) return unsupported(g, n, "no inputs");
  struct Step {
    MemberLaunch l;
    const float *a, *b;
  };
  std::vector<Step> steps;
  MemberLaunch first;
  first.count = count;
  if (ins.size() == 1) {
    first.family = MemberLaunch::Family::Copy;
    WEFT_TRY_ASSIGN(first.shape, broadcast_geometry(g, n, shape_of(g, ins[0]), nullptr, out));
    steps.push_back({first, dev(ins[0]), nullptr});
  } else {
    first.family = MemberLaunch::Family::Binary;
    first.binary = BinaryOp::Add;
    const Shape b = shape_of(g, ins[1]);
    WEFT_TRY_ASSIGN(first.shape, broadcast_geometry(g, n, shape_of(g, ins[0]), &b, out));
    steps.push_back({first, dev(ins[0]), dev(ins[1])});
  }
  for (std::size_t i = 2; i < ins.size(); ++i) {
    MemberLaunch more = first;
    const Shape b = shape_of(g, ins[i]);
    WEFT_TRY_ASSIGN(more.shape, broadcast_geometry(g, n, out, &b, out));  // y = y + input i
    steps.push_back({more, y, dev(ins[i])});
  }
  if (node.op_type == "Mean" && ins.size() > 1) {
    MemberLaunch divide;
    divide.family = MemberLaunch::Family::Unary;
    divide.unary = UnaryOp::DivideBy;
    divide.p0 = static_cast<float>(ins.size());
    divide.count = count;
    steps.push_back({divide, y, nullptr});
  }
  PreparedNode p;
  p.launch = [steps = std::move(steps), y](const StreamContext& s) -> Status {
    for (const Step& step : steps) WEFT_CUDA_CHECK(launch_one(s.stream, step.l, step.a, step.b, y));
    return {};
  };
  return p;
}

namespace {

/// A node's device pointers as float* (nullptr for an absent optional input).
struct Pointers {
  const PrepareContext& ctx;
  float* operator()(TensorId t) const {
    return t == core::kNoTensor ? nullptr : static_cast<float*>((*ctx.device)[static_cast<std::size_t>(t)]);
  }
};

/// A merged node: its members prepared over the body graph, whose inputs and outputs are the
/// node's tensors. One launch where the members differ only in their pointers, else the members
/// one after another.
core::Expected<PreparedNode> prepare_merged(const PrepareContext& ctx, NodeId n) {
  const Graph& g = *ctx.graph;
  const Node& node = g.node(n);
  // The body's tensors get the node's device pointers, and the host values of the weights among them.
  const Graph* body = merged_body(node);
  if (!body) return unsupported(g, n, "a merged node without a matching body");
  auto body_device = std::make_shared<std::vector<void*>>(body->tensor_count(), nullptr);
  std::map<TensorId, core::HostTensor> body_host;
  const auto map = [&](TensorId inner, TensorId outer) {
    if (inner == core::kNoTensor || outer == core::kNoTensor) return;
    (*body_device)[static_cast<std::size_t>(inner)] = (*ctx.device)[static_cast<std::size_t>(outer)];
    if (auto it = ctx.host->find(outer); it != ctx.host->end()) body_host.emplace(inner, it->second);
  };
  for (std::size_t i = 0; i < node.inputs.size(); ++i) map(body->inputs()[i], node.inputs[i]);
  for (std::size_t i = 0; i < node.outputs.size(); ++i) map(body->outputs()[i], node.outputs[i]);
  const PrepareContext inner{body, body_device.get(), &body_host, ctx.cudnn, ctx.tf32, ctx.cublaslt};
  WEFT_TRY_ASSIGN(auto batched, batched_gemm(inner));
  if (batched) return std::move(*batched);
  WEFT_TRY_ASSIGN(auto grouped, batched_members(inner));
  if (grouped) return std::move(*grouped);
  WEFT_TRY_ASSIGN(auto concatenated, concat_conv(inner));
  if (concatenated) return std::move(*concatenated);
  std::vector<LaunchFn> members;
  PreparedNode p;
  p.merged_path = "members in turn";
  for (std::size_t m = 0; m < body->node_count(); ++m) {
    auto member = prepare_node(inner, static_cast<NodeId>(m));
    if (!member)
      return core::make_error(member.error().kind, "in merged node '" + g.key(n) + "': " + member.error().message);
    p.workspace_bytes = std::max(p.workspace_bytes, member->workspace_bytes);  // one after another: the largest
    members.push_back(std::move(member->launch));
  }
  p.launch = [members = std::move(members), body_device](const StreamContext& s) -> Status {
    for (const LaunchFn& launch : members) WEFT_TRY(launch(s));
    return {};
  };
  return p;
}

core::Expected<PreparedNode> prepare_gather(const PrepareContext& ctx, NodeId n) {
  const Graph& g = *ctx.graph;
  const Node& node = g.node(n);
  const Pointers dev{ctx};
  const float* x = dev(input(node, 0));
  float* y = dev(node.outputs[0]);
  const Shape out = shape_of(g, node.outputs[0]);
  const Shape xs = shape_of(g, input(node, 0));
  const auto axis = static_cast<std::size_t>(normalise_axis(node.attr_int("axis", 0), xs.size()));
  auto indices = host_ints(ctx.host, input(node, 1));
  if (!indices) return unsupported(g, n, "indices must be an int64 weight");
  const std::int64_t dim = xs[axis];
  for (const std::int64_t k : *indices)
    if (k < -dim || k >= dim) return unsupported(g, n, "index " + std::to_string(k) + " out of range");
  const std::int64_t outer = product(xs, 0, axis), inner = product(xs, axis + 1, xs.size());
  const auto nidx = static_cast<std::int64_t>(indices->size());
  if (outer * nidx * inner != product(out, 0, out.size())) return unsupported(g, n, "output size differs from the gathered size");
  const auto* idx = static_cast<const std::int64_t*>((*ctx.device)[static_cast<std::size_t>(input(node, 1))]);
  PreparedNode p;
  p.launch = [=](const StreamContext& s) -> Status {
    WEFT_CUDA_CHECK(launch_gather(s.stream, outer, dim, nidx, inner, x, idx, y));
    return {};
  };
  return p;
}

/// LRN and BatchNormalization: per-channel kernels over NC(HW).
core::Expected<PreparedNode> prepare_channel_norm(const PrepareContext& ctx, NodeId n) {
  const Graph& g = *ctx.graph;
  const Node& node = g.node(n);
  const Pointers dev{ctx};
  const float* x = dev(input(node, 0));
  float* y = dev(node.outputs[0]);
  const Shape xs = shape_of(g, input(node, 0));
  const std::int64_t nn = xs[0], c = xs[1], hw = product(xs, 2, xs.size());
  PreparedNode p;
  if (node.op_type == "LRN") {
    const int size = static_cast<int>(node.attr_int("size", 1));
    const float alpha = node.attr_float("alpha", 1e-4f), beta = node.attr_float("beta", 0.75f), bias = node.attr_float("bias", 1.0f);
    p.launch = [=](const StreamContext& s) -> Status {
      WEFT_CUDA_CHECK(launch_lrn(s.stream, nn, c, hw, size, alpha, beta, bias, x, y));
      return {};
    };
    return p;
  }
  const float eps = node.attr_float("epsilon", 1e-5f);
  const float *scale = dev(input(node, 1)), *bias = dev(input(node, 2)), *mean = dev(input(node, 3)), *var = dev(input(node, 4));
  p.launch = [=](const StreamContext& s) -> Status {
    WEFT_CUDA_CHECK(launch_batchnorm(s.stream, nn, c, hw, x, scale, bias, mean, var, eps, y));
    return {};
  };
  return p;
}

core::Expected<PreparedNode> prepare_concat(const PrepareContext& ctx, NodeId n) {
  const Graph& g = *ctx.graph;
  const Node& node = g.node(n);
  const Pointers dev{ctx};
  float* y = dev(node.outputs[0]);
  const Shape out = shape_of(g, node.outputs[0]);
  const auto axis = static_cast<std::size_t>(normalise_axis(node.attr_int("axis", 0), out.size()));
  struct Part {
    const float* x;
    std::int64_t size, offset;
  };
  std::vector<Part> parts;
  std::int64_t offset = 0;
  for (TensorId t : node.inputs) {
    if (t == core::kNoTensor) continue;
    const std::int64_t size = shape_of(g, t)[axis];
    parts.push_back({dev(t), size, offset});
    offset += size;
  }
  if (offset != out[axis]) return unsupported(g, n, "input sizes along the axis do not add up to the output's");
  const std::int64_t outer = product(out, 0, axis), inner = product(out, axis + 1, out.size()), total = out[axis];
  PreparedNode p;
  p.launch = [parts, outer, inner, total, y](const StreamContext& s) -> Status {
    for (const Part& part : parts) WEFT_CUDA_CHECK(launch_concat_part(s.stream, outer, part.size, total, part.offset, inner, part.x, y));
    return {};
  };
  return p;
}

/// Gemm and MatMul: C broadcast into Y first (Gemm), then one cuBLAS GEMM (strided batched for a
/// batched MatMul).
core::Expected<PreparedNode> prepare_gemm(const PrepareContext& ctx, NodeId n) {
  const Graph& g = *ctx.graph;
  const Node& node = g.node(n);
  const Pointers dev{ctx};
  const float* x = dev(input(node, 0));
  float* y = dev(node.outputs[0]);
  WEFT_TRY_ASSIGN(const GemmGeometry m, gemm_geometry(g, n));
  const float* b = dev(input(node, 1));
  std::optional<Broadcast> c_bc;
  const float* c = nullptr;
  if (m.has_c) {
    WEFT_TRY_ASSIGN(c_bc, broadcast_geometry(g, n, shape_of(g, input(node, 2)), nullptr, {m.m, m.n}));
    c = dev(input(node, 2));
  }
  PreparedNode p;
  p.launch = [m, x, b, c, c_bc, y](const StreamContext& s) -> Status {
    if (c_bc) WEFT_CUDA_CHECK(launch_broadcast_copy(s.stream, *c_bc, c, y, m.m * m.n));
    const GemmBlas call = gemm_blas(m);
    if (call.m == 0 || call.n == 0) return {};
    if (call.k == 0) {
      // An empty sum: Y = beta C (C already copied into Y), or zeros. cuBLAS refuses lda = 0.
      const int elements = call.m * call.n * static_cast<int>(m.batch);
      if (c_bc) WEFT_CUDA_CHECK(cublasSscal(s.cublas, elements, &m.beta, y, 1));
      else WEFT_CUDA_CHECK(cudaMemsetAsync(y, 0, static_cast<std::size_t>(elements) * sizeof(float), s.stream));
      return {};
    }
    if (m.batch == 1) {
      WEFT_CUDA_CHECK(cublasSgemm(s.cublas, call.op_b, call.op_a, call.n, call.m, call.k, &m.alpha, b, call.ldb, x, call.lda, &m.beta,
                                  y, call.n));
    } else {
      WEFT_CUDA_CHECK(cublasSgemmStridedBatched(s.cublas, call.op_b, call.op_a, call.n, call.m, call.k, &m.alpha, b, call.ldb, m.stride_b,
                                                x, call.lda, m.stride_a, &m.beta, y, call.n, m.m * m.n, static_cast<int>(m.batch)));
    }
    return {};
  };
  return p;
}

}  // namespace

core::Expected<PreparedNode> prepare_node(const PrepareContext& ctx, NodeId n) {
  const Graph& g = *ctx.graph;
  const Node& node = g.node(n);
  const std::string& op = node.op_type;
  if (core::is_merged_node(node)) return prepare_merged(ctx, n);
  const Pointers dev{ctx};
  float* y = dev(node.outputs[0]);
  const float* x = dev(input(node, 0));
  PreparedNode p;
  if (is_copy_op(op)) {
    const auto bytes = static_cast<std::size_t>(g.tensor(node.outputs[0]).bytes());
    p.launch = [x, y, bytes](const StreamContext& s) -> Status {
      if (x != y && bytes > 0) WEFT_CUDA_CHECK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, s.stream));
      return {};
    };
    return p;
  }
  WEFT_TRY_ASSIGN(const auto elementwise, member_launch(g, n, ctx.host));
  if (elementwise) {
    const float* xb = elementwise->family == MemberLaunch::Family::Binary ? dev(input(node, 1)) : nullptr;
    p.launch = [l = *elementwise, x, xb, y](const StreamContext& s) -> Status {
      WEFT_CUDA_CHECK(launch_one(s.stream, l, x, xb, y));
      return {};
    };
    return p;
  }
  if (op == "Sum" || op == "Mean") return variadic_sum(g, n, dev);
  if (op == "Gather") return prepare_gather(ctx, n);
  if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" || op == "GlobalMaxPool") {
    WEFT_TRY_ASSIGN(auto geo, pool_geometry(g, n));
    p.launch = [geo, x, y](const StreamContext& s) -> Status {
      WEFT_CUDA_CHECK(launch_pool2d(s.stream, geo, x, y));
      return {};
    };
    return p;
  }
  if (op == "LRN" || op == "BatchNormalization") return prepare_channel_norm(ctx, n);
  if (op == "Concat") return prepare_concat(ctx, n);
  if (op == "Gemm" || op == "MatMul") return prepare_gemm(ctx, n);
  if (op == "Conv") {
    WEFT_TRY_ASSIGN(const ConvGeometry cg, conv_geometry(g, n));
    return conv_launch(ctx, g, n, cg, x, dev(input(node, 1)), cg.bias ? dev(input(node, 2)) : nullptr, y, nullptr);
  }
  return unsupported(g, n, "no CUDA kernel for this operator");
}

}  // namespace weft::gpu::detail
