// Output comparison shared by `weft run` and the studio's runs.
#include "weft/core/compare_outputs.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "half.h"
#include "weft/core/executor.h"

namespace weft::core {

namespace {

/// Element values of a host tensor as doubles (every dtype the executor produces).
std::vector<double> values_of(const HostTensor& t) {
  const std::size_t es = dtype_size(t.dtype);
  const std::size_t n = es ? t.bytes.size() / es : 0;
  std::vector<double> v(n);
  auto read = [&](auto tag) {
    using T = decltype(tag);
    for (std::size_t i = 0; i < n; ++i) {
      T x;
      std::memcpy(&x, t.bytes.data() + i * sizeof(T), sizeof(T));
      v[i] = static_cast<double>(x);
    }
  };
  switch (t.dtype) {
    case DType::Float16:
      for (std::size_t i = 0; i < n; ++i) {
        detail::Float16 x;
        std::memcpy(&x, t.bytes.data() + i * 2, 2);
        v[i] = x.to_float();
      }
      break;
    case DType::BFloat16:
      for (std::size_t i = 0; i < n; ++i) {
        detail::BFloat16 x;
        std::memcpy(&x, t.bytes.data() + i * 2, 2);
        v[i] = x.to_float();
      }
      break;
    case DType::Float32: read(float{}); break;
    case DType::Float64: read(double{}); break;
    case DType::Int32: read(std::int32_t{}); break;
    case DType::Int64: read(std::int64_t{}); break;
    case DType::Int8: read(std::int8_t{}); break;
    case DType::Int16: read(std::int16_t{}); break;
    case DType::UInt16: read(std::uint16_t{}); break;
    case DType::UInt32: read(std::uint32_t{}); break;
    case DType::UInt64: read(std::uint64_t{}); break;
    default: read(std::uint8_t{}); break;  // uint8, bool
  }
  return v;
}

}  // namespace

OutputDiff compare_outputs(const RunResult& a, const RunResult& b) {
  OutputDiff d;
  for (const auto& [name, ta] : a.outputs) {
    const auto it = b.outputs.find(name);
    if (it == b.outputs.end() || it->second.shape != ta.shape || it->second.dtype != ta.dtype) {
      d.identical = false;
      d.max_abs_diff = std::nan("");
      return d;
    }
    if (it->second.bytes != ta.bytes) d.identical = false;
    const auto va = values_of(ta), vb = values_of(it->second);
    for (std::size_t i = 0; i < va.size(); ++i) {
      if (std::isnan(va[i]) || std::isnan(vb[i])) {
        if (std::isnan(va[i]) != std::isnan(vb[i])) {
          d.max_abs_diff = std::nan("");
          return d;
        }
        continue;
      }
      if (va[i] != vb[i]) d.max_abs_diff = std::max(d.max_abs_diff, std::abs(va[i] - vb[i]));
    }
  }
  if (a.outputs.size() != b.outputs.size()) d.identical = false;
  return d;
}

}  // namespace weft::core
