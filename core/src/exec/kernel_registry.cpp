#include <algorithm>
#include <cmath>
#include <limits>

#include "half.h"
#include "kernel.h"
#include "weft/core/graph/fused_node.h"

namespace weft::core::detail {

std::int64_t shape_elements(std::span<const std::int64_t> shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

Error kernel_error(const KernelContext& ctx, std::string_view what) {
  return make_error(ErrorKind::InvalidInput,
                    "node '" + ctx.node().name + "' (" + ctx.node().op_type + "): " + std::string(what));
}

Error unsupported(const KernelContext& ctx, std::string_view what) {
  return make_error(ErrorKind::InvalidInput, "unsupported: node '" + ctx.node().name + "' (" + ctx.node().op_type +
                                                 "): " + std::string(what));
}

Expected<MergedMembers> merged_members(const KernelContext& ctx, bool chained) {
  const Attribute* a = ctx.node().attribute("body");
  const Graph* body = a ? a->graph.get() : nullptr;
  if (!body) return kernel_error(ctx, "merged node without a body");
  if (body->inputs().size() != ctx.input_count() || body->outputs().size() != ctx.output_count())
    return kernel_error(ctx, "the merged body's inputs or outputs do not match the node's");
  std::vector<int> input_of(body->tensor_count(), -1), output_of(body->tensor_count(), -1);
  for (std::size_t i = 0; i < body->inputs().size(); ++i) input_of[static_cast<std::size_t>(body->inputs()[i])] = static_cast<int>(i);
  for (std::size_t i = 0; i < body->outputs().size(); ++i)
    output_of[static_cast<std::size_t>(body->outputs()[i])] = static_cast<int>(i);
  MergedMembers out;
  out.body = body;
  std::vector<char> written(body->tensor_count(), 0);
  for (std::size_t k = 0; k < body->node_count(); ++k) {
    const Node& member = body->node(static_cast<NodeId>(k));
    std::vector<int> in(member.inputs.size(), -1), outs(member.outputs.size(), -1);
    for (std::size_t i = 0; i < member.inputs.size(); ++i) {
      const TensorId t = member.inputs[i];
      if (t == kNoTensor) continue;
      in[i] = input_of[static_cast<std::size_t>(t)];
      if (in[i] < 0 && chained && written[static_cast<std::size_t>(t)]) in[i] = -2 - t;
      if (in[i] < 0 && in[i] != -2 - t) return kernel_error(ctx, "member '" + member.name + "' reads '" + body->tensor(t).name + "', not an input of the merge");
    }
    for (std::size_t i = 0; i < member.outputs.size(); ++i)
      if (member.outputs[i] != kNoTensor) {
        outs[i] = output_of[static_cast<std::size_t>(member.outputs[i])];
        written[static_cast<std::size_t>(member.outputs[i])] = 1;
      }
    out.inputs.push_back(std::move(in));
    out.outputs.push_back(std::move(outs));
  }
  return out;
}

std::vector<View> MergedMembers::member_inputs(const KernelContext& ctx, std::size_t k) const {
  std::vector<View> in(inputs[k].size());
  for (std::size_t i = 0; i < in.size(); ++i)
    if (inputs[k][i] >= 0) in[i] = ctx.in(static_cast<std::size_t>(inputs[k][i]));
  return in;
}

MemberContext::MemberContext(KernelContext& parent, const MergedMembers& members, std::size_t k, std::span<const View> inputs)
    : KernelContext(members.body->node(static_cast<NodeId>(k)), inputs, parent.opset(), members.body),
      m_parent(parent),
      m_members(members),
      m_k(k) {
  set_batch_invariant(parent.batch_invariant());
  // Only a fused chain reads what its members wrote: a merged node's members, built on every
  // run, allocate nothing for it.
  if (is_fused_node(parent.node())) m_written.resize(node().outputs.size());
}

Expected<View> MemberContext::output(std::size_t i, DType dtype, Shape shape) {
  const std::vector<int>& to = m_members.outputs[m_k];
  if (i < to.size() && to[i] >= 0) {
    WEFT_TRY_ASSIGN(View v, m_parent.output(static_cast<std::size_t>(to[i]), dtype, std::move(shape)));
    if (i < m_written.size()) m_written[i] = v;
    return v;
  }
  View v{dtype, std::move(shape), nullptr};
  auto& buf = m_scratch.emplace_back((v.bytes() + 15) / 8 * 8, std::uint8_t{0});
  v.data = buf.data();
  if (i < m_written.size()) m_written[i] = v;
  return v;
}

bool MemberContext::output_channels_last(std::size_t i) const {
  const std::vector<int>& to = m_members.outputs[m_k];
  return i < to.size() && to[i] >= 0 && m_parent.output_channels_last(static_cast<std::size_t>(to[i]));
}

// A member reads the merged node's inputs: a weight there is a weight here.
bool MemberContext::input_is_weight(std::size_t i) const {
  const std::vector<int>& from = m_members.inputs[m_k];
  return i < from.size() && from[i] >= 0 && m_parent.input_is_weight(static_cast<std::size_t>(from[i]));
}

std::vector<std::string> KernelRegistry::names() const {
  std::vector<std::string> out;
  out.reserve(m_fns.size());
  for (const auto& [name, fn] : m_fns) out.push_back(name);
  return out;
}

const KernelRegistry& kernel_registry() {
  // Built once; C++ guarantees thread-safe initialisation of the local static.
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    register_elementwise_kernels(r);
    register_conv_kernels(r);
    register_matmul_kernels(r);
    register_pool_kernels(r);
    register_norm_kernels(r);
    register_reduce_kernels(r);
    register_shape_kernels(r);
    register_index_kernels(r);
    register_detect_kernels(r);
    register_signal_kernels(r);
    register_quant_kernels(r);
    register_loss_kernels(r);
    register_rnn_kernels(r);
    register_control_kernels(r);
    return r;
  }();
  return registry;
}

Shape strides_of(std::span<const std::int64_t> shape) {
  Shape s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

bool broadcast_shapes(std::span<const Shape> shapes, Shape& out) {
  std::size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  out.assign(rank, 1);
  for (const auto& s : shapes) {
    const std::size_t off = rank - s.size();
    for (std::size_t i = 0; i < s.size(); ++i) {
      const std::int64_t d = s[i];
      std::int64_t& o = out[off + i];
      if (d == o || d == 1) continue;
      if (o == 1) {
        o = d;
        continue;
      }
      return false;
    }
  }
  return true;
}

Shape broadcast_strides(std::span<const std::int64_t> shape, std::span<const std::int64_t> out) {
  Shape st(out.size(), 0);
  const Shape own = strides_of(shape);
  const std::size_t off = out.size() - shape.size();
  // A dimension of 1 repeats along the output: stride 0.
  for (std::size_t i = 0; i < shape.size(); ++i) st[off + i] = shape[i] == 1 ? 0 : own[i];
  return st;
}

bool normalize_axis(std::int64_t& axis, std::int64_t rank) {
  if (axis < 0) axis += rank;
  return axis >= 0 && axis < std::max<std::int64_t>(rank, 1);
}

bool read_ints(const View& v, std::vector<std::int64_t>& out) {
  const auto n = static_cast<std::size_t>(v.elements());
  out.resize(n);
  if (v.dtype == DType::Int64) {
    std::copy_n(v.as<const std::int64_t>(), n, out.begin());
  } else if (v.dtype == DType::Int32) {
    std::copy_n(v.as<const std::int32_t>(), n, out.begin());
  } else {
    return false;
  }
  return true;
}

bool read_floats(const View& v, std::vector<double>& out) {
  const auto n = static_cast<std::size_t>(v.elements());
  out.resize(n);
  if (v.dtype == DType::Float32) {
    std::copy_n(v.as<const float>(), n, out.begin());
  } else if (v.dtype == DType::Float64) {
    std::copy_n(v.as<const double>(), n, out.begin());
  } else {
    return false;
  }
  return true;
}

bool ints_from_attr_or_input(const KernelContext& ctx, std::string_view attr, std::size_t input,
                             std::vector<std::int64_t>& out, bool& present) {
  present = false;
  out.clear();
  if (const Attribute* a = ctx.node().attribute(attr)) {
    out = a->ints;
    if (out.empty() && a->type == Attribute::Type::Int) out.push_back(a->i);
    present = true;
    return true;
  }
  if (ctx.has_input(input)) {
    present = true;
    return read_ints(ctx.in(input), out);
  }
  return true;
}

bool is_numeric(DType dtype) {
  switch (dtype) {
    case DType::Float32: case DType::Float64: case DType::Float16: case DType::BFloat16: case DType::Int8:
    case DType::Int16: case DType::Int32: case DType::Int64: case DType::UInt8: case DType::UInt16:
    case DType::UInt32: case DType::UInt64: case DType::Bool:
      return true;
    default:
      return false;
  }
}

double load_double(const View& v, std::int64_t i) {
  switch (v.dtype) {
    case DType::Float32: return v.as<const float>()[i];
    case DType::Float64: return v.as<const double>()[i];
    case DType::Float16: return v.as<const Float16>()[i].to_float();
    case DType::BFloat16: return v.as<const BFloat16>()[i].to_float();
    case DType::Int8: return v.as<const std::int8_t>()[i];
    case DType::Int16: return v.as<const std::int16_t>()[i];
    case DType::Int32: return v.as<const std::int32_t>()[i];
    case DType::Int64: return static_cast<double>(v.as<const std::int64_t>()[i]);
    case DType::UInt8: return v.as<const std::uint8_t>()[i];
    case DType::UInt16: return v.as<const std::uint16_t>()[i];
    case DType::UInt32: return v.as<const std::uint32_t>()[i];
    case DType::UInt64: return static_cast<double>(v.as<const std::uint64_t>()[i]);
    case DType::Bool: return v.as<const std::uint8_t>()[i] != 0 ? 1.0 : 0.0;
    default: return 0;
  }
}

namespace {
template <class T>
T to_int(double x) {
  if (std::isnan(x)) return T{};
  if (x <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
  if (x >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(x);
}
}  // namespace

void store_double(const View& v, std::int64_t i, double x) {
  switch (v.dtype) {
    case DType::Float32: v.as<float>()[i] = static_cast<float>(x); break;
    case DType::Float64: v.as<double>()[i] = x; break;
    case DType::Float16: v.as<Float16>()[i] = Float16::from(x); break;
    case DType::BFloat16: v.as<BFloat16>()[i] = BFloat16::from(x); break;
    case DType::Int8: v.as<std::int8_t>()[i] = to_int<std::int8_t>(x); break;
    case DType::Int16: v.as<std::int16_t>()[i] = to_int<std::int16_t>(x); break;
    case DType::Int32: v.as<std::int32_t>()[i] = to_int<std::int32_t>(x); break;
    case DType::Int64: v.as<std::int64_t>()[i] = to_int<std::int64_t>(x); break;
    case DType::UInt8: v.as<std::uint8_t>()[i] = to_int<std::uint8_t>(x); break;
    case DType::UInt16: v.as<std::uint16_t>()[i] = to_int<std::uint16_t>(x); break;
    case DType::UInt32: v.as<std::uint32_t>()[i] = to_int<std::uint32_t>(x); break;
    case DType::UInt64: v.as<std::uint64_t>()[i] = to_int<std::uint64_t>(x); break;
    case DType::Bool: v.as<std::uint8_t>()[i] = x != 0 ? 1 : 0; break;
    default: break;
  }
}

bool read_doubles(const View& v, std::vector<double>& out) {
  if (!is_numeric(v.dtype)) return false;
  out.resize(static_cast<std::size_t>(v.elements()));
  for (std::int64_t i = 0; i < v.elements(); ++i) out[static_cast<std::size_t>(i)] = load_double(v, i);
  return true;
}

}  // namespace weft::core::detail
