#pragma once
// Medians of samples, defined once: the calibration's fits, the profiles' node times, the
// executor's median iteration and the CPU probes all take theirs here.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace weft::core {

/// The median of `values`: the middle one, or the mean of the two middle ones of an even count;
/// 0 when empty. O(n).
inline double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  if (values.size() % 2 == 1) return *mid;
  return (*std::max_element(values.begin(), mid) + *mid) / 2;
}

/// The upper middle element of `values` (a sample that occurred: the median iteration is one of
/// the iterations), reordering them; 0 when empty. O(n).
inline double upper_middle(std::vector<double>& values) {
  if (values.empty()) return 0;
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

}  // namespace weft::core
