// Lower bounds on any arena. Linear: max live bytes over the steps of one order. Concurrent:
// the maximum-weight antichain of dead-before (pairwise conflicting tensors, all live together
// on some interleaving), by weighted Dilworth: min chain cover = Σ size − max flow, where the
// flow runs between tensors along a network whose paths are exactly the dead-before pairs.
#include <algorithm>
#include <cassert>
#include <limits>
#include <numeric>

#include "allocation_detail.h"
#include "weft/core/memory_planner.h"

namespace weft::core {
namespace {

// Dinic's max flow (adjacency in flat arrays).
class MaxFlow {
 public:
  explicit MaxFlow(std::size_t vertices) : m_head(vertices, -1), m_level(vertices), m_iter(vertices) {}
  void add_edge(std::size_t u, std::size_t v, std::int64_t cap) {
    m_to.push_back(static_cast<std::int32_t>(v));
    m_cap.push_back(cap);
    m_next.push_back(m_head[u]);
    m_head[u] = static_cast<std::int32_t>(m_to.size() - 1);
    m_to.push_back(static_cast<std::int32_t>(u));
    m_cap.push_back(0);
    m_next.push_back(m_head[v]);
    m_head[v] = static_cast<std::int32_t>(m_to.size() - 1);
  }
  std::int64_t run(std::size_t s, std::size_t t) {
    std::int64_t flow = 0;
    while (bfs(s, t)) {
      for (std::size_t v = 0; v < m_head.size(); ++v) m_iter[v] = m_head[v];
      while (std::int64_t f = dfs(s, t, std::numeric_limits<std::int64_t>::max())) flow += f;
    }
    return flow;
  }
  /// After run(): vertices reachable from s in the residual network.
  std::vector<char> reachable(std::size_t s) const {
    std::vector<char> seen(m_head.size(), 0);
    std::vector<std::size_t> stack{s};
    seen[s] = 1;
    while (!stack.empty()) {
      const std::size_t u = stack.back();
      stack.pop_back();
      for (std::int32_t e = m_head[u]; e >= 0; e = m_next[static_cast<std::size_t>(e)]) {
        const auto v = static_cast<std::size_t>(m_to[static_cast<std::size_t>(e)]);
        if (m_cap[static_cast<std::size_t>(e)] > 0 && !seen[v]) {
          seen[v] = 1;
          stack.push_back(v);
        }
      }
    }
    return seen;
  }

 private:
  bool bfs(std::size_t s, std::size_t t) {
    std::fill(m_level.begin(), m_level.end(), -1);
    std::vector<std::size_t> queue{s};
    m_level[s] = 0;
    for (std::size_t i = 0; i < queue.size(); ++i) {
      const std::size_t u = queue[i];
      for (std::int32_t e = m_head[u]; e >= 0; e = m_next[static_cast<std::size_t>(e)]) {
        const auto v = static_cast<std::size_t>(m_to[static_cast<std::size_t>(e)]);
        if (m_cap[static_cast<std::size_t>(e)] > 0 && m_level[v] < 0) {
          m_level[v] = m_level[u] + 1;
          queue.push_back(v);
        }
      }
    }
    return m_level[t] >= 0;
  }
  // Iterative augmenting-path search along the level graph (recursion could overflow the stack
  // on long chains).
  std::int64_t dfs(std::size_t s, std::size_t t, std::int64_t limit) {
    std::vector<std::int32_t> path;  // edges
    std::size_t u = s;
    while (true) {
      if (u == t) {
        std::int64_t f = limit;
        for (std::int32_t e : path) f = std::min(f, m_cap[static_cast<std::size_t>(e)]);
        for (std::int32_t e : path) {
          m_cap[static_cast<std::size_t>(e)] -= f;
          m_cap[static_cast<std::size_t>(e ^ 1)] += f;
        }
        return f;
      }
      std::int32_t& e = m_iter[u];
      while (e >= 0) {
        const auto v = static_cast<std::size_t>(m_to[static_cast<std::size_t>(e)]);
        if (m_cap[static_cast<std::size_t>(e)] > 0 && m_level[v] == m_level[u] + 1) break;
        e = m_next[static_cast<std::size_t>(e)];
      }
      if (e >= 0) {
        path.push_back(e);
        u = static_cast<std::size_t>(m_to[static_cast<std::size_t>(e)]);
        continue;
      }
      // Dead end: retreat and skip the edge that led here.
      m_level[u] = -1;
      if (path.empty()) return 0;
      const std::int32_t back = path.back();
      path.pop_back();
      u = static_cast<std::size_t>(m_to[static_cast<std::size_t>(back ^ 1)]);
      m_iter[u] = m_next[static_cast<std::size_t>(m_iter[u])];
    }
  }

