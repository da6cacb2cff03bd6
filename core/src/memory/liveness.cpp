// Liveness of planned tensors over a schedule's happens-before partial order (DESIGN.md,
// "Liveness under concurrency"): a is dead-before b iff every reader of a happens-before b's
// producer; a and b conflict iff neither is dead-before the other.
#include <algorithm>
#include <cassert>
#include <numeric>

#include "allocation_detail.h"
#include "weft/core/memory_planner.h"

namespace weft::core {
namespace detail {

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
  for (auto& c : conflicts) std::sort(c.begin(), c.end());
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

}  // namespace detail

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
  assert(order.size() == graph.node_count());
  Liveness live = planned_blocks(graph, options);
  set_positions(graph, live, positions(graph, order));
  live.problem.conflicts = detail::interval_conflicts(live.problem.start, live.problem.end);
  live.problem.conflicts_are_overlaps = true;
  return live;
}

Expected<Liveness> compute_liveness(const Graph& graph, const Schedule& schedule, const PlanOptions& options) {
  auto order = detail::linearize(graph, schedule);
  if (!order) return order.error();
  // One stream is a total order: liveness is interval overlap, no closure needed. (A stream
  // order against a data edge was already refused by linearize as a cycle.)
  if (schedule.stream_count() <= 1) return compute_linear_liveness(graph, *order, options);

  auto hb = HappensBefore::build(graph, schedule);
  if (!hb) return hb.error();
  Liveness live = planned_blocks(graph, options);
  set_positions(graph, live, positions(graph, *order));
  const std::size_t b = live.tensors.size();
  const std::size_t words = (graph.node_count() + 63) / 64;

  // dead[i]: the nodes that run after every reader of tensor i (the ∩ of the readers' closures).
  // A single reader (the common case) borrows its closure; only multi-reader tensors own one.
  std::vector<const std::uint64_t*> dead(b, nullptr);
  std::vector<std::vector<std::uint64_t>> owned;
  owned.reserve(b);
  for (std::size_t i = 0; i < b; ++i) {
    const Tensor& t = graph.tensor(live.tensors[i]);
    if (t.consumers.empty()) {
      dead[i] = hb->successors_closure(t.producer).words().data();
      continue;
    }
    if (t.consumers.size() == 1) {
      dead[i] = hb->successors_closure(t.consumers[0]).words().data();
      continue;
    }
    std::vector<std::uint64_t> w = hb->successors_closure(t.consumers[0]).words();
    for (std::size_t r = 1; r < t.consumers.size(); ++r) {
      const auto& o = hb->successors_closure(t.consumers[r]).words();
      for (std::size_t k = 0; k < words; ++k) w[k] &= o[k];
    }
    owned.push_back(std::move(w));
    dead[i] = owned.back().data();
  }
  const auto test = [](const std::uint64_t* bits, NodeId v) {
    const auto u = static_cast<std::size_t>(v);
    return ((bits[u >> 6] >> (u & 63)) & 1u) != 0;
  };
  std::vector<NodeId> producer(b);
  for (std::size_t i = 0; i < b; ++i) producer[i] = graph.tensor(live.tensors[i]).producer;
  live.problem.conflicts.assign(b, {});
  for (std::size_t i = 0; i < b; ++i)
    for (std::size_t j = i + 1; j < b; ++j)
      if (!test(dead[i], producer[j]) && !test(dead[j], producer[i])) {
        live.problem.conflicts[i].push_back(static_cast<std::int32_t>(j));
        live.problem.conflicts[j].push_back(static_cast<std::int32_t>(i));
      }
  return live;
}

}  // namespace weft::core
