// Liveness of planned tensors over a schedule's happens-before partial order (DESIGN.md,
// "Liveness under concurrency"): a is dead-before b iff every reader of a happens-before b's
// producer; a and b conflict iff neither is dead-before the other.
#include "weft/core/memory/liveness.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <numeric>

#include "allocation_detail.h"
#include "weft/core/memory/allocation_problem.h"
#include "weft/core/base/check.h"

namespace weft::core {

std::int64_t listed_pair_limit(const PlanOptions& options, std::size_t blocks) {
  if (options.max_conflict_pairs <= 0) return 0;
  if (options.max_conflict_pairs_per_block <= 0) return options.max_conflict_pairs;
  const std::int64_t dense = std::max(kDenseFloorPairs, options.max_conflict_pairs_per_block * static_cast<std::int64_t>(blocks));
  return std::min(options.max_conflict_pairs, dense);
}

namespace detail {
namespace {

// Sorted symmetric adjacency lists of the unordered pairs {x, y} that `for_each_pair(add)` calls
// add(x, y) with (each pair once; it is run twice: to count degrees, then to fill) in O(V + C),
// with one allocation per list: the pairs land in one flat array grouped by vertex, then
// visiting x in increasing order and appending x to each neighbour's list leaves every list
// ascending (a counting sort; no comparisons).
template <class ForEachPair>
std::vector<std::vector<std::int32_t>> symmetric_lists(std::size_t n, ForEachPair&& for_each_pair) {
  std::vector<std::size_t> begin(n + 1, 0);
  for_each_pair([&](std::int32_t x, std::int32_t y) {
    ++begin[static_cast<std::size_t>(x) + 1];
    ++begin[static_cast<std::size_t>(y) + 1];
  });
  for (std::size_t x = 0; x < n; ++x) begin[x + 1] += begin[x];
  std::vector<std::int32_t> flat(begin[n]);
  {
    std::vector<std::size_t> at(begin.begin(), begin.end() - 1);
    for_each_pair([&](std::int32_t x, std::int32_t y) {
      flat[at[static_cast<std::size_t>(x)]++] = y;
      flat[at[static_cast<std::size_t>(y)]++] = x;
    });
  }
  std::vector<std::vector<std::int32_t>> sorted(n);
  for (std::size_t x = 0; x < n; ++x) sorted[x].reserve(begin[x + 1] - begin[x]);
  for (std::size_t x = 0; x < n; ++x)
    for (std::size_t k = begin[x]; k < begin[x + 1]; ++k)
      sorted[static_cast<std::size_t>(flat[k])].push_back(static_cast<std::int32_t>(x));
  return sorted;
}

}  // namespace

std::vector<std::vector<std::int32_t>> interval_conflicts(std::span<const std::int64_t> start,
                                                          std::span<const std::int64_t> end) {
  const std::size_t n = start.size();
  std::vector<std::int32_t> by_start(n);
  std::iota(by_start.begin(), by_start.end(), 0);
  std::sort(by_start.begin(), by_start.end(), [&](std::int32_t a, std::int32_t b) {
    return start[static_cast<std::size_t>(a)] != start[static_cast<std::size_t>(b)]
               ? start[static_cast<std::size_t>(a)] < start[static_cast<std::size_t>(b)]
               : a < b;
  });
  std::vector<std::int32_t> active;
  return symmetric_lists(n, [&](auto&& add) {
    active.clear();
    for (std::int32_t b : by_start) {
      const std::int64_t s = start[static_cast<std::size_t>(b)];
      // Compacting drops the intervals that ended; the rest all contain s, so overlap b.
      std::size_t keep = 0;
      for (std::int32_t a : active)
        if (end[static_cast<std::size_t>(a)] >= s) active[keep++] = a;
      active.resize(keep);
      for (std::int32_t a : active) add(a, b);
      active.push_back(b);
    }
  });
}

void dead_from(const FirstAfter& after, const Graph& graph, TensorId t, std::vector<std::int32_t>& out) {
  const std::span<const NodeId> readers = graph.readers(t);
  after.after_all(readers.empty() ? graph.writers(t) : readers, out);
}

// a is dead-before b: every access of a happens strictly before every write of b. For the parent
// of views, its accesses are all its views' writers and readers. O(accesses of a · writers of b).
std::span<const NodeId> tensor_accesses(const Graph& graph, TensorId t, std::vector<NodeId>& scratch) {
  const std::span<const NodeId> readers = graph.readers(t);
  if (!readers.empty() && graph.tensor(t).views.empty()) return readers;
  const std::span<const NodeId> writers = graph.writers(t);
  if (readers.empty()) return writers;
  scratch.assign(readers.begin(), readers.end());
  scratch.insert(scratch.end(), writers.begin(), writers.end());
  return scratch;
}

bool dead_before(const Graph& graph, const ExecutionOrder& clocks, TensorId a, TensorId b) {
  std::vector<NodeId> scratch;
  const std::span<const NodeId> access = tensor_accesses(graph, a, scratch);
  for (NodeId w : tensor_writers(graph, b))
    for (NodeId r : access)
      if (!clocks.before(r, w)) return false;
  return true;
}

}  // namespace detail

namespace {

void tensor_positions(const Graph& graph, std::span<const TensorId> tensors, const std::vector<std::int64_t>& pos,
                      std::vector<std::int64_t>& start, std::vector<std::int64_t>& end);

}  // namespace

namespace detail {

void conservative_ranges(const Graph& graph, const ExecutionOrder& order, const FirstAfter& after,
                         std::span<const TensorId> tensors, std::vector<std::int64_t>& start, std::vector<std::int64_t>& end) {
  // Each range ends at the last position (in the linear order below) of a node that is not
  // strictly after all the tensor's accesses: a tensor that starts later is produced after every
  // one of them, on every stream, so only tensors whose ranges overlap may be live at once.
  // Any linear extension of happens-before gives valid ranges; the tightest here orders nodes
  // by their depth in it (ties in the topological order): a node that nothing waits for does
  // not then sit at the end of the order and stretch every range to it, as it may in the
  // topological order (a short stream's last node on a weakly synchronised schedule).
  const std::vector<NodeId>& topo = order.order();
  std::vector<std::int64_t> depth(graph.node_count(), 0);
  for (NodeId v : topo)
    for (NodeId w : order.successors(v))
      depth[static_cast<std::size_t>(w)] = std::max(depth[static_cast<std::size_t>(w)], depth[static_cast<std::size_t>(v)] + 1);
  // Positions by (depth, topological position): a counting sort, stable in topological order.
  std::vector<std::int64_t> at_depth(graph.node_count() + 1, 0);
  for (NodeId v : topo) ++at_depth[static_cast<std::size_t>(depth[static_cast<std::size_t>(v)]) + 1];
  for (std::size_t d = 0; d < graph.node_count(); ++d) at_depth[d + 1] += at_depth[d];
  std::vector<std::int64_t> pos(graph.node_count(), -1);
  for (NodeId v : topo) pos[static_cast<std::size_t>(v)] = at_depth[static_cast<std::size_t>(depth[static_cast<std::size_t>(v)])]++;
  tensor_positions(graph, tensors, pos, start, end);
  std::vector<std::int32_t> frontier;
  std::vector<NodeId> scratch;
  for (std::size_t a = 0; a < tensors.size(); ++a) {
    after.after_all(tensor_accesses(graph, tensors[a], scratch), frontier);
    for (std::size_t s = 0; s < order.stream_count(); ++s)
      if (frontier[s] > 0)
        end[a] = std::max(end[a], pos[static_cast<std::size_t>(order.stream(s)[static_cast<std::size_t>(frontier[s] - 1)])]);
  }
}

}  // namespace detail

namespace {

// Planned tensors, their aligned sizes and producers; fills everything but conflicts and positions.
Liveness planned_blocks(const Graph& graph, const PlanOptions& options) {
  Liveness live;
  live.block_of.assign(graph.tensor_count(), -1);
  for (std::size_t t = 0; t < graph.tensor_count(); ++t) {
    const auto id = static_cast<TensorId>(t);
    if (!is_planned_tensor(graph, id, options.outputs_in_arena)) continue;
    live.block_of[t] = static_cast<std::int32_t>(live.tensors.size());
    live.tensors.push_back(id);
    live.problem.size.push_back(align_up(std::max<std::int64_t>(graph.bytes(id), 1), options.alignment));
  }
  live.problem.alignment = options.alignment;
  return live;
}

// Closed position interval [producer, last reader] of each tensor in a linear order given by pos.
// The parent of views is live from its first writer to its last reader or writer.
void tensor_positions(const Graph& graph, std::span<const TensorId> tensors, const std::vector<std::int64_t>& pos,
                      std::vector<std::int64_t>& start, std::vector<std::int64_t>& end) {
  const std::size_t b = tensors.size();
  start.resize(b);
  end.resize(b);
  for (std::size_t i = 0; i < b; ++i) {
    const Tensor& t = graph.tensor(tensors[i]);
    if (!t.views.empty()) {
      std::int64_t s = std::numeric_limits<std::int64_t>::max(), e = -1;
      for (NodeId w : tensor_writers(graph, tensors[i])) {
        s = std::min(s, pos[static_cast<std::size_t>(w)]);
        e = std::max(e, pos[static_cast<std::size_t>(w)]);
      }
      for (NodeId r : tensor_readers(graph, tensors[i])) e = std::max(e, pos[static_cast<std::size_t>(r)]);
      start[i] = s;
      end[i] = e;
      continue;
    }
    const std::int64_t s = pos[static_cast<std::size_t>(t.producer)];
    std::int64_t e = s;
    for (NodeId r : t.consumers) e = std::max(e, pos[static_cast<std::size_t>(r)]);
    start[i] = s;
    end[i] = e;
  }
}

void set_positions(const Graph& graph, Liveness& live, const std::vector<std::int64_t>& pos) {
  tensor_positions(graph, live.tensors, pos, live.problem.start, live.problem.end);
}

// How many pairs of closed ranges overlap, without listing them: at each start, the ranges
// started before it and not yet ended. O(B log B).
std::int64_t overlap_pairs(std::span<const std::int64_t> start, std::span<const std::int64_t> end) {
  std::vector<std::int64_t> starts(start.begin(), start.end()), ends(end.begin(), end.end());
  std::sort(starts.begin(), starts.end());
  std::sort(ends.begin(), ends.end());
  std::int64_t pairs = 0;
  std::size_t ended = 0;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    while (ended < ends.size() && ends[ended] < starts[i]) ++ended;
    pairs += static_cast<std::int64_t>(i - ended);  // started earlier (or tied, counted once) and still live
  }
  return pairs;
}

std::vector<std::int64_t> positions(const Graph& graph, std::span<const NodeId> order) {
  std::vector<std::int64_t> pos(graph.node_count(), -1);
  for (std::size_t i = 0; i < order.size(); ++i) pos[static_cast<std::size_t>(order[i])] = static_cast<std::int64_t>(i);
  return pos;
}

}  // namespace

