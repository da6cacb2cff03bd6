// Lower bounds on any arena. Linear: max live bytes over the steps of one order. Concurrent:
// the maximum-weight antichain of dead-before (pairwise conflicting tensors, all live together
// on some interleaving), by weighted Dilworth: min chain cover = Σ size − max flow, where the
// flow runs between tensors along a network whose paths are exactly the dead-before pairs.
#include "weft/core/memory/bounds.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <span>

#include "allocation_detail.h"
#include "weft/core/memory/allocation_problem.h"
#include "weft/core/base/check.h"

namespace weft::core {
namespace {

// Dinic's max flow on compressed rows: the caller gives each vertex's arc count (its edges out
// plus the residual twins of its edges in) up front, so each vertex's arcs lie contiguously and
// the level searches read them in memory order. The max-flow value, and the set reachable from
// the source in the residual network (the minimal min cut), are the same whatever order arcs
// are tried in. Cap is the capacity type: 32 bits where the capacities fit (a quarter less
// memory to fill and search over millions of arcs), else 64. The arc arrays are left
// uninitialised: add_edge writes every slot, and run() checks that it did.
template <class Cap>
class MaxFlow {
 public:
  explicit MaxFlow(std::span<const std::uint32_t> arcs_of) : m_vertices(arcs_of.size()) {
    m_begin.assign(m_vertices + 1, 0);
    std::size_t total = 0;
    for (std::size_t v = 0; v < m_vertices; ++v) {
      total += arcs_of[v];
      WEFT_CHECK(total <= UINT32_MAX);  // arc indices are 32-bit
      m_begin[v + 1] = static_cast<std::uint32_t>(total);
    }
    m_fill.assign(m_begin.begin(), m_begin.end() - 1);
    m_arc_to.reset(new std::int32_t[total]);
    m_arc_cap.reset(new Cap[total]);
    m_twin.reset(new std::uint32_t[total]);
    m_level.resize(m_vertices);
    m_iter.resize(m_vertices);
    m_back.resize(m_vertices);
  }
  /// Adds u → v and its residual twin; returns the forward arc's index.
  std::size_t add_edge(std::size_t u, std::size_t v, Cap cap) {
    const std::uint32_t k = m_fill[u]++, j = m_fill[v]++;
    WEFT_CHECK(k < m_begin[u + 1] && j < m_begin[v + 1]);
    m_arc_to[k] = static_cast<std::int32_t>(v);
    m_arc_cap[k] = cap;
    m_twin[k] = j;
    m_arc_to[j] = static_cast<std::int32_t>(u);
    m_arc_cap[j] = 0;
    m_twin[j] = k;
    return k;
  }
  /// Sends `amount` along arc e (part of an initial flow that run() then completes).
  void push(std::size_t e, Cap amount) {
    m_arc_cap[e] -= amount;
    m_arc_cap[m_twin[e]] += amount;
  }
  std::int64_t run(std::size_t s, std::size_t t, int direct_paths) {
    for (std::size_t v = 0; v < m_vertices; ++v) WEFT_CHECK(m_fill[v] == m_begin[v + 1]);
    std::int64_t flow = 0;
    // A good initial flow leaves no path or a few: breadth-first searches that stop at the sink
    // find those for less than Dinic's phases (a full level search, then a search of the level
    // graph); past a few, the phases bound the work.
    for (int k = 0; k < direct_paths; ++k) {
      const Cap f = augment_once(s, t);
      if (f == 0) {
        m_ran = true;  // the failed search visited exactly the vertices reachable from s
        return flow;
      }
      flow += f;
    }
    while (bfs(s, t)) {
      std::copy(m_begin.begin(), m_begin.end() - 1, m_iter.begin());
      while (const Cap f = dfs(s, t, std::numeric_limits<Cap>::max())) flow += f;
    }
    m_ran = true;
    return flow;
  }
  /// After run(): the vertices reachable from its source in the residual network. The last level
  /// search of run() found no path to the sink, so it ran to completion and labelled exactly those.
  std::vector<char> reachable() const {
    WEFT_CHECK(m_ran);
    std::vector<char> seen(m_vertices, 0);
    for (std::size_t v = 0; v < m_vertices; ++v) seen[v] = m_level[v] >= 0;
    return seen;
  }

