// The order → offsets decoder shared by every planner (TFLite's and XLA's greedy heaps differ
// only in the order they visit blocks and in first-fit versus best-fit gaps).
#include <algorithm>
#include <array>
#include <bit>
#include <numeric>

#include "allocation_detail.h"

namespace weft::core::detail {

Decoder::Decoder(const AllocationProblem& problem) : m_p(problem) {}

void Decoder::reset() { m_range.assign(m_p.block_count(), {0, -1}); }

void Decoder::place(std::int32_t b, std::int64_t at) {
  m_range[static_cast<std::size_t>(b)] = {at, at + m_p.size[static_cast<std::size_t>(b)]};
}

std::int64_t Decoder::fit(std::int32_t b, Fit fit) {
  const std::int64_t size = m_p.size[static_cast<std::size_t>(b)];
  // Placed neighbours only (hi = -1 while unplaced; placed blocks have hi >= size > 0).
  m_busy.clear();
  Busy summary;
  for (std::int32_t n : m_p.conflicts[static_cast<std::size_t>(b)]) {
    const auto range = m_range[static_cast<std::size_t>(n)];
    if (range.second > 0) {
      m_busy.push_back(range);
      summary.add(range);
    }
  }
  return fit_busy(size, fit, m_busy, summary);
}

std::int64_t Decoder::fit_busy(std::int64_t size, Fit fit, std::vector<std::pair<std::int64_t, std::int64_t>>& busy,
                               const Busy& summary) {
  if (busy.empty()) return 0;
  const std::int64_t a = m_p.alignment;
  const std::int64_t bounds = summary.bounds | size;
  // All bounds aligned: one mask test for a power-of-two alignment (the usual case).
  bool misaligned = std::has_single_bit(static_cast<std::uint64_t>(a)) ? (bounds & (a - 1)) != 0 : size % a != 0;
  if (!std::has_single_bit(static_cast<std::uint64_t>(a)))
    for (auto [lo, hi] : busy) misaligned = misaligned || lo % a != 0 || hi % a != 0;
  // A slot bitmap costs the arena's words plus the ranges' words; sorting costs d log d.
  const auto d = static_cast<std::int64_t>(busy.size());
  const std::int64_t bitmap_cost = summary.max_hi / a / 64 + summary.length / a / 64 + 2 * d;
  if (!misaligned && bitmap_cost <= 8 * d) return fit_slots(size, fit, summary.max_hi, busy);
  return fit_sorted(size, fit, summary.max_hi, busy);
}

std::int64_t Decoder::fit_sorted(std::int64_t size, Fit fit, std::int64_t max_hi,
                                 std::vector<std::pair<std::int64_t, std::int64_t>>& ranges) {
  if (max_hi >= (std::int64_t{1} << 32)) {
    std::sort(ranges.begin(), ranges.end());
  } else {
    // Bounds are non-negative and below 2^32: (lo << 32 | hi) orders exactly as the pair does.
    m_keys.clear();
    for (auto [lo, hi] : ranges) m_keys.push_back(static_cast<std::uint64_t>(lo) << 32 | static_cast<std::uint64_t>(hi));
    std::sort(m_keys.begin(), m_keys.end());
    for (std::size_t i = 0; i < m_keys.size(); ++i)
      ranges[i] = {static_cast<std::int64_t>(m_keys[i] >> 32), static_cast<std::int64_t>(m_keys[i] & 0xffffffffu)};
  }
  if (fit == Fit::First) {
    std::int64_t candidate = 0;
    for (auto [lo, hi] : ranges) {
      if (lo >= candidate + size) break;
      if (hi > candidate) candidate = align_up(hi, m_p.alignment);
    }
    return candidate;
  }
  // Smallest gap that holds the block (XLA's best fit); the top of the busy span otherwise.
  std::int64_t best_gap = -1;
  std::int64_t cursor = 0;
  std::int64_t at = -1;
  for (auto [lo, hi] : ranges) {
    const std::int64_t start = align_up(cursor, m_p.alignment);
    if (lo - start >= size && (best_gap < 0 || lo - start < best_gap)) {
      best_gap = lo - start;
      at = start;
    }
    cursor = std::max(cursor, hi);
  }
  return at < 0 ? align_up(cursor, m_p.alignment) : at;
}

std::int64_t Decoder::fit_slots(std::int64_t size, Fit fit, std::int64_t max_hi,
                                const std::vector<std::pair<std::int64_t, std::int64_t>>& ranges) {
  // Slot k is bytes [k·a, (k+1)·a). With aligned bounds and size, a block fits at slot k exactly
  // when slots k .. k + size/a − 1 are all free: the lowest such k is the first fit, and the free
  // runs below the top are the gaps the sorted scan sees (the same answers, without the sort).
  const std::int64_t a = m_p.alignment;
  const auto top = static_cast<std::size_t>(max_hi / a);  // slots from `top` up are free
  const auto need = static_cast<std::size_t>(size / a);
  m_slots.assign(top / 64 + 1, 0);
  for (auto [lo, hi] : ranges) {
    const auto first = static_cast<std::size_t>(lo / a), last = static_cast<std::size_t>(hi / a);  // [first, last)
    std::size_t w = first / 64;
    const std::size_t w_end = (last - 1) / 64;
    const std::uint64_t head = ~std::uint64_t{0} << (first % 64);
    const std::uint64_t tail = ~std::uint64_t{0} >> (63 - (last - 1) % 64);
    if (w == w_end) {
      m_slots[w] |= head & tail;
      continue;
    }
    m_slots[w] |= head;
    for (++w; w < w_end; ++w) m_slots[w] = ~std::uint64_t{0};
    m_slots[w_end] |= tail;
  }
  // The first slot at or after k that is busy (want_busy) or free; `top` when none below it.
  const auto next = [&](std::size_t k, bool want_busy) {
    while (k < top) {
      const std::size_t w = k / 64;
      const std::uint64_t word = (want_busy ? m_slots[w] : ~m_slots[w]) & (~std::uint64_t{0} << (k % 64));
      if (word != 0) return std::min(top, w * 64 + static_cast<std::size_t>(std::countr_zero(word)));
      k = (w + 1) * 64;
    }
    return top;
  };
  std::size_t best_gap = 0, at = top;
  bool found = false;
  for (std::size_t k = next(0, false); k < top;) {
    const std::size_t busy = next(k, true);  // free run [k, busy)
    if (busy - k >= need) {
      if (fit == Fit::First) return static_cast<std::int64_t>(k) * a;
      if (!found || busy - k < best_gap) {
        found = true;
        best_gap = busy - k;
        at = k;
      }
    }
    k = next(busy, false);
  }
  // No hole below the top that holds the block (first fit), or the smallest one (best fit).
  return static_cast<std::int64_t>(at) * a;
}

Placement Decoder::decode(std::span<const std::int32_t> order, Fit fit) {
  const std::size_t n = m_p.block_count();
  Placement out;
  out.offset.assign(n, kNotPlanned);
  reset();
  for (std::int32_t b : order) {
    const std::int64_t at = this->fit(b, fit);
    out.offset[static_cast<std::size_t>(b)] = at;
    place(b, at);
    out.arena_bytes = std::max(out.arena_bytes, at + m_p.size[static_cast<std::size_t>(b)]);
  }
  return out;
}

std::pair<Placement, Placement> Decoder::decode_first_and_best(std::span<const std::int32_t> order) {
  const std::size_t n = m_p.block_count();
  std::pair<Placement, Placement> out;
  out.first.offset.assign(n, kNotPlanned);
  out.second.offset.assign(n, kNotPlanned);
  // Per block: its range in the first-fit placement, then in the best-fit one (hi = -1 while
  // unplaced; a block is placed in both at the same step).
  using Range = std::pair<std::int64_t, std::int64_t>;
  std::vector<std::array<Range, 2>> ranges(n, {Range{0, -1}, Range{0, -1}});
  for (std::int32_t b : order) {
    const std::int64_t size = m_p.size[static_cast<std::size_t>(b)];
    m_busy.clear();
    m_busy_best.clear();
    Busy first, best;
    for (std::int32_t c : m_p.conflicts[static_cast<std::size_t>(b)]) {
      const auto& r = ranges[static_cast<std::size_t>(c)];
      if (r[0].second > 0) {
        m_busy.push_back(r[0]);
        first.add(r[0]);
        m_busy_best.push_back(r[1]);
        best.add(r[1]);
      }
    }
    const std::int64_t at_first = fit_busy(size, Fit::First, m_busy, first);
    const std::int64_t at_best = fit_busy(size, Fit::Best, m_busy_best, best);
    ranges[static_cast<std::size_t>(b)] = {Range{at_first, at_first + size}, Range{at_best, at_best + size}};
    out.first.offset[static_cast<std::size_t>(b)] = at_first;
    out.second.offset[static_cast<std::size_t>(b)] = at_best;
    out.first.arena_bytes = std::max(out.first.arena_bytes, at_first + size);
    out.second.arena_bytes = std::max(out.second.arena_bytes, at_best + size);
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
    const std::int64_t at = fit(b, Fit::First);
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
