// Maximum antichain and minimum chain cover (Dilworth's theorem), computed exactly two ways:
//  - Fulkerson's reduction: a minimum chain cover of a poset is V − a maximum matching of the
//    bipartite graph (u_left, v_right) for u < v; the matching (Hopcroft–Karp) runs on bitset
//    reachability closures, and König's theorem turns it into a maximum antichain.
//  - Minimum flow: in the split-node DAG (s → v_in → v_out → t, u_out → v_in per edge) with a lower
//    bound of 1 on every node arc and no upper bounds, the minimum feasible flow is the minimum
//    chain cover with shortcuts, and its minimum cut is a maximum antichain (Ford–Fulkerson's
//    min-flow max-cut theorem). Memory stays O(V + E), so it scales past the closure's V²/8 bytes.
// Both start from a greedy cover along direct edges, so chains follow real edges where they can.
// Dinic's phases are each a search over most of the network; where they are many (chains that end
// in one wide burst continue in the next, far on) the forward augmenting paths are spliced in
// one pass after the first phases (MinFlow::splice), and Dinic finishes the rest.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

#include "weft/core/analysis/antichain.h"
#include "weft/core/base/check.h"

namespace weft::core {

namespace {

constexpr int kNone = -1;

using detail::idx;

// Greedy path cover along direct edges: each node (in topological order) continues the chain of
// its first predecessor whose chain has not been continued yet. next[u] = v, or kNone.
std::vector<NodeId> greedy_next(const Graph& g) {
  std::vector<NodeId> next(g.node_count(), kNone);
  for (NodeId v : g.topo_order())
    for (NodeId p : g.predecessors(v))
      if (next[idx(p)] == kNone) {
        next[idx(p)] = v;
        break;
      }
  return next;
}

// Chains from a successor map (prev derived from it), each in topological order.
std::vector<std::vector<NodeId>> chains_from_next(const Graph& g, const std::vector<NodeId>& next) {
  std::vector<char> has_prev(g.node_count(), 0);
  for (NodeId v : next)
    if (v != kNone) has_prev[idx(v)] = 1;
  std::vector<std::vector<NodeId>> chains;
  for (NodeId v : g.topo_order()) {
    if (has_prev[idx(v)]) continue;
    auto& c = chains.emplace_back();
    for (NodeId u = v; u != kNone; u = next[idx(u)]) c.push_back(u);
  }
  return chains;
}

// ---------------------------------------------------------------------------------------------
// Hopcroft–Karp on the reachability closure (rows of `words` 64-bit words per node).

class ClosureMatching {
 public:
  explicit ClosureMatching(const Graph& g) : m_g(g), m_n(g.node_count()), m_words((m_n + 63) / 64) {
    // reach[u] = strict descendants of u, filled in reverse topological order.
    m_reach.assign(m_n * m_words, 0);
    const auto order = g.topo_order();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      std::uint64_t* row = this->row(*it);
      for (NodeId s : g.successors(*it)) {
        const std::uint64_t* srow = this->row(s);
        for (std::size_t w = 0; w < m_words; ++w) row[w] |= srow[w];
        row[idx(s) >> 6] |= std::uint64_t{1} << (idx(s) & 63);
      }
    }
    m_match_l.assign(m_n, kNone);
    m_match_r.assign(m_n, kNone);
    const std::vector<NodeId> next = greedy_next(g);
    for (std::size_t u = 0; u < m_n; ++u)
      if (next[u] != kNone) {
        m_match_l[u] = next[u];
        m_match_r[idx(next[u])] = static_cast<NodeId>(u);
      }
  }

  void run() {
    while (bfs()) {
      m_used_r.assign(m_words, 0);
      for (std::size_t u = 0; u < m_n; ++u)
        if (m_match_l[u] == kNone) augment(static_cast<NodeId>(u));
    }
  }

