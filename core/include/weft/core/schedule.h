#pragma once
// Schedules (streams × order), their happens-before relation and cross-stream events.
#include <cstdint>
#include <string>
#include <vector>

#include "weft/core/bitset.h"
#include "weft/core/graph.h"

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

  std::size_t stream_count() const { return streams.size(); }
  /// stream_of[n] and position[n] for every node; asserts every node is placed once.
  void locate(std::size_t node_count, std::vector<int>& stream_of, std::vector<int>& position) const;
};

/// Happens-before H = data edges ∪ stream order ∪ events, as a closure of bitsets.
/// Build is O(V·(V+E)/64) time and V²/8 bytes: fine to ~20k nodes.
class HappensBefore {
 public:
  /// Builds H. Fails (InvalidInput) when H has a cycle: the schedule would deadlock; the
  /// message names the nodes and streams on the cycle.
  static Expected<HappensBefore> build(const Graph& graph, const Schedule& schedule, bool include_data_edges = true);

  /// True when a happens strictly before b on every interleaving.
  bool before(NodeId a, NodeId b) const { return m_reach[static_cast<std::size_t>(a)].test(static_cast<std::size_t>(b)); }
  bool ordered(NodeId a, NodeId b) const { return before(a, b) || before(b, a); }
  /// A topological order of H.
  const std::vector<NodeId>& order() const { return m_order; }
  std::size_t size() const { return m_reach.size(); }
  const Bitset& successors_closure(NodeId a) const { return m_reach[static_cast<std::size_t>(a)]; }

 private:
  std::vector<Bitset> m_reach;
  std::vector<NodeId> m_order;
};

}  // namespace weft::core
