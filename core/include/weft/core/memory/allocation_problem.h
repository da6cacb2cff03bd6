#pragma once
// The vocabulary of memory planning: blocks to place in one arena, their placement, and the
// planners' options.
#include <cstdint>
#include <string>
#include <vector>

#include "weft/core/memory/memory_plan.h"

namespace weft::core {

struct PlanOptions {
  std::int64_t alignment = kDefaultAlignment;
  bool outputs_in_arena = false;
  /// Work budget of the `exact` planner's canonical search (one unit: a search node or a placement
  /// tried), and again of `best`'s iterated greedy, local search and, on interval structure, skyline
  /// restarts when the exact search did not prove optimality (there a decoded visiting order costs
  /// 1 + (blocks + conflicts) / 64). Results depend only on the budget and the seed. Both stop
  /// when they reach the lower bound. 0: greedy seeds only.
  std::int64_t search_steps = 200'000;
  /// Wall-clock cap on each of the same searches, ms (a guard for huge instances or starved
  /// machines; when it, not search_steps, ends a search, the result depends on timing). 0: greedy
  /// seeds only.
  double search_ms = 1000;
  std::uint64_t seed = 1;  ///< the search's random seed (results are deterministic for a seed)
  /// Most conflicting block pairs a liveness lists. A weakly synchronised schedule of a large
  /// model can leave most tensor pairs possibly live at once (cp-list on 8 streams of a 100k
  /// operator layered graph: about a billion pairs, 12 GB); past this many the liveness lists
  /// none and gives every block a conservative live range instead (Liveness; the "stream-sweep"
  /// or "sweep" planner). 0: no limit (max_conflict_pairs_per_block ignored too).
  std::int64_t max_conflict_pairs = 32'000'000;
  /// ... and, once the pairs are more than kDenseFloorPairs, most pairs per planned block. Every
  /// listed planner decodes each pair several times, so where the pairs grow faster than the
  /// blocks (a layer width growing as √n: about n^1.5 pairs) listing them makes planning
  /// superlinear; past this density the pair-free stream sweep plans instead. 0: no such limit.
  std::int64_t max_conflict_pairs_per_block = 64;
};

/// Pairs below which max_conflict_pairs_per_block does not apply: every model of up to about
/// 1400 tensors is listed whatever its density (the densest tested, 2k long-range operators on
/// 8 streams, has 0.8M pairs), and listing a million pairs takes a tenth of a second.
inline constexpr std::int64_t kDenseFloorPairs = 1'000'000;

/// The most conflicting pairs a liveness of `blocks` blocks lists under `options` (0: no limit).
std::int64_t listed_pair_limit(const PlanOptions& options, std::size_t blocks);

/// The exact conflicts of a several-stream liveness too dense to list, in O(B·S) ints (S <=
/// kMaxFrontierStreams). Block b is written by one node, the index[b]-th of stream stream[b];
/// dead_from[b·S + s] is the index of the first node of stream s that happens strictly after
/// every access of b (the stream's length when none). For blocks a before c in start order
/// (ties by block), c is never dead before a, so they conflict iff index[c] < dead_from[a·S +
/// stream[c]].
struct StreamFrontiers {
  std::size_t streams = 0;
  std::vector<std::int32_t> stream, index, dead_from;
  bool empty() const { return streams == 0; }
};
inline constexpr std::size_t kMaxFrontierStreams = 64;

/// Blocks to place in one arena. Two blocks that conflict may not share bytes. start/end is a
/// closed position interval in some linear order (tensors: producer and last reader in a
/// linearisation of the schedule); planners use it only as an ordering hint, never for validity.
struct AllocationProblem {
  std::vector<std::int64_t> size;               ///< per block, > 0, multiple of alignment
  std::vector<std::int64_t> start, end;         ///< per block, start <= end
  std::vector<std::vector<std::int32_t>> conflicts;  ///< symmetric adjacency, sorted, no self
  std::int64_t alignment = 1;
  /// True when conflicts are exactly the overlaps of [start, end] (one stream, raw intervals):
  /// the exact skyline search and the interval bound apply.
  bool conflicts_are_overlaps = false;
  /// Set (to the number of conflicting pairs) when they were too many to list
  /// (listed_pair_limit): `conflicts` is empty, and keeping apart any two blocks whose [start,
  /// end] overlap keeps apart every real conflict (exactly them when conflicts_are_overlaps).
  /// Only the sweeps place such a problem: the stream sweep by `frontiers` where they are set,
  /// else the interval sweep by the ranges (planner "sweep").
  std::int64_t omitted_conflict_pairs = 0;
  /// With omitted conflicts under several streams (each block written by one node, at most
  /// kMaxFrontierStreams streams): the conflicts exactly, and the stream sweep plans them; start
  /// and end are then a linear extension of happens-before, as the frontiers require.
  StreamFrontiers frontiers;
  bool conflicts_omitted() const { return omitted_conflict_pairs > 0; }
  std::size_t block_count() const { return size.size(); }
};

/// Offsets of the blocks of an AllocationProblem.
struct Placement {
  std::string planner;
  std::vector<std::int64_t> offset;  ///< per block
  std::int64_t arena_bytes = 0;      ///< max over blocks of offset + size
};

}  // namespace weft::core