  std::vector<std::int32_t> m_head, m_to, m_next;
  std::vector<std::int64_t> m_cap;
  std::vector<int> m_level;
  std::vector<std::int32_t> m_iter;
};

// The tensors live at the busiest step of `order` (closed [producer, last reader] positions).
ConcurrentBound linear_clique(const Graph& graph, std::span<const NodeId> order, const std::vector<TensorId>& tensors,
                              const std::vector<std::int64_t>& weight) {
  std::vector<std::int64_t> pos(graph.node_count(), 0);
  for (std::size_t i = 0; i < order.size(); ++i) pos[static_cast<std::size_t>(order[i])] = static_cast<std::int64_t>(i);
  std::vector<std::int64_t> start(tensors.size()), end(tensors.size());
  std::vector<std::int64_t> diff(order.size() + 1, 0);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = graph.tensor(tensors[i]);
    start[i] = end[i] = pos[static_cast<std::size_t>(t.producer)];
    for (NodeId r : t.consumers) end[i] = std::max(end[i], pos[static_cast<std::size_t>(r)]);
    diff[static_cast<std::size_t>(start[i])] += weight[i];
    diff[static_cast<std::size_t>(end[i]) + 1] -= weight[i];
  }
  std::int64_t live = 0;
  std::size_t at = 0;
  ConcurrentBound out;
  for (std::size_t k = 0; k < order.size(); ++k)
    if ((live += diff[k]) > out.bytes) {
      out.bytes = live;
      at = k;
    }
  for (std::size_t i = 0; i < tensors.size(); ++i)
    if (start[i] <= static_cast<std::int64_t>(at) && static_cast<std::int64_t>(at) <= end[i]) out.antichain.push_back(tensors[i]);
  return out;
}

}  // namespace

std::int64_t linear_lower_bound(const Graph& graph, std::span<const NodeId> order, const PlanOptions& options) {
  // Live bytes per step by a difference array: a tensor is live from its producer's step
  // through its last reader's step.
  assert(order.size() == graph.node_count());
  std::vector<std::int64_t> pos(graph.node_count(), 0);
  for (std::size_t i = 0; i < order.size(); ++i) pos[static_cast<std::size_t>(order[i])] = static_cast<std::int64_t>(i);
  std::vector<std::int64_t> diff(order.size() + 1, 0);
  for (const Tensor& t : graph.tensors()) {
    if (!is_planned_tensor(t, options.outputs_in_arena)) continue;
    const std::int64_t s = pos[static_cast<std::size_t>(t.producer)];
    std::int64_t e = s;
    for (NodeId r : t.consumers) e = std::max(e, pos[static_cast<std::size_t>(r)]);
    const std::int64_t size = align_up(std::max<std::int64_t>(t.bytes(), 1), options.alignment);
    diff[static_cast<std::size_t>(s)] += size;
    diff[static_cast<std::size_t>(e) + 1] -= size;
  }
  std::int64_t live = 0, peak = 0;
  for (std::int64_t d : diff) peak = std::max(peak, live += d);
  return peak;
}