  Width result() const {
    Width w;
    w.cover.chains = chains_from_next(m_g, m_match_l);
    // König: Z = vertices reachable from free left vertices by alternating paths. The minimum
    // vertex cover is (L \ Z) ∪ (R ∩ Z); nodes in neither side of it form a maximum antichain.
    std::vector<char> z_left(m_n, 0);
    std::vector<std::uint64_t> z_right(m_words, 0);
    std::vector<NodeId> queue;
    for (std::size_t u = 0; u < m_n; ++u)
      if (m_match_l[u] == kNone) {
        z_left[u] = 1;
        queue.push_back(static_cast<NodeId>(u));
      }
    for (std::size_t qi = 0; qi < queue.size(); ++qi) {
      const std::uint64_t* r = row(queue[qi]);
      for (std::size_t wi = 0; wi < m_words; ++wi) {
        std::uint64_t bits = r[wi] & ~z_right[wi];
        z_right[wi] |= bits;
        while (bits) {
          const std::size_t v = wi * 64 + static_cast<std::size_t>(std::countr_zero(bits));
          bits &= bits - 1;
          const NodeId u2 = m_match_r[v];
          WEFT_CHECK(u2 != kNone);  // a free right vertex here would be an augmenting path
          if (u2 != kNone && !z_left[idx(u2)]) {
            z_left[idx(u2)] = 1;
            queue.push_back(u2);
          }
        }
      }
    }
    for (std::size_t v = 0; v < m_n; ++v)
      if (z_left[v] && !((z_right[v >> 6] >> (v & 63)) & 1u)) w.antichain.push_back(static_cast<NodeId>(v));
    return w;
  }

 private:
  std::uint64_t* row(NodeId u) { return m_reach.data() + idx(u) * m_words; }
  const std::uint64_t* row(NodeId u) const { return m_reach.data() + idx(u) * m_words; }

  // Layers left vertices by alternating BFS from the free ones; true when a free right vertex is reachable.
  bool bfs() {
    constexpr int kInf = std::numeric_limits<int>::max();
    m_dist.assign(m_n, kInf);
    std::vector<std::uint64_t> seen_r(m_words, 0);
    std::vector<NodeId> queue;
    for (std::size_t u = 0; u < m_n; ++u)
      if (m_match_l[u] == kNone) {
        m_dist[u] = 0;
        queue.push_back(static_cast<NodeId>(u));
      }
    bool found = false;
    for (std::size_t qi = 0; qi < queue.size(); ++qi) {
      const NodeId u = queue[qi];
      const std::uint64_t* r = row(u);
      for (std::size_t wi = 0; wi < m_words; ++wi) {
        std::uint64_t bits = r[wi] & ~seen_r[wi];
        seen_r[wi] |= bits;
        while (bits) {
          const std::size_t v = wi * 64 + static_cast<std::size_t>(std::countr_zero(bits));
          bits &= bits - 1;
          const NodeId u2 = m_match_r[v];
          if (u2 == kNone) {
            found = true;
          } else if (m_dist[idx(u2)] == kInf) {
            m_dist[idx(u2)] = m_dist[idx(u)] + 1;
            queue.push_back(u2);
          }
        }
      }
    }
    return found;
  }

  // Iterative DFS along the BFS layers from free left vertex `root`; flips one augmenting path.
  // A right vertex is marked used only once the search goes through it (vertex-disjoint paths in
  // one phase); one whose partner sits on another layer is skipped, as it may serve another path.
  void augment(NodeId root) {
    struct Frame {
      NodeId u;
      std::size_t bit;  // next right vertex to consider
      NodeId via;       // right vertex chosen to reach the next frame
    };
    constexpr int kInf = std::numeric_limits<int>::max();
    std::vector<Frame> stack{{root, 0, kNone}};
    while (!stack.empty()) {
      Frame& f = stack.back();
      const std::uint64_t* r = row(f.u);
      NodeId v = kNone;
      while (f.bit < m_n) {
        const std::size_t w = f.bit >> 6;
        const std::uint64_t bits = r[w] & ~m_used_r[w] & (~std::uint64_t{0} << (f.bit & 63));
        if (bits) {
          v = static_cast<NodeId>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
          f.bit = idx(v) + 1;
          break;
        }
        f.bit = (w + 1) * 64;
      }
      if (v == kNone) {  // dead end for this phase
        m_dist[idx(f.u)] = kInf;
        stack.pop_back();
        continue;
      }
      const NodeId u2 = m_match_r[idx(v)];
      if (u2 == kNone) {
        m_used_r[idx(v) >> 6] |= std::uint64_t{1} << (idx(v) & 63);
        f.via = v;
        for (const Frame& s : stack) {
          m_match_l[idx(s.u)] = s.via;
          m_match_r[idx(s.via)] = s.u;
        }
        return;
      }
      if (m_dist[idx(u2)] != kInf && m_dist[idx(u2)] == m_dist[idx(f.u)] + 1) {
        m_used_r[idx(v) >> 6] |= std::uint64_t{1} << (idx(v) & 63);
        f.via = v;
        stack.push_back({u2, 0, kNone});
      }
    }
  }

