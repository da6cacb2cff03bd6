#include "onnx_fold.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "onnx_proto_util.h"
#include "weft/core/external_data.h"
#include "weft/core/graph.h"

namespace weft::core::detail {
namespace {

using Shape = std::vector<std::int64_t>;

// Integer kernels wrap like two's-complement hardware instead of invoking undefined behaviour
// on hostile constants; double → int64 saturates.
std::int64_t wrap_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
std::int64_t wrap_sub(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
std::int64_t wrap_mul(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
std::int64_t saturate(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9.2e18) return std::numeric_limits<std::int64_t>::max();
  if (v <= -9.2e18) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(v);
}

// A small dense tensor for the reference kernels: floating types in doubles (rounded back to
// float32 after every op so results match float arithmetic), integers and bools in int64.
struct Value {
  DType dtype = DType::Undefined;
  Shape shape;
  std::vector<double> f;
  std::vector<std::int64_t> i;

  bool floating() const { return dtype == DType::Float32 || dtype == DType::Float64; }
  std::int64_t size() const { return static_cast<std::int64_t>(floating() ? f.size() : i.size()); }
  double as_double(std::int64_t k) const {
    const auto u = static_cast<std::size_t>(k);
    return floating() ? f[u] : static_cast<double>(i[u]);
  }
  std::int64_t as_int(std::int64_t k) const {
    const auto u = static_cast<std::size_t>(k);
    return floating() ? saturate(f[u]) : i[u];
  }
};

std::optional<std::int64_t> numel(const Shape& s) {
  std::int64_t n = 1;
  for (std::int64_t d : s) {
    // Bounding every dim (not just the product) keeps shape arithmetic free of overflow even
    // when another dim is 0.
    if (d < 0 || d > kMaxFoldElements) return std::nullopt;
    if (d != 0 && n > kMaxFoldElements / d) return std::nullopt;
    n *= d;
  }
  if (n > kMaxFoldElements) return std::nullopt;
  return n;
}

bool supported_dtype(DType t) {
  switch (t) {
    case DType::Float32: case DType::Float64: case DType::Int8: case DType::Int16: case DType::Int32:
    case DType::Int64: case DType::UInt8: case DType::UInt16: case DType::UInt32: case DType::UInt64:
    case DType::Bool:
      return true;
    default:
      return false;
  }
}

// Rounds / wraps values to what their dtype can hold.
void normalize(Value& v) {
  switch (v.dtype) {
    case DType::Float32: for (double& x : v.f) x = static_cast<double>(static_cast<float>(x)); break;
    case DType::Int32: for (auto& x : v.i) x = static_cast<std::int32_t>(x); break;
    case DType::Int16: for (auto& x : v.i) x = static_cast<std::int16_t>(x); break;
    case DType::Int8: for (auto& x : v.i) x = static_cast<std::int8_t>(x); break;
    case DType::UInt8: for (auto& x : v.i) x = static_cast<std::uint8_t>(x); break;
    case DType::UInt16: for (auto& x : v.i) x = static_cast<std::uint16_t>(x); break;
    case DType::UInt32: for (auto& x : v.i) x = static_cast<std::uint32_t>(x); break;
    case DType::Bool: for (auto& x : v.i) x = x != 0 ? 1 : 0; break;
    default: break;
  }
}

Value make(DType dtype, Shape shape) {
  Value v;
  v.dtype = dtype;
  v.shape = std::move(shape);
  const auto n = static_cast<std::size_t>(numel(v.shape).value_or(0));
  if (v.floating()) v.f.assign(n, 0.0); else v.i.assign(n, 0);
  return v;
}

template <class T>
T load(const std::uint8_t* p) {
  T x;
  std::memcpy(&x, p, sizeof(T));
  return x;
}

std::optional<Value> decode(const onnx::TensorProto& t) {
  const DType dtype = dtype_from_onnx(t.data_type());
  if (!supported_dtype(dtype) || !has_inline_data(t)) return std::nullopt;
  Shape shape(t.dims().begin(), t.dims().end());
  if (!numel(shape)) return std::nullopt;
  std::vector<std::uint8_t> bytes;
  std::string why;
  if (!tensor_bytes(t, bytes, why)) return std::nullopt;
  Value v = make(dtype, shape);
  const std::size_t es = dtype_size(dtype);
  const std::size_t n = bytes.size() / es;
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint8_t* p = bytes.data() + k * es;
    switch (dtype) {
      case DType::Float32: v.f[k] = static_cast<double>(load<float>(p)); break;
      case DType::Float64: v.f[k] = load<double>(p); break;
      case DType::Int8: v.i[k] = load<std::int8_t>(p); break;
      case DType::Int16: v.i[k] = load<std::int16_t>(p); break;
      case DType::Int32: v.i[k] = load<std::int32_t>(p); break;
      case DType::Int64: v.i[k] = load<std::int64_t>(p); break;
      case DType::UInt8: case DType::Bool: v.i[k] = load<std::uint8_t>(p); break;
      case DType::UInt16: v.i[k] = load<std::uint16_t>(p); break;
      case DType::UInt32: v.i[k] = load<std::uint32_t>(p); break;
      case DType::UInt64: v.i[k] = static_cast<std::int64_t>(load<std::uint64_t>(p)); break;
      default: return std::nullopt;
    }
  }
  return v;
}

template <class T>
void store(std::string& raw, T x) {
  char buf[sizeof(T)];
  std::memcpy(buf, &x, sizeof(T));
  raw.append(buf, sizeof(T));
}

onnx::TensorProto encode(const Value& v, const std::string& name) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(static_cast<std::int32_t>(v.dtype));
  for (std::int64_t d : v.shape) t.add_dims(d);
  std::string raw;
  raw.reserve(static_cast<std::size_t>(v.size()) * dtype_size(v.dtype));
  for (std::int64_t k = 0; k < v.size(); ++k) {
    switch (v.dtype) {
      case DType::Float32: store(raw, static_cast<float>(v.as_double(k))); break;
      case DType::Float64: store(raw, v.as_double(k)); break;
      case DType::Int8: store(raw, static_cast<std::int8_t>(v.as_int(k))); break;
      case DType::Int16: store(raw, static_cast<std::int16_t>(v.as_int(k))); break;
      case DType::Int32: store(raw, static_cast<std::int32_t>(v.as_int(k))); break;
      case DType::Int64: store(raw, v.as_int(k)); break;
      case DType::UInt8: case DType::Bool: store(raw, static_cast<std::uint8_t>(v.as_int(k))); break;
      case DType::UInt16: store(raw, static_cast<std::uint16_t>(v.as_int(k))); break;
      case DType::UInt32: store(raw, static_cast<std::uint32_t>(v.as_int(k))); break;
      case DType::UInt64: store(raw, static_cast<std::uint64_t>(v.as_int(k))); break;
      default: break;
    }
  }
  t.set_raw_data(std::move(raw));
  return t;
}

std::vector<std::int64_t> strides_of(const Shape& s) {
  std::vector<std::int64_t> st(s.size(), 1);
  for (std::size_t k = s.size(); k-- > 1;) st[k - 1] = st[k] * s[k];
  return st;
}

// Calls fn(flat_out_index, multi_index) for every element of shape, row-major.
void for_each_index(const Shape& shape, const std::function<void(std::int64_t, const Shape&)>& fn) {
  const auto n = numel(shape);
  if (!n || *n == 0) return;
  Shape idx(shape.size(), 0);
  for (std::int64_t flat = 0; flat < *n; ++flat) {
    fn(flat, idx);
    for (std::size_t k = shape.size(); k-- > 0;) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
}

// A value whose element k is src's element map[k].
Value take(const Value& src, Shape shape, const std::vector<std::int64_t>& map) {
  Value out = make(src.dtype, std::move(shape));
  for (std::size_t k = 0; k < map.size(); ++k) {
    if (src.floating()) out.f[k] = src.f[static_cast<std::size_t>(map[k])];
    else out.i[k] = src.i[static_cast<std::size_t>(map[k])];
  }
  return out;
}

std::optional<Shape> broadcast_shape(const std::vector<const Shape*>& shapes) {
  std::size_t rank = 0;
  for (const Shape* s : shapes) rank = std::max(rank, s->size());
  Shape out(rank, 1);
  for (const Shape* s : shapes) {
    const std::size_t off = rank - s->size();
    for (std::size_t k = 0; k < s->size(); ++k) {
      const std::int64_t d = (*s)[k];
      std::int64_t& o = out[off + k];
      if (d == o || d == 1) continue;
      if (o == 1) { o = d; continue; }
      return std::nullopt;
    }
  }
  if (!numel(out)) return std::nullopt;
  return out;
}

// Source flat index in `in` for each element of `out` under numpy broadcasting.
std::vector<std::int64_t> broadcast_map(const Shape& out, const Shape& in) {
  const std::size_t off = out.size() - in.size();
  const auto st = strides_of(in);
  std::vector<std::int64_t> map;
  map.reserve(static_cast<std::size_t>(numel(out).value_or(0)));
  for_each_index(out, [&](std::int64_t, const Shape& idx) {
    std::int64_t s = 0;
    for (std::size_t k = 0; k < in.size(); ++k)
      if (in[k] != 1) s += idx[off + k] * st[k];
    map.push_back(s);
  });
  return map;
}

std::int64_t norm_axis(std::int64_t axis, std::size_t rank) {
  return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
}

const onnx::AttributeProto* attr(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
std::int64_t attr_i(const onnx::NodeProto& n, const char* name, std::int64_t fallback) {
  const auto* a = attr(n, name);
  return a ? a->i() : fallback;
}
std::optional<std::vector<std::int64_t>> attr_ints(const onnx::NodeProto& n, const char* name) {
  const auto* a = attr(n, name);
  if (!a) return std::nullopt;
  return std::vector<std::int64_t>(a->ints().begin(), a->ints().end());
}

std::vector<std::int64_t> ints_of(const Value& v) {
  std::vector<std::int64_t> r(static_cast<std::size_t>(v.size()));
  for (std::int64_t k = 0; k < v.size(); ++k) r[static_cast<std::size_t>(k)] = v.as_int(k);
  return r;
}

using Inputs = std::vector<const Value*>;  // nullptr for an omitted optional input
using Outputs = std::vector<Value>;

// ---- kernels: each returns nullopt when it cannot evaluate (unsupported case); never throws.

std::optional<Outputs> k_unary(const std::string& op, const Value& x) {
  Value out = x;
  if (op == "Not") {
    for (auto& v : out.i) v = v ? 0 : 1;
    return Outputs{out};
  }
  if (op == "Neg" || op == "Abs" || op == "Sign" || op == "Relu") {
    auto fn = [&](double v) {
      if (op == "Neg") return -v;
      if (op == "Abs") return std::fabs(v);
      if (op == "Relu") return v > 0 ? v : 0.0;
      return static_cast<double>((v > 0) - (v < 0));
    };
    if (out.floating()) for (double& v : out.f) v = fn(v);
    else for (auto& v : out.i) v = saturate(fn(static_cast<double>(v)));
    normalize(out);
    return Outputs{out};
  }
  if (!out.floating()) return std::nullopt;
  for (double& v : out.f) {
    if (op == "Sqrt") v = std::sqrt(v);
    else if (op == "Exp") v = std::exp(v);
    else if (op == "Log") v = std::log(v);
    else if (op == "Reciprocal") v = 1.0 / v;
    else if (op == "Floor") v = std::floor(v);
    else if (op == "Ceil") v = std::ceil(v);
    else if (op == "Round") v = std::nearbyint(v);
    else if (op == "Sigmoid") v = 1.0 / (1.0 + std::exp(-v));
    else if (op == "Tanh") v = std::tanh(v);
    else if (op == "Erf") v = std::erf(v);
    else return std::nullopt;
  }
  normalize(out);
  return Outputs{out};
}

bool is_compare(const std::string& op) {
  return op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" || op == "GreaterOrEqual";
}
bool is_logic(const std::string& op) { return op == "And" || op == "Or" || op == "Xor"; }

std::optional<Outputs> k_binary(const std::string& op, const onnx::NodeProto& node, const Inputs& in) {
  if (in.size() < 2 && op != "Max" && op != "Min" && op != "Sum") return std::nullopt;
  std::vector<const Shape*> shapes;
  for (const Value* v : in) {
    if (!v) return std::nullopt;
    shapes.push_back(&v->shape);
  }
  auto shape = broadcast_shape(shapes);
  if (!shape) return std::nullopt;
  const DType out_type = is_compare(op) || is_logic(op) ? DType::Bool : in[0]->dtype;
  const bool fp = in[0]->floating();
  std::vector<std::vector<std::int64_t>> maps;
  for (const Value* v : in) maps.push_back(broadcast_map(*shape, v->shape));
  Value out = make(out_type, *shape);
  const auto n = static_cast<std::size_t>(numel(*shape).value_or(0));
  const bool fmod_mode = attr_i(node, "fmod", 0) != 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (fp || out.floating()) {
      double acc = in[0]->as_double(maps[0][k]);
      for (std::size_t j = 1; j < in.size(); ++j) {
        const double b = in[j]->as_double(maps[j][k]);
        if (op == "Add" || op == "Sum") acc += b;
        else if (op == "Sub") acc -= b;
        else if (op == "Mul") acc *= b;
        else if (op == "Div") acc /= b;
        else if (op == "Pow") acc = std::pow(acc, b);
        else if (op == "Max") acc = std::max(acc, b);
        else if (op == "Min") acc = std::min(acc, b);
        else if (op == "Mod") acc = fmod_mode ? std::fmod(acc, b) : acc - b * std::floor(acc / b);
        else if (op == "Equal") acc = acc == b;
        else if (op == "Less") acc = acc < b;
        else if (op == "Greater") acc = acc > b;
        else if (op == "LessOrEqual") acc = acc <= b;
        else if (op == "GreaterOrEqual") acc = acc >= b;
        else return std::nullopt;
      }
      if (out.floating()) out.f[k] = acc; else out.i[k] = saturate(acc);
    } else {
      std::int64_t acc = in[0]->as_int(maps[0][k]);
      for (std::size_t j = 1; j < in.size(); ++j) {
        const std::int64_t b = in[j]->as_int(maps[j][k]);
        if (op == "Add" || op == "Sum") acc = wrap_add(acc, b);
        else if (op == "Sub") acc = wrap_sub(acc, b);
        else if (op == "Mul") acc = wrap_mul(acc, b);
        else if (op == "Div") {
          if (b == 0 || (b == -1 && acc == std::numeric_limits<std::int64_t>::min())) return std::nullopt;
          acc /= b;
        }
        else if (op == "Mod") {
          if (b == 0 || b == -1) {
            if (b == 0) return std::nullopt;
            acc = 0;
            continue;
          }
          const std::int64_t r = acc % b;
          // Integer Mod follows the divisor's sign (Python) unless fmod=1 (C).
          acc = (!fmod_mode && r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
        }
        else if (op == "Max") acc = std::max(acc, b);
        else if (op == "Min") acc = std::min(acc, b);
        else if (op == "Pow") acc = saturate(std::pow(static_cast<double>(acc), static_cast<double>(b)));
        else if (op == "Equal") acc = acc == b;
        else if (op == "Less") acc = acc < b;
        else if (op == "Greater") acc = acc > b;
        else if (op == "LessOrEqual") acc = acc <= b;
        else if (op == "GreaterOrEqual") acc = acc >= b;
        else if (op == "And") acc = (acc != 0) && (b != 0);
        else if (op == "Or") acc = (acc != 0) || (b != 0);
        else if (op == "Xor") acc = (acc != 0) != (b != 0);
        else return std::nullopt;
      }
      out.i[k] = acc;
    }
  }
  normalize(out);
  return Outputs{out};
}

std::optional<Outputs> k_where(const Inputs& in) {
  if (in.size() != 3 || !in[0] || !in[1] || !in[2] || in[1]->dtype != in[2]->dtype) return std::nullopt;
  auto shape = broadcast_shape({&in[0]->shape, &in[1]->shape, &in[2]->shape});
  if (!shape) return std::nullopt;
  const auto mc = broadcast_map(*shape, in[0]->shape);
  const auto mx = broadcast_map(*shape, in[1]->shape);
  const auto my = broadcast_map(*shape, in[2]->shape);
  Value out = make(in[1]->dtype, *shape);
  for (std::size_t k = 0; k < mc.size(); ++k) {
    const Value* src = in[0]->as_int(mc[k]) ? in[1] : in[2];
    const std::int64_t at = in[0]->as_int(mc[k]) ? mx[k] : my[k];
    if (out.floating()) out.f[k] = src->as_double(at); else out.i[k] = src->as_int(at);
  }
  return Outputs{out};
}

std::optional<Outputs> k_cast(const onnx::NodeProto& node, const Value& x) {
  const DType to = dtype_from_onnx(static_cast<std::int32_t>(attr_i(node, "to", 0)));
  if (!supported_dtype(to)) return std::nullopt;
  Value out = make(to, x.shape);
  for (std::int64_t k = 0; k < x.size(); ++k) {
    const auto u = static_cast<std::size_t>(k);
    if (out.floating()) {
      out.f[u] = x.as_double(k);
    } else if (x.floating()) {
      const double v = x.f[u];
      if (to == DType::Bool) out.i[u] = v != 0.0;
      else if (!std::isfinite(v) || std::fabs(v) > 9.2e18) return std::nullopt;
      else out.i[u] = static_cast<std::int64_t>(v);  // truncation toward zero, as C casts
    } else {
      out.i[u] = x.i[u];
    }
  }
  normalize(out);
  return Outputs{out};
}

std::optional<Outputs> k_concat(const onnx::NodeProto& node, const Inputs& in) {
  if (in.empty()) return std::nullopt;
  const Value* first = nullptr;
  for (const Value* v : in) {
    if (!v) return std::nullopt;
    if (!first) first = v;
  }
  const std::size_t rank = first->shape.size();
  if (rank == 0) return std::nullopt;
  const std::int64_t axis = norm_axis(attr_i(node, "axis", 0), rank);
  if (axis < 0 || axis >= static_cast<std::int64_t>(rank)) return std::nullopt;
  const auto ax = static_cast<std::size_t>(axis);
  Shape shape = first->shape;
  shape[ax] = 0;
  for (const Value* v : in) {
    if (v->shape.size() != rank || v->dtype != first->dtype) return std::nullopt;
    for (std::size_t k = 0; k < rank; ++k)
      if (k != ax && v->shape[k] != first->shape[k]) return std::nullopt;
    shape[ax] += v->shape[ax];
  }
  if (!numel(shape)) return std::nullopt;
  std::int64_t outer = 1;
  for (std::size_t k = 0; k < ax; ++k) outer *= shape[k];
  Value out = make(first->dtype, shape);
  std::size_t w = 0;
  for (std::int64_t o = 0; o < outer; ++o) {
    for (const Value* v : in) {
      const std::int64_t block = v->size() / std::max<std::int64_t>(outer, 1);
      for (std::int64_t e = 0; e < block; ++e, ++w) {
        const std::int64_t at = o * block + e;
        if (out.floating()) out.f[w] = v->as_double(at); else out.i[w] = v->as_int(at);
      }
    }
  }
  return Outputs{out};
}

std::optional<Outputs> k_gather(const onnx::NodeProto& node, const Value& data, const Value& indices) {
  const std::size_t rank = data.shape.size();
  if (rank == 0 || indices.floating()) return std::nullopt;
  const std::int64_t axis = norm_axis(attr_i(node, "axis", 0), rank);
  if (axis < 0 || axis >= static_cast<std::int64_t>(rank)) return std::nullopt;
  const auto ax = static_cast<std::size_t>(axis);
  Shape shape(data.shape.begin(), data.shape.begin() + axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), data.shape.begin() + axis + 1, data.shape.end());
  if (!numel(shape)) return std::nullopt;
  const auto st = strides_of(data.shape);
  const std::size_t irank = indices.shape.size();
  std::vector<std::int64_t> map;
  bool ok = true;
  for_each_index(shape, [&](std::int64_t, const Shape& idx) {
    std::int64_t iflat = 0;
    for (std::size_t k = 0; k < irank; ++k) iflat = iflat * indices.shape[k] + idx[ax + k];
    std::int64_t j = indices.i[static_cast<std::size_t>(iflat)];
    if (j < 0) j += data.shape[ax];
    if (j < 0 || j >= data.shape[ax]) { ok = false; return; }
    std::int64_t s = 0;
    for (std::size_t k = 0; k < ax; ++k) s += idx[k] * st[k];
    s += j * st[ax];
    for (std::size_t k = ax + 1; k < rank; ++k) s += idx[k + irank - 1] * st[k];
    map.push_back(s);
  });
  if (!ok) return std::nullopt;
  return Outputs{take(data, shape, map)};
}

std::optional<std::vector<std::int64_t>> axes_of(const onnx::NodeProto& node, const Inputs& in, std::size_t input) {
  if (auto a = attr_ints(node, "axes")) return a;
  if (in.size() > input && in[input]) return ints_of(*in[input]);
  return std::nullopt;
}

std::optional<Outputs> k_unsqueeze(const onnx::NodeProto& node, const Inputs& in) {
  auto axes = axes_of(node, in, 1);
  if (!axes) return std::nullopt;
  const std::size_t rank = in[0]->shape.size() + axes->size();
  std::vector<bool> inserted(rank, false);
  for (std::int64_t a : *axes) {
    a = norm_axis(a, rank);
    if (a < 0 || a >= static_cast<std::int64_t>(rank) || inserted[static_cast<std::size_t>(a)]) return std::nullopt;
    inserted[static_cast<std::size_t>(a)] = true;
  }
  Value out = *in[0];
  out.shape.clear();
  std::size_t j = 0;
  for (std::size_t k = 0; k < rank; ++k) out.shape.push_back(inserted[k] ? 1 : in[0]->shape[j++]);
  return Outputs{out};
}

std::optional<Outputs> k_squeeze(const onnx::NodeProto& node, const Inputs& in) {
  const Shape& s = in[0]->shape;
  auto axes = axes_of(node, in, 1);
  std::vector<bool> drop(s.size(), false);
  if (!axes || axes->empty()) {
    for (std::size_t k = 0; k < s.size(); ++k) drop[k] = s[k] == 1;
  } else {
    for (std::int64_t a : *axes) {
      a = norm_axis(a, s.size());
      if (a < 0 || a >= static_cast<std::int64_t>(s.size()) || s[static_cast<std::size_t>(a)] != 1) return std::nullopt;
      drop[static_cast<std::size_t>(a)] = true;
    }
  }
  Value out = *in[0];
  out.shape.clear();
  for (std::size_t k = 0; k < s.size(); ++k)
    if (!drop[k]) out.shape.push_back(s[k]);
  return Outputs{out};
}

std::optional<Outputs> k_slice(const onnx::NodeProto& node, const Inputs& in, std::int64_t opset) {
  const Value& x = *in[0];
  std::vector<std::int64_t> starts, ends, axes, steps;
  if (opset < 10 || attr(node, "starts")) {
    starts = attr_ints(node, "starts").value_or(std::vector<std::int64_t>{});
    ends = attr_ints(node, "ends").value_or(std::vector<std::int64_t>{});
    axes = attr_ints(node, "axes").value_or(std::vector<std::int64_t>{});
  } else {
    if (in.size() < 3 || !in[1] || !in[2]) return std::nullopt;
    starts = ints_of(*in[1]);
    ends = ints_of(*in[2]);
    if (in.size() > 3 && in[3]) axes = ints_of(*in[3]);
    if (in.size() > 4 && in[4]) steps = ints_of(*in[4]);
  }
  const std::size_t rank = x.shape.size();
  if (starts.size() != ends.size()) return std::nullopt;
  if (axes.empty())
    for (std::size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<std::int64_t>(k));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size()) return std::nullopt;
  std::vector<std::int64_t> b(rank, 0), st(rank, 1);
  Shape shape = x.shape;
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const std::int64_t a = norm_axis(axes[k], rank);
    if (a < 0 || a >= static_cast<std::int64_t>(rank) || steps[k] == 0 ||
        steps[k] == std::numeric_limits<std::int64_t>::min())
      return std::nullopt;
    const auto ax = static_cast<std::size_t>(a);
    const std::int64_t dim = x.shape[ax];
    const std::int64_t step = steps[k];
    std::int64_t s = starts[k], e = ends[k];
    if (s < 0) s += dim;
    if (e < 0 && e > std::numeric_limits<std::int64_t>::min() / 2) e += dim;
    if (step > 0) {
      s = std::clamp<std::int64_t>(s, 0, dim);
      e = std::clamp<std::int64_t>(e, 0, dim);
      shape[ax] = e > s ? (e - s - 1) / step + 1 : 0;
    } else {
      s = std::clamp<std::int64_t>(s, -1, dim - 1);
      e = std::clamp<std::int64_t>(e, -1, dim - 1);
      shape[ax] = s > e ? (s - e - 1) / (-step) + 1 : 0;
    }
    b[ax] = s;
    st[ax] = step;
  }
  if (!numel(shape)) return std::nullopt;
  const auto xs = strides_of(x.shape);
  std::vector<std::int64_t> map;
  for_each_index(shape, [&](std::int64_t, const Shape& idx) {
    std::int64_t s = 0;
    for (std::size_t k = 0; k < rank; ++k) s += (b[k] + idx[k] * st[k]) * xs[k];
    map.push_back(s);
  });
  return Outputs{take(x, shape, map)};
}

