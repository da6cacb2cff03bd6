// Output comparison shared by `weft run` and the studio's runs.
#include "weft/core/exec/compare_outputs.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "half.h"
#include "weft/core/exec/executor.h"

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
      d.max_abs_reference = std::max(d.max_abs_reference, std::isinf(va[i]) ? 0.0 : std::abs(va[i]));
      if (va[i] != vb[i]) d.max_abs_diff = std::max(d.max_abs_diff, std::abs(va[i] - vb[i]));
    }
  }
  if (a.outputs.size() != b.outputs.size()) d.identical = false;
  return d;
}

std::string outputs_digest(const RunResult& run) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  const auto mix = [&h](const void* data, std::size_t n) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  };
  for (const auto& [name, t] : run.outputs) {  // std::map: name order
    mix(name.data(), name.size() + 1);  // with its terminating zero: "ab"+"c" differs from "a"+"bc"
    const auto dtype = static_cast<std::int32_t>(t.dtype);
    mix(&dtype, sizeof dtype);
    for (const std::int64_t d : t.shape) mix(&d, sizeof d);
    mix(t.bytes.data(), t.bytes.size());
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

}  // namespace weft::core
