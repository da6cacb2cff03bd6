// The interval sweep: the planner of liveness too dense to list its conflicts (AllocationProblem::
// omitted_conflict_pairs). Blocks are allocated in start order and freed after their end, as an
// allocator replaying the run would: best fit among the free ranges, else at the top (growing a
// free range that ends there). O(B log B), no conflict list.
#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <utility>

#include "allocation_detail.h"

namespace weft::core::detail {

std::vector<std::int32_t> blocks_by(std::span<const std::int64_t> key) {
  std::vector<std::int32_t> order(key.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    return key[ua] != key[ub] ? key[ua] < key[ub] : a < b;
  });
  return order;
}

void for_each_shared_live_pair(std::span<const std::int64_t> start, std::span<const std::int64_t> end,
                               std::span<const std::int64_t> offset, std::span<const std::int64_t> size,
                               const std::function<bool(std::int32_t, std::int32_t)>& visit) {
  const std::size_t n = start.size();
  const auto u = [](std::int32_t b) { return static_cast<std::size_t>(b); };
  std::vector<std::int32_t> by_start, by_end;
  for (std::int32_t b : blocks_by(start))
    if (offset[u(b)] != kNotPlanned) by_start.push_back(b);
  for (std::int32_t b : blocks_by(end))
    if (offset[u(b)] != kNotPlanned) by_end.push_back(b);
  std::int64_t max_size = 0;
  for (std::int32_t b : by_start) max_size = std::max(max_size, size[u(b)]);
  std::multimap<std::int64_t, std::int32_t> active;  // offset -> block, ranges live at the sweep point
  std::vector<std::multimap<std::int64_t, std::int32_t>::iterator> where(n, active.end());
  std::size_t ended = 0;
  for (const std::int32_t b : by_start) {
    while (ended < by_end.size() && end[u(by_end[ended])] < start[u(b)]) {
      const std::size_t e = u(by_end[ended++]);
      if (where[e] != active.end()) active.erase(std::exchange(where[e], active.end()));
    }
    const std::int64_t lo = offset[u(b)], hi = lo + size[u(b)];
    for (auto it = active.lower_bound(lo - max_size + 1); it != active.end() && it->first < hi; ++it)
      if (it->first + size[u(it->second)] > lo && !visit(b, it->second)) return;
    where[u(b)] = active.emplace(lo, b);
  }
}

Placement sweep_placement(const AllocationProblem& p) {
  const std::size_t n = p.block_count();
  std::vector<std::int32_t> by_start(n);
  std::iota(by_start.begin(), by_start.end(), 0);
  const std::vector<std::int32_t> by_end = blocks_by(p.end);
  const auto u = [](std::int32_t b) { return static_cast<std::size_t>(b); };
  // Larger blocks first among those starting together: they take the better-fitting ranges.
  std::sort(by_start.begin(), by_start.end(), [&](std::int32_t a, std::int32_t b) {
    if (p.start[u(a)] != p.start[u(b)]) return p.start[u(a)] < p.start[u(b)];
    if (p.size[u(a)] != p.size[u(b)]) return p.size[u(a)] > p.size[u(b)];
    return a < b;
  });
  Placement out;
  out.planner = "sweep";
  out.offset.assign(n, kNotPlanned);
  std::map<std::int64_t, std::int64_t> free_at;            // offset -> length, below `top`
  std::set<std::pair<std::int64_t, std::int64_t>> by_len;  // (length, offset) of the same ranges
  std::int64_t top = 0;
  const auto add_free = [&](std::int64_t at, std::int64_t len) {
    // Coalesce with the neighbours; a range reaching the top gives its bytes back to it.
    auto next = free_at.lower_bound(at);
    if (next != free_at.end() && next->first == at + len) {
      len += next->second;
      by_len.erase({next->second, next->first});
      next = free_at.erase(next);
    }
    if (next != free_at.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == at) {
        at = prev->first;
        len += prev->second;
        by_len.erase({prev->second, prev->first});
        free_at.erase(prev);
      }
    }
    if (at + len == top) {
      top = at;
      return;
    }
    free_at.emplace(at, len);
    by_len.emplace(len, at);
  };
  std::size_t freed = 0;
  for (std::int32_t b : by_start) {
    // Blocks whose range ended before b starts ([start, end] closed) are free again.
    while (freed < n && p.end[u(by_end[freed])] < p.start[u(b)]) {
      const std::int32_t f = by_end[freed++];
      if (out.offset[u(f)] != kNotPlanned) add_free(out.offset[u(f)], p.size[u(f)]);
    }
    const std::int64_t size = p.size[u(b)];
    std::int64_t at;
    if (auto fit = by_len.lower_bound({size, -1}); fit != by_len.end()) {
      at = fit->second;
      const std::int64_t len = fit->first;
      by_len.erase(fit);
      free_at.erase(at);
      if (len > size) {
        free_at.emplace(at + size, len - size);
        by_len.emplace(len - size, at + size);
      }
    } else {
      at = top;
      top += size;
    }
    out.offset[u(b)] = at;
    out.arena_bytes = std::max(out.arena_bytes, at + size);
  }
  return out;
}

std::string check_interval_placement(const AllocationProblem& p, const Placement& placement) {
  // Sweep in start order; the blocks live at the sweep point, ordered by offset, never overlap,
  // so each new block need only be tested against its two neighbours by offset.
  const std::size_t n = p.block_count();
  const auto u = [](std::int32_t b) { return static_cast<std::size_t>(b); };
  const std::vector<std::int32_t> by_start = blocks_by(p.start), by_end = blocks_by(p.end);
  std::map<std::int64_t, std::int32_t> live;  // offset -> block
  std::size_t freed = 0;
  for (std::int32_t b : by_start) {
    while (freed < n && p.end[u(by_end[freed])] < p.start[u(b)]) {
      const std::int32_t f = by_end[freed++];
      auto it = live.find(placement.offset[u(f)]);
      if (it != live.end() && it->second == f) live.erase(it);
    }
    const std::int64_t at = placement.offset[u(b)];
    const auto clash = [&](std::int32_t c) {
      return "blocks " + std::to_string(b) + " and " + std::to_string(c) + " are live at once but overlap in the arena";
    };
    auto next = live.lower_bound(at);
    if (next != live.end() && next->first < at + p.size[u(b)]) return clash(next->second);
    if (next != live.begin()) {
      auto prev = std::prev(next);
      if (prev->first + p.size[u(prev->second)] > at) return clash(prev->second);
    }
    live.emplace(at, b);
  }
  return {};
}

}  // namespace weft::core::detail
