// The execution order of a schedule: placement and event checks, H's generating edges, one
// topological order (a deadlock's cycle named by the schedule passes' one message when there is
// none) and per-stream vector clocks (Fidge/Mattern clocks over the streams, each a chain).
#include "weft/core/execution_order.h"

#include <algorithm>

#include "weft/core/check.h"
#include "schedule_detail.h"
#include "weft/core/sync.h"

namespace weft::core {
namespace {

std::size_t idx(NodeId v) { return static_cast<std::size_t>(v); }

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

}  // namespace

std::string ExecutionOrder::where(const Graph& graph, NodeId v) const {
  return graph.key(v) + " on stream " + std::to_string(stream_of(v));
}

Expected<ExecutionOrder> ExecutionOrder::build(const Graph& graph, const Schedule& schedule) {
  return make(graph, schedule, /*with_events=*/true, /*clocks=*/true);
}

Expected<ExecutionOrder> ExecutionOrder::build_without_events(const Graph& graph, const Schedule& schedule) {
  return make(graph, schedule, /*with_events=*/false, /*clocks=*/true);
}

Expected<ExecutionOrder> ExecutionOrder::build_unclocked(const Graph& graph, const Schedule& schedule) {
  return make(graph, schedule, /*with_events=*/true, /*clocks=*/false);
}

void ExecutionOrder::require_clocks() const {
  WEFT_CHECK_MSG(m_clocked, "ExecutionOrder: clocks read from an order built without them (build_unclocked)");
}

Expected<ExecutionOrder> ExecutionOrder::validate(const Graph& graph, const Schedule& schedule) {
  WEFT_TRY_ASSIGN(ExecutionOrder o, build(graph, schedule));
  if (o.m_enforced) return o;
  // Only stream order and events exist on the device; name a data edge they leave unordered.
  // Clocks of stream order ∪ events alone (build kept H's, which count data edges).
  const std::size_t s_count = o.stream_count();
  std::vector<std::int32_t> clock(o.node_count() * s_count, -1);
  for (NodeId v : o.m_order) {
    std::int32_t* cv = clock.data() + idx(v) * s_count;
    cv[idx(o.stream_of(v))] = o.index(v);
    const auto push = [&](NodeId w) {
      std::int32_t* cw = clock.data() + idx(w) * s_count;
      for (std::size_t s = 0; s < s_count; ++s) cw[s] = std::max(cw[s], cv[s]);
    };
    if (const NodeId next = o.next_on_stream(v); next != kNoNode) push(next);
    for (std::uint32_t e : o.records(v)) push(o.m_schedule.events[e].to);
  }
  for (NodeId v : o.m_order)
    for (NodeId u : graph.predecessors(v))
      if (clock[idx(v) * s_count + idx(o.stream_of(u))] < o.index(u))
        return make_error(ErrorKind::InvalidInput,
                          "data dependency " + graph.key(u) + " -> " + graph.key(v) +
                              " is not enforced: the schedule does not enforce '" + graph.key(u) + "' -> '" +
                              graph.key(v) + "' by stream order or an event (" + o.where(graph, v) +
                              " does not wait for " + o.where(graph, u) + "; an event is missing)");
  WEFT_CHECK_MSG(false, "validate: enforced() disagrees with the clocks of stream order and events");
  return o;
}

Expected<ExecutionOrder> ExecutionOrder::make(const Graph& graph, const Schedule& schedule, bool with_events, bool clocks) {
  const std::size_t n = graph.node_count();
  const std::size_t s_count = schedule.streams.size();
  // Stream slots: input errors, not invariants (a loaded or edited schedule may be wrong); the
  // same checks and words as every schedule pass.
  WEFT_TRY_ASSIGN(detail::StreamSlots placement, detail::place(graph, schedule));
  ExecutionOrder o;
  o.m_stream = std::move(placement.stream_of);
  o.m_index = std::move(placement.position);
  const auto node_count = static_cast<NodeId>(n);
  for (const Event& e : schedule.events)
    if (e.from < 0 || e.from >= node_count || e.to < 0 || e.to >= node_count)
      return make_error(ErrorKind::InvalidInput, "an event refers to node index " +
                                                     std::to_string(e.from < 0 || e.from >= node_count ? e.from : e.to) +
                                                     ", which the model does not have");
  o.m_schedule = schedule;

  // Events per node, and H's generating successors (sorted, unique).
  const auto events = [&](auto each, bool to_side) {
    if (!with_events) return;
    for (std::size_t e = 0; e < schedule.events.size(); ++e)
      each(to_side ? schedule.events[e].to : schedule.events[e].from, static_cast<std::uint32_t>(e));
  };
  fill_csr<std::uint32_t>(n, o.m_wait_begin, o.m_waits, [&](auto each) { events(each, true); });
  fill_csr<std::uint32_t>(n, o.m_record_begin, o.m_records, [&](auto each) { events(each, false); });
  fill_csr<NodeId>(n, o.m_succ_begin, o.m_succ, [&](auto each) {
    for (std::size_t u = 0; u < n; ++u)
      for (NodeId v : graph.successors(static_cast<NodeId>(u))) each(static_cast<NodeId>(u), v);
    for (const auto& stream : schedule.streams)
      for (std::size_t i = 1; i < stream.size(); ++i) each(stream[i - 1], stream[i]);
    if (with_events)
      for (const Event& e : schedule.events) each(e.from, e.to);
  });
  {
    // Sort and deduplicate each node's successors in place, then close the gaps.
    std::uint32_t out = 0;
    for (std::size_t u = 0; u < n; ++u) {
      const auto b = o.m_succ.begin() + o.m_succ_begin[u], e = o.m_succ.begin() + o.m_succ_begin[u + 1];
      std::sort(b, e);
      const auto last = std::unique(b, e);
      o.m_succ_begin[u] = out;
      for (auto it = b; it != last; ++it) o.m_succ[out++] = *it;
    }
    o.m_succ_begin[n] = out;
    o.m_succ.resize(out);
  }

  // Topological order: successors of the node just taken come next (a stack), so a one-stream
  // schedule's order is exactly its stream and streams stay contiguous where they can.
  std::vector<std::uint32_t> indeg(n, 0);
  for (NodeId v : o.m_succ) ++indeg[idx(v)];
  std::vector<NodeId> ready;
  for (std::size_t v = n; v-- > 0;)
    if (indeg[v] == 0) ready.push_back(static_cast<NodeId>(v));
  o.m_order.reserve(n);
  while (!ready.empty()) {
    const NodeId u = ready.back();
    ready.pop_back();
    o.m_order.push_back(u);
    for (NodeId v : o.successors(u))
      if (--indeg[idx(v)] == 0) ready.push_back(v);
  }
  if (o.m_order.size() != n) {
    // Nodes with predecessors left sit on or below a cycle: name it as every pass does.
    const detail::HEdges edges = detail::h_edges(graph, schedule, /*data=*/true, with_events);
    return detail::deadlock_error(graph, edges, indeg, detail::StreamSlots{o.m_stream, o.m_index});
  }

  if (!clocks) return o;
  o.m_clocked = true;
  // Vector clocks of stream order ∪ events, pushed forward along the order. When they already
  // order every data edge, they are H's clocks (data edges add nothing); otherwise H's clocks are
  // pushed again along all generating edges.
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
  push_all(false);
  o.m_enforced = true;
  for (std::size_t v = 0; v < n && o.m_enforced; ++v)
    for (NodeId u : graph.predecessors(static_cast<NodeId>(v)))
      if (o.m_clock[v * s_count + idx(o.stream_of(u))] < o.index(u)) {
        o.m_enforced = false;
        break;
      }
  if (!o.m_enforced) {
    std::fill(o.m_clock.begin(), o.m_clock.end(), -1);
    push_all(true);
  }
  return o;
}

std::int32_t ExecutionOrder::first_reaching(std::size_t s, std::span<const std::int32_t> need) const {
  const auto& st = stream(s);
  const auto reaches = [&](NodeId x) {
    const auto c = clock(x);
    for (std::size_t k = 0; k < need.size(); ++k)
      if (c[k] < need[k]) return false;
    return true;
  };
  std::size_t lo = 0, hi = st.size();  // answer in [lo, hi]
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (reaches(st[mid]))
      hi = mid;
    else
      lo = mid + 1;
  }
  return static_cast<std::int32_t>(lo);
}

}  // namespace weft::core
