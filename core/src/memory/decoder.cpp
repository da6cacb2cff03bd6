// The order → offsets decoder shared by every planner (TFLite's and XLA's greedy heaps differ
// only in the order they visit blocks and in first-fit versus best-fit gaps).
#include <algorithm>
#include <numeric>

#include "allocation_detail.h"

namespace weft::core::detail {

Decoder::Decoder(const AllocationProblem& problem) : m_p(problem) {}

void Decoder::reset() { m_range.assign(m_p.block_count(), {0, -1}); }

void Decoder::place(std::int32_t b, std::int64_t at) {
  m_range[static_cast<std::size_t>(b)] = {at, at + m_p.size[static_cast<std::size_t>(b)]};
}

void Decoder::sort_busy(std::int64_t max_hi) {
  if (max_hi >= (std::int64_t{1} << 32)) {
    std::sort(m_busy.begin(), m_busy.end());
    return;
  }
  // Bounds are non-negative and below 2^32: (lo << 32 | hi) orders exactly as the pair does.
  m_keys.clear();
  for (auto [lo, hi] : m_busy) m_keys.push_back(static_cast<std::uint64_t>(lo) << 32 | static_cast<std::uint64_t>(hi));
  std::sort(m_keys.begin(), m_keys.end());
  for (std::size_t i = 0; i < m_keys.size(); ++i)
    m_busy[i] = {static_cast<std::int64_t>(m_keys[i] >> 32), static_cast<std::int64_t>(m_keys[i] & 0xffffffffu)};
}

std::int64_t Decoder::first_fit(std::int32_t b) {
  const std::int64_t size = m_p.size[static_cast<std::size_t>(b)];
  // Unplaced neighbours (hi = -1) drop out with the ranges that end at 0, which never block.
  m_busy.clear();
  std::int64_t max_hi = 0;
  for (std::int32_t n : m_p.conflicts[static_cast<std::size_t>(b)]) {
    const auto range = m_range[static_cast<std::size_t>(n)];
    if (range.second > 0) {
      m_busy.push_back(range);
      max_hi = std::max(max_hi, range.second);
    }
  }
  sort_busy(max_hi);
  std::int64_t candidate = 0;
  for (auto [lo, hi] : m_busy) {
    if (lo >= candidate + size) break;
    if (hi > candidate) candidate = align_up(hi, m_p.alignment);
  }
  return candidate;
}

std::int64_t Decoder::best_fit(std::int32_t b) {
  const std::int64_t size = m_p.size[static_cast<std::size_t>(b)];
  m_busy.clear();
  std::int64_t max_hi = 0;
  for (std::int32_t n : m_p.conflicts[static_cast<std::size_t>(b)]) {
    const auto range = m_range[static_cast<std::size_t>(n)];
    if (range.second >= 0) {
      m_busy.push_back(range);
      max_hi = std::max(max_hi, range.second);
    }
  }
  sort_busy(max_hi);
  // Smallest gap that holds the block (XLA's best fit); the top of the busy span otherwise.
  std::int64_t best_gap = -1;
  std::int64_t cursor = 0;
  std::int64_t at = -1;
  for (auto [lo, hi] : m_busy) {
    const std::int64_t start = align_up(cursor, m_p.alignment);
    if (lo - start >= size && (best_gap < 0 || lo - start < best_gap)) {
      best_gap = lo - start;
      at = start;
    }
    cursor = std::max(cursor, hi);
  }
  return at < 0 ? align_up(cursor, m_p.alignment) : at;
}

Placement Decoder::decode(std::span<const std::int32_t> order, Fit fit) {
  const std::size_t n = m_p.block_count();
  Placement out;
  out.offset.assign(n, kNotPlanned);
  reset();
  for (std::int32_t b : order) {
    const std::int64_t at = fit == Fit::First ? first_fit(b) : best_fit(b);
    out.offset[static_cast<std::size_t>(b)] = at;
    place(b, at);
    out.arena_bytes = std::max(out.arena_bytes, at + m_p.size[static_cast<std::size_t>(b)]);
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
  // Every other block counts as placed; the block itself is not among its conflicts.
  reset();
  for (std::size_t b = 0; b < n; ++b) place(static_cast<std::int32_t>(b), placement.offset[b]);
  for (std::int32_t b : by_offset) {
    const std::int64_t at = first_fit(b);
    if (at < placement.offset[static_cast<std::size_t>(b)]) {
      placement.offset[static_cast<std::size_t>(b)] = at;
      place(b, at);
    }
  }
  placement.arena_bytes = 0;
  for (std::size_t b = 0; b < n; ++b)
    placement.arena_bytes = std::max(placement.arena_bytes, placement.offset[b] + m_p.size[b]);
}

}  // namespace weft::core::detail
