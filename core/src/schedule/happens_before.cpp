#include <algorithm>

#include "schedule_detail.h"
#include "weft/core/check.h"
#include "weft/core/schedule.h"

namespace weft::core {

void Schedule::locate(std::size_t node_count, std::vector<int>& stream_of, std::vector<int>& position) const {
  stream_of.assign(node_count, -1);
  position.assign(node_count, -1);
  for (std::size_t s = 0; s < streams.size(); ++s)
    for (std::size_t i = 0; i < streams[s].size(); ++i) {
      const auto n = static_cast<std::size_t>(streams[s][i]);
      WEFT_CHECK_MSG(n < node_count && stream_of[n] < 0, "node placed twice or out of range");
      stream_of[n] = static_cast<int>(s);
      position[n] = static_cast<int>(i);
    }
}

Expected<HappensBefore> HappensBefore::build(const Graph& graph, const Schedule& schedule, bool include_data_edges) {
  const std::size_t n = graph.node_count();
  // Placement errors are input errors here (a loaded schedule may be wrong), not invariants.
  WEFT_TRY_ASSIGN(auto placement, detail::place(graph, schedule));
  for (const Event& e : schedule.events)
    if (e.from < 0 || e.to < 0 || static_cast<std::size_t>(e.from) >= n || static_cast<std::size_t>(e.to) >= n)
      return make_error(ErrorKind::InvalidInput, "event refers to a node the model does not have");
  const detail::HEdges edges = detail::h_edges(graph, schedule, include_data_edges, /*events=*/true);
  // The shared topological sort names a deadlock's nodes and streams ("would deadlock: a on
  // stream 1 waits for b on stream 2, which runs after c ...").
  WEFT_TRY_ASSIGN(auto order, detail::h_order(graph, edges, placement));
  HappensBefore hb;
  hb.m_order = std::move(order);
  hb.m_reach.assign(n, Bitset(n));
  // Closure in forward topological order: reach(v) ⊇ reach(u) ∪ {v} for every predecessor u is
  // built as "u reaches v and everything v reaches"; going backwards over the order lets each
  // node OR in its successors' finished sets, so invert the predecessor lists once.
  std::vector<std::vector<NodeId>> succ(n);
  for (std::size_t v = 0; v < n; ++v)
    for (auto [u, kind] : edges.pred(static_cast<NodeId>(v))) succ[static_cast<std::size_t>(u)].push_back(static_cast<NodeId>(v));
  for (auto it = hb.m_order.rbegin(); it != hb.m_order.rend(); ++it) {
    Bitset& r = hb.m_reach[static_cast<std::size_t>(*it)];
    for (NodeId v : succ[static_cast<std::size_t>(*it)]) {
      r.set(static_cast<std::size_t>(v));
      r |= hb.m_reach[static_cast<std::size_t>(v)];
    }
  }
  return hb;
}

}  // namespace weft::core