std::optional<Outputs> k_reshape(const onnx::NodeProto& node, const Value& x, const Value& target) {
  std::vector<std::int64_t> t = ints_of(target);
  const bool allowzero = attr_i(node, "allowzero", 0) != 0;
  std::int64_t known = 1;
  int infer = -1;
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (t[k] == 0 && !allowzero) {
      if (k >= x.shape.size()) return std::nullopt;
      t[k] = x.shape[k];
    }
    if (t[k] == -1) {
      if (infer >= 0) return std::nullopt;
      infer = static_cast<int>(k);
    } else if (t[k] < 0) {
      return std::nullopt;
    } else {
      if (t[k] > kMaxFoldElements) return std::nullopt;
      known *= t[k];
      if (known > kMaxFoldElements) return std::nullopt;
    }
  }
  if (infer >= 0) {
    if (known == 0) return std::nullopt;
    t[static_cast<std::size_t>(infer)] = x.size() / known;
  }
  if (numel(t).value_or(-1) != x.size()) return std::nullopt;
  Value out = x;
  out.shape = t;
  return Outputs{out};
}

std::optional<Outputs> k_expand(const Value& x, const Value& target) {
  const Shape t = ints_of(target);
  auto shape = broadcast_shape({&x.shape, &t});
  if (!shape) return std::nullopt;
  return Outputs{take(x, *shape, broadcast_map(*shape, x.shape))};
}

