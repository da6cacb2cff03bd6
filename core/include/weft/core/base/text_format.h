#pragma once
// Numbers as Weft's reports print them: fixed decimals, and byte counts in MiB.
#include <cstdint>
#include <string>

namespace weft::core {

/// `value` with `decimals` digits after the point (printf's "%.*f"): fixed_text(1.5, 2) is
/// "1.50". O(1).
std::string fixed_text(double value, int decimals);

/// `bytes` in MiB (2^20 bytes) with two decimals: mib_text(3 << 19) is "1.50 MiB". O(1).
std::string mib_text(std::int64_t bytes);

}  // namespace weft::core
