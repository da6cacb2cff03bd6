#pragma once
// Internals shared by the memory passes: interval sweeps, dead-from frontiers on the schedule's
// execution order, and the order → offsets decoder every planner is built on.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <utility>
#include <string>
#include <vector>

#include "weft/core/memory/allocation_problem.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/graph/graph.h"

namespace weft::core::detail {

/// Conflict lists of closed intervals [start, end] (overlap ⇔ conflict), by a sweep in start
/// order. O(B log B + C).
std::vector<std::vector<std::int32_t>> interval_conflicts(std::span<const std::int64_t> start,
                                                          std::span<const std::int64_t> end);

/// The dead-from frontier of a tensor with one writer (its producer, or the one node writing all
/// its views: a merged node's block of outputs): per stream, the index of the first node that
/// happens strictly after all its readers (its writer when it has none), or the stream's length,
/// into `out`. Those nodes and everything after them are exactly where the tensor is dead. Any
/// other set of accesses (a split output's parent, several writers): FirstAfter::after_all.
/// O(readers · S).
void dead_from(const FirstAfter& after, const Graph& graph, TensorId t, std::vector<std::int32_t>& out);

/// Conservative live ranges of `tensors` under a several-stream order: closed positions in a
/// depth-ordered linear extension of happens-before, from the producer (first writer) to the last
/// node not strictly after all the tensor's accesses. Any two tensors that may be live at once have
/// overlapping ranges (the liveness too dense to list, the plan repair). O((V + E) log V + T·R·S).
void conservative_ranges(const Graph& graph, const ExecutionOrder& order, const FirstAfter& after,
                         std::span<const TensorId> tensors, std::vector<std::int64_t>& start, std::vector<std::int64_t>& end);

enum class Fit : std::uint8_t { First, Best };

/// Places blocks in `order`, each at the lowest offset (Fit::First) or in the smallest gap that
/// holds it (Fit::Best, the arena top when none does) among already placed conflicting blocks.
/// O(Σ degree · log degree).
class Decoder {
 public:
  explicit Decoder(const AllocationProblem& problem);
  Placement decode(std::span<const std::int32_t> order, Fit fit);
  /// decode(order, Fit::First) and decode(order, Fit::Best), the same two placements, in one
  /// pass over the conflict lists (each neighbour's two ranges are read together).
  std::pair<Placement, Placement> decode_first_and_best(std::span<const std::int32_t> order);
  /// Moves blocks down where they fit (others fixed), in offset order, then recomputes the arena.
  /// Keeps the placement valid; never raises the arena.
  void compact(Placement& placement);

 private:
  // Placed blocks as [lo, hi) byte ranges, one pair per block; hi = -1 while unplaced.
  void reset();
  void place(std::int32_t b, std::int64_t at);
  // What a block's placed neighbours occupy: their ranges (in m_busy or another list), the
  // highest end, the bytes they cover and the OR of every bound (for the alignment test).
  struct Busy {
    std::int64_t max_hi = 0, length = 0, bounds = 0;
    void add(std::pair<std::int64_t, std::int64_t> range) {
      max_hi = std::max(max_hi, range.second);
      length += range.second - range.first;
      bounds |= range.first | range.second;
    }
  };
  // Lowest aligned offset where block b fits beside its placed neighbours (Fit::First), or the
  // smallest gap that holds it, the lowest of equal ones, else the top of the busy span (Fit::Best).
  std::int64_t fit(std::int32_t b, Fit fit);
  // The same, given the placed neighbours' ranges `busy` (reordered) and their summary.
  std::int64_t fit_busy(std::int64_t size, Fit fit, std::vector<std::pair<std::int64_t, std::int64_t>>& busy,
                        const Busy& summary);
  // The same over the busy ranges sorted by (lo, hi).
  std::int64_t fit_sorted(std::int64_t size, Fit fit, std::int64_t max_hi,
                          std::vector<std::pair<std::int64_t, std::int64_t>>& ranges);
  // The same over a bitmap of aligned slots, when every bound and the size are aligned.
  std::int64_t fit_slots(std::int64_t size, Fit fit, std::int64_t max_hi,
                         const std::vector<std::pair<std::int64_t, std::int64_t>>& ranges);

