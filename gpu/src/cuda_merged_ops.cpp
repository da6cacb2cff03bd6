// One launch for a merged group of operators (core::merge_graph's merged nodes) on CUDA: batched
// GEMMs (cuBLASLt with the bias epilogue, or cuBLAS's batched GEMM), one elementwise kernel over
// pointer arrays, one convolution over concatenated filters.
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>

#include "cuda_check.h"
#include "cuda_kernels.h"
#include "cuda_ops_internal.h"

namespace weft::gpu::detail {

using core::Graph;
using core::Node;
using core::NodeId;
using core::Status;
using core::TensorId;

namespace {

/// Copies a merged group's pointer arrays to the device (kernels and cuBLAS read them there, graph
/// replays too); the buffer lives as long as the launch that holds it.
core::Expected<std::shared_ptr<DeviceBuffer>> device_pointer_arrays(const std::vector<const void*>& pointers, const char* what) {
  auto arrays = std::make_shared<DeviceBuffer>();
  WEFT_TRY(arrays->allocate(pointers.size() * sizeof(void*), what));
  WEFT_CUDA_CHECK(cudaMemcpy(arrays->get(), pointers.data(), pointers.size() * sizeof(void*), cudaMemcpyHostToDevice));
  return arrays;
}

/// cuBLASLt's largest workspace a merged GEMM may ask for (each stream holds its largest).
constexpr std::size_t kLtWorkspace = std::size_t{32} << 20;

/// `t`'s starting value on the host when it is `elements` float32 values (a weight's, to copy or
/// concatenate at prepare time), else null.
const core::HostTensor* host_floats(const PrepareContext& ctx, TensorId t, std::int64_t elements) {
  auto it = ctx.host->find(t);
  if (it == ctx.host->end() || it->second.dtype != core::DType::Float32 ||
      it->second.bytes.size() != static_cast<std::size_t>(elements) * sizeof(float))
    return nullptr;
  return &it->second;
}

/// The largest power of two up to 256 (cuBLASLt's default assumption) dividing every address of
/// `pointers` and `extra`: the alignment the heuristic may count on.
std::uint32_t common_alignment(const std::vector<const void*>& pointers, std::uintptr_t extra = 0) {
  std::uintptr_t bits = extra;
  for (const void* p : pointers) bits |= reinterpret_cast<std::uintptr_t>(p);
  std::uint32_t alignment = 256;
  while (alignment > 1 && bits % alignment != 0) alignment /= 2;
  return alignment;
}

/// One cuBLASLt launch for a merged group of equal Gemms with a bias row and beta 1 (the grouped
/// MLP's layers): the batched product with the bias epilogue, over every member's bias
/// concatenated into one device copy (made here from the host values; batch stride N rounded up to
/// 64 floats). The members' operands strided where their inputs and outputs are equally spaced
/// (merge_graph places a merged layer's outputs side by side), over a device copy of their
/// weights concatenated; else by pointer arrays where this cuBLASLt runs that batch mode with the
/// epilogue. The heuristic is told
/// how aligned the operands really are (common_alignment). Empty (the caller's bias kernel and
/// batched GEMM then run) when a bias or weight has no host value, the spacing does not allow it,
/// or cuBLASLt offers no algorithm.
core::Expected<std::optional<PreparedNode>> lt_bias_gemm(const PrepareContext& ctx, const GemmGeometry& m,
                                                         const std::vector<const void*>& xs, const std::vector<const void*>& ws,
                                                         const std::vector<const void*>& ys, const std::vector<TensorId>& weights,
                                                         const std::vector<TensorId>& biases) {
  const std::optional<PreparedNode> kNone;
  const std::size_t count = ys.size();
  if (!ctx.cublaslt || count < 2 || m.batch != 1 || !m.has_c || m.beta != 1.0f || biases.size() != count || weights.size() != count)
    return kNone;
  // Each member's bias starts on 256 bytes (its batch stride rounded up to 64 floats): no bias
  // row is less aligned than the first.
  const std::int64_t bias_stride = (m.n + 63) / 64 * 64;
  std::vector<std::uint8_t> bias_bytes(static_cast<std::size_t>(bias_stride) * sizeof(float) * count, 0);
  for (std::size_t i = 0; i < count; ++i) {
    const auto* h = host_floats(ctx, biases[i], m.n);
    if (!h) return kNone;
    std::copy(h->bytes.begin(), h->bytes.end(), bias_bytes.begin() + static_cast<std::ptrdiff_t>(i * bias_stride * sizeof(float)));
  }
  const GemmBlas call = gemm_blas(m);
  if (call.m == 0 || call.n == 0) return kNone;
  // Column-major, as cublasSgemm is called: D (N x M) = op_b(W) (N x K) * op_a(X) (K x M).
  const auto rows = [](cublasOperation_t op, std::int64_t r, std::int64_t c) { return op == CUBLAS_OP_N ? r : c; };
  const auto cols = [](cublasOperation_t op, std::int64_t r, std::int64_t c) { return op == CUBLAS_OP_N ? c : r; };
  const cublasComputeType_t compute = ctx.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const auto batch = static_cast<std::int32_t>(count);

  struct Plan {
    std::shared_ptr<LtMatmulDesc> desc;
    std::shared_ptr<LtLayout> a, b, d;
    cublasLtMatmulAlgo_t algo{};
    std::size_t workspace = 0;
  };
  auto bias = std::make_shared<DeviceBuffer>();
  WEFT_TRY(bias->allocate(bias_bytes.size(), "a merged GEMM's concatenated bias"));
  WEFT_CUDA_CHECK(cudaMemcpy(bias->get(), bias_bytes.data(), bias_bytes.size(), cudaMemcpyHostToDevice));
  const void* bias_ptr = bias->get();
  // The descriptors for one batch mode (strides in floats for the strided one); empty when
  // cuBLASLt has no algorithm for them.
  // `align_*`: what the operands' addresses guarantee (common_alignment), told to the heuristic.
  const auto plan_for = [&](bool pointer_array, std::int64_t stride_w, std::int64_t stride_x, std::int64_t stride_y,
                            std::uint32_t align_w, std::uint32_t align_x, std::uint32_t align_y) -> core::Expected<std::optional<Plan>> {
    Plan plan;
    plan.desc = std::make_shared<LtMatmulDesc>();
    WEFT_CUDA_CHECK(cublasLtMatmulDescCreate(plan.desc->out(), compute, CUDA_R_32F));
    const cublasLtMatmulDesc_t desc = plan.desc->get();
    const cublasOperation_t op_w = call.op_b, op_x = call.op_a;
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    WEFT_CUDA_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_w, sizeof(op_w)));
    WEFT_CUDA_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_x, sizeof(op_x)));
    WEFT_CUDA_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)));
    WEFT_CUDA_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias_ptr, sizeof(bias_ptr)));
    WEFT_CUDA_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &bias_stride, sizeof(bias_stride)));
    // False: this cuBLASLt does not know the pointer-array batch mode (an older library than the
    // headers built against), which is an answer like a missing algorithm.
    const auto layout = [&](std::shared_ptr<LtLayout>& out, std::int64_t r, std::int64_t c, std::int64_t ld,
                            std::int64_t stride) -> core::Expected<bool> {
      out = std::make_shared<LtLayout>();
      WEFT_CUDA_CHECK(cublasLtMatrixLayoutCreate(out->out(), CUDA_R_32F, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(c), ld));
      const cublasLtMatrixLayout_t l = out->get();
      WEFT_CUDA_CHECK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof(batch)));
      if (pointer_array) {
        const auto mode = static_cast<std::uint32_t>(CUBLASLT_BATCH_MODE_POINTER_ARRAY);
        return cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, &mode, sizeof(mode)) == CUBLAS_STATUS_SUCCESS;
      }
      WEFT_CUDA_CHECK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)));
      return true;
    };
    for (auto [out, r, c, ld, stride] : {std::tuple{&plan.a, rows(op_w, call.n, call.k), cols(op_w, call.n, call.k), std::int64_t{call.ldb}, stride_w},
                                         std::tuple{&plan.b, rows(op_x, call.k, call.m), cols(op_x, call.k, call.m), std::int64_t{call.lda}, stride_x},
                                         std::tuple{&plan.d, std::int64_t{call.n}, std::int64_t{call.m}, std::int64_t{call.n}, stride_y}}) {
      WEFT_TRY_ASSIGN(const bool known, layout(*out, r, c, ld, stride));
      if (!known) return std::optional<Plan>();
    }
    LtPreference pref;
    WEFT_CUDA_CHECK(cublasLtMatmulPreferenceCreate(pref.out()));
    const std::size_t max_workspace = kLtWorkspace;
    WEFT_CUDA_CHECK(cublasLtMatmulPreferenceSetAttribute(pref.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_workspace,
                                                         sizeof(max_workspace)));
    for (const auto& [attribute, alignment] : {std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, align_w},
                                               std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, align_x},
                                               std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, align_y},
                                               std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, align_y}})
      WEFT_CUDA_CHECK(cublasLtMatmulPreferenceSetAttribute(pref.get(), attribute, &alignment, sizeof(alignment)));
    cublasLtMatmulHeuristicResult_t found{};
    int returned = 0;
    // Not supported (this batch mode with the epilogue, on this device) is an answer, not an error.
    const cublasStatus_t asked = cublasLtMatmulAlgoGetHeuristic(ctx.cublaslt, desc, plan.a->get(), plan.b->get(), plan.d->get(),
                                                                plan.d->get(), pref.get(), 1, &found, &returned);
    if (asked != CUBLAS_STATUS_SUCCESS || returned < 1 || found.state != CUBLAS_STATUS_SUCCESS) return std::optional<Plan>();
    plan.algo = found.algo;
    plan.workspace = found.workspaceSize;
    return std::optional<Plan>(std::move(plan));
  };

  std::shared_ptr<DeviceBuffer> keep;  // the concatenated weights, or the pointer arrays
  const void *a = nullptr, *b = nullptr;
  void* d = nullptr;
  std::string path;
  std::optional<Plan> plan;
  // Strided first (the batch mode the bias batch stride was made for): the inputs (or one shared
  // input) and outputs equally spaced, outputs apart by at least a product each; the weights
  // concatenated into one copy.
  const auto stride_x = float_stride(xs), stride_y = float_stride(ys);
  std::vector<std::uint8_t> weight_bytes;
  bool strided = stride_x && stride_y && *stride_y >= m.m * m.n;
  for (std::size_t i = 0; strided && i < count; ++i) {
    const auto* h = host_floats(ctx, weights[i], m.k * m.n);
    if (!h) strided = false;
    else weight_bytes.insert(weight_bytes.end(), h->bytes.begin(), h->bytes.end());
  }
  if (strided) {
    // The concatenated weights start where cudaMalloc puts them (256 bytes); each member's a
    // stride further.
    const auto stride_bytes = static_cast<std::uintptr_t>(m.k * m.n) * sizeof(float);
    WEFT_TRY_ASSIGN(plan, plan_for(false, m.k * m.n, *stride_x, *stride_y, common_alignment({}, stride_bytes),
                                   common_alignment(xs), common_alignment(ys)));
  }
  if (plan) {
    keep = std::make_shared<DeviceBuffer>();
    WEFT_TRY(keep->allocate(weight_bytes.size(), "a merged GEMM's concatenated weights"));
    WEFT_CUDA_CHECK(cudaMemcpy(keep->get(), weight_bytes.data(), weight_bytes.size(), cudaMemcpyHostToDevice));
    a = keep->get();
    b = xs[0];
    d = const_cast<void*>(ys[0]);
    path = "cuBLASLt bias-epilogue GEMM, strided";
  } else {
    // Else each member's operands through pointer arrays, where this cuBLASLt runs that batch
    // mode with the epilogue.
    WEFT_TRY_ASSIGN(plan, plan_for(true, 0, 0, 0, common_alignment(ws), common_alignment(xs), common_alignment(ys)));
    if (!plan) return kNone;
    std::vector<const void*> pointers;
    for (const auto* list : {&ws, &xs, &ys}) pointers.insert(pointers.end(), list->begin(), list->end());
    WEFT_TRY_ASSIGN(keep, device_pointer_arrays(pointers, "a merged GEMM's operand pointers"));
    const auto* base = static_cast<void* const*>(keep->get());
    a = base;
    b = base + count;
    d = const_cast<void**>(base + 2 * count);
    path = "cuBLASLt bias-epilogue GEMM, pointer arrays";
  }
  PreparedNode p;
  p.workspace_bytes = plan->workspace;
  p.merged_path = std::move(path);
  p.launch = [plan = *plan, keep, bias, a, b, d, alpha = m.alpha](const StreamContext& s) -> Status {
    const float beta = 0.0f;  // the epilogue adds the bias: C is not read
    if (s.workspace_bytes < plan.workspace) return core::make_error(core::ErrorKind::Runtime, "cuBLASLt workspace smaller than planned");
    WEFT_CUDA_CHECK(cublasLtMatmul(s.cublaslt, plan.desc->get(), &alpha, a, plan.a->get(), b, plan.b->get(), &beta, d, plan.d->get(), d,
                                   plan.d->get(), &plan.algo, s.workspace, plan.workspace, s.stream));
    return {};
  };
  return std::optional<PreparedNode>(std::move(p));
}

}  // namespace

