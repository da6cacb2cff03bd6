// The order → offsets decoder shared by every planner (TFLite's and XLA's greedy heaps differ
// only in the order they visit blocks and in first-fit versus best-fit gaps).
#include <algorithm>
#include <numeric>

#include "allocation_detail.h"

namespace weft::core::detail {

Decoder::Decoder(const AllocationProblem& problem) : m_p(problem) {}

std::int64_t Decoder::lowest_fit(std::int32_t b, const std::vector<std::int64_t>& offset,
                                 const std::vector<char>& placed, std::int64_t from) {
  const std::int64_t size = m_p.size[static_cast<std::size_t>(b)];
  m_busy.clear();
  for (std::int32_t n : m_p.conflicts[static_cast<std::size_t>(b)])
    if (placed[static_cast<std::size_t>(n)])
      m_busy.emplace_back(offset[static_cast<std::size_t>(n)], offset[static_cast<std::size_t>(n)] + m_p.size[static_cast<std::size_t>(n)]);
  std::sort(m_busy.begin(), m_busy.end());
  std::int64_t candidate = align_up(from, m_p.alignment);
  for (auto [lo, hi] : m_busy) {
    if (lo >= candidate + size) break;
    if (hi > candidate) candidate = align_up(hi, m_p.alignment);
  }
  return candidate;
}

Placement Decoder::decode(std::span<const std::int32_t> order, Fit fit) {
  const std::size_t n = m_p.block_count();
  Placement out;
  out.offset.assign(n, kNotPlanned);
  m_placed.assign(n, 0);
  for (std::int32_t b : order) {
    const std::int64_t size = m_p.size[static_cast<std::size_t>(b)];
    std::int64_t at = 0;
    if (fit == Fit::First) {
      at = lowest_fit(b, out.offset, m_placed);
    } else {
      m_busy.clear();
      for (std::int32_t c : m_p.conflicts[static_cast<std::size_t>(b)])
        if (m_placed[static_cast<std::size_t>(c)])
          m_busy.emplace_back(out.offset[static_cast<std::size_t>(c)],
                              out.offset[static_cast<std::size_t>(c)] + m_p.size[static_cast<std::size_t>(c)]);
      std::sort(m_busy.begin(), m_busy.end());
      // Smallest gap that holds the block (XLA's best fit); the top of the busy span otherwise.
      std::int64_t best_gap = -1;
      std::int64_t cursor = 0;
      at = -1;
      for (auto [lo, hi] : m_busy) {
        const std::int64_t start = align_up(cursor, m_p.alignment);
        if (lo - start >= size && (best_gap < 0 || lo - start < best_gap)) {
          best_gap = lo - start;
          at = start;
        }
        cursor = std::max(cursor, hi);
      }
      if (at < 0) at = align_up(cursor, m_p.alignment);
    }
    out.offset[static_cast<std::size_t>(b)] = at;
    m_placed[static_cast<std::size_t>(b)] = 1;
    out.arena_bytes = std::max(out.arena_bytes, at + size);
  }
  return out;
}

void Decoder::compact(Placement& placement) {
  const std::size_t n = m_p.block_count();
  std::vector<std::int32_t> by_offset(n);
  std::iota(by_offset.begin(), by_offset.end(), 0);
  std::sort(by_offset.begin(), by_offset.end(), [&](std::int32_t a, std::int32_t b) {
    return placement.offset[static_cast<std::size_t>(a)] < placement.offset[static_cast<std::size_t>(b)];
  });
  std::vector<char> all(n, 1);
  for (std::int32_t b : by_offset) {
    // Every other block counts as placed; the block itself is not among its conflicts.
    const std::int64_t at = lowest_fit(b, placement.offset, all);
    if (at < placement.offset[static_cast<std::size_t>(b)]) placement.offset[static_cast<std::size_t>(b)] = at;
  }
  placement.arena_bytes = 0;
  for (std::size_t b = 0; b < n; ++b)
    placement.arena_bytes = std::max(placement.arena_bytes, placement.offset[b] + m_p.size[b]);
}

}  // namespace weft::core::detail
