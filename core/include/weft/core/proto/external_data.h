#pragma once
// The one reader of ONNX external data (weights stored beside the model). It confines every
// reference to the model's folder and checks every range before anything is allocated; the
// importer, the constant folder, the tensor-file reader and the executors all go through it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/base/expected.h"
#include "weft/core/graph/graph.h"
#include "weft/core/base/tensor_size.h"

namespace weft::core {

/// An external-data reference as a model writes it (ONNX TensorProto.external_data).
struct ExternalDataRef {
  std::string location;       ///< relative to the model's folder
  std::int64_t offset = 0;    ///< byte offset in the file
  std::int64_t length = -1;   ///< byte count; -1: not given (the tensor's size is used)
};

/// Resolves `ref` against `model_dir` (the folder of the model file) into a WeightData, refusing
/// with InvalidInput, naming `tensor` and the location: a location that is absolute, contains a
/// NUL, or leaves the folder lexically (`..`) or once symbolic links are resolved; a negative
/// offset or a length other than -1 that is negative; and, when the file exists, a range
/// [offset, offset + bytes) past its end, a length that differs from `bytes`, or a file that is
/// not a regular file. `bytes` is the tensor's size (-1: unknown, only the offset is checked).
/// An empty location yields a WeightData without data; an absent file is accepted (structure-
/// only models), the reader reports it. A few stat calls, no read, no allocation of the data.
Expected<WeightData> resolve_external_data(const ExternalDataRef& ref, const std::string& model_dir,
                                           std::int64_t bytes, std::string_view tensor);

/// Reads exactly `bytes` bytes of a tensor's external data (data.external_path, as
/// resolve_external_data made it: canonical, inside the model's folder). The file is opened first
/// (never blocking on a FIFO), then checked: a regular file, the very file the path named when it
/// was resolved (no link swapped in since), holding [offset, offset + bytes); only then is the
/// buffer allocated. Errors: InvalidInput (redirected, not a regular file, range past the end,
/// length disagreeing with bytes, bytes negative or over kMaxTensorBytes), Runtime (cannot open
/// or read: the file is missing). Both name the tensor and the file. O(bytes), one allocation.
Expected<std::vector<std::uint8_t>> read_external_data(const WeightData& data, std::int64_t bytes,
                                                       std::string_view tensor);

}  // namespace weft::core
