#include "weft/core/proto/tensor_pb.h"

#include <onnx/onnx_pb.h>

#include <climits>
#include <filesystem>

#include "weft/core/proto/onnx_proto_util.h"
#include "weft/core/proto/external_data.h"
#include "weft/core/base/file_io.h"

namespace weft::core {

Expected<HostTensor> read_tensor_pb(const std::string& path, std::string* name) {
  WEFT_TRY_ASSIGN(auto text, read_file(path));
  if (text.size() > static_cast<std::size_t>(INT_MAX))
    return make_error(ErrorKind::InvalidInput, path + ": larger than the 2 GB protobuf limit");
  onnx::TensorProto t;
  bool ok = false;
  try {
    ok = t.ParseFromArray(text.data(), static_cast<int>(text.size()));
  } catch (const std::exception& e) {
    return make_error(ErrorKind::InvalidInput, path + ": not a valid TensorProto: " + e.what());
  }
  if (!ok) return make_error(ErrorKind::InvalidInput, path + ": not a valid TensorProto (truncated or corrupt)");
  if (name) *name = t.name();
  HostTensor h;
  h.dtype = detail::dtype_from_onnx(t.data_type());
  if (dtype_size(h.dtype) == 0)
    return make_error(ErrorKind::InvalidInput, path + ": tensor '" + t.name() + "' has unsupported data type " +
                                                   std::to_string(t.data_type()));
  h.shape.assign(t.dims().begin(), t.dims().end());
  if (detail::byte_count(t) < 0)
    return make_error(ErrorKind::InvalidInput, path + ": tensor '" + t.name() +
                                                   "' has an invalid shape (a negative dimension, or a size that overflows)");
  if (detail::is_external(t)) {
    std::filesystem::path p(path);
    auto w = detail::external_weight(t, p.has_parent_path() ? p.parent_path().string() : ".");
    if (!w) return make_error(ErrorKind::InvalidInput, path + ": " + w.error().message);
    if (w->external_path.empty())
      return make_error(ErrorKind::InvalidInput, path + ": tensor '" + t.name() + "' is external without a location");
    auto bytes = read_external_data(*w, detail::byte_count(t), t.name());
    if (!bytes) return make_error(bytes.error().kind, path + ": " + bytes.error().message);
    h.bytes = std::move(*bytes);
    return h;
  }
  std::string why;
  if (!detail::tensor_bytes(t, h.bytes, why))
    return make_error(ErrorKind::InvalidInput, path + ": tensor '" + t.name() + "': " + why);
  return h;
}

Status write_tensor_pb(const std::string& path, const std::string& name, const HostTensor& t) {
  if (t.bytes.size() > static_cast<std::size_t>(INT_MAX) - 1024)
    return make_error(ErrorKind::InvalidInput, path + ": tensor '" + name + "' is over protobuf's 2 GB limit (write .npy files instead)");
  onnx::TensorProto p;
  p.set_name(name);
  // DType's values are ONNX's TensorProto.DataType codes.
  p.set_data_type(static_cast<std::int32_t>(t.dtype));
  for (std::int64_t d : t.shape) p.add_dims(d);
  p.set_raw_data(t.bytes.data(), t.bytes.size());
  std::string bytes;
  if (!p.SerializeToString(&bytes)) return make_error(ErrorKind::Runtime, path + ": cannot serialise tensor '" + name + "'");
  return write_file_atomic(path, bytes);
}

Expected<std::vector<std::uint8_t>> read_weight_bytes(const Tensor& tensor) {
  const std::int64_t want = tensor.bytes();
  if (tensor.data.inline_bytes) {
    const auto& b = *tensor.data.inline_bytes;
    if (want >= 0 && static_cast<std::int64_t>(b.size()) != want)
      return make_error(ErrorKind::InvalidInput, "weight '" + tensor.name + "' holds " + std::to_string(b.size()) +
                                                     " bytes, its shape needs " + std::to_string(want));
    return b;
  }
  if (tensor.data.external_path.empty())
    return make_error(ErrorKind::InvalidInput, "weight '" + tensor.name + "' has no data (neither inline nor external)");
  return read_external_data(tensor.data, want, tensor.name);
}

}  // namespace weft::core
