// The CPU executor's team per node: wide nodes' masks, team sizes and helpers (cpu_node_teams.h).
#include "cpu_node_teams.h"

#include <algorithm>
#include <string>

namespace weft::core::detail {

Status NodeTeams::init(const Graph& graph, const Schedule& schedule, int stream_team, int usable) {
  NodeTeams& t = *this;
  t.m_nodes = 0;
  t.m_widest = 0;
  t.m_stream_team = stream_team;
  t.m_team.assign(graph.node_count(), stream_team);
  for (std::size_t v = 0; v < schedule.node_threads.size() && v < graph.node_count(); ++v) {
    const int threads = schedule.node_threads[v];
    if (threads <= 0 || threads == stream_team) continue;
    if (threads > usable)
      return make_error(ErrorKind::InvalidInput, "node '" + graph.key(static_cast<NodeId>(v)) + "' runs on a team of " + std::to_string(threads) +
                                                     " threads, more than the " + std::to_string(usable) + " CPUs this process may use");
    t.m_team[v] = threads;
    ++t.m_nodes;
    t.m_widest = std::max(t.m_widest, threads);
  }
  return {};
}

void NodeTeams::set_workers(const std::vector<int>& cpus, std::size_t workers, std::size_t team, bool pinned) {
  const std::size_t n = std::max<std::size_t>(workers, 1);
  m_masks.clear();
  m_masks.resize(n);
  for (std::size_t w = 0; w < n; ++w) m_masks[w].emplace(cpus, w, workers, team, pinned);
  m_helpers.assign(n, {});
  m_idle.assign(n, 0);
}

NodeTeams::Scope::Scope(NodeTeams& teams, std::size_t worker, NodeId v) : m_teams(teams), m_wide(teams.wide(v)) {
  const int threads = teams.team(v);
  if (m_wide) teams.m_wide_running.fetch_add(1, std::memory_order_relaxed);
  teams.m_masks[worker]->set(m_wide);
  if (threads != teams.m_stream_team) m_team.emplace(threads);
  if (!m_wide) return;
  // The team's helpers, started on the wide mask, back on the normal class for the node.
  auto& helpers = teams.m_helpers[worker];
  if (helpers.size() + 1 != static_cast<std::size_t>(threads)) helpers = library_helpers(threads);
  if (teams.m_idle[worker]) set_helpers_idle(helpers, false);
  teams.m_idle[worker] = 0;
}

NodeTeams::Scope::~Scope() {
  m_team.reset();
  if (m_wide) m_teams.m_wide_running.fetch_sub(1, std::memory_order_relaxed);
}

void NodeTeams::after(std::size_t worker, NodeId v, NodeId next) {
  if (!wide(v) || (next != kNoNode && wide(next))) return;
  set_helpers_idle(m_helpers[worker], true);
  m_idle[worker] = 1;
}

void NodeTeams::finish(std::size_t worker) {
  if (worker < m_idle.size() && m_idle[worker]) set_helpers_idle(m_helpers[worker], false);
  if (worker < m_idle.size()) m_idle[worker] = 0;
}

}  // namespace weft::core::detail
