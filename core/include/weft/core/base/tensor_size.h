#pragma once
// Checked tensor sizes: the one place element counts and byte sizes are multiplied out, so a
// hostile shape never overflows 64 bits or asks for an allocation no machine holds.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace weft::core {

/// Largest tensor a graph holds, in elements and in bytes (2^48, 256 TiB): GraphBuilder refuses
/// larger ones, so sums and products of tensor sizes downstream stay far inside 64 bits.
inline constexpr std::int64_t kMaxTensorBytes = std::int64_t{1} << 48;

/// Element count of `dims`, every product checked: nullopt when a dim is negative, or when the
/// product of the non-zero dims (kernels form partial products whatever the total) or, with
/// element_size > 0, the byte size would exceed kMaxTensorBytes. O(rank).
std::optional<std::int64_t> checked_elements(std::span<const std::int64_t> dims, std::size_t element_size = 0);

}  // namespace weft::core
