// Edits of a schedule: each builds the edited streams, refuses what would deadlock (naming the
// cycle) or names no such stream/node, and returns the result with recomputed minimal events.
#include "weft/core/schedule/schedule_edit.h"

#include <algorithm>

#include "weft/core/schedule/execution_order.h"
#include "weft/core/schedule/node_teams.h"
#include "weft/core/schedule/sync.h"

namespace weft::core {
namespace {

Status check_stream(const Schedule& s, int stream, std::string_view what) {
  if (stream < 0 || static_cast<std::size_t>(stream) >= s.streams.size())
    return make_error(ErrorKind::InvalidInput, std::string(what) + ": stream " + std::to_string(stream) +
                                                   " does not exist (the schedule has " + std::to_string(s.streams.size()) +
                                                   " streams)");
  return {};
}

// Recomputes events for edited streams from the order of data ∪ stream order, built once: refused
// when it has a cycle (or the streams misplace a node), in the execution order's words.
Expected<Schedule> finish(const Graph& graph, Schedule edited, std::string_view what) {
  auto order = ExecutionOrder::build_without_events(graph, edited, ExecutionOrder::Walk::BreadthFirst);
  if (!order) return make_error(ErrorKind::InvalidInput, std::string(what) + " refused: " + order.error().message);
  edited.events = compute_events(graph, *order);
  edited.strategy = "hand";
  if (Status ok = validate_schedule(graph, edited); !ok)
    return make_error(ErrorKind::Internal, std::string(what) + ": edited schedule failed validation: " + ok.error().message);
  // Hybrid teams follow the edit: a wide node that no longer runs alone goes back to its stream's team.
  WEFT_TRY(narrow_unalone_teams(graph, edited));
  return edited;
}

}  // namespace

Expected<Schedule> move_nodes(const Graph& graph, const Schedule& schedule, std::span<const NodeId> nodes, int stream,
                              int position) {
  const std::string what = nodes.size() == 1 && nodes[0] >= 0 && static_cast<std::size_t>(nodes[0]) < graph.node_count()
                               ? "moving " + graph.key(nodes[0])
                               : "moving " + std::to_string(nodes.size()) + " nodes";
  if (nodes.empty()) return make_error(ErrorKind::InvalidInput, "moving nodes: no nodes given");
  WEFT_TRY(check_stream(schedule, stream, what));
  WEFT_TRY_ASSIGN(const StreamSlots p, stream_slots(graph, schedule));
  for (NodeId v : nodes)
    if (v < 0 || static_cast<std::size_t>(v) >= graph.node_count())
      return make_error(ErrorKind::InvalidInput, what + ": node index " + std::to_string(v) + " does not exist");
  const int from = p.stream_of[static_cast<std::size_t>(nodes[0])];
  std::vector<int> positions;
  for (NodeId v : nodes) {
    if (p.stream_of[static_cast<std::size_t>(v)] != from)
      return make_error(ErrorKind::InvalidInput, what + ": the nodes must sit on one stream (" + graph.key(nodes[0]) +
                                                     " is on stream " + std::to_string(from) + ", " + graph.key(v) +
                                                     " on stream " + std::to_string(p.stream_of[static_cast<std::size_t>(v)]) + ")");
    positions.push_back(p.position[static_cast<std::size_t>(v)]);
  }
  std::sort(positions.begin(), positions.end());
  if (std::adjacent_find(positions.begin(), positions.end()) != positions.end())
    return make_error(ErrorKind::InvalidInput, what + ": a node is listed twice");
  if (positions.back() - positions.front() + 1 != static_cast<int>(positions.size()))
    return make_error(ErrorKind::InvalidInput, what + ": the nodes are not a contiguous run of stream " + std::to_string(from));

  Schedule edited = schedule;
  auto& src = edited.streams[static_cast<std::size_t>(from)];
  const std::vector<NodeId> run(src.begin() + positions.front(), src.begin() + positions.back() + 1);
  src.erase(src.begin() + positions.front(), src.begin() + positions.back() + 1);
  auto& dst = edited.streams[static_cast<std::size_t>(stream)];
  if (position < 0 || static_cast<std::size_t>(position) > dst.size())
    return make_error(ErrorKind::InvalidInput, what + ": position " + std::to_string(position) + " is outside stream " +
                                                   std::to_string(stream) + " (0.." + std::to_string(dst.size()) + ")");
  dst.insert(dst.begin() + position, run.begin(), run.end());
  return finish(graph, std::move(edited), what);
}

Expected<Schedule> move_node(const Graph& graph, const Schedule& schedule, NodeId n, int stream, int position) {
  const NodeId one[] = {n};
  return move_nodes(graph, schedule, one, stream, position);
}

Expected<Schedule> move_selection(const Graph& graph, const Schedule& schedule, std::vector<NodeId> nodes, int stream,
                                  int position) {
  if (nodes.empty()) return make_error(ErrorKind::InvalidInput, "moving nodes: no nodes given");
  for (NodeId v : nodes)
    if (v < 0 || static_cast<std::size_t>(v) >= graph.node_count())
      return make_error(ErrorKind::InvalidInput, "moving nodes: node index " + std::to_string(v) + " does not exist");
  WEFT_TRY_ASSIGN(const StreamSlots p, stream_slots(graph, schedule));
  const auto at = [&](NodeId v) {
    return std::pair(p.stream_of[static_cast<std::size_t>(v)], p.position[static_cast<std::size_t>(v)]);
  };
  std::sort(nodes.begin(), nodes.end(), [&](NodeId a, NodeId b) { return at(a) < at(b); });
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  if (nodes.size() == 1) return move_node(graph, schedule, nodes[0], stream, position);
  bool contiguous = true;
  for (std::size_t i = 1; i < nodes.size(); ++i)
    contiguous = contiguous && at(nodes[i]).first == at(nodes[0]).first &&
                 at(nodes[i]).second == at(nodes[0]).second + static_cast<int>(i);
  if (contiguous) return move_nodes(graph, schedule, nodes, stream, position);

  // The moved nodes end up as one block, in their current order: the first goes where
  // `position` points among the nodes that stay, each next one right after its predecessor.
  std::vector<bool> moving(graph.node_count(), false);
  for (NodeId n : nodes) moving[static_cast<std::size_t>(n)] = true;
  Schedule s = schedule;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (stream < 0 || static_cast<std::size_t>(stream) >= s.streams.size())
      return make_error(ErrorKind::InvalidInput, "there is no stream " + std::to_string(stream));
    std::vector<NodeId> target = s.streams[static_cast<std::size_t>(stream)];
    target.erase(std::remove(target.begin(), target.end(), nodes[i]), target.end());
    int to = static_cast<int>(target.size());
    if (i > 0) {
      to = static_cast<int>(std::find(target.begin(), target.end(), nodes[i - 1]) - target.begin()) + 1;
    } else {
      int fixed = 0;
      for (std::size_t k = 0; k < target.size(); ++k)
        if (!moving[static_cast<std::size_t>(target[k])] && fixed++ == position) {
          to = static_cast<int>(k);
          break;
        }
    }
    WEFT_TRY_ASSIGN(s, move_node(graph, s, nodes[i], stream, to));
  }
  return s;
}

