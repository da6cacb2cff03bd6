#include "weft/core/proto/onnx_proto_util.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <climits>
#include <cstring>
#include <limits>
#include <optional>

#include "weft/core/proto/external_data.h"
#include "weft/core/base/tensor_size.h"

namespace weft::core::detail {

Status parse_model(std::string_view bytes, const std::string& path, onnx::ModelProto& model) {
  if (bytes.empty()) return make_error(ErrorKind::InvalidInput, path + ": the file is empty, not an ONNX model");
  if (bytes.size() > static_cast<std::size_t>(INT_MAX))
    return make_error(ErrorKind::InvalidInput, path + ": the file is larger than 2 GB, the protobuf limit for one ONNX model file");
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&raw);
  // The default total-bytes limit is far below 2 GB; raise it so large models parse.
  coded.SetTotalBytesLimit(INT_MAX);
  bool ok = false;
  try {
    ok = model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  } catch (const std::exception& e) {
    return make_error(ErrorKind::InvalidInput, path + ": not a valid ONNX protobuf: " + e.what());
  }
  if (!ok) return make_error(ErrorKind::InvalidInput, path + ": not a valid ONNX protobuf (truncated or corrupt file)");
  if (!model.has_graph()) return make_error(ErrorKind::InvalidInput, path + ": not an ONNX model: it holds no graph");
  if (model.graph().node_size() == 0 && model.graph().input_size() == 0 && model.graph().output_size() == 0)
    return make_error(ErrorKind::InvalidInput, path + ": not an ONNX model: its graph is empty");
  return {};
}

DType dtype_from_onnx(std::int32_t onnx_type) {
  switch (onnx_type) {
    case onnx::TensorProto::FLOAT: return DType::Float32;
    case onnx::TensorProto::UINT8: return DType::UInt8;
    case onnx::TensorProto::INT8: return DType::Int8;
    case onnx::TensorProto::UINT16: return DType::UInt16;
    case onnx::TensorProto::INT16: return DType::Int16;
    case onnx::TensorProto::INT32: return DType::Int32;
    case onnx::TensorProto::INT64: return DType::Int64;
    case onnx::TensorProto::STRING: return DType::String;
    case onnx::TensorProto::BOOL: return DType::Bool;
    case onnx::TensorProto::FLOAT16: return DType::Float16;
    case onnx::TensorProto::DOUBLE: return DType::Float64;
    case onnx::TensorProto::UINT32: return DType::UInt32;
    case onnx::TensorProto::UINT64: return DType::UInt64;
    case onnx::TensorProto::BFLOAT16: return DType::BFloat16;
    default: return DType::Undefined;
  }
}

bool is_external(const onnx::TensorProto& t) {
  return t.data_location() == onnx::TensorProto::EXTERNAL;
}

namespace {

// A non-negative decimal integer, or nullopt (signs, spaces, junk and overflow are refused).
std::optional<std::int64_t> parse_count(const std::string& text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  std::int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace

Expected<WeightData> external_weight(const onnx::TensorProto& t, const std::string& model_dir) {
  ExternalDataRef ref;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") {
      ref.location = kv.value();
    } else if (kv.key() == "offset" || kv.key() == "length") {
      const auto v = parse_count(kv.value());
      if (!v)
        return make_error(ErrorKind::InvalidInput, "tensor '" + t.name() + "': external data " + kv.key() + " '" +
                                                       kv.value() + "' is not a byte count");
      (kv.key() == "offset" ? ref.offset : ref.length) = *v;
    }
  }
  return resolve_external_data(ref, model_dir, byte_count(t), t.name());
}

std::int64_t element_count(const onnx::TensorProto& t) {
  const std::vector<std::int64_t> dims(t.dims().begin(), t.dims().end());
  return checked_elements(dims).value_or(-1);
}

std::int64_t byte_count(const onnx::TensorProto& t) {
  const std::size_t es = dtype_size(dtype_from_onnx(t.data_type()));
  if (es == 0) return -1;
  const std::vector<std::int64_t> dims(t.dims().begin(), t.dims().end());
  const auto n = checked_elements(dims, es);
  return n ? *n * static_cast<std::int64_t>(es) : -1;
}

bool has_inline_data(const onnx::TensorProto& t) {
  if (is_external(t)) return false;
  if (t.has_raw_data()) return true;
  if (element_count(t) == 0) return true;
  return t.float_data_size() > 0 || t.int32_data_size() > 0 || t.int64_data_size() > 0 ||
         t.double_data_size() > 0 || t.uint64_data_size() > 0;
}

namespace {

template <class Field, class Out>
void copy_as(const Field& field, std::vector<std::uint8_t>& out) {
  out.resize(static_cast<std::size_t>(field.size()) * sizeof(Out));
  std::size_t off = 0;
  for (const auto& v : field) {
    const Out x = static_cast<Out>(v);
    std::memcpy(out.data() + off, &x, sizeof(Out));
    off += sizeof(Out);
  }
}

}  // namespace