std::optional<Outputs> k_tile(const Value& x, const Value& reps_v) {
  const auto reps = ints_of(reps_v);
  if (reps.size() != x.shape.size()) return std::nullopt;
  Shape shape = x.shape;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (reps[k] < 0 || reps[k] > kMaxFoldElements) return std::nullopt;
    shape[k] *= reps[k];  // both <= 2^22: no overflow; numel() below bounds the product
  }
  if (!numel(shape)) return std::nullopt;
  const auto xs = strides_of(x.shape);
  std::vector<std::int64_t> map;
  for_each_index(shape, [&](std::int64_t, const Shape& idx) {
    std::int64_t s = 0;
    for (std::size_t k = 0; k < shape.size(); ++k) s += (idx[k] % x.shape[k]) * xs[k];
    map.push_back(s);
  });
  return Outputs{take(x, shape, map)};
}

std::optional<Outputs> k_transpose(const onnx::NodeProto& node, const Value& x) {
  const std::size_t rank = x.shape.size();
  std::vector<std::int64_t> perm = attr_ints(node, "perm").value_or(std::vector<std::int64_t>{});
  if (perm.empty())
    for (std::size_t k = rank; k-- > 0;) perm.push_back(static_cast<std::int64_t>(k));
  if (perm.size() != rank) return std::nullopt;
  Shape shape(rank);
  for (std::size_t k = 0; k < rank; ++k) {
    if (perm[k] < 0 || perm[k] >= static_cast<std::int64_t>(rank)) return std::nullopt;
    shape[k] = x.shape[static_cast<std::size_t>(perm[k])];
  }
  const auto xs = strides_of(x.shape);
  std::vector<std::int64_t> map;
  for_each_index(shape, [&](std::int64_t, const Shape& idx) {
    std::int64_t s = 0;
    for (std::size_t k = 0; k < rank; ++k) s += idx[k] * xs[static_cast<std::size_t>(perm[k])];
    map.push_back(s);
  });
  return Outputs{take(x, shape, map)};
}

