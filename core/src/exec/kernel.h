#pragma once
// Private kernel interface of the CPU executor: tensor views, the kernel context, the registry
// and the helpers shared by the kernel families (broadcasting, axes, dtype dispatch).
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/exec/evaluate_node.h"
#include "weft/core/exec/executor.h"
#include "weft/core/base/expected.h"
#include "weft/core/graph/graph.h"

namespace weft::core::detail {

/// A typed, shaped view of bytes owned elsewhere (arena, weight buffer, scratch).
struct View {
  DType dtype = DType::Undefined;  ///< Undefined: an omitted optional input
  Shape shape;
  void* data = nullptr;
  /// The bytes are in channels-last order (NHWC and its 1-D and 3-D forms), a layout only the
  /// library kernels read and write (plan_channels_last); reference kernels never see one.
  bool channels_last = false;

  bool present() const { return dtype != DType::Undefined; }
  std::int64_t elements() const { return shape_elements(shape); }
  std::size_t bytes() const { return static_cast<std::size_t>(elements()) * dtype_size(dtype); }
  template <class T>
  T* as() const { return static_cast<T*>(data); }
};

/// What a kernel sees: its node, its input views and a way to get output buffers.
class KernelContext {
 public:
  KernelContext(const Node& node, std::span<const View> inputs, std::int64_t opset, const Graph* graph = nullptr)
      : m_node(node), m_inputs(inputs), m_opset(opset), m_graph(graph) {}
  virtual ~KernelContext() = default;
  KernelContext(const KernelContext&) = delete;
  KernelContext& operator=(const KernelContext&) = delete;

  const Node& node() const { return m_node; }
  /// The model's default-domain opset; 0 (hand-built graphs) means the newest semantics.
  std::int64_t opset() const { return m_opset; }
  bool opset_before(std::int64_t version) const { return m_opset > 0 && m_opset < version; }
  std::size_t input_count() const { return m_inputs.size(); }
  bool has_input(std::size_t i) const { return i < m_inputs.size() && m_inputs[i].present(); }
  const View& in(std::size_t i) const { return m_inputs[i]; }
  std::size_t output_count() const { return m_node.outputs.size(); }
  bool wants_output(std::size_t i) const { return i < m_node.outputs.size() && m_node.outputs[i] != kNoTensor; }
  /// The graph the node belongs to (tensor names and declared dtypes), when the caller has one.
  const Graph* graph() const { return m_graph; }
  /// RunOptions::batch_invariant: matrix products compute each row on its own.
  bool batch_invariant() const { return m_batch_invariant; }
  void set_batch_invariant(bool on) { m_batch_invariant = on; }
  /// Input i is a weight (an initializer no node writes): its bytes stay the same for a whole run,
  /// so a library kernel may keep a reordered copy. False without a graph.
  virtual bool input_is_weight(std::size_t i) const {
    if (!m_graph || i >= m_node.inputs.size() || m_node.inputs[i] == kNoTensor) return false;
    const Tensor& t = m_graph->tensor(m_node.inputs[i]);
    return t.kind == TensorKind::Weight && t.producer == kNoNode;
  }
  /// Output i is to be written channels-last (the run's layout plan); false for reference kernels.
  virtual bool output_channels_last(std::size_t) const { return false; }
  /// The dtype the graph declares for output i (Undefined when unknown or omitted).
  DType declared_dtype(std::size_t i) const {
    return m_graph && wants_output(i) ? m_graph->tensor(m_node.outputs[i]).dtype : DType::Undefined;
  }

  /// The buffer for output i with this dtype and shape (arena view or own buffer). Errors when the
  /// shape does not fit the bytes the memory plan reserved. Omitted outputs get scratch bytes.
  virtual Expected<View> output(std::size_t i, DType dtype, Shape shape) = 0;

 private:
  const Node& m_node;
  std::span<const View> m_inputs;
  std::int64_t m_opset = 0;
  const Graph* m_graph = nullptr;
  bool m_batch_invariant = false;
};

using KernelFn = std::function<Status(KernelContext&)>;

/// The members of a merged node (weft.Merged, merge_graph) or a fused one (weft.Fused,
/// fuse_graph): its body, and per member which of the node's inputs each of its inputs is
/// (a fused chain's member reading an earlier member's output: -2 - that body tensor's id) and
/// which of the node's outputs each of its outputs is (-1: none, a scratch output).
struct MergedMembers {
  const Graph* body = nullptr;
  std::vector<std::vector<int>> inputs, outputs;
  /// Member k's input views, taken from the merged node's.
  std::vector<View> member_inputs(const KernelContext& ctx, std::size_t k) const;
};
/// Reads a merged node's body (`chained`: a fused node's, whose members read earlier members'
/// outputs). Errors (InvalidInput): no body, inputs or outputs that do not match the node's, a
/// member reading what is not an input of the node (nor, chained, an earlier member's output).
Expected<MergedMembers> merged_members(const KernelContext& ctx, bool chained = false);

/// A member of a merged node: its inputs are the merged node's (the body's inputs are the node's,
/// in order), and its outputs are the merged node's own output buffers, so each member writes its
/// result in place, with no copy.
class MemberContext final : public KernelContext {
 public:
  MemberContext(KernelContext& parent, const MergedMembers& members, std::size_t k, std::span<const View> inputs);
  Expected<View> output(std::size_t i, DType dtype, Shape shape) override;
  bool input_is_weight(std::size_t i) const override;
  /// A member's output that is the node's is laid out as the node's.
  bool output_channels_last(std::size_t i) const override;
  /// Output i as the member wrote it (a view with no data before); members of fused nodes only.
  const View& written(std::size_t i) const { return m_written[i]; }
  /// The scratch outputs' bytes, moved out (a fused chain keeps its intermediates for the next member).
  std::vector<std::vector<std::uint8_t>> take_scratch() { return std::move(m_scratch); }

