#pragma once
// numpy's array files: .npy (one array) and .npz (a zip of .npy files, stored or deflated), read
// and written without numpy, for `weft run --inputs` and `--save-outputs` and the Python module.
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weft/core/exec/executor.h"
#include "weft/core/base/expected.h"

namespace weft::core {

/// One array of an .npz file: its name (the entry's, without ".npy") and value.
struct NpzEntry {
  std::string name;
  HostTensor value;
};

/// Parses the bytes of an .npy file (format versions 1 to 3): little-endian or byte-free dtypes
/// float16/32/64, int8..64, uint8..64 and bool, C or Fortran order (Fortran arrays are
/// transposed into row-major). Errors (InvalidInput, starting with `where`): a bad magic or
/// header, a dtype Weft has no type for (big-endian, complex, strings, objects), a data size that
/// differs from the header's shape (a truncated file). O(bytes), one copy.
Expected<HostTensor> parse_npy(std::string_view bytes, const std::string& where);
/// The .npy bytes of `t` (format 1.0, C order, the header padded to 64 bytes as numpy pads it).
/// Errors (InvalidInput): dtypes numpy lacks (bfloat16, strings). O(bytes).
Expected<std::string> npy_bytes(const HostTensor& t);

/// Reads one .npy file. Errors: InvalidInput naming the file (unreadable, malformed or
/// truncated; a missing file included, since the file is the command's input). O(bytes).
Expected<HostTensor> read_npy(const std::string& path);
/// Writes `t` as an .npy file, atomically. Errors: npy_bytes's, Runtime (I/O). O(bytes).
Status write_npy(const std::string& path, const HostTensor& t);

/// Parses the bytes of an .npz file: every array, in the zip's central-directory order
/// (np.savez's argument order). Entries stored or deflated (np.savez_compressed), ZIP64 fields
/// read; CRC-32 checked. Errors (InvalidInput, starting with `where` and naming the entry): not a
/// zip, an encrypted or otherwise compressed entry, a corrupt or truncated entry, an entry that
/// is not a valid .npy. O(bytes), each entry's allocation bounded by the bytes given.
Expected<std::vector<NpzEntry>> parse_npz(std::string_view bytes, const std::string& where);
/// Reads an .npz file (parse_npz). Errors: parse_npz's; InvalidInput for an unreadable file.
Expected<std::vector<NpzEntry>> read_npz(const std::string& path);
/// Writes the arrays as one .npz (stored entries named NAME.npy, as np.savez writes), atomically.
/// Errors: npy_bytes's; InvalidInput for an archive over 4 GiB (no ZIP64 writing); Runtime (I/O).
Status write_npz(const std::string& path, std::span<const std::pair<std::string, const HostTensor*>> arrays);

}  // namespace weft::core
