#include "weft/core/tensor_pb.h"

#include <onnx/onnx_pb.h>

#include <climits>
#include <filesystem>
#include <fstream>

#include "onnx_proto_util.h"
#include "weft/core/file_io.h"

namespace weft::core {
namespace {

// Reads [offset, offset+length) of path (length -1: to the end of the file).
Expected<std::vector<std::uint8_t>> read_range(const std::string& path, std::int64_t offset, std::int64_t length,
                                               const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorKind::Runtime, what + ": cannot open external data file '" + path + "'");
  in.seekg(0, std::ios::end);
  const std::int64_t size = static_cast<std::int64_t>(in.tellg());
  if (offset < 0 || offset > size)
    return make_error(ErrorKind::Runtime, what + ": offset " + std::to_string(offset) + " is past the end of '" +
                                              path + "' (" + std::to_string(size) + " bytes)");
  if (length < 0) length = size - offset;
  if (offset + length > size)
    return make_error(ErrorKind::Runtime, what + ": '" + path + "' holds " + std::to_string(size) +
                                              " bytes, the data needs " + std::to_string(offset + length));
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(length));
  in.seekg(offset);
  if (length > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(length)))
    return make_error(ErrorKind::Runtime, what + ": cannot read '" + path + "'");
  return bytes;
}

}  // namespace

Expected<HostTensor> read_tensor_pb(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  if (text->size() > static_cast<std::size_t>(INT_MAX))
    return make_error(ErrorKind::InvalidInput, path + ": larger than the 2 GB protobuf limit");
  onnx::TensorProto t;
  bool ok = false;
  try {
    ok = t.ParseFromArray(text->data(), static_cast<int>(text->size()));
  } catch (const std::exception& e) {
    return make_error(ErrorKind::InvalidInput, path + ": not a valid TensorProto: " + e.what());
  }
  if (!ok) return make_error(ErrorKind::InvalidInput, path + ": not a valid TensorProto (truncated or corrupt)");
  HostTensor h;
  h.dtype = detail::dtype_from_onnx(t.data_type());
  if (dtype_size(h.dtype) == 0)
    return make_error(ErrorKind::InvalidInput, path + ": tensor '" + t.name() + "' has unsupported data type " +
                                                   std::to_string(t.data_type()));
  h.shape.assign(t.dims().begin(), t.dims().end());
  if (detail::element_count(t) < 0)
    return make_error(ErrorKind::InvalidInput, path + ": tensor '" + t.name() + "' has an invalid shape");
  if (detail::is_external(t)) {
    std::filesystem::path p(path);
    const WeightData w = detail::external_weight(t, p.has_parent_path() ? p.parent_path().string() : ".");
    if (w.external_path.empty())
      return make_error(ErrorKind::InvalidInput, path + ": tensor '" + t.name() + "' is external without a location");
    auto bytes = read_range(w.external_path, w.external_offset, w.external_length, path + ": tensor '" + t.name() + "'");
    if (!bytes) return bytes.error();
    const auto want = static_cast<std::size_t>(detail::element_count(t)) * dtype_size(h.dtype);
    if (bytes->size() != want)
      return make_error(ErrorKind::InvalidInput, path + ": tensor '" + t.name() + "' external data holds " +
                                                     std::to_string(bytes->size()) + " bytes, its shape needs " +
                                                     std::to_string(want));
    h.bytes = std::move(*bytes);
    return h;
  }
  std::string why;
  if (!detail::tensor_bytes(t, h.bytes, why))
    return make_error(ErrorKind::InvalidInput, path + ": tensor '" + t.name() + "': " + why);
  return h;
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
  std::int64_t length = tensor.data.external_length;
  if (length < 0 && want >= 0) length = want;
  auto bytes = read_range(tensor.data.external_path, tensor.data.external_offset, length, "weight '" + tensor.name + "'");
  if (!bytes) return bytes.error();
  if (want >= 0 && static_cast<std::int64_t>(bytes->size()) != want)
    return make_error(ErrorKind::InvalidInput, "weight '" + tensor.name + "': external data holds " +
                                                   std::to_string(bytes->size()) + " bytes, its shape needs " +
                                                   std::to_string(want));
  return bytes;
}

}  // namespace weft::core