Expected<Schedule> add_stream(const Graph& graph, const Schedule& schedule) {
  Schedule edited = schedule;
  edited.streams.emplace_back();
  return finish(graph, std::move(edited), "adding a stream");
}

Expected<Schedule> remove_stream(const Graph& graph, const Schedule& schedule, int stream) {
  WEFT_TRY(check_stream(schedule, stream, "removing a stream"));
  const auto& nodes = schedule.streams[static_cast<std::size_t>(stream)];
  if (!nodes.empty())
    return make_error(ErrorKind::InvalidInput, "removing stream " + std::to_string(stream) + " refused: it still holds " +
                                                   std::to_string(nodes.size()) + " nodes (first: " + graph.key(nodes.front()) +
                                                   "); move or merge them first");
  Schedule edited = schedule;
  edited.streams.erase(edited.streams.begin() + stream);
  return finish(graph, std::move(edited), "removing a stream");
}

Expected<Schedule> merge_streams(const Graph& graph, const Schedule& schedule, int a, int b) {
  WEFT_TRY(check_stream(schedule, a, "merging streams"));
  WEFT_TRY(check_stream(schedule, b, "merging streams"));
  if (a == b) return make_error(ErrorKind::InvalidInput, "merging streams: stream " + std::to_string(a) + " cannot merge with itself");
  // Interleave in a topological order of H: it already orders both streams, so no cycle appears.
  // Breadth first, so the two streams interleave instead of one following the other.
  WEFT_TRY_ASSIGN(const ExecutionOrder order,
                  ExecutionOrder::build_unclocked(graph, schedule, ExecutionOrder::Walk::BreadthFirst));
  Schedule edited = schedule;
  auto& merged = edited.streams[static_cast<std::size_t>(a)];
  merged.clear();
  for (NodeId v : order.order()) {
    const int s = order.stream_of(v);
    if (s == a || s == b) merged.push_back(v);
  }
  edited.streams.erase(edited.streams.begin() + b);
  return finish(graph, std::move(edited), "merging streams");
}

}  // namespace weft::core
