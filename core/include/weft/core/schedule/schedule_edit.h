#pragma once
// Edits of a schedule (used by the studio and the CLI). Each returns a new valid schedule with
// recomputed minimal events, or an error that says why the edit is refused.
#include <span>
#include <vector>

#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"

namespace weft::core {

/// Moves node n to stream `stream` at `position` (index in the target stream after removal).
Expected<Schedule> move_node(const Graph& graph, const Schedule& schedule, NodeId n, int stream, int position);
/// Moves a contiguous run of nodes of one stream, keeping their order.
Expected<Schedule> move_nodes(const Graph& graph, const Schedule& schedule, std::span<const NodeId> nodes, int stream,
                              int position);
/// Moves any set of nodes (from any streams) to `stream` as one block, in their current order
/// (by stream, then position); `position` counts the target stream's nodes that are not moved.
/// One node is move_node, a contiguous run of one stream move_nodes; anything else a chain of
/// move_node steps that must all succeed (the first refusal is returned). Duplicates are ignored.
Expected<Schedule> move_selection(const Graph& graph, const Schedule& schedule, std::vector<NodeId> nodes, int stream,
                                  int position);
/// Appends an empty stream.
Expected<Schedule> add_stream(const Graph& graph, const Schedule& schedule);
/// Removes an empty stream (refused when it still holds nodes).
Expected<Schedule> remove_stream(const Graph& graph, const Schedule& schedule, int stream);
/// Merges stream b into stream a (interleaved in a topological order of H); b disappears.
Expected<Schedule> merge_streams(const Graph& graph, const Schedule& schedule, int a, int b);

}  // namespace weft::core