std::optional<Outputs> k_range(const Inputs& in) {
  if (in.size() != 3 || !in[0] || !in[1] || !in[2]) return std::nullopt;
  const Value& s = *in[0];
  if (s.size() != 1 || in[1]->size() != 1 || in[2]->size() != 1) return std::nullopt;
  const double start = s.as_double(0), limit = in[1]->as_double(0), delta = in[2]->as_double(0);
  if (delta == 0) return std::nullopt;
  const double count = std::max(std::ceil((limit - start) / delta), 0.0);
  if (count > static_cast<double>(kMaxFoldElements)) return std::nullopt;
  Value out = make(s.dtype, Shape{static_cast<std::int64_t>(count)});
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(count); ++k) {
    const auto u = static_cast<std::size_t>(k);
    if (out.floating()) out.f[u] = start + static_cast<double>(k) * delta;
    else out.i[u] = wrap_add(s.as_int(0), wrap_mul(k, in[2]->as_int(0)));
  }
  normalize(out);
  return Outputs{out};
}

std::optional<Outputs> k_constant_of_shape(const onnx::NodeProto& node, const Value& shape_v) {
  const Shape shape = ints_of(shape_v);
  if (!numel(shape)) return std::nullopt;
  Value fill = make(DType::Float32, {});
  if (const auto* a = attr(node, "value")) {
    auto v = decode(a->t());
    if (!v || v->size() != 1) return std::nullopt;
    fill = *v;
  } else {
    fill.f = {0.0};
  }
  Value out = make(fill.dtype, shape);
  if (out.floating()) std::fill(out.f.begin(), out.f.end(), fill.f[0]);
  else std::fill(out.i.begin(), out.i.end(), fill.i[0]);
  return Outputs{out};
}

