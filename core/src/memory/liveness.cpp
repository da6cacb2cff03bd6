// Liveness of planned tensors over a schedule's happens-before partial order (DESIGN.md,
// "Liveness under concurrency"): a is dead-before b iff every reader of a happens-before b's
// producer; a and b conflict iff neither is dead-before the other.
#include <algorithm>
#include <numeric>

#include "allocation_detail.h"
#include "weft/core/check.h"
#include "weft/core/memory_planner.h"

namespace weft::core {
namespace detail {
namespace {

// Sorts every list of a symmetric adjacency in O(V + C), without comparisons: visiting x in
// increasing order and appending x to each neighbour's new list leaves every new list ascending
// (the same multiset, so the same sorted list).
void sort_symmetric(std::vector<std::vector<std::int32_t>>& adjacency) {
  std::vector<std::vector<std::int32_t>> sorted(adjacency.size());
  for (std::size_t x = 0; x < adjacency.size(); ++x) sorted[x].reserve(adjacency[x].size());
  for (std::size_t x = 0; x < adjacency.size(); ++x)
    for (std::int32_t y : adjacency[x]) sorted[static_cast<std::size_t>(y)].push_back(static_cast<std::int32_t>(x));
  adjacency = std::move(sorted);
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
  std::vector<std::vector<std::int32_t>> conflicts(n);
  std::vector<std::int32_t> active;
  for (std::int32_t b : by_start) {
    const std::int64_t s = start[static_cast<std::size_t>(b)];
    // Compacting drops the intervals that ended; the rest all contain s, so overlap b.
    std::size_t keep = 0;
    for (std::int32_t a : active)
      if (end[static_cast<std::size_t>(a)] >= s) active[keep++] = a;
    active.resize(keep);
    for (std::int32_t a : active) {
      conflicts[static_cast<std::size_t>(a)].push_back(b);
      conflicts[static_cast<std::size_t>(b)].push_back(a);
    }
    active.push_back(b);
  }
  sort_symmetric(conflicts);
  return conflicts;
}

std::vector<std::vector<NodeId>> happens_before_edges(const Graph& graph, const Schedule& schedule) {
  const std::size_t n = graph.node_count();
  std::vector<std::vector<NodeId>> succ(n);
  for (std::size_t u = 0; u < n; ++u)
    for (NodeId v : graph.successors(static_cast<NodeId>(u))) succ[u].push_back(v);
  for (const auto& stream : schedule.streams)
    for (std::size_t i = 1; i < stream.size(); ++i) succ[static_cast<std::size_t>(stream[i - 1])].push_back(stream[i]);
  for (const Event& e : schedule.events)
    if (e.from >= 0 && e.to >= 0 && static_cast<std::size_t>(e.from) < n && static_cast<std::size_t>(e.to) < n)
      succ[static_cast<std::size_t>(e.from)].push_back(e.to);
  for (auto& s : succ) {
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
  return succ;
}

Expected<std::vector<NodeId>> linearize(const Graph& graph, const Schedule& schedule) {
  const std::size_t n = graph.node_count();
  std::vector<int> placed(n, 0);
  for (const auto& stream : schedule.streams)
    for (NodeId v : stream) {
      if (v < 0 || static_cast<std::size_t>(v) >= n)
        return make_error(ErrorKind::InvalidInput, "schedule names node index " + std::to_string(v) + ", which the model does not have");
      if (placed[static_cast<std::size_t>(v)]++)
        return make_error(ErrorKind::InvalidInput, "node '" + graph.key(v) + "' is placed twice");
    }
  for (std::size_t v = 0; v < n; ++v)
    if (!placed[v]) return make_error(ErrorKind::InvalidInput, "node '" + graph.key(static_cast<NodeId>(v)) + "' is on no stream");
  for (const Event& e : schedule.events)
    if (e.from < 0 || e.to < 0 || static_cast<std::size_t>(e.from) >= n || static_cast<std::size_t>(e.to) >= n)
      return make_error(ErrorKind::InvalidInput, "event refers to a node the model does not have");
  const auto succ = happens_before_edges(graph, schedule);
  std::vector<std::uint32_t> indeg(n, 0);
  for (const auto& s : succ)
    for (NodeId v : s) ++indeg[static_cast<std::size_t>(v)];
  // Streams drive the order (the first stream's next ready node first) so that a one-stream
  // schedule linearises to exactly its stream order.
  std::vector<NodeId> order;
  order.reserve(n);
  std::vector<NodeId> ready;
  for (std::size_t v = 0; v < n; ++v)
    if (indeg[v] == 0) ready.push_back(static_cast<NodeId>(v));
  std::sort(ready.begin(), ready.end(), std::greater<>());
  while (!ready.empty()) {
    const NodeId u = ready.back();
    ready.pop_back();
    order.push_back(u);
    for (NodeId v : succ[static_cast<std::size_t>(u)])
      if (--indeg[static_cast<std::size_t>(v)] == 0) ready.push_back(v);
  }
  if (order.size() != n) {
    for (std::size_t v = 0; v < n; ++v)
      if (indeg[v] > 0)
        return make_error(ErrorKind::InvalidInput, "schedule would deadlock: node '" + graph.key(static_cast<NodeId>(v)) +
                                                       "' waits on a cycle of stream order, events and data edges");
  }
  return order;
}

std::vector<std::int32_t> dead_from(const Graph& graph, const StreamClocks& clocks, const Tensor& tensor,
                                    std::vector<std::int32_t>& need) {
  const std::size_t streams = clocks.stream_count();
  need.assign(streams, -1);
  const auto note = [&](NodeId r) {
    auto& slot = need[static_cast<std::size_t>(clocks.stream_of(r))];
    slot = std::max(slot, clocks.index(r));
  };
  if (tensor.consumers.empty()) note(tensor.producer);
  for (NodeId r : tensor.consumers) note(r);
  (void)graph;
  std::vector<std::int32_t> first(streams);
  for (std::size_t s = 0; s < streams; ++s) {
    std::int32_t f = clocks.first_reaching(s, need);
    // Only the last reader on stream s (when every other reader happens before it) can reach
    // `need` itself; it is not strictly after the readers, the next node on the stream is.
    if (static_cast<std::size_t>(f) < clocks.stream(s).size() && need[s] == f) ++f;
    first[s] = f;
  }
  return first;
}

}  // namespace detail

Expected<StreamClocks> StreamClocks::build(const Graph& graph, const Schedule& schedule) {
  WEFT_TRY_ASSIGN(auto order, detail::linearize(graph, schedule));
  const std::size_t n = graph.node_count();
  const std::size_t streams = schedule.stream_count();
  StreamClocks out;
  out.m_streams = schedule.streams;
  out.m_order = std::move(order);
  out.m_stream.assign(n, 0);
  out.m_index.assign(n, 0);
  for (std::size_t s = 0; s < streams; ++s)
    for (std::size_t i = 0; i < schedule.streams[s].size(); ++i) {
      out.m_stream[static_cast<std::size_t>(schedule.streams[s][i])] = static_cast<std::int32_t>(s);
      out.m_index[static_cast<std::size_t>(schedule.streams[s][i])] = static_cast<std::int32_t>(i);
    }
  // Forward pass over a topological order: a node's clock is the componentwise max of its
  // generating predecessors' clocks, plus its own index on its own stream.
  out.m_clock.assign(n * streams, -1);
  const auto succ = detail::happens_before_edges(graph, schedule);
  for (NodeId v : out.m_order) {
    const auto uv = static_cast<std::size_t>(v);
    std::int32_t* cv = out.m_clock.data() + uv * streams;
    cv[out.m_stream[uv]] = out.m_index[uv];
    for (NodeId w : succ[uv]) {
      std::int32_t* cw = out.m_clock.data() + static_cast<std::size_t>(w) * streams;
      for (std::size_t s = 0; s < streams; ++s) cw[s] = std::max(cw[s], cv[s]);
    }
  }
  return out;
}

std::int32_t StreamClocks::first_reaching(std::size_t s, std::span<const std::int32_t> need) const {
  const auto& st = m_streams[s];
  const auto reaches = [&](NodeId x) {
    const auto c = clock(x);
    for (std::size_t k = 0; k < need.size(); ++k)
      if (c[k] < need[k]) return false;
    return true;
  };
  std::size_t lo = 0, hi = st.size();  // answer in [lo, hi]
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (reaches(st[mid])) hi = mid;
    else lo = mid + 1;
  }
  return static_cast<std::int32_t>(lo);
}

namespace {

// Planned tensors, their aligned sizes and producers; fills everything but conflicts and positions.
Liveness planned_blocks(const Graph& graph, const PlanOptions& options) {
  Liveness live;
  live.block_of.assign(graph.tensor_count(), -1);
  for (std::size_t t = 0; t < graph.tensor_count(); ++t) {
    const Tensor& tensor = graph.tensor(static_cast<TensorId>(t));
    if (!is_planned_tensor(tensor, options.outputs_in_arena)) continue;
    live.block_of[t] = static_cast<std::int32_t>(live.tensors.size());
    live.tensors.push_back(static_cast<TensorId>(t));
    live.problem.size.push_back(align_up(std::max<std::int64_t>(tensor.bytes(), 1), options.alignment));
  }
  live.problem.alignment = options.alignment;
  return live;
}

// Closed position interval [producer, last reader] in a linear order given by pos.
void set_positions(const Graph& graph, Liveness& live, const std::vector<std::int64_t>& pos) {
  const std::size_t b = live.tensors.size();
  live.problem.start.resize(b);
  live.problem.end.resize(b);
  for (std::size_t i = 0; i < b; ++i) {
    const Tensor& t = graph.tensor(live.tensors[i]);
    const std::int64_t s = pos[static_cast<std::size_t>(t.producer)];
    std::int64_t e = s;
    for (NodeId r : t.consumers) e = std::max(e, pos[static_cast<std::size_t>(r)]);
    live.problem.start[i] = s;
    live.problem.end[i] = e;
  }
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
  live.problem.conflicts = detail::interval_conflicts(live.problem.start, live.problem.end);
  live.problem.conflicts_are_overlaps = true;
  return live;
}

Expected<Liveness> compute_liveness(const Graph& graph, const Schedule& schedule, const PlanOptions& options) {
  WEFT_TRY_ASSIGN(auto order, detail::linearize(graph, schedule));
  // One stream is a total order: liveness is interval overlap, no closure needed. (A stream
  // order against a data edge was already refused by linearize as a cycle.)
  if (schedule.stream_count() <= 1) return compute_linear_liveness(graph, order, options);

  WEFT_TRY_ASSIGN(auto clocks, StreamClocks::build(graph, schedule));
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
  std::vector<std::vector<std::int32_t>> on_stream(streams);
  for (std::size_t i = 0; i < b; ++i)
    on_stream[static_cast<std::size_t>(clocks.stream_of(graph.tensor(live.tensors[i]).producer))].push_back(static_cast<std::int32_t>(i));
  for (auto& list : on_stream)
    std::sort(list.begin(), list.end(), [&](std::int32_t x, std::int32_t y) { return key[static_cast<std::size_t>(x)] < key[static_cast<std::size_t>(y)]; });
  std::vector<std::vector<std::int32_t>> index_of(streams);  // per stream list: the producer's stream index
  for (std::size_t s = 0; s < streams; ++s)
    for (std::int32_t x : on_stream[s]) index_of[s].push_back(clocks.index(graph.tensor(live.tensors[static_cast<std::size_t>(x)]).producer));

  live.problem.conflicts.assign(b, {});
  std::vector<std::int32_t> need;
  for (std::size_t a = 0; a < b; ++a) {
    const auto frontier = detail::dead_from(graph, clocks, graph.tensor(live.tensors[a]), need);
    for (std::size_t s = 0; s < streams; ++s) {
      const auto& list = on_stream[s];
      const auto from = std::upper_bound(list.begin(), list.end(), key[a], [&](std::int64_t k, std::int32_t x) {
                          return k < key[static_cast<std::size_t>(x)];
                        }) - list.begin();
      const auto to = std::lower_bound(index_of[s].begin(), index_of[s].end(), frontier[s]) - index_of[s].begin();
      for (auto k = from; k < to; ++k) {
        const std::int32_t c = list[static_cast<std::size_t>(k)];
        live.problem.conflicts[a].push_back(c);
        live.problem.conflicts[static_cast<std::size_t>(c)].push_back(static_cast<std::int32_t>(a));
      }
    }
  }
  detail::sort_symmetric(live.problem.conflicts);
  return live;
}

}  // namespace weft::core