 private:
  KernelContext& m_parent;
  const MergedMembers& m_members;
  std::size_t m_k;
  std::vector<std::vector<std::uint8_t>> m_scratch;
  std::vector<View> m_written;
};

/// InvalidInput error naming the node and operator: "node 'conv1' (Conv): <what>".
Error kernel_error(const KernelContext& ctx, std::string_view what);
/// Same, for features the reference kernels do not implement; the message starts with "unsupported".
Error unsupported(const KernelContext& ctx, std::string_view what);
inline bool is_unsupported_error(const Error& e) { return e.message.find("unsupported") != std::string::npos; }

/// The registry key of an operator: its name in the default domain ("" or "ai.onnx"), else
/// "<domain>.<name>" (Weft's own operators: "weft.Merged").
inline std::string kernel_key(std::string_view domain, std::string_view op) {
  if (domain.empty() || domain == "ai.onnx") return std::string(op);
  return std::string(domain) + "." + std::string(op);
}
inline std::string kernel_key(const Node& node) { return kernel_key(node.domain, node.op_type); }

class KernelRegistry {
 public:
  void add(std::string op, KernelFn fn) { m_fns[std::move(op)] = std::move(fn); }
  const KernelFn* find(std::string_view op) const {
    auto it = m_fns.find(op);
    return it == m_fns.end() ? nullptr : &it->second;
  }
  std::vector<std::string> names() const;