/// One launch for a merged group of equal elementwise, strided-copy or row-wise operators (the
/// transformer's heads: their Relus, Adds, Transposes, Softmaxes): the members' kernel once, with
/// a grid row per member over pointer arrays. Empty when the members' launches differ in more
/// than their pointers: they then run one after another.
core::Expected<std::optional<PreparedNode>> batched_members(const PrepareContext& ctx) {
  const std::optional<PreparedNode> kNone;
  const Graph& body = *ctx.graph;
  const std::size_t count = body.node_count();
  if (count < 2 || count > static_cast<std::size_t>(kMaxMembers)) return kNone;
  const auto dev = [&](TensorId t) -> const void* { return t == core::kNoTensor ? nullptr : (*ctx.device)[static_cast<std::size_t>(t)]; };
  std::optional<MemberLaunch> launch;
  std::vector<const void*> xs, bs, ys;
  for (std::size_t i = 0; i < count; ++i) {
    const auto m = static_cast<NodeId>(i);
    const Node& node = body.node(m);
    if (node.op_type != body.node(0).op_type || node.outputs.size() != 1) return kNone;
    auto l = member_launch(body, m, ctx.host);
    if (!l || !*l) return kNone;  // a member the executor refuses is named when the members are prepared one by one
    if (launch && !same_launch(*launch, **l)) return kNone;
    launch = **l;
    xs.push_back(dev(input(node, 0)));
    bs.push_back(launch->family == MemberLaunch::Family::Binary ? dev(input(node, 1)) : xs.back());
    ys.push_back(dev(node.outputs[0]));
  }
  std::vector<const void*> pointers;
  for (const auto* list : {&xs, &bs, &ys}) pointers.insert(pointers.end(), list->begin(), list->end());
  if (std::find(pointers.begin(), pointers.end(), nullptr) != pointers.end()) return kNone;
  WEFT_TRY_ASSIGN(auto arrays, device_pointer_arrays(pointers, "a merged launch's operand pointers"));
  const auto* base = static_cast<void* const*>(arrays->get());
  Members members;
  members.count = static_cast<int>(count);
  members.x = reinterpret_cast<const float* const*>(base);
  members.b = reinterpret_cast<const float* const*>(base + count);
  members.y = reinterpret_cast<float* const*>(base + 2 * count);
  PreparedNode p;
  p.merged_path = "one kernel over pointer arrays";
  p.launch = [l = *launch, members, arrays](const StreamContext& s) -> Status {
    WEFT_CUDA_CHECK(launch_members(s.stream, l, members));
    return {};
  };
  return std::optional<PreparedNode>(std::move(p));
}

