#pragma once
// Whole-file reads and atomic writes (temp file in the same folder, fsync, rename).
#include <cstddef>
#include <string>
#include <string_view>

#include "weft/core/base/expected.h"

namespace weft::core {

/// What read_file reads at most by default: protobuf's limit for one message (an ONNX model
/// without external data), far above any schedule, device or wires file.
inline constexpr std::size_t kMaxReadBytes = std::size_t{2} << 30;
/// The limit for the JSON files Weft reads (schedules, projects, devices, timelines, wires): far
/// above a 100k-operator schedule (~5 MB), so a runaway or hostile file is refused early.
inline constexpr std::size_t kMaxTextBytes = std::size_t{256} << 20;

/// Reads a whole file, or a stream (a FIFO, /dev/stdin) to its end. Errors: Runtime naming the
/// path and the OS reason; InvalidInput when it holds more than max_bytes (read in chunks and
/// stopped there: /dev/zero or a runaway pipe never fills memory).
Expected<std::string> read_file(const std::string& path, std::size_t max_bytes = kMaxReadBytes);
/// Writes atomically: the old file stays intact if anything fails.
Status write_file_atomic(const std::string& path, std::string_view bytes);
/// Hex SHA-256 of bytes (FIPS 180-4).
std::string sha256_hex(std::string_view bytes);

}  // namespace weft::core