std::optional<Outputs> k_reduce(const std::string& op, const onnx::NodeProto& node, const Inputs& in) {
  const Value& x = *in[0];
  const std::size_t rank = x.shape.size();
  auto axes = axes_of(node, in, 1);
  const bool keep = attr_i(node, "keepdims", 1) != 0;
  std::vector<bool> red(rank, false);
  if (!axes || axes->empty()) {
    if (attr_i(node, "noop_with_empty_axes", 0) != 0) return Outputs{x};
    std::fill(red.begin(), red.end(), true);
  } else {
    for (std::int64_t a : *axes) {
      a = norm_axis(a, rank);
      if (a < 0 || a >= static_cast<std::int64_t>(rank)) return std::nullopt;
      red[static_cast<std::size_t>(a)] = true;
    }
  }
  Shape kept_shape(rank);
  for (std::size_t k = 0; k < rank; ++k) kept_shape[k] = red[k] ? 1 : x.shape[k];
  const auto os = strides_of(kept_shape);
  const std::int64_t n_out = numel(kept_shape).value_or(0);
  if (x.size() == 0) return std::nullopt;
  std::vector<double> acc(static_cast<std::size_t>(n_out), op == "ReduceProd" ? 1.0 : 0.0);
  std::vector<bool> first(static_cast<std::size_t>(n_out), true);
  std::int64_t group = x.size() / std::max<std::int64_t>(n_out, 1);
  for_each_index(x.shape, [&](std::int64_t flat, const Shape& idx) {
    std::int64_t o = 0;
    for (std::size_t k = 0; k < rank; ++k) o += (red[k] ? 0 : idx[k]) * os[k];
    const auto u = static_cast<std::size_t>(o);
    const double v = x.as_double(flat);
    if (op == "ReduceSum" || op == "ReduceMean") acc[u] += v;
    else if (op == "ReduceProd") acc[u] *= v;
    else if (op == "ReduceMax") acc[u] = first[u] ? v : std::max(acc[u], v);
    else if (op == "ReduceMin") acc[u] = first[u] ? v : std::min(acc[u], v);
    first[u] = false;
  });
  Shape shape;
  for (std::size_t k = 0; k < rank; ++k)
    if (!red[k] || keep) shape.push_back(kept_shape[k]);
  Value out = make(x.dtype, shape);
  for (std::size_t k = 0; k < acc.size(); ++k) {
    const double v = op == "ReduceMean" ? acc[k] / static_cast<double>(group) : acc[k];
    if (out.floating()) out.f[k] = v; else out.i[k] = saturate(v);
  }
  normalize(out);
  return Outputs{out};
}