  const AllocationProblem& m_p;
  std::vector<std::pair<std::int64_t, std::int64_t>> m_range;  ///< per block
  std::vector<std::pair<std::int64_t, std::int64_t>> m_busy, m_busy_best;
  std::vector<std::uint64_t> m_keys, m_slots;
};

/// The interval sweep (planner "sweep"): blocks in start order, each freed after its end, best
/// fit among the free ranges else at the top. Valid whenever every conflict is an overlap of
/// [start, end] (conflicts_omitted problems). O(B log B).
Placement sweep_placement(const AllocationProblem& p);
/// The stream sweep (planner "stream-sweep") of a problem with frontiers (several streams, too
/// dense to list): blocks in order_by_start, each at the lowest offset free of every placed block
/// it conflicts with by the frontiers, i.e. Decoder::decode(order_by_start(p), Fit::First) on the
/// listed conflicts. Nothing when the problem has no frontiers, a size is not a multiple of the
/// alignment, or the slot trees would pass 2^22 nodes (then the interval sweep plans).
/// O(B·S·log B) time, O(B·S + S·slots) memory.
std::optional<Placement> stream_sweep_placement(const AllocationProblem& p);
/// Blocks `earlier` and `later` (later by start, ties by block) conflict by p.frontiers. O(1).
bool stream_frontiers_conflict(const AllocationProblem& p, std::int32_t earlier, std::int32_t later);
/// Empty when no two blocks that conflict by p.frontiers share bytes, else which two do: the
/// pairs that share bytes while their [start, end] overlap, tested by the frontiers.
/// O((B + P) log B) for the P such pairs (few in a tight plan).
std::string check_stream_placement(const AllocationProblem& p, const Placement& placement);
/// Block indices sorted by (key, index), e.g. by start or by end. O(B log B).
std::vector<std::int32_t> blocks_by(std::span<const std::int64_t> key);
/// Empty when no two blocks whose [start, end] overlap share bytes, else which two do. O(B log B).
std::string check_interval_placement(const AllocationProblem& p, const Placement& placement);

/// Every pair of blocks whose closed ranges [start, end] overlap and whose bytes [offset, offset +
/// size) overlap: a sweep in start order keeps the blocks live at its point by offset, so a pair
/// sharing bytes at different times is never met. visit(b, c), b the block starting later, is
/// called once per pair; false stops the sweep. Blocks at kNotPlanned are left out.
/// O((B + P) log B) for the P pairs met within the largest size below each block.
void for_each_shared_live_pair(std::span<const std::int64_t> start, std::span<const std::int64_t> end,
                               std::span<const std::int64_t> offset, std::span<const std::int64_t> size,
                               const std::function<bool(std::int32_t, std::int32_t)>& visit);

/// The nodes that access a tensor, for its dead-from frontier: its readers, or its producer when
/// it has none; for the parent of views, every writer and reader. Not sorted; may repeat. A view
/// of the graph's lists, or of `scratch` where the two are joined.
std::span<const NodeId> tensor_accesses(const Graph& graph, TensorId t, std::vector<NodeId>& scratch);

/// Tensor a is dead-before tensor b under the order's clocks: every access of a (its readers, or
/// its writers when it has none; every writer and reader for the parent of views) happens
/// strictly before every writer of b. O(accesses of a · writers of b).
bool dead_before(const Graph& graph, const ExecutionOrder& clocks, TensorId a, TensorId b);

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

/// Cliques of the conflict graph used for inference by the canonical search: the elementary
/// sections of the position intervals (blocks alive at once), each cut down to a clique where
/// positions are only a hint (checked against the conflict lists). Consecutive duplicates
/// dropped. O(Σ section sizes), plus a B² bit matrix and O(Σ section size²) checks when
/// conflicts are not overlaps.
struct CliqueCover {
  std::vector<std::vector<std::int32_t>> members;   ///< per clique: its blocks, sorted
  std::vector<std::vector<std::int32_t>> of_block;  ///< per block: the cliques holding it
};
CliqueCover position_cliques(const AllocationProblem& p);

/// Largest clique weight in the cover (and the largest block): a lower bound on any arena.
std::int64_t clique_cover_bound(const AllocationProblem& p, const CliqueCover& cover);

/// The fields a static block order sorts by, most significant first, each descending: the bytes
/// of the heaviest clique holding the block (its "total"), its position width, its area (width x
/// size) and its size. Ties go to the lower block index.
enum class KeyField : std::uint8_t { Total, Width, Area, Size };
using PreorderKey = std::array<KeyField, 3>;

/// The exact decision search over canonical solutions (canonical_search.cpp): finds offsets
/// with arena <= capacity, proves there are none, or runs out of steps (one per search node and
/// one per placement tried) or time. Works on any conflict graph.
class CanonicalSearch {
 public:
  CanonicalSearch(const AllocationProblem& p, const CliqueCover& cover);
  CanonicalSearch(const CanonicalSearch&) = delete;
  CanonicalSearch& operator=(const CanonicalSearch&) = delete;

