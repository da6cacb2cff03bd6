// Greedy by breadth (TFLite GPU's GREEDY_BY_BREADTH): visit the steps from the widest (most live
// bytes) down and place each step's not yet placed blocks, largest first, at the lowest offset.
// A block is therefore placed at its widest step: its key is the max breadth over its interval.
#include <algorithm>
#include <bit>
#include <numeric>

#include "allocation_detail.h"

namespace weft::core::detail {

std::vector<std::int32_t> order_by_breadth(const AllocationProblem& p) {
  const std::size_t n = p.block_count();
  // Breadth changes only at starts: compress positions to the distinct starts.
  std::vector<std::int64_t> steps(p.start.begin(), p.start.end());
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  const std::size_t m = steps.size();
  std::vector<std::int64_t> diff(m + 1, 0);
  std::vector<std::size_t> first(n), last(n);
  for (std::size_t b = 0; b < n; ++b) {
    first[b] = static_cast<std::size_t>(std::lower_bound(steps.begin(), steps.end(), p.start[b]) - steps.begin());
    last[b] = static_cast<std::size_t>(std::upper_bound(steps.begin(), steps.end(), p.end[b]) - steps.begin()) - 1;
    diff[first[b]] += p.size[b];
    diff[last[b] + 1] -= p.size[b];
  }
  std::vector<std::int64_t> breadth(m);
  std::int64_t run = 0;
  for (std::size_t s = 0; s < m; ++s) breadth[s] = run += diff[s];
  // Sparse table for the widest step of each block's range (ties: the earlier step).
  const auto better = [&](std::size_t a, std::size_t b) {
    return breadth[a] != breadth[b] ? (breadth[a] > breadth[b] ? a : b) : std::min(a, b);
  };
  std::vector<std::vector<std::size_t>> table{std::vector<std::size_t>(m)};
  std::iota(table[0].begin(), table[0].end(), std::size_t{0});
  for (std::size_t k = 1; (std::size_t{1} << k) <= m; ++k) {
    const auto& prev = table[k - 1];
    std::vector<std::size_t> cur(m - (std::size_t{1} << k) + 1);
    for (std::size_t i = 0; i < cur.size(); ++i) cur[i] = better(prev[i], prev[i + (std::size_t{1} << (k - 1))]);
    table.push_back(std::move(cur));
  }
  std::vector<std::size_t> widest(n);
  for (std::size_t b = 0; b < n; ++b) {
    const std::size_t len = last[b] - first[b] + 1;
    const auto k = static_cast<std::size_t>(std::bit_width(len) - 1);
    widest[b] = better(table[k][first[b]], table[k][last[b] + 1 - (std::size_t{1} << k)]);
  }
  std::vector<std::int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    const std::int64_t wa = breadth[widest[ua]], wb = breadth[widest[ub]];
    if (wa != wb) return wa > wb;
    if (widest[ua] != widest[ub]) return widest[ua] < widest[ub];
    return p.size[ua] > p.size[ub];
  });
  return order;
}

}  // namespace weft::core::detail
