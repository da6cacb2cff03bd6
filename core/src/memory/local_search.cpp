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

// Narrows [lo, best] with the skyline search within `step_budget` placements tried
// (deterministic: the budget counts work; the deadline only guards against a starved machine).
// The search is heavy-tailed: at a feasible capacity it usually succeeds within a few times n
// placements or not for a long time, so it runs many short randomised restarts (Gomes et al.'s
// restart strategy) at a target between the bound and the incumbent, raising the target after a
// run of failures. A restart perturbs either one of the static preorders or, more often, the
// preorder that found the incumbent (an iterated greedy over preorders: on the hard MiniMalloc
// instances the restarts from a good preorder's neighbourhood are what reach the last few
// percent). Every 16th try is a longer one at the bound itself, with a doubling budget, which
// finds optimal packings on the easier instances or proves the bound infeasible.
void skyline_phase(const AllocationProblem& p, std::int64_t lower_bound, std::int64_t step_budget,
                   Clock::time_point deadline, Placement& best, std::uint64_t seed) {
  const std::size_t n = p.block_count();
  const auto preorders = skyline_preorders(p);
  std::mt19937_64 rng(seed);
  std::int64_t lo = lower_bound;
  std::int64_t used = 0;
  std::vector<std::int64_t> offsets;
  const auto found = [&] {
    best.offset = offsets;
    best.arena_bytes = 0;
    for (std::size_t b = 0; b < n; ++b) best.arena_bytes = std::max(best.arena_bytes, offsets[b] + p.size[b]);
  };
  constexpr std::size_t kProofEvery = 16;
  constexpr int kFailureLimit = 8;
  const auto restart_steps = 6 * static_cast<std::int64_t>(n);
  const auto step_down = [&] { return best.arena_bytes - std::max<std::int64_t>(1, (best.arena_bytes - lo) / 4); };
  std::int64_t target = step_down();
  int failures = 0;
  std::int64_t proof_steps = 4 * static_cast<std::int64_t>(n);
  std::vector<std::int32_t> incumbent;
  for (std::size_t attempt_no = 0; lo < best.arena_bytes && used < step_budget && Clock::now() < deadline; ++attempt_no) {
    const std::int64_t left = step_budget - used;
    if (attempt_no % kProofEvery == kProofEvery - 1) {
      const std::int64_t steps = std::min(proof_steps, left);
      proof_steps *= 2;
      const SearchOutcome r =
          skyline_search(p, lo, preorders[(attempt_no / kProofEvery) % preorders.size()], steps, deadline, offsets, &used);
      if (r == SearchOutcome::Found) found();
      else if (r == SearchOutcome::Infeasible) lo = lo + 1;
      continue;
    }
    target = std::clamp(target, lo, best.arena_bytes - 1);
    const bool from_incumbent = !incumbent.empty() && attempt_no >= preorders.size() &&
                                std::bernoulli_distribution(0.7)(rng);
    std::vector<std::int32_t> pre = from_incumbent ? incumbent : preorders[attempt_no % preorders.size()];
    if (attempt_no >= preorders.size())
      for (std::size_t i = 0; i + 1 < n; ++i)
        if (std::bernoulli_distribution(0.3)(rng)) {
          const std::size_t j = std::min(n - 1, i + std::uniform_int_distribution<std::size_t>(1, 4)(rng));
          std::swap(pre[i], pre[j]);
        }
    const SearchOutcome r = skyline_search(p, target, pre, std::min(restart_steps, left), deadline, offsets, &used);
    if (r == SearchOutcome::Found) {
      found();
      incumbent = pre;
      failures = 0;
      target = step_down();
    } else if (r == SearchOutcome::Infeasible) {
      lo = std::max(lo, target + 1);
    } else if (++failures >= kFailureLimit) {
      failures = 0;
      target += std::max<std::int64_t>(1, (best.arena_bytes - target) / 2);
    }
  }
}

}  // namespace

namespace {

// What search_placement will do beyond decoding its seeds: the exact skyline phase (interval
// structure, a positive bound, few blocks) and how many local-search iterations its budget buys.
struct SearchWork {
  bool exact = false;
  std::int64_t ls_steps = 0, ls_iterations = 0;
};

SearchWork search_work(const AllocationProblem& p, const PlanOptions& options, std::int64_t lower_bound) {
  SearchWork w;
  // The exact search's preorders and nodes cost O(B · sections) and O(B log B + sections): worth
  // it up to a few thousand blocks (kExactBlockLimit); larger instances get the greedy seeds and
  // local search only.
  w.exact = p.conflicts_are_overlaps && lower_bound > 0 && p.block_count() <= kExactBlockLimit;
  // Work budget: a decoded order costs about (blocks + conflicts) / 64 exact-search placements.
  std::size_t degree_sum = 0;
  for (const auto& c : p.conflicts) degree_sum += c.size();
  const auto decode_cost = static_cast<std::int64_t>(1 + (p.block_count() + degree_sum) / 64);
  // With an interval structure, the exact skyline search gets most of the budget.
  w.ls_steps = w.exact ? options.search_steps / 20 : options.search_steps;
  w.ls_iterations = w.ls_steps / decode_cost;
  return w;
}

}  // namespace

bool search_improves_seeds(const AllocationProblem& p, const PlanOptions& options, std::int64_t lower_bound) {
  const SearchWork w = search_work(p, options, lower_bound);
  return p.block_count() >= 2 && (w.exact || w.ls_iterations > 0);
}

Placement search_placement(const AllocationProblem& p, std::vector<std::vector<std::int32_t>> seeds,
                           const PlanOptions& options, std::int64_t lower_bound, std::vector<Placement> decoded) {
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
  const SearchWork work = search_work(p, options, lower_bound);
  const bool exact = work.exact;
  if (exact)
    for (auto& pre : skyline_preorders(p)) seeds.push_back(std::move(pre));
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    const auto& seed = seeds[i];
    const bool known = 2 * i + 1 < decoded.size();
    consider(seed, known ? std::move(decoded[2 * i]) : decoder.decode(seed, Fit::First));
    consider(seed, known ? std::move(decoded[2 * i + 1]) : decoder.decode(seed, Fit::Best));
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
  const std::int64_t ls_steps = work.ls_steps;
  const std::int64_t ls_iterations = work.ls_iterations;
  // Score: the arena, then the sum of block tops (a more compact packing leaves more room, so
  // plateau moves drift toward placements that lower the arena next).
  const auto tops = [&](const Placement& pl) {
    std::int64_t sum = 0;
    for (std::size_t b = 0; b < n; ++b) sum += pl.offset[b] + p.size[b];
    return sum;
  };
  // The local search's state (not decoded when the budget buys no iteration: large problems).
  std::vector<std::int32_t> current;
  Placement current_pl;
  std::int64_t current_tops = 0;
  if (ls_iterations > 0) {
    current = best.order;
    current_pl = decoder.decode(current, Fit::First);
    current_tops = tops(current_pl);
  }
  std::vector<std::int32_t> trial;
  std::vector<std::int32_t> top_blocks;
  std::vector<std::size_t> where(n);
  std::size_t stale = 0;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (std::int64_t iter = 0; iter < ls_iterations; ++iter) {
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
  if (exact && best.placement.arena_bytes > lower_bound)
    skyline_phase(p, lower_bound, options.search_steps - ls_steps, deadline, best.placement, options.seed);
  return best.placement;
}

}  // namespace weft::core::detail