/// One launch for a merged group of equal GEMMs (the grouped MLP's layers, the transformer's
/// per-head projections and batched attention products; IOS-style merges of convolutions aside):
/// cuBLAS's batched GEMM over the pointers of every member's products (a batched MatMul gives one
/// per batch index), after one kernel that writes each member's bias rows into its output (a
/// Gemm's C of shape [N] or [1, N]). Empty when the members differ in operator or geometry, or a
/// C broadcasts otherwise: they then run one after another.
core::Expected<std::optional<PreparedNode>> batched_gemm(const PrepareContext& ctx) {
  const std::optional<PreparedNode> kNone;  // the members run one after another
  const Graph& body = *ctx.graph;
  const std::size_t count = body.node_count();
  if (count < 2) return kNone;
  const std::string& op = body.node(0).op_type;
  if (op != "Gemm" && op != "MatMul") return kNone;
  const auto dev = [&](TensorId t) { return t == core::kNoTensor ? nullptr : (*ctx.device)[static_cast<std::size_t>(t)]; };
  std::optional<GemmGeometry> geo;
  std::vector<const void*> xs, bs, ys, cs;
  std::vector<TensorId> weights, biases;
  for (std::size_t i = 0; i < count; ++i) {
    const auto m = static_cast<NodeId>(i);
    const Node& node = body.node(m);
    if (node.op_type != op) return kNone;
    weights.push_back(input(node, 1));
    if (input(node, 2) != core::kNoTensor) biases.push_back(input(node, 2));
    WEFT_TRY_ASSIGN(const GemmGeometry gm, gemm_geometry(body, m));
    if (gm.k == 0 || (gm.batch != 1 && gm.has_c)) return kNone;
    if (geo && (gm.m != geo->m || gm.n != geo->n || gm.k != geo->k || gm.batch != geo->batch || gm.trans_a != geo->trans_a ||
                gm.trans_b != geo->trans_b || gm.alpha != geo->alpha || gm.beta != geo->beta || gm.has_c != geo->has_c))
      return kNone;
    geo = gm;
    if (gm.has_c) {
      const Shape c = shape_of(body, input(node, 2));
      if (c != Shape{gm.n} && c != Shape{1, gm.n}) return kNone;
      cs.push_back(dev(input(node, 2)));
    }
    // A batched MatMul (attention's per-head scores and context) adds a pointer per product.
    const auto* x = static_cast<const float*>(dev(input(node, 0)));
    const auto* b = static_cast<const float*>(dev(input(node, 1)));
    const auto* y = static_cast<const float*>(dev(node.outputs[0]));
    if (!x || !b || !y) return kNone;
    for (std::int64_t j = 0; j < gm.batch; ++j) {
      xs.push_back(x + j * gm.stride_a);
      bs.push_back(b + j * gm.stride_b);
      ys.push_back(y + j * gm.m * gm.n);
    }
  }
  const std::size_t products = xs.size();
  if (products > static_cast<std::size_t>(std::numeric_limits<int>::max())) return kNone;
  // With a bias row each: one cuBLASLt launch with the bias epilogue where it can.
  WEFT_TRY_ASSIGN(auto fused, lt_bias_gemm(ctx, *geo, xs, bs, ys, weights, biases));
  if (fused) return fused;
  std::vector<const void*> pointers;
  for (const auto* list : {&xs, &bs, &ys, &cs}) pointers.insert(pointers.end(), list->begin(), list->end());
  if (std::find(pointers.begin(), pointers.end(), nullptr) != pointers.end()) return kNone;
  WEFT_TRY_ASSIGN(auto arrays, device_pointer_arrays(pointers, "a merged GEMM's operand pointers"));
  const auto* base = static_cast<void* const*>(arrays->get());
  const auto* dx = reinterpret_cast<const float* const*>(base);
  const auto* db = reinterpret_cast<const float* const*>(base + products);
  auto* dy = reinterpret_cast<float* const*>(base + 2 * products);
  const auto* dc = reinterpret_cast<const float* const*>(base + 3 * products);
  PreparedNode p;
  const GemmGeometry m = *geo;
  const int batch = static_cast<int>(products);  // members x each member's batch
  p.merged_path = m.has_c ? "bias kernel + batched GEMM" : "batched GEMM";
  p.launch = [m, batch, arrays, dx, db, dy, dc](const StreamContext& s) -> Status {
    // As one member's GEMM, batched (with C, each member's batch is 1).
    if (m.has_c) WEFT_CUDA_CHECK(launch_bias_rows(s.stream, batch, m.m, m.n, dc, dy));
    const GemmBlas call = gemm_blas(m);
    if (call.m == 0 || call.n == 0) return {};
    WEFT_CUDA_CHECK(cublasSgemmBatched(s.cublas, call.op_b, call.op_a, call.n, call.m, call.k, &m.alpha, db, call.ldb, dx, call.lda,
                                       &m.beta, dy, call.n, batch));
    return {};
  };
  return std::optional<PreparedNode>(std::move(p));
}