 private:
  // One augmenting path, or 0 when the sink cannot be reached; then m_level marks (>= 0) exactly
  // the vertices reachable from s. Breadth-first from both ends, a level at a time from the side
  // whose frontier is smaller, until they meet: the few paths a good initial flow leaves run
  // from a tensor with supply left to one with demand left, and the sink side starts from those
  // few tensors, while the source side starts from every tensor with supply left and, searched
  // alone, crossed most of the network for each path (2 paths at 100k layered nodes, 15 ms each).
  Cap augment_once(std::size_t s, std::size_t t) {
    std::fill(m_level.begin(), m_level.end(), -1);
    std::fill(m_back.begin(), m_back.end(), kUnseen);
    std::vector<std::size_t>& fwd = m_queue;
    std::vector<std::size_t>& bwd = m_back_queue;
    fwd.assign(1, s);
    bwd.assign(1, t);
    m_level[s] = 0;
    m_back[t] = kSink;
    std::size_t f_at = 0, b_at = 0;  // the next vertex to expand on each side
    constexpr std::size_t kNoVertex = static_cast<std::size_t>(-1);
    std::size_t meet = kNoVertex;
    // Expands every vertex queued on the forward side before the call (one level).
    const auto forward_level = [&] {
      for (const std::size_t stop = fwd.size(); f_at < stop && meet == kNoVertex; ++f_at) {
        const std::size_t u = fwd[f_at];
        for (std::uint32_t k = m_begin[u]; k < m_begin[u + 1]; ++k) {
          const auto v = static_cast<std::size_t>(m_arc_to[k]);
          if (m_arc_cap[k] <= 0 || m_level[v] >= 0) continue;
          m_level[v] = m_level[u] + 1;
          m_iter[v] = k;  // the arc it was reached by
          fwd.push_back(v);
          if (m_back[v] != kUnseen) {
            meet = v;
            break;
          }
        }
      }
    };
    const auto backward_level = [&] {
      for (const std::size_t stop = bwd.size(); b_at < stop && meet == kNoVertex; ++b_at) {
        const std::size_t v = bwd[b_at];
        // u → v has residual capacity where the twin of one of v's arcs to u has.
        for (std::uint32_t k = m_begin[v]; k < m_begin[v + 1]; ++k) {
          const auto u = static_cast<std::size_t>(m_arc_to[k]);
          const std::uint32_t j = m_twin[k];
          if (m_arc_cap[j] <= 0 || m_back[u] != kUnseen) continue;
          m_back[u] = j;  // the arc it continues by, toward t
          bwd.push_back(u);
          if (m_level[u] >= 0) {
            meet = u;
            break;
          }
        }
      }
    };
    // Once the sink's side has run out, the source's goes on alone: it may still reach one of
    // the vertices labelled from the sink. When the source's side runs out, there is no path and
    // m_level labels everything reachable from s.
    while (meet == kNoVertex && f_at < fwd.size()) {
      if (b_at < bwd.size() && bwd.size() - b_at < fwd.size() - f_at) backward_level();
      else forward_level();
    }
    if (meet == kNoVertex) return 0;
    Cap f = std::numeric_limits<Cap>::max();
    for (std::size_t v = meet; v != s; v = static_cast<std::size_t>(m_arc_to[m_twin[m_iter[v]]])) f = std::min(f, m_arc_cap[m_iter[v]]);
    for (std::size_t u = meet; u != t; u = static_cast<std::size_t>(m_arc_to[m_back[u]])) f = std::min(f, m_arc_cap[m_back[u]]);
    for (std::size_t v = meet; v != s; v = static_cast<std::size_t>(m_arc_to[m_twin[m_iter[v]]])) {
      m_arc_cap[m_iter[v]] -= f;
      m_arc_cap[m_twin[m_iter[v]]] += f;
    }
    for (std::size_t u = meet; u != t; u = static_cast<std::size_t>(m_arc_to[m_back[u]])) {
      m_arc_cap[m_back[u]] -= f;
      m_arc_cap[m_twin[m_back[u]]] += f;
    }
    return f;
  }
  bool bfs(std::size_t s, std::size_t t) {
    std::fill(m_level.begin(), m_level.end(), -1);
    std::vector<std::size_t>& queue = m_queue;
    queue.assign(1, s);
    m_level[s] = 0;
    // Levels at or beyond t's cannot lead to t: the search stops there (the augmenting searches
    // then skip those vertices instead of visiting them as dead ends; the same paths are found).
    for (std::size_t i = 0; i < queue.size(); ++i) {
      const std::size_t u = queue[i];
      if (m_level[t] >= 0 && m_level[u] >= m_level[t]) break;
      for (std::uint32_t k = m_begin[u]; k < m_begin[u + 1]; ++k) {
        const auto v = static_cast<std::size_t>(m_arc_to[k]);
        if (m_arc_cap[k] > 0 && m_level[v] < 0) {
          m_level[v] = m_level[u] + 1;
          queue.push_back(v);
        }
      }
    }
    return m_level[t] >= 0;
  }
  // Iterative augmenting-path search along the level graph (recursion could overflow the stack
  // on long chains).
  Cap dfs(std::size_t s, std::size_t t, Cap limit) {
    std::vector<std::uint32_t>& path = m_path;  // arcs
    path.clear();
    std::size_t u = s;
    while (true) {
      if (u == t) {
        Cap f = limit;
        for (std::uint32_t k : path) f = std::min(f, m_arc_cap[k]);
        for (std::uint32_t k : path) {
          m_arc_cap[k] -= f;
          m_arc_cap[m_twin[k]] += f;
        }
        return f;
      }
      std::uint32_t& k = m_iter[u];
      for (; k < m_begin[u + 1]; ++k)
        if (m_arc_cap[k] > 0 && m_level[static_cast<std::size_t>(m_arc_to[k])] == m_level[u] + 1) break;
      if (k < m_begin[u + 1]) {
        path.push_back(k);
        u = static_cast<std::size_t>(m_arc_to[k]);
        continue;
      }
      // Dead end: retreat and skip the arc that led here.
      m_level[u] = -1;
      if (path.empty()) return 0;
      const std::uint32_t back = path.back();
      path.pop_back();
      u = static_cast<std::size_t>(m_arc_to[m_twin[back]]);
      ++m_iter[u];
    }
  }

