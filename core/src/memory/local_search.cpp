// The `best` planner's search: iterated greedy over visiting orders (Ruiz & Stützle's iterated
// greedy, as used for strip packing) decoded by first fit, with moves aimed at the blocks that
// touch the arena top, plus gravity compaction. Deterministic for a seed and an iteration count;
// the time budget bounds the iterations.
#include <algorithm>
#include <chrono>
#include <numeric>
#include <random>

#include "allocation_detail.h"

namespace weft::core::detail {
namespace {

using Clock = std::chrono::steady_clock;

struct Candidate {
  std::vector<std::int32_t> order;
  Placement placement;
};

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
  const auto deadline = Clock::now() + std::chrono::microseconds(static_cast<std::int64_t>(options.search_ms * 1000));
  std::vector<std::int32_t> current = best.order;
  std::int64_t current_arena = best.placement.arena_bytes;
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
      const Placement pl = decoder.decode(trial, Fit::First);
      top_blocks.clear();
      const std::int64_t high = pl.arena_bytes;
      for (std::size_t b = 0; b < n; ++b)
        if (pl.offset[b] + p.size[b] >= high) top_blocks.push_back(static_cast<std::int32_t>(b));
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
    if (pl.arena_bytes <= current_arena) {
      if (pl.arena_bytes < current_arena) stale = 0;
      current = trial;
      current_arena = pl.arena_bytes;
      consider(trial, std::move(pl));
    } else if (++stale > 4 * n) {
      // Restart from the best placement's offset order, lightly shuffled.
      current = offset_order(best.placement);
      for (std::size_t k = 0; k < 3; ++k) {
        const std::size_t a = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
        const std::size_t b = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
        std::swap(current[a], current[b]);
      }
      current_arena = decoder.decode(current, Fit::First).arena_bytes;
      stale = 0;
    }
  }
  decoder.compact(best.placement);
  return best.placement;
}

}  // namespace weft::core::detail