/// One launch for a merged group of convolutions reading one input (IOS's operator merge: a
/// GoogLeNet module's 1x1 convolutions) whose outputs lie side by side at batch 1 (the block
/// merge_graph places them in): one cuDNN convolution over the members' filters concatenated along
/// the output channels, then the concatenated bias, writing every member's output in place. The
/// concatenated filters are one device copy made here from the weights' host values. Empty when
/// the members differ in more than their output channels, the batch is not 1, or the outputs are
/// not adjacent: they then run one after another.
core::Expected<std::optional<PreparedNode>> concat_conv(const PrepareContext& ctx) {
  const std::optional<PreparedNode> kNone;
  const Graph& body = *ctx.graph;
  const std::size_t count = body.node_count();
  if (count < 2) return kNone;
  const auto dev = [&](TensorId t) { return t == core::kNoTensor ? nullptr : static_cast<float*>((*ctx.device)[static_cast<std::size_t>(t)]); };
  std::optional<ConvGeometry> first;
  std::vector<std::uint8_t> filters, biases;
  std::int64_t channels = 0;
  float* next = nullptr;  // where the next member's output must start
  for (std::size_t i = 0; i < count; ++i) {
    const auto m = static_cast<NodeId>(i);
    const Node& node = body.node(m);
    if (node.op_type != "Conv" || input(node, 0) != input(body.node(0), 0)) return kNone;
    auto geo = conv_geometry(body, m);
    if (!geo) return kNone;  // named when the members are prepared one by one
    const ConvGeometry& cg = *geo;
    if (cg.group != 1 || cg.y[0] != 1) return kNone;
    if (first && (cg.x != first->x || cg.bias != first->bias || cg.stride != first->stride || cg.dilation != first->dilation ||
                  !std::equal(cg.pads, cg.pads + 4, first->pads) || !std::equal(cg.w.begin() + 1, cg.w.end(), first->w.begin() + 1) ||
                  cg.y[2] != first->y[2] || cg.y[3] != first->y[3]))
      return kNone;
    if (!first) first = cg;
    float* y = dev(node.outputs[0]);
    if (!y || (next && y != next)) return kNone;
    next = y + product(cg.y, 0, cg.y.size());
    const auto* w = host_floats(ctx, input(node, 1), product(cg.w, 0, cg.w.size()));
    if (!w) return kNone;
    filters.insert(filters.end(), w->bytes.begin(), w->bytes.end());
    if (cg.bias) {
      const auto* b = host_floats(ctx, input(node, 2), cg.w[0]);
      if (!b) return kNone;
      biases.insert(biases.end(), b->bytes.begin(), b->bytes.end());
    }
    channels += cg.w[0];
  }
  ConvGeometry merged = *first;
  merged.w[0] = channels;
  merged.y[1] = channels;
  auto weights = std::make_shared<DeviceBuffer>();
  WEFT_TRY(weights->allocate(filters.size() + biases.size(), "a merged convolution's concatenated filters"));
  auto* base = static_cast<std::uint8_t*>(weights->get());
  WEFT_CUDA_CHECK(cudaMemcpy(base, filters.data(), filters.size(), cudaMemcpyHostToDevice));
  if (!biases.empty()) WEFT_CUDA_CHECK(cudaMemcpy(base + filters.size(), biases.data(), biases.size(), cudaMemcpyHostToDevice));
  const auto* w = reinterpret_cast<const float*>(base);
  const auto* bias = biases.empty() ? nullptr : reinterpret_cast<const float*>(base + filters.size());
  auto p = conv_launch(ctx, body, 0, merged, dev(input(body.node(0), 0)), w, bias, dev(body.node(0).outputs[0]), std::move(weights));
  if (!p) return kNone;  // cuDNN refuses the concatenated convolution: the members run one by one
  p->merged_path = "concatenated convolution";
  return std::optional<PreparedNode>(std::move(*p));
}

}  // namespace weft::gpu::detail
