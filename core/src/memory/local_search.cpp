// The `best` planner's search: iterated greedy over visiting orders (Ruiz & Stützle's iterated
// greedy, as used for strip packing) decoded by first fit, with moves aimed at the blocks that
// touch the arena top, plus gravity compaction. Deterministic for a seed and an iteration count;
// the time budget bounds the iterations.
#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>
#include <random>

#include "allocation_detail.h"

namespace weft::core::detail {
namespace {

struct Candidate {
  std::vector<std::int32_t> order;
  Placement placement;
};

// Narrows [lo, hi] by the skyline search with doubling node limits: Found lowers hi, a proof of
// infeasibility raises lo; each round tries the bound side first, then the midpoint.
void skyline_phase(const AllocationProblem& p, std::int64_t lower_bound, Clock::time_point deadline, Placement& best,
                   std::uint64_t seed) {
  const std::size_t n = p.block_count();
  const auto preorders = skyline_preorders(p);
  std::mt19937_64 rng(seed);
  std::int64_t lo = lower_bound;
  std::vector<std::int64_t> offsets;
  const auto attempt = [&](std::int64_t cap, std::span<const std::int32_t> pre, std::int64_t nodes) {
    const SearchOutcome r = skyline_search(p, cap, pre, nodes, deadline, offsets);
    if (r == SearchOutcome::Found) {
      best.offset = offsets;
      best.arena_bytes = 0;
      for (std::size_t b = 0; b < n; ++b) best.arena_bytes = std::max(best.arena_bytes, offsets[b] + p.size[b]);
    } else if (r == SearchOutcome::Infeasible) {
      lo = std::max(lo, cap + 1);
    }
    return r;
  };
  // The search is heavy-tailed: at a feasible capacity it usually succeeds within a few node
  // budgets of n or not for a long time, so it runs as many short randomised restarts (Gomes et
  // al.'s restart strategy) at a target between the bound and the incumbent, raising the target
  // after a run of failures; every eighth try is a longer one at the bound itself, with a
  // growing budget, which can also prove the bound infeasible.
  const auto step_down = [&] { return best.arena_bytes - std::max<std::int64_t>(1, (best.arena_bytes - lo) / 4); };
  std::int64_t target = step_down();
  int failures = 0;
  std::int64_t proof_us = 2000;
  for (std::size_t attempt_no = 0; lo < best.arena_bytes && Clock::now() < deadline; ++attempt_no) {
    if (attempt_no % 8 == 7) {
      // A longer try at the bound (doubling time slices, never more than the time left).
      const auto until = std::min(deadline, Clock::now() + std::chrono::microseconds(proof_us));
      proof_us *= 2;
      const SearchOutcome r = skyline_search(p, lo, preorders[(attempt_no / 8) % preorders.size()],
                                             std::numeric_limits<std::int64_t>::max(), until, offsets);
      if (r == SearchOutcome::Found) {
        best.offset = offsets;
        best.arena_bytes = 0;
        for (std::size_t b = 0; b < n; ++b) best.arena_bytes = std::max(best.arena_bytes, offsets[b] + p.size[b]);
      } else if (r == SearchOutcome::Infeasible) {
        lo = lo + 1;
      }
      continue;
    }
    target = std::clamp(target, lo, best.arena_bytes - 1);
    std::vector<std::int32_t> pre = preorders[attempt_no % preorders.size()];
    if (attempt_no >= preorders.size())
      for (std::size_t i = 0; i + 1 < n; ++i)
        if (std::bernoulli_distribution(0.3)(rng)) {
          const std::size_t j = std::min(n - 1, i + std::uniform_int_distribution<std::size_t>(1, 4)(rng));
          std::swap(pre[i], pre[j]);
        }
    const SearchOutcome r = attempt(target, pre, 2 * static_cast<std::int64_t>(n));
    if (r == SearchOutcome::Found) {
      failures = 0;
      target = step_down();
    } else if (r == SearchOutcome::Aborted && ++failures >= 8) {
      failures = 0;
      target += std::max<std::int64_t>(1, (best.arena_bytes - target) / 2);
    }
  }
}

}  // namespace

Placement search_placement(const AllocationProblem& p, std::vector<std::vector<std::int32_t>> seeds,
                           const PlanOptions& options, std::int64_t lower_bound) {
  const std::size_t n = p.block_count();
  Decoder decoder(p);
  Candidate best;
  best.placement.arena_bytes = -1;
  const auto consider = [&](const std::vector<std::int32_t>& order, Placement placement) {
    if (best.placement.arena_bytes < 0 || placement.arena_bytes < best.placement.arena_bytes) {
      best.order = order;
      best.placement = std::move(placement);
    }
  };
  if (p.conflicts_are_overlaps)
    for (auto& pre : skyline_preorders(p)) seeds.push_back(std::move(pre));
  for (const auto& seed : seeds) {
    consider(seed, decoder.decode(seed, Fit::First));
    consider(seed, decoder.decode(seed, Fit::Best));
  }
  if (n < 2 || best.placement.arena_bytes <= lower_bound) {
    decoder.compact(best.placement);
    return best.placement;
  }
  // Offset order of a placement: decoding it again by first fit never does worse (every block
  // finds its old slot or a lower one), so it is a safe restart point for the search.
  const auto offset_order = [&](const Placement& pl) {
    std::vector<std::int32_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
      return pl.offset[static_cast<std::size_t>(a)] < pl.offset[static_cast<std::size_t>(b)];
    });
    return order;
  };

  std::mt19937_64 rng(options.seed);
  const auto begin = Clock::now();
  const auto budget = std::chrono::microseconds(static_cast<std::int64_t>(options.search_ms * 1000));
  const auto final_deadline = begin + budget;
  // With an interval structure, the exact skyline search gets most of the budget.
  const bool exact = p.conflicts_are_overlaps && lower_bound > 0;
  const auto deadline = exact ? begin + budget / 10 : final_deadline;
  // Score: the arena, then the sum of block tops (a more compact packing leaves more room, so
  // plateau moves drift toward placements that lower the arena next).
  const auto tops = [&](const Placement& pl) {
    std::int64_t sum = 0;
    for (std::size_t b = 0; b < n; ++b) sum += pl.offset[b] + p.size[b];
    return sum;
  };
  std::vector<std::int32_t> current = best.order;
  Placement current_pl = decoder.decode(current, Fit::First);
  std::int64_t current_tops = tops(current_pl);
  std::vector<std::int32_t> trial;
  std::vector<std::int32_t> top_blocks;
  std::vector<std::size_t> where(n);
  std::size_t stale = 0;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (std::size_t iter = 0;; ++iter) {
    if ((iter & 15) == 0 && Clock::now() >= deadline) break;
    if (best.placement.arena_bytes <= lower_bound) break;
    trial = current;
    for (std::size_t i = 0; i < n; ++i) where[static_cast<std::size_t>(trial[i])] = i;
    const double r = unit(rng);
    if (r < 0.6) {
      // Move a block that reaches the top earlier in the order: it then finds a lower hole.
      top_blocks.clear();
      const std::int64_t high = current_pl.arena_bytes;
      for (std::size_t b = 0; b < n; ++b)
        if (current_pl.offset[b] + p.size[b] >= high) top_blocks.push_back(static_cast<std::int32_t>(b));
      const std::int32_t b = top_blocks[std::uniform_int_distribution<std::size_t>(0, top_blocks.size() - 1)(rng)];
      const std::size_t from = where[static_cast<std::size_t>(b)];
      if (from == 0) continue;
      const std::size_t to = std::uniform_int_distribution<std::size_t>(0, from - 1)(rng);
      std::rotate(trial.begin() + static_cast<std::ptrdiff_t>(to), trial.begin() + static_cast<std::ptrdiff_t>(from),
                  trial.begin() + static_cast<std::ptrdiff_t>(from + 1));
    } else if (r < 0.85) {
      const std::size_t a = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
      const std::size_t b = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
      std::swap(trial[a], trial[b]);
    } else {
      const std::size_t from = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
      const std::size_t to = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
      const std::int32_t b = trial[from];
      trial.erase(trial.begin() + static_cast<std::ptrdiff_t>(from));
      trial.insert(trial.begin() + static_cast<std::ptrdiff_t>(to), b);
    }
    Placement pl = decoder.decode(trial, Fit::First);
    const std::int64_t t = tops(pl);
    if (pl.arena_bytes < current_pl.arena_bytes || (pl.arena_bytes == current_pl.arena_bytes && t <= current_tops)) {
      if (pl.arena_bytes < current_pl.arena_bytes || t < current_tops) stale = 0;
      current = trial;
      current_tops = t;
      current_pl = pl;
      consider(trial, std::move(pl));
    } else if (++stale > 4 * n) {
      // Restart from the best placement's offset order, lightly shuffled.
      current = offset_order(best.placement);
      for (std::size_t k = 0; k < 3; ++k) {
        const std::size_t a = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
        const std::size_t b = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
        std::swap(current[a], current[b]);
      }
      current_pl = decoder.decode(current, Fit::First);
      current_tops = tops(current_pl);
      stale = 0;
    }
  }
  decoder.compact(best.placement);
  if (exact && best.placement.arena_bytes > lower_bound) skyline_phase(p, lower_bound, final_deadline, best.placement, options.seed);
  return best.placement;
}

}  // namespace weft::core::detail
