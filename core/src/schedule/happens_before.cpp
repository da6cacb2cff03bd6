#include <algorithm>
#include <cassert>
#include <sstream>

#include "weft/core/schedule.h"

namespace weft::core {

void Schedule::locate(std::size_t node_count, std::vector<int>& stream_of, std::vector<int>& position) const {
  stream_of.assign(node_count, -1);
  position.assign(node_count, -1);
  for (std::size_t s = 0; s < streams.size(); ++s)
    for (std::size_t i = 0; i < streams[s].size(); ++i) {
      const auto n = static_cast<std::size_t>(streams[s][i]);
      assert(n < node_count && stream_of[n] < 0 && "node placed twice or out of range");
      stream_of[n] = static_cast<int>(s);
      position[n] = static_cast<int>(i);
    }
}

Expected<HappensBefore> HappensBefore::build(const Graph& graph, const Schedule& schedule, bool include_data_edges) {
  const std::size_t n = graph.node_count();
  std::vector<int> stream_of, position;
  // Placement errors are input errors here (a loaded schedule may be wrong), not invariants.
  stream_of.assign(n, -1);
  for (std::size_t s = 0; s < schedule.streams.size(); ++s)
    for (NodeId v : schedule.streams[s]) {
      if (v < 0 || static_cast<std::size_t>(v) >= n)
        return make_error(ErrorKind::InvalidInput, "schedule names node index " + std::to_string(v) + ", which the model does not have");
      if (stream_of[static_cast<std::size_t>(v)] >= 0)
        return make_error(ErrorKind::InvalidInput, "node '" + graph.key(v) + "' is placed twice");
      stream_of[static_cast<std::size_t>(v)] = static_cast<int>(s);
    }
  for (std::size_t v = 0; v < n; ++v)
    if (stream_of[v] < 0)
      return make_error(ErrorKind::InvalidInput, "node '" + graph.key(static_cast<NodeId>(v)) + "' is on no stream");

  // Edge lists of H: data edges, stream order (consecutive pairs), events.
  std::vector<std::vector<NodeId>> succ(n);
  if (include_data_edges)
    for (std::size_t u = 0; u < n; ++u)
      for (NodeId v : graph.successors(static_cast<NodeId>(u))) succ[u].push_back(v);
  for (const auto& stream : schedule.streams)
    for (std::size_t i = 1; i < stream.size(); ++i) succ[static_cast<std::size_t>(stream[i - 1])].push_back(stream[i]);
  for (const Event& e : schedule.events) {
    if (e.from < 0 || e.to < 0 || static_cast<std::size_t>(e.from) >= n || static_cast<std::size_t>(e.to) >= n)
      return make_error(ErrorKind::InvalidInput, "event refers to a node the model does not have");
    succ[static_cast<std::size_t>(e.from)].push_back(e.to);
  }
  std::vector<std::uint32_t> indeg(n, 0);
  for (auto& s : succ) {
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    for (NodeId v : s) ++indeg[static_cast<std::size_t>(v)];
  }
  HappensBefore hb;
  hb.m_order.reserve(n);
  std::vector<NodeId> ready;
  for (std::size_t v = 0; v < n; ++v)
    if (indeg[v] == 0) ready.push_back(static_cast<NodeId>(v));
  while (!ready.empty()) {
    const NodeId u = ready.back();
    ready.pop_back();
    hb.m_order.push_back(u);
    for (NodeId v : succ[static_cast<std::size_t>(u)])
      if (--indeg[static_cast<std::size_t>(v)] == 0) ready.push_back(v);
  }
  if (hb.m_order.size() != n) {
    // Follow successors inside the unsorted remainder until a node repeats: that is the deadlock.
    NodeId cur = kNoNode;
    for (std::size_t v = 0; v < n; ++v)
      if (indeg[v] > 0) { cur = static_cast<NodeId>(v); break; }
    std::vector<int> seen(n, -1);
    std::vector<NodeId> walk;
    while (seen[static_cast<std::size_t>(cur)] < 0) {
      seen[static_cast<std::size_t>(cur)] = static_cast<int>(walk.size());
      walk.push_back(cur);
      for (NodeId v : succ[static_cast<std::size_t>(cur)])
        if (indeg[static_cast<std::size_t>(v)] > 0) { cur = v; break; }
    }
    // Reads as a chain: a on stream s must run before b on stream t ... before a again.
    std::ostringstream chain;
    chain << "would deadlock: ";
    for (std::size_t k = static_cast<std::size_t>(seen[static_cast<std::size_t>(cur)]); k < walk.size(); ++k)
      chain << graph.key(walk[k]) << " on stream " << stream_of[static_cast<std::size_t>(walk[k])] << " must run before ";
    chain << graph.key(cur) << " on stream " << stream_of[static_cast<std::size_t>(cur)]
          << ", which must run before the first: the happens-before relation has a cycle";
    return make_error(ErrorKind::InvalidInput, chain.str());
  }
  hb.m_reach.assign(n, Bitset(n));
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
