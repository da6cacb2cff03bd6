// Greedy by size (TFLite's arena planner): largest block first, each at the lowest offset that
// fits beside the conflicting blocks already placed.
#include <algorithm>
#include <numeric>

#include "allocation_detail.h"

namespace weft::core::detail {

std::vector<std::int32_t> order_by_size(const AllocationProblem& p) {
  std::vector<std::int32_t> order(p.block_count());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    if (p.size[ua] != p.size[ub]) return p.size[ua] > p.size[ub];
    return p.start[ua] < p.start[ub];
  });
  return order;
}

}  // namespace weft::core::detail
