#pragma once
// Internals shared by the memory passes: interval sweeps, linearisation of a schedule, and the
// order → offsets decoder every planner is built on.
#include <chrono>
#include <cstdint>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "weft/core/memory_planner.h"

namespace weft::core::detail {

/// Conflict lists of closed intervals [start, end] (overlap ⇔ conflict), by a sweep in start
/// order. O(B log B + C).
std::vector<std::vector<std::int32_t>> interval_conflicts(std::span<const std::int64_t> start,
                                                          std::span<const std::int64_t> end);

/// A topological order of H's generating edges (data ∪ stream order ∪ events), without the
/// closure. Errors: InvalidInput on misplaced nodes or a cycle (deadlock).
Expected<std::vector<NodeId>> linearize(const Graph& graph, const Schedule& schedule);

/// H's generating edges as successor lists (sorted, unique). Assumes nodes are placed once.
std::vector<std::vector<NodeId>> happens_before_edges(const Graph& graph, const Schedule& schedule);

/// The dead-from frontier of a tensor: per stream, the index of the first node that happens
/// strictly after all its readers (its producer when it has none), or the stream's length. Those
/// nodes and everything after them are exactly where the tensor is dead. `need` is scratch.
/// O(S² log V).
std::vector<std::int32_t> dead_from(const Graph& graph, const StreamClocks& clocks, const Tensor& tensor,
                                    std::vector<std::int32_t>& need);

enum class Fit : std::uint8_t { First, Best };

/// Places blocks in `order`, each at the lowest offset (Fit::First) or in the smallest gap that
/// holds it (Fit::Best, the arena top when none does) among already placed conflicting blocks.
/// O(Σ degree · log degree).
class Decoder {
 public:
  explicit Decoder(const AllocationProblem& problem);
  Placement decode(std::span<const std::int32_t> order, Fit fit);
  /// Moves blocks down where they fit (others fixed), in offset order, then recomputes the arena.
  /// Keeps the placement valid; never raises the arena.
  void compact(Placement& placement);

 private:
  // Placed blocks as [lo, hi) byte ranges, one pair per block; hi = -1 while unplaced.
  void reset();
  void place(std::int32_t b, std::int64_t at);
  // Lowest aligned offset where block b fits beside its placed neighbours (Fit::First), or the
  // smallest gap that holds it, the lowest of equal ones, else the top of the busy span (Fit::Best).
  std::int64_t fit(std::int32_t b, Fit fit);
  // The same over the busy ranges sorted by (lo, hi).
  std::int64_t fit_sorted(std::int64_t size, Fit fit, std::int64_t max_hi);
  // The same over a bitmap of aligned slots, when every bound and the size are aligned.
  std::int64_t fit_slots(std::int64_t size, Fit fit, std::int64_t max_hi);

  const AllocationProblem& m_p;
  std::vector<std::pair<std::int64_t, std::int64_t>> m_range;  ///< per block
  std::vector<std::pair<std::int64_t, std::int64_t>> m_busy;
  std::vector<std::uint64_t> m_keys, m_slots;
};

/// Orders used by the named planners.
std::vector<std::int32_t> order_by_size(const AllocationProblem& p);
std::vector<std::int32_t> order_by_breadth(const AllocationProblem& p);
std::vector<std::int32_t> order_by_start(const AllocationProblem& p);

using Clock = std::chrono::steady_clock;

enum class SearchOutcome : std::uint8_t { Found, Infeasible, Aborted };

/// Skyline branch and bound for problems whose conflicts are exactly position-interval
/// overlaps: finds offsets with arena <= capacity (Found), proves there are none (Infeasible),
/// or runs out of nodes or time (Aborted). `node_limit` counts search nodes and placements tried
/// (adds them to *nodes_used when given). `preorder` breaks ties between equal offsets.
SearchOutcome skyline_search(const AllocationProblem& p, std::int64_t capacity, std::span<const std::int32_t> preorder,
                             std::int64_t node_limit, Clock::time_point deadline, std::vector<std::int64_t>& offsets,
                             std::int64_t* nodes_used = nullptr);
/// Static block orders tried in turn by the skyline search (by section total, size, area, length).
std::vector<std::vector<std::int32_t>> skyline_preorders(const AllocationProblem& p);

/// Iterated greedy + local search from the seeds (then, on interval structure, the skyline
/// restarts) within options.search_steps (and the options.search_ms guard); returns the best
/// placement found (never worse than the seeds' decodings).
/// `decoded` (optional): the seeds' first-fit and best-fit decodings already made, in the order
/// seed 0 first fit, seed 0 best fit, seed 1 first fit, ...; seeds beyond it are decoded here.
Placement search_placement(const AllocationProblem& p, std::vector<std::vector<std::int32_t>> seeds,
                           const PlanOptions& options, std::int64_t lower_bound,
                           std::vector<Placement> decoded = {});

}  // namespace weft::core::detail
