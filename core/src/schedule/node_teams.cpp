// Hybrid teams: the nodes nothing runs beside, found from the execution order's clocks
// (node_teams.h).
#include "weft/core/schedule/node_teams.h"

#include <algorithm>

#include "weft/core/schedule/execution_order.h"

namespace weft::core {

std::vector<char> alone_nodes(const ExecutionOrder& order) {
  const std::size_t n = order.node_count(), streams = order.stream_count();
  std::vector<char> alone(n, 1);
  if (streams <= 1) return alone;
  const FirstAfter after(order);
  for (std::size_t v = 0; v < n; ++v) {
    const auto node = static_cast<NodeId>(v);
    const auto own = static_cast<std::size_t>(order.stream_of(node));
    const auto before = order.clock(node);  // per stream: the last index before v (-1: none)
    const auto first = after.of(node);      // per stream: the first index after v
    for (std::size_t s = 0; s < streams && alone[v]; ++s)
      if (s != own && first[s] != before[s] + 1) alone[v] = 0;  // a node of s is unordered with v
  }
  return alone;
}

int hybrid_wide_threads(const Schedule& schedule, int cores) {
  const int team = std::max(schedule.threads_per_stream, 1);
  int streams = static_cast<int>(schedule.streams.size());
  if (cores > 0) streams = std::min(streams, std::max(cores / team, 1));
  return std::max(streams, 1) * team;
}

Status make_hybrid(const Graph& graph, Schedule& schedule, int threads_per_stream, int cores, std::span<const double> node_us) {
  schedule.threads_per_stream = std::max(threads_per_stream, 1);
  return assign_alone_teams(graph, schedule, hybrid_wide_threads(schedule, cores), node_us);
}

Status assign_alone_teams(const Graph& graph, Schedule& schedule, int wide_threads, std::span<const double> node_us, double min_us) {
  if (wide_threads < 1)
    return make_error(ErrorKind::InvalidInput, "a wide node's team needs at least 1 thread, not " + std::to_string(wide_threads));
  schedule.node_threads.clear();
  if (schedule.streams.size() <= 1 || wide_threads <= schedule.threads_per_stream) return {};
  WEFT_TRY_ASSIGN(const ExecutionOrder order, ExecutionOrder::build(graph, schedule));
  const std::vector<char> alone = alone_nodes(order);
  schedule.node_threads.assign(graph.node_count(), 0);
  for (std::size_t v = 0; v < alone.size(); ++v) {
    const bool short_node = v < node_us.size() && node_us[v] >= 0 && node_us[v] < min_us;
    if (alone[v] && !short_node) schedule.node_threads[v] = wide_threads;
  }
  return {};
}

Status narrow_unalone_teams(const Graph& graph, Schedule& schedule) {
  if (!schedule.has_node_teams()) return {};
  WEFT_TRY_ASSIGN(const ExecutionOrder order, ExecutionOrder::build(graph, schedule));
  const std::vector<char> alone = alone_nodes(order);
  for (std::size_t v = 0; v < schedule.node_threads.size() && v < alone.size(); ++v)
    if (!alone[v] && schedule.node_threads[v] > schedule.threads_per_stream) schedule.node_threads[v] = 0;
  return {};
}

NodeTeamCount count_node_teams(const Schedule& schedule) {
  NodeTeamCount c;
  for (std::size_t v = 0; v < schedule.node_threads.size(); ++v) {
    const int t = schedule.team_of(static_cast<NodeId>(v));
    if (t == schedule.threads_per_stream) continue;
    ++c.nodes;
    c.threads = std::max(c.threads, t);
  }
  return c;
}

std::string node_teams_text(const Schedule& schedule, std::size_t node_count) {
  const NodeTeamCount c = count_node_teams(schedule);
  if (c.nodes == 0) return {};
  const int own = schedule.threads_per_stream;
  return "hybrid: " + std::to_string(c.nodes) + " of " + std::to_string(node_count) + " nodes run alone on teams of " +
         std::to_string(c.threads) + " threads, the others on " + std::to_string(own) + (own == 1 ? " thread" : " threads") +
         " per stream";
}

}  // namespace weft::core