std::optional<Outputs> k_flatten(const onnx::NodeProto& node, const Value& x) {
  const std::int64_t axis = norm_axis(attr_i(node, "axis", 1), x.shape.size());
  if (axis < 0 || axis > static_cast<std::int64_t>(x.shape.size())) return std::nullopt;
  std::int64_t a = 1, b = 1;
  for (std::size_t k = 0; k < x.shape.size(); ++k) (static_cast<std::int64_t>(k) < axis ? a : b) *= x.shape[k];
  Value out = x;
  out.shape = {a, b};
  return Outputs{out};
}

// Operators evaluate() implements (the folder only touches these).
bool has_kernel(const std::string& op) {
  static const std::unordered_set<std::string> kOps = {
      "Shape", "Size", "Identity", "Cast", "Concat", "Where", "Range", "ConstantOfShape", "Unsqueeze", "Squeeze",
      "Slice", "Transpose", "Flatten", "ReduceProd", "ReduceSum", "ReduceMin", "ReduceMax", "ReduceMean", "Gather",
      "Reshape", "Expand", "Tile", "Add", "Sub", "Mul", "Div", "Pow", "Mod", "Max", "Min", "Sum", "Equal", "Less",
      "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "Not", "Neg", "Abs", "Sign", "Relu", "Sqrt",
      "Exp", "Log", "Reciprocal", "Floor", "Ceil", "Round", "Sigmoid", "Tanh", "Erf"};
  return kOps.count(op) > 0;
}

// Bytes of an external initializer small enough to fold, or nullopt (absent, short, too big,
// outside the model's folder: the importer has already refused the last two with a message).
std::optional<std::string> read_external(const onnx::TensorProto& t, const std::string& model_dir) {
  const DType dtype = dtype_from_onnx(t.data_type());
  const auto count = numel(Shape(t.dims().begin(), t.dims().end()));
  if (!count || dtype_size(dtype) == 0) return std::nullopt;
  const auto want = static_cast<std::int64_t>(static_cast<std::size_t>(*count) * dtype_size(dtype));
  const auto w = external_weight(t, model_dir);
  if (!w || w->external_path.empty()) return std::nullopt;
  auto bytes = read_external_data(*w, want, t.name());
  if (!bytes) return std::nullopt;
  return std::string(bytes->begin(), bytes->end());
}

// Evaluates node on constant inputs. Shape and Size read `static_shape` of input 0 instead.
std::optional<Outputs> evaluate(const onnx::NodeProto& node, const Inputs& in, const Shape* static_shape,
                                std::int64_t opset) {
  const std::string& op = node.op_type();
  if (op == "Shape" || op == "Size") {
    if (!static_shape) return std::nullopt;
    const Shape& s = *static_shape;
    if (op == "Size") {
      Value out = make(DType::Int64, {});
      out.i[0] = numel(s).value_or(-1);
      if (out.i[0] < 0) {
        std::int64_t n = 1;
        for (std::int64_t d : s) n = wrap_mul(n, d);
        out.i[0] = n;
      }
      return Outputs{out};
    }
    const auto rank = static_cast<std::int64_t>(s.size());
    std::int64_t b = attr_i(node, "start", 0), e = attr_i(node, "end", rank);
    if (b < 0) b += rank;
    if (e < 0) e += rank;
    b = std::clamp<std::int64_t>(b, 0, rank);
    e = std::clamp<std::int64_t>(e, 0, rank);
    Value out = make(DType::Int64, {std::max<std::int64_t>(e - b, 0)});
    for (std::int64_t k = b; k < e; ++k) out.i[static_cast<std::size_t>(k - b)] = s[static_cast<std::size_t>(k)];
    return Outputs{out};
  }
  if (in.empty() || !in[0]) return std::nullopt;
  if (op == "Identity") return Outputs{*in[0]};
  if (op == "Cast") return k_cast(node, *in[0]);
  if (op == "Concat") return k_concat(node, in);
  if (op == "Where") return k_where(in);
  if (op == "Range") return k_range(in);
  if (op == "ConstantOfShape") return k_constant_of_shape(node, *in[0]);
  if (op == "Unsqueeze") return k_unsqueeze(node, in);
  if (op == "Squeeze") return k_squeeze(node, in);
  if (op == "Slice") return k_slice(node, in, opset);
  if (op == "Transpose") return k_transpose(node, *in[0]);
  if (op == "Flatten") return k_flatten(node, *in[0]);
  if (op == "ReduceProd" || op == "ReduceSum" || op == "ReduceMin" || op == "ReduceMax" || op == "ReduceMean")
    return k_reduce(op, node, in);
  if (op == "Gather" || op == "Reshape" || op == "Expand" || op == "Tile") {
    if (in.size() < 2 || !in[1]) return std::nullopt;
    if (op == "Gather") return k_gather(node, *in[0], *in[1]);
    if (op == "Reshape") return k_reshape(node, *in[0], *in[1]);
    if (op == "Expand") return k_expand(*in[0], *in[1]);
    return k_tile(*in[0], *in[1]);
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow" || op == "Mod" || op == "Max" ||
      op == "Min" || op == "Sum" || is_compare(op) || is_logic(op))
    return k_binary(op, node, in);
  if (in.size() == 1) return k_unary(op, *in[0]);
  return std::nullopt;
}

void collect_outer(const onnx::GraphProto& g, std::set<std::string>& outer) {
  std::unordered_set<std::string> local;
  for (const auto& v : g.input()) local.insert(v.name());
  for (const auto& t : g.initializer()) local.insert(t.name());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) local.insert(o);
  for (const auto& n : g.node()) {
    for (const auto& i : n.input())
      if (!i.empty() && !local.count(i)) outer.insert(i);
    std::set<std::string> nested;
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_outer(a.g(), nested);
      for (const auto& sg : a.graphs()) collect_outer(sg, nested);
    }
    for (const auto& i : nested)
      if (!local.count(i)) outer.insert(i);
  }
  for (const auto& o : g.output())
    if (!local.count(o.name())) outer.insert(o.name());
}

std::optional<Shape> static_shape_of(const onnx::TypeProto& t) {
  if (!t.has_tensor_type() || !t.tensor_type().has_shape()) return std::nullopt;
  Shape s;
  for (const auto& d : t.tensor_type().shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) return std::nullopt;
    s.push_back(d.dim_value());
  }
  return s;
}

}  // namespace

std::vector<std::string> outer_scope_inputs(const onnx::NodeProto& node) {
  std::set<std::string> outer;
  for (const auto& a : node.attribute()) {
    if (a.has_g()) collect_outer(a.g(), outer);
    for (const auto& sg : a.graphs()) collect_outer(sg, outer);
  }
  return {outer.begin(), outer.end()};
}

