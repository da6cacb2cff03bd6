#pragma once
// Tensor bytes for executors: ONNX TensorProto files (conformance test data) and weight data.
#include <cstdint>
#include <string>
#include <vector>

#include "weft/core/graph/host_tensor.h"
#include "weft/core/base/expected.h"
#include "weft/core/graph/graph.h"

namespace weft::core {

/// Reads one serialized onnx.TensorProto (e.g. test_data_set_0/input_0.pb): dtype, shape and
/// little-endian bytes, from raw_data or the typed fields (float, double, int32 family, int64,
/// uint64, bool), and its name into `name` when given. External data is read relative to the
/// file's folder. Errors: Runtime when the file cannot be read, InvalidInput (naming the file)
/// when it is not a valid tensor. O(bytes), one copy of the data.
Expected<HostTensor> read_tensor_pb(const std::string& path, std::string* name = nullptr);

/// Writes `t` as one serialized onnx.TensorProto named `name` (dims, data_type, raw_data), the
/// form read_tensor_pb and the ONNX test data sets use; atomically. Errors: InvalidInput for a
/// tensor over protobuf's 2 GB message limit, Runtime (I/O), both naming the file. O(bytes).
Status write_tensor_pb(const std::string& path, const std::string& name, const HostTensor& t);

/// The bytes of a weight: its inline bytes, or the range [offset, offset+length) of its
/// external file. Errors: InvalidInput when the tensor has no data or its size does not match
/// the shape; Runtime when the external file is missing or too short (both name the file and
/// tensor). O(bytes), one copy.
Expected<std::vector<std::uint8_t>> read_weight_bytes(const Tensor& tensor);

}  // namespace weft::core
