#pragma once
// Internal helpers shared by the ONNX importer, the constant folder and the TensorProto reader.
// libonnx stays private to core/src/onnx: nothing here is part of the public API.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/graph/graph.h"

namespace weft::core::detail {

/// Parses an ONNX model of up to 2 GB (protobuf's limit). Errors (InvalidInput, naming `path`): an
/// empty, oversized, truncated or corrupt file, no graph, an empty graph.
Status parse_model(std::string_view bytes, const std::string& path, onnx::ModelProto& model);

/// ONNX TensorProto data type → DType (Undefined for types Weft does not model, e.g. complex).
DType dtype_from_onnx(std::int32_t onnx_type);

/// True when the tensor's bytes live in an external file (data_location = EXTERNAL).
bool is_external(const onnx::TensorProto& t);

/// External data reference of t, resolved against model_dir and confined to it by
/// resolve_external_data (weft/core/proto/external_data.h). Errors (InvalidInput) name the tensor: a
/// malformed offset or length, a location outside the folder, a range past the end of the file,
/// a tensor too large to hold. O(#entries) plus a few stat calls.
Expected<WeightData> external_weight(const onnx::TensorProto& t, const std::string& model_dir);

/// Element count from dims; -1 on a negative dim or a size over kMaxTensorBytes.
std::int64_t element_count(const onnx::TensorProto& t);

/// Byte size from dims and data type; -1 when a dim is negative, the size is over
/// kMaxTensorBytes or the type has no fixed size (strings).
std::int64_t byte_count(const onnx::TensorProto& t);

/// Little-endian row-major bytes of an in-memory tensor (raw_data or the typed fields).
/// Returns false and sets `why` when the data is absent, external, of an unsupported type,
/// or does not match the shape. O(bytes), one allocation.
bool tensor_bytes(const onnx::TensorProto& t, std::vector<std::uint8_t>& out, std::string& why);

/// An attribute without its bodies: graph-valued attributes get their type and count only (the
/// importer builds the bodies). Tensor values keep their in-memory bytes (none when external).
Attribute attribute_from_onnx(const onnx::AttributeProto& a);

/// True when t holds its data in the proto itself (raw_data or a typed field), not externally.
bool has_inline_data(const onnx::TensorProto& t);

}  // namespace weft::core::detail
