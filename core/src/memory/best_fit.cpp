// Best fit in start order (XLA's heap simulator): blocks in the order they come alive (larger
// first on ties), each in the smallest gap that holds it.
#include <algorithm>
#include <numeric>

#include "allocation_detail.h"

namespace weft::core::detail {

std::vector<std::int32_t> order_by_start(const AllocationProblem& p) {
  std::vector<std::int32_t> order(p.block_count());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    if (p.start[ua] != p.start[ub]) return p.start[ua] < p.start[ub];
    return p.size[ua] > p.size[ub];
  });
  return order;
}

}  // namespace weft::core::detail
