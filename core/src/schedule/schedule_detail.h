#pragma once
// Internals shared by the schedule passes (sync, strategies, edits, JSON): placement checks,
// the happens-before edge lists, a deadlock-naming topological sort and per-stream vector clocks.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "weft/core/graph.h"
#include "weft/core/schedule.h"

namespace weft::core::detail {

/// Stream and position of every node (not to be confused with core::Placement, the memory
/// planner's offsets).
struct StreamSlots {
  std::vector<int> stream_of;
  std::vector<int> position;
};

/// Checks that every node is placed exactly once (input errors, not invariants: a loaded or
/// edited schedule may be wrong). O(V).
Expected<StreamSlots> place(const Graph& graph, const Schedule& schedule);

/// How an edge of H came to be, for deadlock messages.
enum class EdgeKind : std::uint8_t { Data, Stream, Event };

/// Predecessors in H of each node, with the edge's origin (duplicates allowed), as CSR: one
/// allocation, not one per node (this sits on every strategy's and every edit's path).
struct HEdges {
  using Item = std::pair<NodeId, EdgeKind>;
  std::vector<std::uint32_t> begin;  ///< node_count + 1 offsets into items
  std::vector<Item> items;
  std::size_t size() const { return begin.empty() ? 0 : begin.size() - 1; }
  std::span<const Item> pred(NodeId v) const {
    const auto i = static_cast<std::size_t>(v);
    return {items.data() + begin[i], items.data() + begin[i + 1]};
  }
};

/// Edge lists of data edges (optional) ∪ stream order ∪ events (optional). O(V + E).
HEdges h_edges(const Graph& graph, const Schedule& schedule, bool data, bool events);

/// A topological order of the edges; on a cycle, an InvalidInput error "would deadlock: A on
/// stream 1 waits for B on stream 2, which runs after C on stream 2, which waits for A". O(V + E).
Expected<std::vector<NodeId>> h_order(const Graph& graph, const HEdges& edges, const StreamSlots& placement);

/// The one deadlock message: a cycle of `edges` among the nodes a topological sort left
/// (left[v] != 0), "would deadlock: A on stream 1 waits for B on stream 2, which runs after C on
/// stream 2, which waits for A". Predecessors are tried in `edges` order (data, stream, events).
/// O(V + E).
Error deadlock_error(const Graph& graph, const HEdges& edges, std::span<const std::uint32_t> left, const StreamSlots& placement);

/// Per-stream vector clocks over a DAG given by `edges` in topological order `order`:
/// clock(v)[s] is the highest position on stream s that happens-before-or-is v (-1: none).
/// Because each stream is totally ordered, u ≤ v iff clock(v)[stream(u)] ≥ position(u).
/// O((V + E) · S) time, V · S ints.
class VectorClocks {
 public:
  VectorClocks(const HEdges& edges, const std::vector<NodeId>& order, const StreamSlots& placement, std::size_t streams);
  const int* clock(NodeId v) const { return &m_clock[static_cast<std::size_t>(v) * m_streams]; }
  /// u happens before or is v.
  bool reaches(NodeId u, NodeId v, const StreamSlots& p) const {
    const auto su = static_cast<std::size_t>(p.stream_of[static_cast<std::size_t>(u)]);
    return clock(v)[su] >= p.position[static_cast<std::size_t>(u)];
  }

 private:
  std::size_t m_streams;
  std::vector<int> m_clock;
};

/// Text for people: "'conv_3' on stream 1".
std::string where(const Graph& graph, NodeId n, const StreamSlots& placement);

}  // namespace weft::core::detail