  struct Trial {
    std::int64_t capacity = 0;
    std::span<const std::int32_t> preorder;  ///< ranks the blocks: ties at one offset go to the lower rank
    std::uint64_t preorder_id = 0;           ///< names the preorder in the table of failed states
    /// When set, each independent part the search falls into is ranked afresh by this key, with
    /// the clique totals of what is left unplaced (MiniMalloc's per-partition preordering), and
    /// its canonical order starts over; `preorder` must be the same key on the whole problem.
    const PreorderKey* rerank = nullptr;
    std::int64_t step_limit = 0;
    Clock::time_point deadline = Clock::time_point::max();
    double noise = 0;        ///< chance of swapping two neighbouring candidates (0: none)
    std::uint64_t seed = 1;  ///< for the noise
  };
  /// Failed states are remembered across calls (keyed by capacity and preorder), so a restart
  /// with a larger step limit does not search again what an earlier one proved infeasible.
  SearchOutcome solve(const Trial& trial, std::vector<std::int64_t>& offsets);
  /// Steps spent by the last solve.
  std::int64_t steps_used() const;

 private:
  struct Group {
    std::vector<std::int32_t> blocks;   // unplaced when the group was formed (some placed since)
    std::vector<std::int32_t> cliques;  // the cliques holding its blocks
  };
  struct Cand {
    std::int64_t offset;
    std::int32_t rank;
    std::int32_t block;
  };
  struct Change {
    std::int32_t index;
    std::int64_t old;
  };
  struct Slot {
    std::uint64_t key = 0;  // the unplaced blocks, their min offsets, capacity and preorder; 0: empty
    std::int64_t last_offset = 0;
    std::int32_t last_rank = 0;
  };
  static constexpr std::size_t kProbes = 8;

  std::vector<Group> split(const Group& group);
  // Ranks a part's blocks by m_rerank with the clique totals left; returns a hash of the ranking.
  std::uint64_t rerank(const Group& part);
  SearchOutcome solve_group(const Group& group, std::int64_t last_offset, std::int32_t last_rank);
  SearchOutcome dfs(const Group& group, std::int64_t last_offset, std::int32_t last_rank);
  // Whether placing `block` (placed, on a connected group) left its group in more than one part.
  bool separates(std::int32_t block);
  bool place(std::int32_t block, std::int64_t offset);
  void unplace(std::int32_t block, std::size_t mins_mark);
  bool feasible(const Group& group, std::int64_t last_offset);
  bool known_infeasible(std::uint64_t key, std::int64_t last_offset, std::int32_t last_rank) const;
  void remember_infeasible(std::uint64_t key, std::int64_t last_offset, std::int32_t last_rank);