  const Graph& m_g;
  std::size_t m_n;
  std::size_t m_words;
  std::vector<std::uint64_t> m_reach;
  std::vector<NodeId> m_match_l, m_match_r;
  std::vector<int> m_dist;
  std::vector<std::uint64_t> m_used_r;
};

// ---------------------------------------------------------------------------------------------
// Minimum flow: a feasible flow from the greedy cover, reduced by a maximum flow from t to s in
// its residual network (Dinic).

class MinFlow {
 public:
  explicit MinFlow(const Graph& g) : m_g(g), m_n(g.node_count()) {
    // Vertices: v_in = 2v, v_out = 2v + 1, s = 2n, t = 2n + 1.
    m_s = static_cast<int>(2 * m_n);
    m_t = m_s + 1;
    const std::vector<NodeId> next = greedy_next(g);
    std::vector<char> has_prev(m_n, 0);
    for (NodeId v : next)
      if (v != kNone) has_prev[idx(v)] = 1;
    // Each original arc x→y (lower bound l, flow f, no upper bound) becomes the residual pair
    // y→x with capacity f − l (flow that may be cancelled) and x→y unbounded. Arcs are listed
    // per vertex newest first (the order the searches visit them), then laid out contiguously.
    Builder b(2 * m_n + 2, 3 * m_n + g.edge_count());
    m_node_arc.resize(m_n);
    m_source_arc.resize(m_n);
    m_sink_arc.resize(m_n);
    m_edge_arc_begin.resize(m_n + 1, 0);
    for (std::size_t v = 0; v < m_n; ++v) {
      const int in = static_cast<int>(2 * v), out = in + 1;
      m_node_arc[v] = b.add(out, in, 0);  // flow 1, lower bound 1
      m_source_arc[v] = b.add(in, m_s, has_prev[v] ? 0 : 1);
      m_sink_arc[v] = b.add(m_t, out, next[v] == kNone ? 1 : 0);
    }
    for (std::size_t u = 0; u < m_n; ++u) {
      m_edge_arc_begin[u] = m_edge_arc.size();
      for (NodeId v : g.successors(static_cast<NodeId>(u)))
        m_edge_arc.push_back(b.add(static_cast<int>(2 * idx(v)), static_cast<int>(2 * u + 1), next[u] == v ? 1 : 0));
    }
    m_edge_arc_begin[m_n] = m_edge_arc.size();
    // Compressed form: arc ids become positions in per-vertex runs (same visiting order).
    const std::vector<int> pos = b.compress(m_begin, m_to, m_cap, m_rev);
    for (auto* arcs : {&m_node_arc, &m_source_arc, &m_sink_arc, &m_edge_arc})
      for (std::size_t& a : *arcs) a = static_cast<std::size_t>(pos[a]);
  }

  void run() {
    int phases = 0;
    bool spliced = false;
    while (bfs()) {
      if (!spliced && phases == kPhasesBeforeSplicing) {
        splice();
        spliced = true;
        continue;  // the flow changed: search the levels again
      }
      ++phases;
      m_it.assign(m_begin.begin(), m_begin.end() - 1);
      dfs();
    }
  }