namespace {

// Inlines If nodes whose condition is an in-memory initializer: the chosen branch's nodes and
// initializers take the If's place (branch outputs renamed to the If's outputs). Skipped when a
// branch name would clash with an outer one. Returns the number of If nodes inlined.
std::int64_t inline_constant_ifs(onnx::GraphProto& graph, std::vector<std::string>& warnings) {
  std::int64_t count = 0;
  for (int k = 0; k < graph.node_size(); ++k) {
    const onnx::NodeProto& node = graph.node(k);
    if (node.op_type() != "If" || !(node.domain().empty() || node.domain() == "ai.onnx") || node.input_size() < 1)
      continue;
    const onnx::TensorProto* cond_t = nullptr;
    for (const auto& t : graph.initializer())
      if (t.name() == node.input(0)) cond_t = &t;
    if (!cond_t) continue;
    auto cond = decode(*cond_t);
    if (!cond || cond->size() != 1) continue;
    const bool taken = cond->floating() ? cond->f[0] != 0.0 : cond->i[0] != 0;
    const onnx::AttributeProto* a = attr(node, taken ? "then_branch" : "else_branch");
    if (!a || !a->has_g() || a->g().output_size() != node.output_size()) continue;
    onnx::GraphProto body = a->g();

    std::unordered_set<std::string> outer;
    for (const auto& v : graph.input()) outer.insert(v.name());
    for (const auto& t : graph.initializer()) outer.insert(t.name());
    for (const auto& n : graph.node())
      for (const auto& o : n.output()) outer.insert(o);
    std::unordered_set<std::string> produced;
    bool clash = false;
    for (const auto& t : body.initializer()) clash |= outer.count(t.name()) > 0;
    for (const auto& n : body.node())
      for (const auto& o : n.output()) {
        if (o.empty()) continue;
        clash |= outer.count(o) > 0;
        produced.insert(o);
      }
    if (clash) continue;

    std::unordered_map<std::string, std::string> rename;
    std::vector<onnx::NodeProto> copies;
    for (int j = 0; j < body.output_size(); ++j) {
      const std::string& from = body.output(j).name();
      const std::string& to = node.output(j);
      if (to.empty()) continue;
      if (produced.count(from) && !rename.count(from)) {
        rename.emplace(from, to);
        continue;
      }
      onnx::NodeProto id;  // an outer tensor, initializer or repeated output: copy it
      id.set_op_type("Identity");
      id.set_name(node.name() + "/output_" + std::to_string(j));
      id.add_input(rename.count(from) ? rename.at(from) : from);
      id.add_output(to);
      copies.push_back(std::move(id));
    }
    bool nested_reads_renamed = false;
    for (const auto& n : body.node())
      for (const auto& name : outer_scope_inputs(n)) nested_reads_renamed |= rename.count(name) > 0;
    if (nested_reads_renamed) continue;
    for (auto& n : *body.mutable_node()) {
      for (auto& i : *n.mutable_input())
        if (auto r = rename.find(i); r != rename.end()) i = r->second;
      for (auto& o : *n.mutable_output())
        if (auto r = rename.find(o); r != rename.end()) o = r->second;
    }

    warnings.push_back("If node '" + node.name() + "' inlined: its condition is constant (" +
                       (taken ? "then_branch" : "else_branch") + ")");
    for (auto& t : *body.mutable_initializer()) *graph.add_initializer() = std::move(t);
    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    for (int j = 0; j < k; ++j) *nodes.Add() = graph.node(j);
    for (auto& n : *body.mutable_node()) *nodes.Add() = std::move(n);
    for (auto& n : copies) *nodes.Add() = std::move(n);
    for (int j = k + 1; j < graph.node_size(); ++j) *nodes.Add() = graph.node(j);
    graph.mutable_node()->Swap(&nodes);
    ++count;
    --k;  // look at what now sits at k (the inlined nodes may hold another If)
  }
  return count;
}

FoldResult fold_values(onnx::GraphProto& graph, std::int64_t opset, const std::string& model_dir);

}  // namespace

FoldResult fold_round(onnx::GraphProto& graph, std::int64_t opset, const std::string& model_dir) {
  FoldResult result = fold_values(graph, opset, model_dir);
  result.folded += inline_constant_ifs(graph, result.warnings);
  return result;
}

