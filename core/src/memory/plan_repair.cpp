// Plan repair after an edit: the old offsets, checked pair by pair where bytes are shared, and
// first fit for the few tensors that clash under the new happens-before.
#include "weft/core/memory/plan_repair.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "allocation_detail.h"
#include "weft/core/base/check.h"

namespace weft::core {

namespace {

// The planned tensors of the new order with their dead-from frontiers, for an O(1) conflict test
// (O(writers) for the parent of views): a is dead-before b iff every writer of b sits at or after
// a's frontier on its stream, the same relation as detail::dead_before by the definition of the
// frontier.
class ClockConflicts {
 public:
  ClockConflicts(const Graph& graph, const ExecutionOrder& order, const FirstAfter& after, std::span<const TensorId> tensors)
      : m_order(order), m_streams(order.stream_count()) {
    const std::size_t n = tensors.size();
    m_frontier.resize(n * m_streams);
    m_writer_begin.assign(n + 1, 0);
    std::vector<std::int32_t> frontier;
    std::vector<NodeId> scratch;
    for (std::size_t b = 0; b < n; ++b) {
      const auto w = tensor_writers(graph, tensors[b]);  // the producer, or the views' producers
      m_writers.insert(m_writers.end(), w.begin(), w.end());
      m_writer_begin[b + 1] = static_cast<std::uint32_t>(m_writers.size());
      after.after_all(detail::tensor_accesses(graph, tensors[b], scratch), frontier);
      std::copy(frontier.begin(), frontier.end(), m_frontier.begin() + static_cast<std::ptrdiff_t>(b * m_streams));
    }
  }

  bool conflict(std::size_t a, std::size_t b) const { return !dead_before(a, b) && !dead_before(b, a); }

 private:
  bool dead_before(std::size_t a, std::size_t b) const {
    const std::int32_t* frontier = m_frontier.data() + a * m_streams;
    for (std::uint32_t k = m_writer_begin[b]; k < m_writer_begin[b + 1]; ++k) {
      const NodeId w = m_writers[k];
      if (m_order.index(w) < frontier[static_cast<std::size_t>(m_order.stream_of(w))]) return false;
    }
    return true;
  }

