// The execution order of a schedule: placement and event checks, H's generating edges, one
// topological order (Kahn's algorithm; when it stalls, the one deadlock message names a cycle)
// and per-stream vector clocks (Fidge/Mattern clocks over the streams, each a chain).
#include "weft/core/schedule/execution_order.h"

#include <algorithm>
#include <functional>
#include <sstream>

#include "weft/core/base/check.h"

namespace weft::core {
namespace {

using detail::idx;

// Counts then fills a CSR from (node, item) pairs given twice by `visit` (count pass, fill pass).
template <class Item, class Visit>
void fill_csr(std::size_t n, std::vector<std::uint32_t>& begin, std::vector<Item>& items, Visit visit) {
  begin.assign(n + 1, 0);
  visit([&](NodeId v, Item) { ++begin[idx(v) + 1]; });
  for (std::size_t i = 0; i < n; ++i) begin[i + 1] += begin[i];
  items.resize(begin[n]);
  std::vector<std::uint32_t> at(begin.begin(), begin.end() - 1);
  visit([&](NodeId v, Item item) { items[at[idx(v)]++] = item; });
}

// The one deadlock message, from the nodes a topological sort of `o`'s H left (left[v] > 0).
Error deadlock_error(const Graph& graph, const Schedule& schedule, const ExecutionOrder& o,
                     std::span<const std::uint32_t> left) {
  // Every node left has a predecessor left, so walking predecessors inside the remainder must
  // repeat a node: the cycle. (Walking successors could dead-end below the cycle.) Predecessors
  // are tried data edges first, then the stream predecessor, then waited events, so a cycle
  // reads the same whichever pass meets it.
  const std::size_t n = o.node_count();
  NodeId cur = kNoNode;
  for (std::size_t v = 0; v < n && cur == kNoNode; ++v)
    if (left[v] > 0) cur = static_cast<NodeId>(v);
  WEFT_CHECK_MSG(cur != kNoNode, "deadlock_error: no node left");
  enum class Via : std::uint8_t { Data, Stream, Event };
  const auto step = [&](NodeId v) -> std::pair<NodeId, Via> {
    for (NodeId u : graph.predecessors(v))
      if (left[idx(u)] > 0) return {u, Via::Data};
    if (const std::int32_t k = o.index(v); k > 0) {
      const NodeId u = schedule.streams[idx(o.stream_of(v))][idx(k - 1)];
      if (left[idx(u)] > 0) return {u, Via::Stream};
    }
    for (std::uint32_t e : o.waits(v))
      if (const NodeId u = schedule.events[e].from; left[idx(u)] > 0) return {u, Via::Event};
    WEFT_CHECK_MSG(false, "deadlock_error: a node left without a predecessor left");
    return {kNoNode, Via::Data};
  };
  std::vector<int> seen(n, -1);
  std::vector<NodeId> walk;
  std::vector<Via> via;  // via[i]: how walk[i] depends on walk[i+1]
  while (seen[idx(cur)] < 0) {
    seen[idx(cur)] = static_cast<int>(walk.size());
    walk.push_back(cur);
    const auto [u, how] = step(cur);
    via.push_back(how);
    cur = u;
  }
  const auto first = static_cast<std::size_t>(seen[idx(cur)]);
  std::ostringstream msg;
  msg << "would deadlock: " << o.where(graph, walk[first]);
  for (std::size_t i = first; i < walk.size(); ++i) {
    if (i > first) msg << ", which";
    msg << (via[i] == Via::Stream ? " runs after " : " waits for ");
    const bool closes = i + 1 == walk.size();
    msg << (closes ? graph.key(walk[first]) : o.where(graph, walk[i + 1]));
  }
  return Error{ErrorKind::InvalidInput, msg.str()};
}

}  // namespace

std::string ExecutionOrder::where(const Graph& graph, NodeId v) const {
  return graph.key(v) + " on stream " + std::to_string(stream_of(v));
}

Expected<ExecutionOrder> ExecutionOrder::build(const Graph& graph, const Schedule& schedule, Walk walk) {
  return make(graph, schedule, /*with_events=*/true, /*clocks=*/true, walk);
}

Expected<ExecutionOrder> ExecutionOrder::build_without_events(const Graph& graph, const Schedule& schedule, Walk walk) {
  return make(graph, schedule, /*with_events=*/false, /*clocks=*/true, walk);
}

Expected<ExecutionOrder> ExecutionOrder::build_unclocked(const Graph& graph, const Schedule& schedule, Walk walk) {
  return make(graph, schedule, /*with_events=*/true, /*clocks=*/false, walk);
}

void ExecutionOrder::require_clocks() const {
  WEFT_CHECK_MSG(m_clocked, "ExecutionOrder: clocks read from an order built without them (build_unclocked)");
}

Expected<ExecutionOrder> ExecutionOrder::validate(const Graph& graph, const Schedule& schedule) {
  WEFT_TRY_ASSIGN(ExecutionOrder o, build(graph, schedule));
  if (o.m_enforced) return o;
  // Only stream order and events exist on the device: name the first data edge they leave
  // unordered (the build found it while deciding enforced()).
  const NodeId u = o.m_unenforced_from, v = o.m_unenforced_to;
  return make_error(ErrorKind::InvalidInput, "data dependency " + graph.key(u) + " -> " + graph.key(v) +
                                                 " is not enforced: the schedule does not enforce '" + graph.key(u) +
                                                 "' -> '" + graph.key(v) + "' by stream order or an event (" +
                                                 o.where(graph, v) + " does not wait for " + o.where(graph, u) +
                                                 "; an event is missing)");
}

Expected<ExecutionOrder> ExecutionOrder::make(const Graph& graph, const Schedule& schedule, bool with_events, bool clocks,
                                              Walk walk) {
  const std::size_t n = graph.node_count();
  const std::size_t s_count = schedule.streams.size();
  // Stream slots: input errors, not invariants (a loaded or edited schedule may be wrong); the
  // same checks and words as every schedule pass.
  WEFT_TRY_ASSIGN(StreamSlots placement, stream_slots(graph, schedule));
  ExecutionOrder o;
  o.m_stream = std::move(placement.stream_of);
  o.m_index = std::move(placement.position);
  o.m_with_events = with_events;
  o.m_walk = walk;
  const auto node_count = static_cast<NodeId>(n);
  if (with_events)
    for (const Event& e : schedule.events)
      if (e.from < 0 || e.from >= node_count || e.to < 0 || e.to >= node_count)
        return make_error(ErrorKind::InvalidInput, "an event refers to node index " +
                                                       std::to_string(e.from < 0 || e.from >= node_count ? e.from : e.to) +
                                                       ", which the model does not have");

  // Events per node (none without events: the lists are empty).
  if (with_events && !schedule.events.empty()) {
    const auto events = [&](auto each, bool to_side) {
      for (std::size_t e = 0; e < schedule.events.size(); ++e)
        each(to_side ? schedule.events[e].to : schedule.events[e].from, static_cast<std::uint32_t>(e));
    };
    fill_csr<std::uint32_t>(n, o.m_wait_begin, o.m_waits, [&](auto each) { events(each, true); });
    fill_csr<std::uint32_t>(n, o.m_record_begin, o.m_records, [&](auto each) { events(each, false); });
  } else {
    o.m_wait_begin.assign(n + 1, 0);
    o.m_record_begin.assign(n + 1, 0);
  }
  // H's generating successors, sorted and distinct without a sort: each node v, taken in
  // increasing id, is appended to the list of every predecessor it has in H (data, stream
  // order, waited events), so every list grows in increasing order; last[u] == v drops a repeat.
  std::vector<NodeId> last(n);
  fill_csr<NodeId>(n, o.m_succ_begin, o.m_succ, [&](auto each) {
    std::fill(last.begin(), last.end(), kNoNode);
    for (std::size_t vi = 0; vi < n; ++vi) {
      const auto v = static_cast<NodeId>(vi);
      const auto add = [&](NodeId u) {
        if (last[idx(u)] == v) return;
        last[idx(u)] = v;
        each(u, v);
      };
      for (NodeId u : graph.predecessors(v)) add(u);
      if (const std::int32_t k = o.index(v); k > 0) add(schedule.streams[idx(o.stream_of(v))][idx(k - 1)]);
      for (std::uint32_t e : o.waits(v)) add(schedule.events[e].from);
    }
  });

  // Topological order (Kahn's algorithm). Depth first: the successors of the node just taken
  // come next (a stack), so a one-stream schedule's order is exactly its stream and streams stay
  // contiguous where they can. Breadth first: a queue, Kahn's first-in first-out order. Lowest id
  // first: a min-heap.
  std::vector<std::uint32_t> indeg(n, 0);
  for (NodeId v : o.m_succ) ++indeg[idx(v)];
  std::vector<NodeId> ready;  // depth first: a stack; breadth first: a queue from `head`; else a heap
  std::size_t head = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (const std::size_t v = walk == Walk::DepthFirst ? n - 1 - i : i; indeg[v] == 0) ready.push_back(static_cast<NodeId>(v));
  // (Ascending ids already form a min-heap.)
  o.m_order.reserve(n);
  while (head < ready.size()) {
    NodeId u = kNoNode;
    if (walk == Walk::BreadthFirst) {
      u = ready[head++];
    } else {
      if (walk == Walk::LowestIdFirst) std::pop_heap(ready.begin(), ready.end(), std::greater<>());
      u = ready.back();
      ready.pop_back();
    }
    o.m_order.push_back(u);
    for (NodeId v : o.successors(u))
      if (--indeg[idx(v)] == 0) {
        ready.push_back(v);
        if (walk == Walk::LowestIdFirst) std::push_heap(ready.begin(), ready.end(), std::greater<>());
      }
  }
  // Nodes with predecessors left sit on or below a cycle: name it as every pass does.
  if (o.m_order.size() != n) return deadlock_error(graph, schedule, o, indeg);
  o.m_schedule = schedule;

  if (!clocks) return o;
  o.m_clocked = true;
  o.m_clock.assign(n * s_count, -1);
  const auto push_all = [&](bool data) {
    for (NodeId v : o.m_order) {
      std::int32_t* cv = o.m_clock.data() + idx(v) * s_count;
      cv[idx(o.stream_of(v))] = o.index(v);
      const auto push = [&](NodeId w) {
        std::int32_t* cw = o.m_clock.data() + idx(w) * s_count;
        for (std::size_t s = 0; s < s_count; ++s) cw[s] = std::max(cw[s], cv[s]);
      };
      if (data) {
        for (NodeId w : o.successors(v)) push(w);
      } else {
        if (const NodeId next = o.next_on_stream(v); next != kNoNode) push(next);
        for (std::uint32_t e : o.records(v)) push(schedule.events[e].to);
      }
    }
  };
  // Vector clocks of stream order ∪ events (what a device enforces), pushed forward along the
  // order, decide enforced() and find the first data edge left unordered. Without events, stream
  // order orders no two streams: exactly the cross-stream data edges are unordered, and no pass
  // is needed to see it.
  if (with_events) push_all(false);
  const auto ordered = [&](NodeId u, NodeId v) {
    return with_events ? o.m_clock[idx(v) * s_count + idx(o.stream_of(u))] >= o.index(u) : o.stream_of(u) == o.stream_of(v);
  };
  for (std::size_t k = 0; k < n && o.m_unenforced_to == kNoNode; ++k) {
    const NodeId v = o.m_order[k];
    for (NodeId u : graph.predecessors(v))
      if (!ordered(u, v)) {
        o.m_unenforced_from = u;
        o.m_unenforced_to = v;
        break;
      }
  }
  o.m_enforced = o.m_unenforced_to == kNoNode;
  // When stream order ∪ events order every data edge, their clocks are H's (data edges add
  // nothing); otherwise H's clocks are pushed along all generating edges.
  if (!with_events || !o.m_enforced) {
    std::fill(o.m_clock.begin(), o.m_clock.end(), -1);
    push_all(true);
  }
  return o;
}

FirstAfter::FirstAfter(const ExecutionOrder& order) : m_streams(order.stream_count()) {
  const std::size_t n = order.node_count();
  m_first.resize(n * m_streams);
  const auto& topo = order.order();
  // In reverse topological order every successor is done first: the first node of s after v is
  // a successor on s, or the first node of s after a successor (every later node is reached
  // through one).
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    const NodeId v = *it;
    std::int32_t* fv = m_first.data() + static_cast<std::size_t>(v) * m_streams;
    for (std::size_t s = 0; s < m_streams; ++s) fv[s] = static_cast<std::int32_t>(order.stream(s).size());
    for (NodeId w : order.successors(v)) {
      const std::int32_t* fw = m_first.data() + static_cast<std::size_t>(w) * m_streams;
      for (std::size_t s = 0; s < m_streams; ++s) fv[s] = std::min(fv[s], fw[s]);
      auto& on_w = fv[static_cast<std::size_t>(order.stream_of(w))];
      on_w = std::min(on_w, order.index(w));
    }
  }
}

void FirstAfter::after_all(std::span<const NodeId> nodes, std::vector<std::int32_t>& out) const {
  WEFT_CHECK(!nodes.empty());
  const auto first = of(nodes.front());
  out.assign(first.begin(), first.end());
  for (NodeId v : nodes.subspan(1)) {
    const auto f = of(v);
    for (std::size_t s = 0; s < m_streams; ++s) out[s] = std::max(out[s], f[s]);
  }
}

}  // namespace weft::core
