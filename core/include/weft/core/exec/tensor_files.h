#pragma once
// Sets of tensors on disk, as runs take inputs and give outputs: a folder of ONNX TensorProto
// files (input_0.pb, ... as in the ONNX model zoo's test_data_set_N/), a folder of numpy .npy
// files named after the tensors, or one numpy .npz.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weft/core/exec/executor.h"
#include "weft/core/base/expected.h"
#include "weft/core/graph/graph.h"

namespace weft::core {

/// How a set of tensors is stored.
enum class TensorFormat : std::uint8_t {
  Pb,   ///< a folder of PREFIX_N.pb files (onnx.TensorProto), N = 0, 1, ...
  Npy,  ///< a folder of NAME.npy files
  Npz,  ///< one .npz file of NAME.npy entries
};
std::string_view tensor_format_name(TensorFormat format);

/// One tensor read from a set.
struct TensorFile {
  /// Its name: the TensorProto's, the .npy file's stem, the .npz entry's; empty for an unnamed
  /// TensorProto.
  std::string name;
  /// Its place in the set, for matching by position: the rank of N among PREFIX_N.pb files, N of
  /// an .npz entry arr_N (np.savez's unnamed arrays), 0 for a lone file; -1 for .npy files of a
  /// folder, which are matched by name only.
  int position = -1;
  std::string source;  ///< the file (and .npz entry) it came from, for messages
  HostTensor value;
};

struct TensorFiles {
  std::string path;  ///< as given
  TensorFormat format = TensorFormat::Pb;
  std::vector<TensorFile> tensors;
};

/// Reads the tensors at `path`: a folder's PREFIX_N.pb files (by N) when it has any, else its
/// .npy files (by name); or one .npz, .npy or .pb file. Errors (InvalidInput, naming the file): a
/// missing path, a folder with neither, an unreadable, malformed or truncated file.
/// O(bytes read).
Expected<TensorFiles> read_tensor_files(const std::string& path, std::string_view prefix = "input");

/// Writes `tensors` (name, value) at `path`: Pb, a folder of PREFIX_N.pb in the given order; Npy,
/// a folder of NAME.npy (a '/' in a name becomes '_'); Npz, one file. Folders are created. Errors:
/// InvalidInput (a name that is empty or clashes once made a file name, a dtype numpy lacks),
/// Runtime (I/O), both naming the file. O(bytes).
Status write_tensor_files(const std::string& path, TensorFormat format,
                          std::span<const std::pair<std::string, const HostTensor*>> tensors,
                          std::string_view prefix = "output");

/// "float32 1x3x224x224" ("float32 scalar" for rank 0): how messages name a tensor's type.
std::string tensor_type_text(DType dtype, std::span<const std::int64_t> shape);

}  // namespace weft::core
