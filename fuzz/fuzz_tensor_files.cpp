// libFuzzer target: numpy's .npy header reader and the .npz (zip) reader, core::parse_npy and
// core::parse_npz (hand-written over zlib: sizes, offsets and ZIP64 fields from the bytes). What
// parses must write back and parse to the same tensor.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "weft/core/exec/npy.h"

namespace {

void round_trip(const weft::core::HostTensor& t) {
  auto bytes = weft::core::npy_bytes(t);
  if (!bytes) return;  // a dtype numpy lacks cannot come from numpy's file: never here
  auto again = weft::core::parse_npy(*bytes, "again");
  if (!again || again->dtype != t.dtype || again->shape != t.shape || again->bytes != t.bytes) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (auto t = weft::core::parse_npy(bytes, "fuzz.npy")) round_trip(*t);
  if (auto entries = weft::core::parse_npz(bytes, "fuzz.npz"))
    for (const auto& e : *entries) round_trip(e.value);
  return 0;
}