bool tensor_bytes(const onnx::TensorProto& t, std::vector<std::uint8_t>& out, std::string& why) {
  out.clear();
  const DType dtype = dtype_from_onnx(t.data_type());
  const std::size_t es = dtype_size(dtype);
  if (es == 0) {
    why = "data type " + std::to_string(t.data_type()) + " is not supported";
    return false;
  }
  if (is_external(t)) {
    why = "its data is external";
    return false;
  }
  const std::int64_t n = element_count(t);
  if (n < 0 || byte_count(t) < 0) {
    why = "its shape is invalid (a negative dimension, or a size that overflows)";
    return false;
  }
  const auto want = static_cast<std::size_t>(byte_count(t));
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    if (raw.size() != want) {
      why = "raw_data holds " + std::to_string(raw.size()) + " bytes, its shape needs " + std::to_string(want);
      return false;
    }
    out.assign(raw.begin(), raw.end());
    return true;
  }
  if (n == 0) return true;
  std::int64_t have = 0;
  switch (dtype) {
    case DType::Float32: have = t.float_data_size(); copy_as<decltype(t.float_data()), float>(t.float_data(), out); break;
    case DType::Float64: have = t.double_data_size(); copy_as<decltype(t.double_data()), double>(t.double_data(), out); break;
    case DType::Int64: have = t.int64_data_size(); copy_as<decltype(t.int64_data()), std::int64_t>(t.int64_data(), out); break;
    case DType::Int32: have = t.int32_data_size(); copy_as<decltype(t.int32_data()), std::int32_t>(t.int32_data(), out); break;
    case DType::Int16: have = t.int32_data_size(); copy_as<decltype(t.int32_data()), std::int16_t>(t.int32_data(), out); break;
    case DType::Int8: have = t.int32_data_size(); copy_as<decltype(t.int32_data()), std::int8_t>(t.int32_data(), out); break;
    case DType::UInt16: case DType::Float16: case DType::BFloat16:
      // float16 / bfloat16 are stored as their bit patterns in int32_data.
      have = t.int32_data_size(); copy_as<decltype(t.int32_data()), std::uint16_t>(t.int32_data(), out); break;
    case DType::UInt8: have = t.int32_data_size(); copy_as<decltype(t.int32_data()), std::uint8_t>(t.int32_data(), out); break;
    case DType::Bool:
      have = t.int32_data_size();
      out.resize(static_cast<std::size_t>(have));
      for (int k = 0; k < t.int32_data_size(); ++k) out[static_cast<std::size_t>(k)] = t.int32_data(k) != 0 ? 1 : 0;
      break;
    case DType::UInt32: have = t.uint64_data_size(); copy_as<decltype(t.uint64_data()), std::uint32_t>(t.uint64_data(), out); break;
    case DType::UInt64: have = t.uint64_data_size(); copy_as<decltype(t.uint64_data()), std::uint64_t>(t.uint64_data(), out); break;
    case DType::String: case DType::Undefined: break;
  }
  if (have == 0) {
    out.clear();
    why = "it holds no data";
    return false;
  }
  if (have != n) {
    out.clear();
    why = "it holds " + std::to_string(have) + " values, its shape needs " + std::to_string(n);
    return false;
  }
  return true;
}

Attribute attribute_from_onnx(const onnx::AttributeProto& a) {
  Attribute r;
  r.name = a.name();
  auto type = a.type();
  if (type == onnx::AttributeProto::UNDEFINED) {
    // Pre-IR-3 files omit the type; infer it from the field that is set.
    if (a.has_f()) type = onnx::AttributeProto::FLOAT;
    else if (a.has_i()) type = onnx::AttributeProto::INT;
    else if (a.has_s()) type = onnx::AttributeProto::STRING;
    else if (a.has_t()) type = onnx::AttributeProto::TENSOR;
    else if (a.has_g()) type = onnx::AttributeProto::GRAPH;
    else if (a.floats_size()) type = onnx::AttributeProto::FLOATS;
    else if (a.ints_size()) type = onnx::AttributeProto::INTS;
    else if (a.strings_size()) type = onnx::AttributeProto::STRINGS;
    else if (a.graphs_size()) type = onnx::AttributeProto::GRAPHS;
  }
  switch (type) {
    case onnx::AttributeProto::FLOAT: r.type = Attribute::Type::Float; r.f = a.f(); break;
    case onnx::AttributeProto::INT: r.type = Attribute::Type::Int; r.i = a.i(); break;
    case onnx::AttributeProto::STRING: r.type = Attribute::Type::String; r.s = a.s(); break;
    case onnx::AttributeProto::FLOATS: r.type = Attribute::Type::Floats; r.floats.assign(a.floats().begin(), a.floats().end()); break;
    case onnx::AttributeProto::INTS: r.type = Attribute::Type::Ints; r.ints.assign(a.ints().begin(), a.ints().end()); break;
    case onnx::AttributeProto::STRINGS: r.type = Attribute::Type::Strings; r.strings.assign(a.strings().begin(), a.strings().end()); break;
    case onnx::AttributeProto::TENSOR: {
      r.type = Attribute::Type::Tensor;
      r.tensor_dtype = dtype_from_onnx(a.t().data_type());
      r.tensor_dims.assign(a.t().dims().begin(), a.t().dims().end());
      std::string why;
      if (!tensor_bytes(a.t(), r.tensor_bytes, why)) r.tensor_bytes.clear();
      break;
    }
    case onnx::AttributeProto::GRAPH: r.type = Attribute::Type::Graph; r.i = 1; break;
    case onnx::AttributeProto::GRAPHS: r.type = Attribute::Type::Graphs; r.i = a.graphs_size(); break;
    default: r.type = Attribute::Type::Undefined; break;
  }
  return r;
}

}  // namespace weft::core::detail
