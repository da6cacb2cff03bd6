#pragma once
// Whole-file reads and atomic writes (temp file in the same folder, fsync, rename).
#include <string>
#include <string_view>

#include "weft/core/expected.h"

namespace weft::core {

/// Reads a whole file. Errors: Runtime naming the path and the OS reason.
Expected<std::string> read_file(const std::string& path);
/// Writes atomically: the old file stays intact if anything fails.
Status write_file_atomic(const std::string& path, std::string_view bytes);
/// Hex SHA-256 of bytes (FIPS 180-4).
std::string sha256_hex(std::string_view bytes);

}  // namespace weft::core