  Width result() const {
    Width w;
    // Flow on each original arc = lower bound + remaining residual capacity of its cancel arc.
    std::vector<std::int64_t> node_flow(m_n), src(m_n), snk(m_n), edge_flow(m_edge_arc.size());
    for (std::size_t v = 0; v < m_n; ++v) {
      node_flow[v] = 1 + m_cap[m_node_arc[v]];
      src[v] = m_cap[m_source_arc[v]];
      snk[v] = m_cap[m_sink_arc[v]];
    }
    for (std::size_t e = 0; e < m_edge_arc.size(); ++e) edge_flow[e] = m_cap[m_edge_arc[e]];

    // Decompose into unit s→t paths; each node joins the first path through it. Minimality
    // guarantees every path keeps at least one node (else dropping it gives a smaller flow).
    std::vector<char> taken(m_n, 0);
    std::vector<std::size_t> cursor(m_edge_arc_begin.begin(), m_edge_arc_begin.end() - 1);
    for (NodeId start : m_g.topo_order()) {
      while (src[idx(start)] > 0) {
        --src[idx(start)];
        std::vector<NodeId> chain;
        NodeId v = start;
        while (true) {
          const auto vi = idx(v);
          --node_flow[vi];
          if (!taken[vi]) {
            taken[vi] = 1;
            chain.push_back(v);
          }
          auto& c = cursor[vi];
          while (c < m_edge_arc_begin[vi + 1] && edge_flow[c] == 0) ++c;
          if (c < m_edge_arc_begin[vi + 1]) {
            --edge_flow[c];
            v = m_g.successors(v)[c - m_edge_arc_begin[vi]];
            continue;
          }
          WEFT_CHECK(snk[vi] > 0);
          --snk[vi];
          break;
        }
        WEFT_CHECK(!chain.empty());
        if (!chain.empty()) w.cover.chains.push_back(std::move(chain));
      }
    }
    // Minimum cut: X = vertices reachable from t in the final residual network. Nodes whose out
    // half is in X and in half is not cross the cut on their lower-bound arc: a maximum antichain.
    std::vector<char> in_x(2 * m_n + 2, 0);
    std::vector<int> queue{m_t};
    in_x[static_cast<std::size_t>(m_t)] = 1;
    for (std::size_t qi = 0; qi < queue.size(); ++qi) {
      const auto x = static_cast<std::size_t>(queue[qi]);
      for (std::size_t k = m_begin[x]; k < m_begin[x + 1]; ++k) {
        const auto to = static_cast<std::size_t>(m_to[k]);
        if (m_cap[k] > 0 && !in_x[to]) {
          in_x[to] = 1;
          queue.push_back(static_cast<int>(to));
        }
      }
    }
    for (std::size_t v = 0; v < m_n; ++v)
      if (in_x[2 * v + 1] && !in_x[2 * v]) w.antichain.push_back(static_cast<NodeId>(v));
    return w;
  }

 private:
  static constexpr std::int64_t kUnbounded = std::int64_t{1} << 50;

  // Collects arcs as per-vertex linked lists (newest first), then lays them out contiguously
  // per vertex in that order: the searches scan runs of memory instead of chasing links.
  class Builder {
   public:
    Builder(std::size_t vertices, std::size_t pairs) : m_first(vertices, kNone) {
      m_to.reserve(2 * pairs);
      m_cap.reserve(2 * pairs);
      m_next.reserve(2 * pairs);
    }
    // Adds x→y with capacity `cap` and its partner y→x unbounded; returns the id of x→y (its
    // partner is id ^ 1).
    std::size_t add(int x, int y, std::int64_t cap) {
      const std::size_t e = m_to.size();
      push(x, y, cap);
      push(y, x, kUnbounded);
      return e;
    }
    // Fills the compressed arrays; returns each arc id's position.
    std::vector<int> compress(std::vector<std::size_t>& begin, std::vector<int>& to, std::vector<std::int64_t>& cap,
                              std::vector<std::size_t>& rev) const {
      const std::size_t vertices = m_first.size(), arcs = m_to.size();
      std::vector<int> pos(arcs);
      begin.assign(vertices + 1, 0);
      std::size_t k = 0;
      for (std::size_t x = 0; x < vertices; ++x) {
        begin[x] = k;
        for (int e = m_first[x]; e != kNone; e = m_next[static_cast<std::size_t>(e)]) pos[static_cast<std::size_t>(e)] = static_cast<int>(k++);
      }
      begin[vertices] = k;
      to.resize(arcs);
      cap.resize(arcs);
      rev.resize(arcs);
      for (std::size_t e = 0; e < arcs; ++e) {
        const auto p = static_cast<std::size_t>(pos[e]);
        to[p] = m_to[e];
        cap[p] = m_cap[e];
        rev[p] = static_cast<std::size_t>(pos[e ^ 1u]);
      }
      return pos;
    }

