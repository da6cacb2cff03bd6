#pragma once
// IEEE binary16 (float16) and bfloat16 storage types for the CPU kernels. Kernels compute half
// precision in float32 (run_kernel widens inputs and narrows outputs); these conversions round
// to nearest, ties to even, as ONNX's helpers (float32_to_bfloat16) and numpy's astype do.
#include <cmath>
#include <cstdint>
#include <cstring>

namespace weft::core::detail {

namespace half_bits {

/// Rounds v to a binary format with `exp_bits` exponent and `man_bits` mantissa bits (at most
/// 16 bits in all), nearest-even, with overflow to infinity, subnormals and a quiet NaN.
inline std::uint16_t encode(double v, int exp_bits, int man_bits) {
  const std::uint16_t sign = std::signbit(v) ? static_cast<std::uint16_t>(1u << (exp_bits + man_bits)) : 0;
  const std::uint32_t exp_all = (1u << exp_bits) - 1;
  if (std::isnan(v)) return static_cast<std::uint16_t>(sign | (exp_all << man_bits) | (1u << (man_bits - 1)));
  const double a = std::fabs(v);
  if (a == 0) return sign;
  if (std::isinf(a)) return static_cast<std::uint16_t>(sign | (exp_all << man_bits));
  const int bias = (1 << (exp_bits - 1)) - 1;
  int e = 0;
  (void)std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1): unbiased exponent e - 1
  int unbiased = e - 1;
  if (unbiased < 1 - bias) {
    // Subnormal: multiples of 2^(1 - bias - man_bits); rounding up to 2^man_bits lands exactly on
    // the smallest normal's encoding.
    const double q = std::nearbyint(std::ldexp(a, bias - 1 + man_bits));
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(q));
  }
  double q = std::nearbyint(std::ldexp(a, man_bits - unbiased));  // in [2^m, 2^(m+1)]
  if (q >= std::ldexp(1.0, man_bits + 1)) {
    q /= 2;
    ++unbiased;
  }
  const std::uint32_t field = static_cast<std::uint32_t>(unbiased + bias);
  if (field >= exp_all) return static_cast<std::uint16_t>(sign | (exp_all << man_bits));
  return static_cast<std::uint16_t>(sign | (field << man_bits) |
                                    (static_cast<std::uint32_t>(q) - (1u << man_bits)));
}

}  // namespace half_bits

/// A float16 element (its bits); arithmetic goes through float.
struct Float16 {
  std::uint16_t bits = 0;
  static Float16 from(double v) { return Float16{half_bits::encode(v, 5, 10)}; }
  float to_float() const {
    const std::uint32_t sign = (bits & 0x8000u) << 16;
    const std::uint32_t exp = (bits >> 10) & 0x1fu;
    const std::uint32_t man = bits & 0x3ffu;
    if (exp == 0) {
      const float m = std::ldexp(static_cast<float>(man), -24);
      return sign ? -m : m;
    }
    std::uint32_t u = 0;
    if (exp == 0x1f) u = sign | 0x7f800000u | (man << 13);
    else u = sign | ((exp + 112) << 23) | (man << 13);
    float f = 0;
    std::memcpy(&f, &u, 4);
    return f;
  }
};

/// A bfloat16 element (the high half of a float32).
struct BFloat16 {
  std::uint16_t bits = 0;
  static BFloat16 from(double v) {
    // Round the float32 value (itself nearest-even from v) to its upper 16 bits.
    const float f = static_cast<float>(v);
    if (std::isnan(f)) return BFloat16{static_cast<std::uint16_t>(std::signbit(f) ? 0xffc0u : 0x7fc0u)};
    std::uint32_t u = 0;
    std::memcpy(&u, &f, 4);
    u += 0x7fffu + ((u >> 16) & 1u);
    return BFloat16{static_cast<std::uint16_t>(u >> 16)};
  }
  float to_float() const {
    const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
    float f = 0;
    std::memcpy(&f, &u, 4);
    return f;
  }
};

}  // namespace weft::core::detail