 private:
  std::map<std::string, KernelFn, std::less<>> m_fns;
};

/// Runs a kernel on a node. Operators that compute (not those that only move bytes, nor Cast)
/// see float16/bfloat16 inputs widened to float32, and their float32 outputs that the graph
/// declares half (or, undeclared, of a node with half inputs) are rounded back, nearest-even.
Status run_kernel(const KernelFn& fn, KernelContext& ctx);

/// A view of a host tensor's bytes (the tensor must outlive the view).
View view_of(const HostTensor& h);
/// An owned copy of a view.
HostTensor host_of(const View& v);
/// The value an enclosing node holds for a name its bodies capture (its input of that name).
const View* captured_input(const KernelContext& ctx, std::string_view name);
/// Runs a body (If branch, Loop or Scan body) of ctx's node, sequentially on the calling thread:
/// `formal` binds its formal inputs in order, captures come from the node's inputs by name.
/// Returns the body's outputs. O(body work); every body tensor gets a buffer of its own.
Expected<std::vector<HostTensor>> run_subgraph(const KernelContext& ctx, const Graph& body, std::span<const View> formal);

/// The registry of every kernel family (built once, thread-safe after construction).
const KernelRegistry& kernel_registry();

void register_elementwise_kernels(KernelRegistry& r);
void register_conv_kernels(KernelRegistry& r);
void register_matmul_kernels(KernelRegistry& r);
void register_pool_kernels(KernelRegistry& r);
void register_norm_kernels(KernelRegistry& r);
void register_reduce_kernels(KernelRegistry& r);
void register_shape_kernels(KernelRegistry& r);
void register_index_kernels(KernelRegistry& r);
void register_detect_kernels(KernelRegistry& r);
void register_signal_kernels(KernelRegistry& r);
void register_quant_kernels(KernelRegistry& r);
void register_loss_kernels(KernelRegistry& r);
void register_rnn_kernels(KernelRegistry& r);
void register_control_kernels(KernelRegistry& r);

// ---- helpers shared by the families ----

/// Row-major strides in elements.
Shape strides_of(std::span<const std::int64_t> shape);
/// Numpy-style multidirectional broadcast; false when incompatible.
bool broadcast_shapes(std::span<const Shape> shapes, Shape& out);
/// Strides of `shape` broadcast to `out` (0 where broadcast), right-aligned.
Shape broadcast_strides(std::span<const std::int64_t> shape, std::span<const std::int64_t> out);

/// Normalises a possibly negative axis against rank; false when out of range.
bool normalize_axis(std::int64_t& axis, std::int64_t rank);
/// Reads an integer tensor (int64 / int32) as int64 values.
bool read_ints(const View& v, std::vector<std::int64_t>& out);
/// Reads a float tensor (float32 / float64) as doubles.
bool read_floats(const View& v, std::vector<double>& out);

/// True for the dtypes load_double/store_double handle: floats (half included), integers, bool.
bool is_numeric(DType dtype);
/// Element i of a numeric view as double (exact for every dtype but int64/uint64 beyond 2^53).
double load_double(const View& v, std::int64_t i);
/// Stores x into element i: integers truncate toward zero (saturating, NaN to 0), bool is x != 0,
/// half types round nearest-even. Reference kernels that are not hot use these instead of templates.
void store_double(const View& v, std::int64_t i, double x);
/// A whole numeric view as doubles (false when the dtype is not numeric).
bool read_doubles(const View& v, std::vector<double>& out);
/// An Expected<View> output in one line: `WEFT_KERNEL_OUTPUT(y, ctx.output(0, dtype, shape));`
/// declares `const View& y` or returns the error from the kernel (WEFT_TRY_ASSIGN).
#define WEFT_KERNEL_OUTPUT(var, expr) WEFT_TRY_ASSIGN(const View& var, expr)

/// Calls f(T{}) with T the C++ type of dtype among float, double and the integer types; false for others.
template <class F>
bool dispatch_numeric(DType dtype, F&& f) {
  switch (dtype) {
    case DType::Float32: f(float{}); return true;
    case DType::Float64: f(double{}); return true;
    case DType::Int32: f(std::int32_t{}); return true;
    case DType::Int64: f(std::int64_t{}); return true;
    case DType::Int8: f(std::int8_t{}); return true;
    case DType::UInt8: f(std::uint8_t{}); return true;
    case DType::Int16: f(std::int16_t{}); return true;
    case DType::UInt16: f(std::uint16_t{}); return true;
    case DType::UInt32: f(std::uint32_t{}); return true;
    case DType::UInt64: f(std::uint64_t{}); return true;
    default: return false;
  }
}

template <class F>
bool dispatch_float(DType dtype, F&& f) {
  switch (dtype) {
    case DType::Float32: f(float{}); return true;
    case DType::Float64: f(double{}); return true;
    default: return false;
  }
}

/// Iterates all indices of `out` with per-operand broadcast strides; calls f(out_index, offsets...).
/// The innermost dimension runs as a tight loop.
template <std::size_t N, class F>
void for_each_broadcast(std::span<const std::int64_t> out, const std::array<Shape, N>& strides, F&& f) {
  const std::size_t rank = out.size();
  const std::int64_t total = shape_elements(out);
  if (total == 0) return;
  if (rank == 0) {
    std::array<std::int64_t, N> off{};
    f(std::int64_t{0}, off);
    return;
  }
  std::vector<std::int64_t> idx(rank, 0);
  std::array<std::int64_t, N> base{};
  const std::int64_t inner = out[rank - 1];
  std::int64_t o = 0;
  while (o < total) {
    std::array<std::int64_t, N> off = base;
    for (std::int64_t i = 0; i < inner; ++i) {
      f(o + i, off);
      for (std::size_t k = 0; k < N; ++k) off[k] += strides[k][rank - 1];
    }
    o += inner;
    // advance the outer index
    for (std::size_t d = rank - 1; d-- > 0;) {
      ++idx[d];
      for (std::size_t k = 0; k < N; ++k) base[k] += strides[k][d];
      if (idx[d] < out[d]) break;
      for (std::size_t k = 0; k < N; ++k) base[k] -= strides[k][d] * out[d];
      idx[d] = 0;
    }
  }
}

/// Window geometry of a pool (spatial dims only), with auto_pad and ceil_mode applied.
struct PoolGeometry {
  Shape in, out, kernel, stride, dilation, pad_begin, pad_end;
};
Status pool_geometry(const KernelContext& ctx, const Shape& x_shape, PoolGeometry& out);
/// The same for a forward convolution of X by W (kernel_shape from W where the node omits it).
Status conv_geometry(const KernelContext& ctx, const Shape& x_shape, const Shape& w_shape, PoolGeometry& out);

/// Ints of an attribute, or of input `input` when present (opset moves of axes/pads/...).
bool ints_from_attr_or_input(const KernelContext& ctx, std::string_view attr, std::size_t input,
                             std::vector<std::int64_t>& out, bool& present);

/// Calls f(U{}) with an unsigned type of the element size (moves bytes, whatever the dtype).
template <class F>
bool dispatch_size(DType dtype, F&& f) {
  switch (dtype_size(dtype)) {
    case 1: f(std::uint8_t{}); return true;
    case 2: f(std::uint16_t{}); return true;
    case 4: f(std::uint32_t{}); return true;
    case 8: f(std::uint64_t{}); return true;
    default: return false;
  }
}

}  // namespace weft::core::detail