namespace {

FoldResult fold_values(onnx::GraphProto& graph, std::int64_t opset, const std::string& model_dir) {
  FoldResult result;
  std::unordered_map<std::string, Shape> shapes;
  std::unordered_map<std::string, std::int32_t> elem_types;
  auto offer = [&](const onnx::ValueInfoProto& vi) {
    if (auto s = static_shape_of(vi.type())) shapes.emplace(vi.name(), std::move(*s));
    if (vi.type().has_tensor_type() && vi.type().tensor_type().elem_type() != 0)
      elem_types.emplace(vi.name(), vi.type().tensor_type().elem_type());
  };
  for (const auto& vi : graph.input()) offer(vi);
  for (const auto& vi : graph.value_info()) offer(vi);
  for (const auto& vi : graph.output()) offer(vi);

  std::unordered_map<std::string, const onnx::TensorProto*> inits;
  for (const auto& t : graph.initializer()) {
    inits.emplace(t.name(), &t);
    shapes[t.name()] = Shape(t.dims().begin(), t.dims().end());
  }
  std::unordered_set<std::string> graph_outputs;
  for (const auto& o : graph.output()) graph_outputs.insert(o.name());

  std::unordered_map<std::string, Value> values;   // decoded initializers and folded outputs
  std::unordered_set<std::string> not_constant;    // initializers that cannot be decoded
  // Weights whose bytes are nowhere (external file absent, or no data at all): their shape is
  // known, their values are not. Folded outputs over them stay data-less weights too.
  std::unordered_map<std::string, std::int32_t> dataless;
  auto classify = [&](const std::string& name) {
    // 0: not constant, 1: has a value (or can be decoded), 2: a weight without data.
    if (values.count(name)) return 1;
    if (dataless.count(name)) return 2;
    if (not_constant.count(name)) return 0;
    auto it = inits.find(name);
    if (it == inits.end()) return 0;
    const onnx::TensorProto& t = *it->second;
    if (!is_external(t) && !has_inline_data(t)) {
      dataless.emplace(name, t.data_type());
      return 2;
    }
    if (is_external(t)) {
      const auto w = external_weight(t, model_dir);
      std::error_code ec;
      if (!w || w->external_path.empty() || !std::filesystem::is_regular_file(w->external_path, ec)) {
        dataless.emplace(name, t.data_type());
        return 2;
      }
    }
    return numel(Shape(t.dims().begin(), t.dims().end())) && supported_dtype(dtype_from_onnx(t.data_type())) ? 1 : 0;
  };
  auto value_of = [&](const std::string& name) -> const Value* {
    if (auto it = values.find(name); it != values.end()) return &it->second;
    if (not_constant.count(name) || dataless.count(name)) return nullptr;
    auto it = inits.find(name);
    if (it == inits.end()) return nullptr;
    std::optional<Value> v;
    if (is_external(*it->second)) {
      // External data is read only here, for a weight-only subgraph small enough to evaluate.
      auto bytes = read_external(*it->second, model_dir);
      if (bytes) {
        onnx::TensorProto copy;
        copy.set_data_type(it->second->data_type());
        copy.mutable_dims()->CopyFrom(it->second->dims());
        copy.set_raw_data(std::move(*bytes));
        v = decode(copy);
      }
    } else {
      v = decode(*it->second);
    }
    if (!v) {
      not_constant.insert(name);
      return nullptr;
    }
    return &values.emplace(name, std::move(*v)).first->second;
  };

  const int n = graph.node_size();
  std::vector<bool> folded(static_cast<std::size_t>(n), false);
  // Sweep in file order until nothing changes, so folds chain within one round even in an
  // unsorted file; shape inference between rounds exposes new static shapes.
  for (bool changed = true; changed;) {
    changed = false;
    for (int k = 0; k < n; ++k) {
      if (folded[static_cast<std::size_t>(k)]) continue;
      const onnx::NodeProto& node = graph.node(k);
      if (!(node.domain().empty() || node.domain() == "ai.onnx")) continue;
      if (!has_kernel(node.op_type()) || node.output_size() == 0) continue;
      bool eligible = true;
      for (const auto& o : node.output())
        if (o.empty() || graph_outputs.count(o) || values.count(o) || dataless.count(o)) eligible = false;
      for (const auto& a : node.attribute())
        if (a.has_g() || a.graphs_size() > 0) eligible = false;
      if (!eligible) continue;

      Inputs in;
      const Shape* static_shape = nullptr;
      if (node.op_type() == "Shape" || node.op_type() == "Size") {
        if (node.input_size() < 1) continue;
        // Never fold the shape of a tensor whose shape is not fully known.
        if (auto it = values.find(node.input(0)); it != values.end()) static_shape = &it->second.shape;
        else if (auto st = shapes.find(node.input(0)); st != shapes.end()) static_shape = &st->second;
        if (!static_shape) continue;
      } else {
        if (node.input_size() == 0) continue;
        int worst = 1;
        for (const auto& name : node.input()) {
          if (name.empty()) continue;
          const int c = classify(name);
          if (c == 0) { worst = 0; break; }
          worst = std::max(worst, c);
        }
        if (worst == 0) continue;
        if (worst == 2) {
          // A weight-only subgraph over weights without bytes: fold it by shape, as a runtime
          // would fold it by value, so the graph does not depend on whether weights are present.
          bool known = true;
          for (const auto& o : node.output())
            if (!shapes.count(o) || !elem_types.count(o) || !numel(shapes.at(o))) known = false;
          if (!known) continue;
          for (const auto& o : node.output()) dataless.emplace(o, elem_types.at(o));
          result.warnings.push_back("node '" + node.name() + "' (" + node.op_type() +
                                    ") folded over weights without data; its output has no bytes");
          folded[static_cast<std::size_t>(k)] = true;
          ++result.folded;
          changed = true;
          continue;
        }
        bool all = true;
        for (const auto& name : node.input()) {
          if (name.empty()) { in.push_back(nullptr); continue; }
          const Value* v = value_of(name);
          if (!v) { all = false; break; }
          in.push_back(v);
        }
        if (!all) continue;
      }
      std::optional<Outputs> out;
      try {
        out = evaluate(node, in, static_shape, opset);
      } catch (const std::exception&) {
        out.reset();  // an allocation failure on a hostile shape: leave the node in place
      }
      if (!out || out->size() != static_cast<std::size_t>(node.output_size())) continue;
      for (std::size_t j = 0; j < out->size(); ++j) values.emplace(node.output(static_cast<int>(j)), std::move((*out)[j]));
      folded[static_cast<std::size_t>(k)] = true;
      ++result.folded;
      changed = true;
    }
  }
  if (result.folded == 0) return result;

  // What the remaining graph still reads: node inputs, subgraph reads, graph outputs.
  std::unordered_set<std::string> read;
  for (int k = 0; k < n; ++k) {
    if (folded[static_cast<std::size_t>(k)]) continue;
    for (const auto& i : graph.node(k).input()) read.insert(i);
    for (auto& i : outer_scope_inputs(graph.node(k))) read.insert(std::move(i));
  }
  for (const auto& o : graph.output()) read.insert(o.name());

  // Drop initializers only the folded nodes read; keep ones the file left unused.
  std::unordered_set<std::string> read_by_folded;
  for (int k = 0; k < n; ++k)
    if (folded[static_cast<std::size_t>(k)])
      for (const auto& i : graph.node(k).input()) read_by_folded.insert(i);
  auto* initializers = graph.mutable_initializer();
  int keep = 0;
  for (int k = 0; k < initializers->size(); ++k) {
    const std::string& name = initializers->Get(k).name();
    if (read_by_folded.count(name) && !read.count(name)) continue;
    if (keep != k) initializers->SwapElements(keep, k);
    ++keep;
  }
  while (initializers->size() > keep) initializers->RemoveLast();

  std::vector<onnx::TensorProto> produced;
  for (int k = 0; k < n; ++k) {
    if (!folded[static_cast<std::size_t>(k)]) continue;
    for (const auto& o : graph.node(k).output()) {
      if (!read.count(o)) continue;
      if (auto v = values.find(o); v != values.end()) {
        produced.push_back(encode(v->second, o));
        continue;
      }
      // A data-less folded weight: external, with no location, like the weights it came from.
      onnx::TensorProto t;
      t.set_name(o);
      t.set_data_type(dataless.at(o));
      for (std::int64_t d : shapes.at(o)) t.add_dims(d);
      t.set_data_location(onnx::TensorProto::EXTERNAL);
      produced.push_back(std::move(t));
    }
  }
  for (auto& t : produced) *graph.add_initializer() = std::move(t);

  auto* nodes = graph.mutable_node();
  keep = 0;
  for (int k = 0; k < n; ++k) {
    if (folded[static_cast<std::size_t>(k)]) continue;
    if (keep != k) nodes->SwapElements(keep, k);
    ++keep;
  }
  while (nodes->size() > keep) nodes->RemoveLast();
  return result;
}

}  // namespace
}  // namespace weft::core::detail