  const AllocationProblem& m_p;
  const CliqueCover& m_cover;
  std::int64_t m_capacity = 0;
  std::int64_t m_steps_left = 0, m_steps_granted = 0;
  Clock::time_point m_deadline;
  std::vector<std::int64_t> m_offset, m_min, m_solution;
  std::vector<std::int32_t> m_rank, m_free_degree, m_stuck;
  std::vector<std::int64_t> m_total;
  std::vector<std::int32_t> m_cut_first, m_cut_last;  ///< per block: the cuts it crosses, [first, last) (intervals only)
  std::vector<std::int32_t> m_cuts, m_cuts_initial;   ///< per cut: unplaced blocks crossing it
  bool m_cut_opened = false;                          ///< the last place() dropped a cut to 0
  std::vector<std::int32_t> m_witness;  ///< per clique: an unplaced block low enough for its bytes to fit, or -1
  std::vector<std::pair<std::int64_t, std::int64_t>> m_scratch;
  std::vector<std::uint32_t> m_mark, m_clique_mark;
  std::uint32_t m_epoch = 0;
  std::vector<Change> m_min_log;
  std::vector<std::uint64_t> m_key;
  std::vector<Slot> m_table;
  std::uint64_t m_salt = 0;
  const PreorderKey* m_rerank = nullptr;
  std::vector<std::int64_t> m_key_total;
  std::vector<std::int32_t> m_saved_rank, m_order, m_queue;
  double m_noise = 0;
  std::mt19937_64 m_rng{1};
};

/// The keys of the canonical search's static block orders (MiniMalloc's and two by size), in
/// the order the `exact` planner tries them.
std::span<const PreorderKey> canonical_keys();
/// `blocks` sorted by `key` (descending, ties to the lower index), given each block's total.
void sort_by_key(const AllocationProblem& p, const PreorderKey& key, std::span<const std::int64_t> total,
                 std::vector<std::int32_t>& blocks);
/// Static block orders for the canonical search's ties, one per canonical key, on the whole
/// problem. O(K · B log B + Σ clique sizes).
std::vector<std::vector<std::int32_t>> canonical_preorders(const AllocationProblem& p, const CliqueCover& cover);

/// Above this many blocks the exact searches are skipped (their nodes cost O(B)).
inline constexpr std::size_t kExactBlockLimit = 5000;

struct ExactResult {
  Placement placement;
  bool optimal = false;          ///< arena_bytes == lower_bound: proven optimal
  std::int64_t lower_bound = 0;  ///< the bound the search ended with (raised by infeasibility proofs)
  std::int64_t steps = 0;        ///< steps spent
  /// False when the problem was too large (or empty) for the canonical search: the placement is
  /// then the compacted smallest of the seeds' decodings.
  bool searched = false;
};

/// The `exact` planner: greedy decodings of `seeds` (and of the preorders) as the incumbent,
/// then restarts of the canonical search over preorders and capacities until the incumbent meets
/// the lower bound or `step_budget` (or the deadline) runs out. Deterministic for a budget and a
/// seed when the deadline does not strike.
/// `decoded` (optional): the seeds' first-fit and best-fit decodings already made, as for
/// search_placement.
ExactResult exact_placement(const AllocationProblem& p, std::span<const std::vector<std::int32_t>> seeds,
                            std::int64_t lower_bound, std::int64_t step_budget, Clock::time_point deadline,
                            std::uint64_t seed, std::span<const Placement> decoded = {});

/// Iterated greedy + local search from the seeds (then, on interval structure, the skyline
/// restarts) within options.search_steps (and the options.search_ms guard); returns the best
/// placement found (never worse than the seeds' decodings).
/// `decoded` (optional): the seeds' first-fit and best-fit decodings already made, in the order
/// seed 0 first fit, seed 0 best fit, seed 1 first fit, ...; seeds beyond it are decoded here.
Placement search_placement(const AllocationProblem& p, std::vector<std::vector<std::int32_t>> seeds,
                           const PlanOptions& options, std::int64_t lower_bound,
                           std::vector<Placement> decoded = {});
/// Whether search_placement does more than decode its seeds and compact the smallest: false
/// when its budget buys no local-search iteration and no skyline phase (large problems), so its
/// result is then the compacted best seed decoding. O(B).
bool search_improves_seeds(const AllocationProblem& p, const PlanOptions& options, std::int64_t lower_bound);

}  // namespace weft::core::detail