Expected<ConcurrentBound> concurrent_lower_bound(const Graph& graph, const Schedule& schedule, const PlanOptions& options) {
  auto clocks = StreamClocks::build(graph, schedule);
  if (!clocks) return clocks.error();
  const std::size_t v_count = graph.node_count();
  const auto succ = detail::happens_before_edges(graph, schedule);

  std::vector<TensorId> tensors;
  std::vector<std::int64_t> weight;
  for (std::size_t t = 0; t < graph.tensor_count(); ++t) {
    const Tensor& tensor = graph.tensor(static_cast<TensorId>(t));
    if (!is_planned_tensor(tensor, options.outputs_in_arena)) continue;
    tensors.push_back(static_cast<TensorId>(t));
    weight.push_back(align_up(std::max<std::int64_t>(tensor.bytes(), 1), options.alignment));
  }
  const std::size_t b_count = tensors.size();
  ConcurrentBound out;
  if (b_count == 0) return out;
  // One stream is a total order: the antichains are the tensors live at one step, so the sweep is
  // exact. Past kExactFlowTensors, Dinic's phases (about one per path length along the node
  // chains) make the flow super-linear; the same sweep over a linearisation of H then gives a
  // valid, not always tight, bound (tensors overlapping there pairwise conflict).
  constexpr std::size_t kExactFlowTensors = 4000;
  if (schedule.stream_count() <= 1 || b_count > kExactFlowTensors) {
    const std::vector<NodeId>& order = schedule.stream_count() == 1 ? schedule.streams[0] : clocks->order();
    out = linear_clique(graph, order, tensors, weight);
    out.exact = schedule.stream_count() <= 1;
    return out;
  }

  // Vertices: source, sink, per tensor in/out, per node in/out. A path t_out(a) → … → t_in(b)
  // exists iff b's producer is where a is dead: a enters the node network at its dead-from
  // frontier (the first dead node on each stream), and everything after a frontier node in H is
  // dead too (the dead set is an up-set), so no closure is needed.
  const std::size_t src = 0, sink = 1;
  const auto t_in = [&](std::size_t i) { return 2 + 2 * i; };
  const auto t_out = [&](std::size_t i) { return 3 + 2 * i; };
  const auto n_in = [&](NodeId v) { return 2 + 2 * b_count + 2 * static_cast<std::size_t>(v); };
  const auto n_out = [&](NodeId v) { return 3 + 2 * b_count + 2 * static_cast<std::size_t>(v); };
  const std::int64_t inf = std::accumulate(weight.begin(), weight.end(), std::int64_t{0}) + 1;
  MaxFlow flow(2 + 2 * b_count + 2 * v_count);
  for (std::size_t u = 0; u < v_count; ++u) {
    flow.add_edge(n_in(static_cast<NodeId>(u)), n_out(static_cast<NodeId>(u)), inf);
    for (NodeId v : succ[u]) flow.add_edge(n_out(static_cast<NodeId>(u)), n_in(v), inf);
  }
  std::vector<std::int32_t> need;
  for (std::size_t i = 0; i < b_count; ++i) {
    const Tensor& t = graph.tensor(tensors[i]);
    flow.add_edge(src, t_out(i), weight[i]);
    flow.add_edge(t_in(i), sink, weight[i]);
    flow.add_edge(t_in(i), t_out(i), inf);
    flow.add_edge(n_in(t.producer), t_in(i), inf);
    const auto frontier = detail::dead_from(graph, *clocks, t, need);
    for (std::size_t s = 0; s < frontier.size(); ++s)
      if (static_cast<std::size_t>(frontier[s]) < clocks->stream(s).size())
        flow.add_edge(t_out(i), n_in(clocks->stream(s)[static_cast<std::size_t>(frontier[s])]), inf);
  }
  const std::int64_t total = inf - 1;
  const std::int64_t matched = flow.run(src, sink);
  out.bytes = total - matched;
  const auto seen = flow.reachable(src);
  std::int64_t check = 0;
  for (std::size_t i = 0; i < b_count; ++i)
    if (seen[t_out(i)] && !seen[t_in(i)]) {
      out.antichain.push_back(tensors[i]);
      check += weight[i];
    }
  assert(check == out.bytes && "antichain weight must equal the min-cut value");
  return out;
}

}  // namespace weft::core