  const ExecutionOrder& m_order;
  std::size_t m_streams;
  std::vector<std::int32_t> m_frontier;  // per block, per stream
  std::vector<std::uint32_t> m_writer_begin;
  std::vector<NodeId> m_writers;
};

}  // namespace

Expected<PlanRepair> repair_plan(const Graph& graph, const ExecutionOrder& order, const MemoryPlan& previous,
                                 std::size_t max_moved) {
  if (previous.offset.size() != graph.tensor_count() || previous.size.size() != graph.tensor_count())
    return make_error(ErrorKind::InvalidInput, "the plan to repair covers " + std::to_string(previous.offset.size()) +
                                                   " tensors, the model has " + std::to_string(graph.tensor_count()));
  if (previous.alignment <= 0 || previous.alignment > kMaxAlignment)
    return make_error(ErrorKind::InvalidInput, "plan alignment must be from 1 to " + std::to_string(kMaxAlignment));
  const std::int64_t align = previous.alignment;

  // Planned tensors (as the liveness takes them), their sizes and kept offsets.
  std::vector<TensorId> tensors;
  std::vector<std::int64_t> size, offset;
  for (std::size_t t = 0; t < graph.tensor_count(); ++t) {
    const Tensor& tensor = graph.tensor(static_cast<TensorId>(t));
    if (!is_planned_tensor(graph, static_cast<TensorId>(t), previous.outputs_in_arena)) continue;
    const std::int64_t need = align_up(std::max<std::int64_t>(graph.bytes(static_cast<TensorId>(t)), 1), align);
    std::int64_t off = previous.offset[t];
    std::int64_t bytes = previous.size[t];
    if (off != kNotPlanned) {
      if (off < 0 || off % align != 0)
        return make_error(ErrorKind::InvalidInput, "tensor '" + tensor.name + "' is at offset " + std::to_string(off) +
                                                       ", not a multiple of the alignment " + std::to_string(align));
      if (bytes < need)
        return make_error(ErrorKind::InvalidInput, "tensor '" + tensor.name + "' is given " + std::to_string(bytes) +
                                                       " bytes, it needs " + std::to_string(need));
      if (bytes % align != 0 || off > kMaxArenaBytes - bytes)
        return make_error(ErrorKind::InvalidInput, "tensor '" + tensor.name + "' is given " + std::to_string(bytes) +
                                                       " bytes at offset " + std::to_string(off) +
                                                       ": sizes must be multiples of the alignment, within 2^50 bytes");
    } else {
      bytes = need;
    }
    tensors.push_back(static_cast<TensorId>(t));
    size.push_back(bytes);
    offset.push_back(off);
  }
  const std::size_t n = tensors.size();
  const FirstAfter after(order);
  const ClockConflicts clocks(graph, order, after, tensors);

  PlanRepair out;
  // Pairs that share bytes and may be live at once. Only tensors whose conservative live ranges
  // overlap can be (detail::conservative_ranges), so only pairs sharing bytes while their ranges
  // overlap are met (the range sweep check_plan uses too) and tested by the clocks; pairs that
  // share bytes at different times, most of them in a tight plan, never are.
  std::vector<std::int64_t> start, end;
  detail::conservative_ranges(graph, order, after, tensors, start, end);
  std::vector<std::pair<std::int32_t, std::int32_t>> clashes;
  std::vector<std::int32_t> clash_count(n, 0);
  detail::for_each_shared_live_pair(start, end, offset, size, [&](std::int32_t b, std::int32_t c) {
    ++out.shared_pairs;
    if (clocks.conflict(static_cast<std::size_t>(b), static_cast<std::size_t>(c))) {
      clashes.emplace_back(std::min(b, c), std::max(b, c));
      ++clash_count[static_cast<std::size_t>(b)];
      ++clash_count[static_cast<std::size_t>(c)];
    }
    return true;
  });
  // In block order, so the cover below does not depend on the sweep's tie-breaking.
  std::sort(clashes.begin(), clashes.end());
  out.conflicts = clashes.size();

  // Take out a vertex cover of the clashes: of each pair not yet covered, the block in more
  // clashes (it resolves the most), else the smaller (cheaper to place again), else the later.
  std::vector<char> taken(n, 0);
  std::vector<std::int32_t> replace;
  for (std::size_t b = 0; b < n; ++b)
    if (offset[b] == kNotPlanned) {
      taken[b] = 1;
      replace.push_back(static_cast<std::int32_t>(b));
    }
  for (const auto& [x, y] : clashes) {
    const auto ux = static_cast<std::size_t>(x), uy = static_cast<std::size_t>(y);
    if (taken[ux] || taken[uy]) continue;
    std::size_t pick = uy;
    if (clash_count[ux] != clash_count[uy])
      pick = clash_count[ux] > clash_count[uy] ? ux : uy;
    else if (size[ux] != size[uy])
      pick = size[ux] < size[uy] ? ux : uy;
    else
      pick = std::max(ux, uy);
    taken[pick] = 1;
    replace.push_back(static_cast<std::int32_t>(pick));
  }
  out.moved = replace.size();
  if (out.moved > max_moved) {
    out.complete = false;
    return out;
  }

  // Place the taken blocks again, largest first, each at the lowest aligned offset free of every
  // placed block it conflicts with. Offsets and sizes are multiples of the alignment, so every
  // gap's start is aligned.
  std::sort(replace.begin(), replace.end(), [&](std::int32_t x, std::int32_t y) {
    const auto ux = static_cast<std::size_t>(x), uy = static_cast<std::size_t>(y);
    return size[ux] != size[uy] ? size[ux] > size[uy] : x < y;
  });
  std::vector<std::pair<std::int64_t, std::int64_t>> busy;
  for (std::int32_t d : replace) {
    const auto ud = static_cast<std::size_t>(d);
    busy.clear();
    for (std::size_t b = 0; b < n; ++b)
      if (!taken[b] && clocks.conflict(ud, b)) busy.emplace_back(offset[b], offset[b] + size[b]);
    std::sort(busy.begin(), busy.end());
    std::int64_t at = 0;
    for (const auto& [lo, hi] : busy) {
      if (lo - at >= size[ud]) break;
      at = std::max(at, hi);
    }
    WEFT_CHECK(at % align == 0);
    if (at > kMaxArenaBytes - size[ud])
      return make_error(ErrorKind::InvalidInput, "the repaired plan would pass 2^50 bytes (the earlier plan reaches " +
                                                     std::to_string(at) + ")");
    offset[ud] = at;
    taken[ud] = 0;
  }

  MemoryPlan& plan = out.plan;
  plan.planner = "repaired";
  plan.alignment = align;
  plan.outputs_in_arena = previous.outputs_in_arena;
  plan.offset.assign(graph.tensor_count(), kNotPlanned);
  plan.size.assign(graph.tensor_count(), 0);
  for (std::size_t b = 0; b < n; ++b) {
    const auto t = static_cast<std::size_t>(tensors[b]);
    plan.offset[t] = offset[b];
    plan.size[t] = size[b];
    plan.arena_bytes = std::max(plan.arena_bytes, offset[b] + size[b]);
  }
  place_views(graph, plan);
  return out;
}

}  // namespace weft::core