   private:
    void push(int x, int y, std::int64_t cap) {
      m_to.push_back(y);
      m_cap.push_back(cap);
      m_next.push_back(m_first[static_cast<std::size_t>(x)]);
      m_first[static_cast<std::size_t>(x)] = static_cast<int>(m_to.size() - 1);
    }
    std::vector<int> m_first, m_next, m_to;
    std::vector<std::int64_t> m_cap;
  };

  // Each of Dinic's phases searches the levels over most of the network, and there are as many
  // phases as distinct lengths of the shortest augmenting paths: on a graph of narrow stretches
  // between wide bursts (chains ending in one burst continue in the next, a thousand hops on),
  // hundreds. Past this many phases the rest of the augmenting paths that run forward along the
  // graph's edges alone are found first, by splice(); Dinic then finishes what they leave. A
  // graph whose flow is maximal within these phases never reaches it (every model tested here:
  // its cover is what plain Dinic gives).
  static constexpr int kPhasesBeforeSplicing = 32;

  // Augments along every path t -> u_out -> (edges and nodes forward) -> v_in -> s that uses no
  // cancelling arc: the end u of one chain continued, through a shortcut, by the head v of
  // another that u reaches. Heads in topological order, each searching back through its
  // ancestors for an open end. An end, once used, is never open again and nothing opens one, so a
  // node whose ancestors hold no open end stays so for every later head: such nodes are marked
  // and skipped, and each node's next predecessor to try is kept between searches. O(V + E) for
  // the searches that fail, plus the length of each path found (walked once more to add its flow).
  void splice() {
    // Each node's predecessors with the cancelling arc of the edge from each.
    std::vector<std::size_t> pred_begin(m_n + 1, 0);
    for (std::size_t u = 0; u < m_n; ++u)
      for (NodeId v : m_g.successors(static_cast<NodeId>(u))) ++pred_begin[idx(v) + 1];
    for (std::size_t x = 0; x < m_n; ++x) pred_begin[x + 1] += pred_begin[x];
    std::vector<std::size_t> pred_node(pred_begin[m_n]), pred_edge(pred_begin[m_n]);
    {
      std::vector<std::size_t> at(pred_begin.begin(), pred_begin.end() - 1);
      for (std::size_t u = 0; u < m_n; ++u) {
        const auto succ = m_g.successors(static_cast<NodeId>(u));
        for (std::size_t k = 0; k < succ.size(); ++k) {
          const std::size_t slot = at[idx(succ[k])]++;
          pred_node[slot] = u;
          pred_edge[slot] = m_edge_arc[m_edge_arc_begin[u] + k];
        }
      }
    }
    const auto open_end = [&](std::size_t x) { return m_cap[m_sink_arc[x]] > 0; };
    std::vector<char> dead(m_n, 0);
    std::vector<std::size_t> next_pred(pred_begin.begin(), pred_begin.end() - 1);
    std::vector<std::size_t> stack;  // nodes, from the head back
    for (NodeId head : m_g.topo_order()) {
      const auto v = idx(head);
      while (m_cap[m_source_arc[v]] > 0) {
        stack.assign(1, v);
        std::size_t found = m_n;
        while (!stack.empty()) {
          const std::size_t x = stack.back();
          if (x != v && open_end(x)) {
            found = x;
            break;
          }
          std::size_t& k = next_pred[x];
          while (k < pred_begin[x + 1] && dead[pred_node[k]]) ++k;
          if (k < pred_begin[x + 1]) {
            stack.push_back(pred_node[k]);
            continue;
          }
          if (!open_end(x)) dead[x] = 1;
          stack.pop_back();
        }
        if (found == m_n) break;
        // One unit from t to the end u, forward along the stack's edges and through its nodes
        // to the head v, then to s: each arc used gives up a unit to its partner.
        const auto push = [&](std::size_t arc) {
          --m_cap[m_rev[arc]];
          ++m_cap[arc];
        };
        --m_cap[m_sink_arc[found]];
        ++m_cap[m_rev[m_sink_arc[found]]];
        for (std::size_t i = stack.size() - 1; i > 0; --i) {
          const std::size_t x = stack[i - 1];  // the path goes stack[i] -> x
          push(pred_edge[next_pred[x]]);
          if (i > 1) push(m_node_arc[x]);  // through x's node arc, once more than its one unit
        }
        --m_cap[m_source_arc[v]];
        ++m_cap[m_rev[m_source_arc[v]]];
      }
    }
  }