  std::size_t m_vertices;
  bool m_ran = false;
  std::vector<std::uint32_t> m_begin, m_fill, m_iter;
  std::unique_ptr<std::int32_t[]> m_arc_to;
  std::unique_ptr<Cap[]> m_arc_cap;
  std::unique_ptr<std::uint32_t[]> m_twin;
  std::vector<int> m_level;
  std::vector<std::size_t> m_queue;  // bfs's, kept between phases
  // augment_once's search from the sink: per vertex, the arc toward t it was reached by.
  static constexpr std::uint32_t kUnseen = UINT32_MAX, kSink = UINT32_MAX - 1;
  std::vector<std::uint32_t> m_back;
  std::vector<std::size_t> m_back_queue;
  std::vector<std::uint32_t> m_path;  // dfs's
};

// The tensors live at the busiest step of `order` (closed [producer, last reader] positions).
ConcurrentBound linear_clique(const Graph& graph, std::span<const NodeId> order, const std::vector<TensorId>& tensors,
                              const std::vector<std::int64_t>& weight) {
  std::vector<std::int64_t> pos(graph.node_count(), 0);
  for (std::size_t i = 0; i < order.size(); ++i) pos[static_cast<std::size_t>(order[i])] = static_cast<std::int64_t>(i);
  std::vector<std::int64_t> start(tensors.size()), end(tensors.size());
  std::vector<std::int64_t> diff(order.size() + 1, 0);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto writers = tensor_writers(graph, tensors[i]);
    start[i] = end[i] = pos[static_cast<std::size_t>(writers.front())];
    for (NodeId w : writers) {
      start[i] = std::min(start[i], pos[static_cast<std::size_t>(w)]);
      end[i] = std::max(end[i], pos[static_cast<std::size_t>(w)]);
    }
    for (NodeId r : tensor_readers(graph, tensors[i])) end[i] = std::max(end[i], pos[static_cast<std::size_t>(r)]);
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

// The concurrent bound's flow network. Vertices: source, sink, per tensor in/out, one per node.
// A path t_out(a) → … → t_in(b) exists iff b's producer is where a is dead: a enters the node
// network at its dead-from frontier (the first dead node on each stream), and everything after a
// frontier node in H is dead too (the dead set is an up-set), so no closure is needed. A node's
// capacity is unlimited, so it is one vertex, not an in → out pair: the same flows and the same
// vertices reachable from the source (an out half was only ever reached through its in half, or
// against flow that its in → out edge carried too).
struct BoundNetwork {
  struct Entry {
    std::size_t tensor, edge;  // edge: t_out(tensor) → the frontier node
    std::int32_t index;        // the frontier node's index on its stream
  };
  std::vector<TensorId> tensors;
  std::vector<std::int64_t> weight;
  // Capacities count units of the weights' greatest common divisor (the alignment at least): every
  // flow scaled by one factor, so the same cut; 32-bit capacities wherever the total fits.
  std::int64_t unit = 0, total_units = 0;
  std::vector<std::int64_t> units;
  std::vector<NodeId> producer;  // each tensor's one writer
  // Per node, the tensors whose frontier it is (in tensor order) and the tensors it produces:
  // grouped by node in flat arrays (counting sorts), not a vector per node.
  std::vector<std::pair<NodeId, Entry>> frontier_entries;
  std::vector<std::uint32_t> entering_begin, produced_begin;

  std::size_t tensor_count() const { return tensors.size(); }
  static constexpr std::size_t kSource = 0, kSink = 1;
  std::size_t t_in(std::size_t i) const { return 2 + 2 * i; }
  std::size_t t_out(std::size_t i) const { return 3 + 2 * i; }
  std::size_t node(NodeId v) const { return 2 + 2 * tensors.size() + static_cast<std::size_t>(v); }
};

BoundNetwork bound_network(const Graph& graph, const ExecutionOrder& clocks, std::vector<TensorId> tensors,
                           std::vector<std::int64_t> weight) {
  BoundNetwork net;
  const std::size_t b_count = tensors.size(), v_count = graph.node_count();
  net.tensors = std::move(tensors);
  net.weight = std::move(weight);
  for (const std::int64_t w : net.weight) net.unit = std::gcd(net.unit, w);
  net.units.reserve(b_count);  // (resize here trips GCC 12's -Wnull-dereference in some unity batches)
  for (const std::int64_t w : net.weight) net.units.push_back(w / net.unit);
  net.total_units = std::accumulate(net.units.begin(), net.units.end(), std::int64_t{0});
  // The frontiers come first: they give the network's arc counts.
  net.frontier_entries.reserve(b_count * clocks.stream_count());
  net.producer.resize(b_count);
  const FirstAfter after(clocks);
  std::vector<std::int32_t> frontier;
  for (std::size_t i = 0; i < b_count; ++i) {
    net.producer[i] = graph.writers(net.tensors[i]).front();  // one writer here (has_multi_writer_tensors)
    detail::dead_from(after, graph, net.tensors[i], frontier);
    for (std::size_t s = 0; s < frontier.size(); ++s)
      if (static_cast<std::size_t>(frontier[s]) < clocks.stream(s).size())
        net.frontier_entries.push_back({clocks.stream(s)[static_cast<std::size_t>(frontier[s])], {i, 0, frontier[s]}});
  }
  net.entering_begin.assign(v_count + 1, 0);
  net.produced_begin.assign(v_count + 1, 0);
  for (const auto& fe : net.frontier_entries) ++net.entering_begin[static_cast<std::size_t>(fe.first) + 1];
  for (std::size_t i = 0; i < b_count; ++i) ++net.produced_begin[static_cast<std::size_t>(net.producer[i]) + 1];
  for (std::size_t v = 0; v < v_count; ++v) {
    net.entering_begin[v + 1] += net.entering_begin[v];
    net.produced_begin[v + 1] += net.produced_begin[v];
  }
  return net;
}

/// The ids of the edges the initial flow pushes along: each node's stream-order edge to the next
/// node on its stream, and each tensor's source, sink and producer edges.
struct FlowEdges {
  std::vector<std::size_t> chain, source, sink, producer;
};

// The network, described once and walked twice: to count each vertex's arcs, then to add them.
template <class Cap, class AddEdge>
void describe_network(BoundNetwork& net, const ExecutionOrder& clocks, Cap inf, FlowEdges& edges, AddEdge&& edge) {
  const std::size_t v_count = clocks.order().size(), b_count = net.tensor_count();
  edges.chain.assign(v_count, 0);
  edges.source.resize(b_count);
  edges.sink.resize(b_count);
  edges.producer.resize(b_count);
  for (std::size_t u = 0; u < v_count; ++u) {
    const auto nu = static_cast<NodeId>(u);
    const auto& st = clocks.stream(static_cast<std::size_t>(clocks.stream_of(nu)));
    const auto k = static_cast<std::size_t>(clocks.index(nu));
    const NodeId next = k + 1 < st.size() ? st[k + 1] : kNoNode;
    for (NodeId v : clocks.successors(nu)) {
      const std::size_t e = edge(net.node(nu), net.node(v), inf);
      if (v == next) edges.chain[u] = e;
    }
  }
  for (std::size_t i = 0; i < b_count; ++i) {
    edges.source[i] = edge(BoundNetwork::kSource, net.t_out(i), static_cast<Cap>(net.units[i]));
    edges.sink[i] = edge(net.t_in(i), BoundNetwork::kSink, static_cast<Cap>(net.units[i]));
    edge(net.t_in(i), net.t_out(i), inf);
    edges.producer[i] = edge(net.node(net.producer[i]), net.t_in(i), inf);
  }
  for (auto& fe : net.frontier_entries) fe.second.edge = edge(net.t_out(fe.second.tensor), net.node(fe.first), inf);
}

// Initial flow: along each stream, a tensor's weight enters at its frontier node and serves
// tensors produced further down that stream (each is dead-after it). Edge flows along the
// stream chains are prefix sums, so this is O(V + T·S); Dinic then only completes what the
// stream chains alone cannot route, instead of growing one path length per phase. Returns the
// flow pushed.
template <class Cap>
std::int64_t push_initial_flow(const BoundNetwork& net, const ExecutionOrder& clocks, const FlowEdges& edges, MaxFlow<Cap>& flow) {
  using Entry = BoundNetwork::Entry;
  const std::size_t streams = clocks.stream_count();
  std::vector<Entry> entering(net.frontier_entries.size());
  std::vector<std::size_t> produced(net.tensor_count());
  {
    std::vector<std::uint32_t> at(net.entering_begin.begin(), net.entering_begin.end() - 1);
    for (const auto& fe : net.frontier_entries) entering[at[static_cast<std::size_t>(fe.first)]++] = fe.second;
    at.assign(net.produced_begin.begin(), net.produced_begin.end() - 1);
    for (std::size_t i = 0; i < net.tensor_count(); ++i) produced[at[static_cast<std::size_t>(net.producer[i])]++] = i;
  }
  std::vector<std::int64_t> supply(net.units), demand(net.units);
  std::vector<std::vector<Entry>> pool(streams);
  std::vector<std::vector<std::int64_t>> along(streams);
  for (std::size_t s = 0; s < streams; ++s) along[s].assign(clocks.stream(s).size() + 1, 0);
  std::int64_t initial = 0;
  for (NodeId x : clocks.order()) {
    const auto ux = static_cast<std::size_t>(x);
    const auto s = static_cast<std::size_t>(clocks.stream_of(x));
    const std::int32_t k = clocks.index(x);
    for (std::uint32_t j = net.entering_begin[ux]; j < net.entering_begin[ux + 1]; ++j) pool[s].push_back(entering[j]);
    for (std::uint32_t j = net.produced_begin[ux]; j < net.produced_begin[ux + 1]; ++j)
      for (const std::size_t b = produced[j]; demand[b] > 0 && !pool[s].empty();) {
        const Entry a = pool[s].back();
        if (supply[a.tensor] == 0) {
          pool[s].pop_back();
          continue;
        }
        const std::int64_t amount = std::min(supply[a.tensor], demand[b]);
        flow.push(edges.source[a.tensor], static_cast<Cap>(amount));
        flow.push(a.edge, static_cast<Cap>(amount));
        flow.push(edges.producer[b], static_cast<Cap>(amount));
        flow.push(edges.sink[b], static_cast<Cap>(amount));
        along[s][static_cast<std::size_t>(a.index)] += amount;
        along[s][static_cast<std::size_t>(k)] -= amount;
        supply[a.tensor] -= amount;
        demand[b] -= amount;
        initial += amount;
      }
  }
  for (std::size_t s = 0; s < streams; ++s) {
    std::int64_t running = 0;
    const auto& st = clocks.stream(s);
    for (std::size_t k = 0; k + 1 < st.size(); ++k)
      if ((running += along[s][k]) > 0) flow.push(edges.chain[static_cast<std::size_t>(st[k])], static_cast<Cap>(running));
  }
  return initial;
}

// The max flow, then the bound (total minus matched) and its antichain: the tensors whose out
// half the source still reaches and whose in half it does not (the minimal min cut).
template <class Cap>
void solve_bound(BoundNetwork& net, const ExecutionOrder& clocks, int direct_paths, ConcurrentBound& out) {
  const auto inf = static_cast<Cap>(net.total_units + 1);
  FlowEdges edges;
  std::vector<std::uint32_t> arcs_of(2 + 2 * net.tensor_count() + clocks.order().size(), 0);
  describe_network(net, clocks, inf, edges, [&](std::size_t u, std::size_t v, Cap) -> std::size_t {
    ++arcs_of[u];  // the edge
    ++arcs_of[v];  // its residual twin
    return 0;
  });
  MaxFlow<Cap> flow(arcs_of);
  describe_network(net, clocks, inf, edges, [&](std::size_t u, std::size_t v, Cap cap) { return flow.add_edge(u, v, cap); });
  const std::int64_t initial = push_initial_flow(net, clocks, edges, flow);
  const std::int64_t matched = initial + flow.run(BoundNetwork::kSource, BoundNetwork::kSink, direct_paths);
  out.bytes = (net.total_units - matched) * net.unit;
  const auto seen = flow.reachable();
  std::int64_t check = 0;
  for (std::size_t i = 0; i < net.tensor_count(); ++i)
    if (seen[net.t_out(i)] && !seen[net.t_in(i)]) {
      out.antichain.push_back(net.tensors[i]);
      check += net.weight[i];
    }
  WEFT_CHECK_MSG(check == out.bytes, "antichain weight must equal the min-cut value");
}

}  // namespace

std::int64_t linear_lower_bound(const Graph& graph, std::span<const NodeId> order, const PlanOptions& options) {
  // Live bytes per step by a difference array: a tensor is live from its producer's step
  // through its last reader's step.
  WEFT_CHECK(order.size() == graph.node_count());
  std::vector<std::int64_t> pos(graph.node_count(), 0);
  for (std::size_t i = 0; i < order.size(); ++i) pos[static_cast<std::size_t>(order[i])] = static_cast<std::int64_t>(i);
  std::vector<std::int64_t> diff(order.size() + 1, 0);
  for (std::size_t ti = 0; ti < graph.tensor_count(); ++ti) {
    if (!is_planned_tensor(graph, static_cast<TensorId>(ti), options.outputs_in_arena)) continue;
    // The parent of views: live from its first writer to its last access.
    const auto writers = tensor_writers(graph, static_cast<TensorId>(ti));
    std::int64_t s = pos[static_cast<std::size_t>(writers.front())], e = s;
    for (NodeId w : writers) {
      s = std::min(s, pos[static_cast<std::size_t>(w)]);
      e = std::max(e, pos[static_cast<std::size_t>(w)]);
    }
    for (NodeId r : tensor_readers(graph, static_cast<TensorId>(ti))) e = std::max(e, pos[static_cast<std::size_t>(r)]);
    const std::int64_t size = align_up(std::max<std::int64_t>(graph.bytes(static_cast<TensorId>(ti)), 1), options.alignment);
    diff[static_cast<std::size_t>(s)] += size;
    diff[static_cast<std::size_t>(e) + 1] -= size;
  }
  std::int64_t live = 0, peak = 0;
  for (std::int64_t d : diff) peak = std::max(peak, live += d);
  return peak;
}

Expected<ConcurrentBound> concurrent_lower_bound(const Graph& graph, const Schedule& schedule, const PlanOptions& options) {
  WEFT_TRY_ASSIGN(const ExecutionOrder clocks, ExecutionOrder::build(graph, schedule));
  return concurrent_lower_bound(graph, clocks, options);
}

ConcurrentBound concurrent_lower_bound(const Graph& graph, const ExecutionOrder& clocks, const PlanOptions& options) {
  return detail::concurrent_lower_bound(graph, clocks, options, detail::kDirectAugmentingPaths);
}

ConcurrentBound detail::concurrent_lower_bound(const Graph& graph, const ExecutionOrder& clocks, const PlanOptions& options,
                                               int direct_paths) {
  const Schedule& schedule = clocks.schedule();
  std::vector<TensorId> tensors;
  std::vector<std::int64_t> weight;
  for (std::size_t t = 0; t < graph.tensor_count(); ++t) {
    const auto id = static_cast<TensorId>(t);
    if (!is_planned_tensor(graph, id, options.outputs_in_arena)) continue;
    tensors.push_back(id);
    weight.push_back(align_up(std::max<std::int64_t>(graph.bytes(id), 1), options.alignment));
  }
  ConcurrentBound out;
  if (tensors.empty()) return out;
  // One stream is a total order: the antichains are the tensors live at one step, so the sweep is
  // exact. Past kExactFlowTensors (a guard: with the initial flow below, 100k nodes on 4 streams
  // take well under a second), the same sweep over a linearisation of H gives a valid, not
  // always tight, bound (tensors overlapping there pairwise conflict).
  constexpr std::size_t kExactFlowTensors = 250'000;
  // The flow network gives each tensor one producer; a split output's parent has several
  // writers, so such a graph gets the linearisation's (valid, not always tight) bound too.
  if (schedule.stream_count() <= 1 || tensors.size() > kExactFlowTensors || has_multi_writer_tensors(graph, options.outputs_in_arena)) {
    const std::vector<NodeId>& order = schedule.stream_count() == 1 ? schedule.streams[0] : clocks.order();
    out = linear_clique(graph, order, tensors, weight);
    out.exact = schedule.stream_count() <= 1;
    return out;
  }
  BoundNetwork net = bound_network(graph, clocks, std::move(tensors), std::move(weight));
  if (net.total_units < std::numeric_limits<std::int32_t>::max()) solve_bound<std::int32_t>(net, clocks, direct_paths, out);
  else solve_bound<std::int64_t>(net, clocks, direct_paths, out);
  return out;
}

std::int64_t interval_lower_bound(const AllocationProblem& problem) {
  std::vector<std::pair<std::int64_t, std::int64_t>> events;  // (position, +size at start / -size after end)
  events.reserve(2 * problem.block_count());
  for (std::size_t b = 0; b < problem.block_count(); ++b) {
    events.emplace_back(problem.start[b], problem.size[b]);
    events.emplace_back(problem.end[b] + 1, -problem.size[b]);
  }
  // At one position, ends (negative) apply before starts: [s, e] closed, e + 1 is already free.
  std::sort(events.begin(), events.end());
  std::int64_t live = 0, peak = 0;
  for (auto [pos, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace weft::core
