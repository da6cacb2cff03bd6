#pragma once
// Schedules (streams × order), cross-stream events and where each node sits. Happens-before is
// built once, by ExecutionOrder (execution_order.h).
#include <cstdint>
#include <string>
#include <vector>

#include "weft/core/graph/graph.h"

namespace weft::core {

/// A cross-stream wait: record after `from` on its stream, wait before `to` on its stream.
struct Event {
  NodeId from = kNoNode;
  NodeId to = kNoNode;
  friend bool operator==(const Event&, const Event&) = default;
};

/// Every operator on exactly one stream, in an order. `events` is the synchronisation the
/// schedule carries (normally compute_events()'s minimal set).
struct Schedule {
  std::vector<std::vector<NodeId>> streams;
  std::vector<Event> events;
  std::string strategy;   ///< name of the strategy that made it ("hand" after edits)
  std::string options;    ///< the strategy's options, as text (e.g. "streams=8 granularity_us=6")
  /// CPU: the threads of each stream's library team the schedule was made for (a strategy that
  /// weighs intra-operator parallelism chose it); its streams times this fit the cores. 1 for
  /// every GPU schedule.
  int threads_per_stream = 1;
  /// CPU: per node (by NodeId), the threads of the library team that runs it, where a node's
  /// team differs from its stream's (hybrid parallelism: a node nothing can run beside gets
  /// every core, see node_teams.h). Empty: every node on threads_per_stream.
  std::vector<std::int32_t> node_threads{};

  std::size_t stream_count() const { return streams.size(); }
  /// The threads of node v's library team: node_threads[v] where set, else threads_per_stream. O(1).
  int team_of(NodeId v) const {
    const auto i = static_cast<std::size_t>(v);
    return i < node_threads.size() && node_threads[i] > 0 ? node_threads[i] : threads_per_stream;
  }
  /// Some node runs on a team other than threads_per_stream. O(V).
  bool has_node_teams() const;
};

/// Stream and position of every node, by NodeId (not to be confused with core::Placement, the
/// memory planner's offsets).
struct StreamSlots {
  std::vector<int> stream_of;
  std::vector<int> position;
};

/// Where each node of `graph` sits in `schedule`: the one placement pass (ExecutionOrder builds on
/// it; edits and views that need only the slots call it). Errors (InvalidInput, naming the node
/// or stream): more than kMaxScheduleStreams (sync.h) streams, a stream naming a node the model does not
/// have, a node placed twice or on no stream. O(V).
Expected<StreamSlots> stream_slots(const Graph& graph, const Schedule& schedule);

}  // namespace weft::core