  bool bfs() {
    m_level.assign(2 * m_n + 2, kNone);
    m_queue.clear();
    m_queue.push_back(m_t);
    m_level[static_cast<std::size_t>(m_t)] = 0;
    // Levels beyond s's cannot lead to s: the search stops at s's level (the blocking flow then
    // skips those vertices instead of visiting them as dead ends; the same paths are found).
    const auto s = static_cast<std::size_t>(m_s);
    for (std::size_t qi = 0; qi < m_queue.size(); ++qi) {
      const int x = m_queue[qi];
      const auto xi = static_cast<std::size_t>(x);
      if (m_level[s] != kNone && m_level[xi] >= m_level[s]) break;
      for (std::size_t k = m_begin[xi]; k < m_begin[xi + 1]; ++k) {
        const auto y = static_cast<std::size_t>(m_to[k]);
        if (m_cap[k] > 0 && m_level[y] == kNone) {
          m_level[y] = m_level[xi] + 1;
          m_queue.push_back(static_cast<int>(y));
        }
      }
    }
    return m_level[static_cast<std::size_t>(m_s)] != kNone;
  }

  // Blocking flow in the level graph, iteratively (paths can be as long as the graph is deep).
  void dfs() {
    std::vector<std::size_t> path;  // arc positions from t
    int x = m_t;
    while (true) {
      if (x == m_s) {
        std::int64_t push_amount = kUnbounded;
        for (std::size_t e : path) push_amount = std::min(push_amount, m_cap[e]);
        std::size_t first_saturated = path.size();
        for (std::size_t i = 0; i < path.size(); ++i) {
          const std::size_t e = path[i];
          m_cap[e] -= push_amount;
          m_cap[m_rev[e]] += push_amount;
          if (m_cap[e] == 0 && first_saturated == path.size()) first_saturated = i;
        }
        path.resize(first_saturated);
        x = path.empty() ? m_t : m_to[path.back()];
        continue;
      }
      const auto xi = static_cast<std::size_t>(x);
      std::size_t& e = m_it[xi];
      const std::size_t end = m_begin[xi + 1];
      const int next_level = m_level[xi] + 1;
      while (e < end && !(m_cap[e] > 0 && m_level[static_cast<std::size_t>(m_to[e])] == next_level)) ++e;
      if (e < end) {
        path.push_back(e);
        x = m_to[e];
        continue;
      }
      // Dead end: drop x from the level graph and retreat.
      m_level[xi] = kNone;
      if (path.empty()) return;
      const std::size_t back = path.back();
      path.pop_back();
      x = m_to[m_rev[back]];
      m_it[static_cast<std::size_t>(x)] = back + 1;
    }
  }

  const Graph& m_g;
  std::size_t m_n;
  int m_s = 0, m_t = 0;
  // Residual arcs, grouped by tail vertex: m_begin[x]..m_begin[x + 1]; m_rev is the partner.
  std::vector<std::size_t> m_begin, m_rev, m_it;
  std::vector<int> m_to, m_level, m_queue;
  std::vector<std::int64_t> m_cap;
  std::vector<std::size_t> m_node_arc, m_source_arc, m_sink_arc, m_edge_arc, m_edge_arc_begin;
};

}  // namespace

Width compute_width(const Graph& graph, WidthMethod method) {
  if (graph.node_count() == 0) return {};
  if (method == WidthMethod::Auto)
    method = graph.node_count() <= kMatchingMaxNodes ? WidthMethod::Matching : WidthMethod::MinFlow;
  Width w;
  if (method == WidthMethod::Matching) {
    ClosureMatching m(graph);
    m.run();
    w = m.result();
  } else {
    MinFlow f(graph);
    f.run();
    w = f.result();
  }
  WEFT_CHECK(w.antichain.size() == w.cover.chains.size());  // Dilworth
  return w;
}

ChainCover min_chain_cover(const Graph& graph, WidthMethod method) { return compute_width(graph, method).cover; }

std::vector<NodeId> max_antichain(const Graph& graph, WidthMethod method) {
  return compute_width(graph, method).antichain;
}

}  // namespace weft::core