Liveness compute_linear_liveness(const Graph& graph, std::span<const NodeId> order, const PlanOptions& options) {
  WEFT_CHECK(order.size() == graph.node_count());
  Liveness live = planned_blocks(graph, options);
  set_positions(graph, live, positions(graph, order));
  live.problem.conflicts_are_overlaps = true;
  const std::int64_t pairs = overlap_pairs(live.problem.start, live.problem.end);
  if (const std::int64_t limit = listed_pair_limit(options, live.tensors.size()); limit > 0 && pairs > limit) {
    live.problem.omitted_conflict_pairs = pairs;  // the ranges are exact: the sweep plans them
    return live;
  }
  live.problem.conflicts = detail::interval_conflicts(live.problem.start, live.problem.end);
  return live;
}

Expected<Liveness> compute_liveness(const Graph& graph, const Schedule& schedule, const PlanOptions& options) {
  // A misplaced node or a cycle is refused by the execution order, in the words every schedule
  // pass uses.
  WEFT_TRY_ASSIGN(const ExecutionOrder clocks, ExecutionOrder::build(graph, schedule));
  return compute_liveness(graph, clocks, options);
}

Liveness compute_liveness(const Graph& graph, const ExecutionOrder& clocks, const PlanOptions& options) {
  // The schedule's execution order: its topological order positions the tensors, its clocks
  // give the dead-from frontiers.
  const std::vector<NodeId>& order = clocks.order();
  // One stream is a total order: liveness is interval overlap, no closure needed.
  if (clocks.stream_count() <= 1) return compute_linear_liveness(graph, order, options);

  Liveness live = planned_blocks(graph, options);
  set_positions(graph, live, positions(graph, order));
  const std::size_t b = live.tensors.size();
  const std::size_t streams = clocks.stream_count();

  // Number the blocks by (linear position of the producer, block): for a < b in that order, b is
  // never dead-before a (a's producer runs before b's readers can), so they conflict iff b's
  // producer is not dead-after a, i.e. sits before a's dead-from frontier on its stream. Per
  // stream, the blocks produced there sorted by that key are sorted by stream index too, so a's
  // conflicts on each stream are one contiguous range of that list.
  std::vector<std::int64_t> key(b);
  for (std::size_t i = 0; i < b; ++i) key[i] = live.problem.start[i] * static_cast<std::int64_t>(b + 1) + static_cast<std::int64_t>(i);
  // The parents of views with several writers (a split's outputs) are paired by brute force
  // below, after the rest; a block one node writes (a merged node's outputs) is like a tensor.
  const auto multi_writer = [&](std::size_t i) { return graph.writers(live.tensors[i]).size() > 1; };
  const auto writer = [&](std::int32_t i) { return graph.writers(live.tensors[static_cast<std::size_t>(i)]).front(); };
  std::vector<std::vector<std::int32_t>> on_stream(streams);
  for (std::size_t i = 0; i < b; ++i)
    if (!multi_writer(i)) on_stream[static_cast<std::size_t>(clocks.stream_of(writer(static_cast<std::int32_t>(i))))].push_back(static_cast<std::int32_t>(i));
  for (auto& list : on_stream)
    std::sort(list.begin(), list.end(), [&](std::int32_t x, std::int32_t y) { return key[static_cast<std::size_t>(x)] < key[static_cast<std::size_t>(y)]; });
  std::vector<std::vector<std::int32_t>> index_of(streams);  // per stream list: the producer's stream index
  const FirstAfter after(clocks);
  for (std::size_t s = 0; s < streams; ++s)
    for (std::int32_t x : on_stream[s]) index_of[s].push_back(clocks.index(writer(x)));

  // Per block a, its conflicts on each stream: one range [from, to) of that stream's list.
  struct Span {
    std::int32_t a, stream, from, to;
  };
  std::vector<Span> spans;
  std::vector<std::pair<std::int32_t, std::int32_t>> view_pairs;  // pairs with a view's parent, each once
  std::vector<std::int32_t> frontier;
  for (std::size_t a = 0; a < b; ++a) {
    if (multi_writer(a)) {
      for (std::size_t c = 0; c < b; ++c) {
        if (c == a || (multi_writer(c) && c < a)) continue;
        if (detail::dead_before(graph, clocks, live.tensors[a], live.tensors[c]) ||
            detail::dead_before(graph, clocks, live.tensors[c], live.tensors[a]))
          continue;
        view_pairs.emplace_back(static_cast<std::int32_t>(a), static_cast<std::int32_t>(c));
      }
      continue;
    }
    detail::dead_from(after, graph, live.tensors[a], frontier);
    for (std::size_t s = 0; s < streams; ++s) {
      const auto& list = on_stream[s];
      const auto from = std::upper_bound(list.begin(), list.end(), key[a], [&](std::int64_t k, std::int32_t x) {
                          return k < key[static_cast<std::size_t>(x)];
                        }) - list.begin();
      const auto to = std::lower_bound(index_of[s].begin(), index_of[s].end(), frontier[s]) - index_of[s].begin();
      if (from < to)
        spans.push_back({static_cast<std::int32_t>(a), static_cast<std::int32_t>(s), static_cast<std::int32_t>(from),
                         static_cast<std::int32_t>(to)});
    }
  }
  std::int64_t pairs = static_cast<std::int64_t>(view_pairs.size());
  for (const Span& span : spans) pairs += span.to - span.from;
  if (const std::int64_t limit = listed_pair_limit(options, b); limit > 0 && pairs > limit) {
    // Too many to list: conservative ranges instead (a superset of the conflicts), and where
    // every block has one writer the dead-from frontiers that give the conflicts exactly (the
    // stream sweep plans by them; the interval sweep by the ranges otherwise).
    live.problem.omitted_conflict_pairs = pairs;
    detail::conservative_ranges(graph, clocks, after, live.tensors, live.problem.start, live.problem.end);
    bool one_writer_each = streams <= kMaxFrontierStreams;
    for (std::size_t a = 0; a < b && one_writer_each; ++a) one_writer_each = !multi_writer(a);
    if (one_writer_each) {
      StreamFrontiers& f = live.problem.frontiers;
      f.streams = streams;
      f.stream.resize(b);
      f.index.resize(b);
      f.dead_from.resize(b * streams);
      for (std::size_t a = 0; a < b; ++a) {
        const NodeId w = writer(static_cast<std::int32_t>(a));
        f.stream[a] = clocks.stream_of(w);
        f.index[a] = clocks.index(w);
        detail::dead_from(after, graph, live.tensors[a], frontier);
        std::copy(frontier.begin(), frontier.end(), f.dead_from.begin() + static_cast<std::ptrdiff_t>(a * streams));
      }
    }
    return live;
  }
  if (!view_pairs.empty()) {
    // A micro-batch split's views: the pairs in any order, sorted by counting.
    live.problem.conflicts = detail::symmetric_lists(b, [&](auto&& add) {
      for (const auto& [x, y] : view_pairs) add(x, y);
      for (const Span& span : spans) {
        const auto& list = on_stream[static_cast<std::size_t>(span.stream)];
        for (std::int32_t k = span.from; k < span.to; ++k) add(span.a, list[static_cast<std::size_t>(k)]);
      }
    });
    return live;
  }
  // Each block's list is its earlier-keyed neighbours (the blocks whose spans hold it) merged
  // with its later-keyed ones (its spans' blocks). The earlier ones are scattered from the spans,
  // ascending because the spans come in block order; the later ones are scattered from those
  // lists in block order, ascending too; then each block's two lists are merged. Two random
  // writes per pair where a counting sort of the pairs made four (at 100k operators the lists
  // are 84 MB and each random write a cache miss).
  std::vector<std::uint32_t> earlier_begin(b + 1, 0), later_begin(b + 1, 0);
  for (const Span& span : spans) {
    const auto& list = on_stream[static_cast<std::size_t>(span.stream)];
    later_begin[static_cast<std::size_t>(span.a) + 1] += static_cast<std::uint32_t>(span.to - span.from);
    for (std::int32_t k = span.from; k < span.to; ++k) ++earlier_begin[static_cast<std::size_t>(list[static_cast<std::size_t>(k)]) + 1];
  }
  for (std::size_t x = 0; x < b; ++x) {
    earlier_begin[x + 1] += earlier_begin[x];
    later_begin[x + 1] += later_begin[x];
  }
  // Written in full below: no zeroing first (84 MB at 100k operators).
  const auto earlier = std::make_unique_for_overwrite<std::int32_t[]>(earlier_begin[b]);
  const auto later = std::make_unique_for_overwrite<std::int32_t[]>(later_begin[b]);
  {
    std::vector<std::uint32_t> at(earlier_begin.begin(), earlier_begin.end() - 1);
    for (const Span& span : spans) {
      const auto& list = on_stream[static_cast<std::size_t>(span.stream)];
      for (std::int32_t k = span.from; k < span.to; ++k) earlier[at[static_cast<std::size_t>(list[static_cast<std::size_t>(k)])]++] = span.a;
    }
    at.assign(later_begin.begin(), later_begin.end() - 1);
    for (std::size_t y = 0; y < b; ++y)
      for (std::uint32_t k = earlier_begin[y]; k < earlier_begin[y + 1]; ++k) later[at[static_cast<std::size_t>(earlier[k])]++] = static_cast<std::int32_t>(y);
  }
  live.problem.conflicts.resize(b);
  for (std::size_t x = 0; x < b; ++x) {
    std::vector<std::int32_t>& out = live.problem.conflicts[x];
    out.resize(earlier_begin[x + 1] - earlier_begin[x] + later_begin[x + 1] - later_begin[x]);
    std::merge(earlier.get() + earlier_begin[x], earlier.get() + earlier_begin[x + 1], later.get() + later_begin[x],
               later.get() + later_begin[x + 1], out.begin());
  }
  return live;
}

}  // namespace weft::core
