// Lower bounds on any arena. Linear: max live bytes over the steps of one order. Concurrent:
// the maximum-weight antichain of dead-before (pairwise conflicting tensors, all live together
// on some interleaving), by weighted Dilworth: min chain cover = Σ size − max flow, where the
// flow runs between tensors along a network whose paths are exactly the dead-before pairs.
#include <algorithm>
#include <bit>
#include <optional>
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
  auto order = detail::linearize(graph, schedule);
  if (!order) return order.error();
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

  // Multi-reader tensors whose readers have no single last one (in H) need the join of their
  // readers: the minimal nodes after all of them. Only then is the closure built.
  std::vector<std::int64_t> pos(v_count);
  for (std::size_t i = 0; i < v_count; ++i) pos[static_cast<std::size_t>((*order)[i])] = static_cast<std::int64_t>(i);
  std::optional<HappensBefore> hb;
  const auto last_reader = [&](const Tensor& t) -> NodeId {
    NodeId last = t.consumers.front();
    for (NodeId r : t.consumers)
      if (pos[static_cast<std::size_t>(r)] > pos[static_cast<std::size_t>(last)]) last = r;
    if (schedule.stream_count() <= 1) return last;  // a total order
    for (NodeId r : t.consumers)
      if (r != last && !hb->before(r, last)) return kNoNode;
    return last;
  };
  if (schedule.stream_count() > 1) {
    auto built = HappensBefore::build(graph, schedule);
    if (!built) return built.error();
    hb.emplace(std::move(*built));
  }

  // Vertices: source, sink, per tensor in/out, per node in/out.
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
  for (std::size_t i = 0; i < b_count; ++i) {
    const Tensor& t = graph.tensor(tensors[i]);
    flow.add_edge(src, t_out(i), weight[i]);
    flow.add_edge(t_in(i), sink, weight[i]);
    flow.add_edge(t_in(i), t_out(i), inf);
    flow.add_edge(n_in(t.producer), t_in(i), inf);  // entering n_in(p) means strictly after something
    if (t.consumers.empty()) {
      flow.add_edge(t_out(i), n_out(t.producer), inf);
      continue;
    }
    if (const NodeId last = last_reader(t); last != kNoNode) {
      flow.add_edge(t_out(i), n_out(last), inf);
      continue;
    }
    // U = nodes after every reader; its minimal nodes have no generating predecessor inside U.
    std::vector<std::uint64_t> u_set = hb->successors_closure(t.consumers[0]).words();
    for (std::size_t r = 1; r < t.consumers.size(); ++r) {
      const auto& o = hb->successors_closure(t.consumers[r]).words();
      for (std::size_t k = 0; k < u_set.size(); ++k) u_set[k] &= o[k];
    }
    const auto in_u = [&](NodeId v) {
      const auto x = static_cast<std::size_t>(v);
      return ((u_set[x >> 6] >> (x & 63)) & 1u) != 0;
    };
    for (std::size_t k = 0; k < u_set.size(); ++k)
      for (std::uint64_t bits = u_set[k]; bits; bits &= bits - 1) {
        const auto x = static_cast<NodeId>(k * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
        bool minimal = true;
        for (NodeId pred : graph.predecessors(x)) minimal = minimal && !in_u(pred);
        // Testing data predecessors only may keep a few non-minimal nodes of U: harmless, they
        // are in U too, and every node of U stays reachable.
        if (minimal) flow.add_edge(t_out(i), n_in(x), inf);
      }
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
