#pragma once
// The execution order of a schedule, built once (by validation) and read by every pass after it:
// where each node runs (stream, index: stream_slots), the events it waits for and records, the generating
// edges of happens-before H (data edges ∪ stream order ∪ events), one topological order of H and
// per-stream vector clocks that answer "a happens before b" in O(1). validate_schedule (and so the
// run checks of both executors), sync's minimal events, the schedule edits, liveness, the memory
// bound and growth, the simulator and the wire layering read it instead of rebuilding H; it is the
// one place H is built, and a deadlock reads the same wherever it is met.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"

namespace weft::core {

class ExecutionOrder {
 public:
  /// How the topological order picks among ready nodes.
  enum class Walk : std::uint8_t {
    /// The successors of the node just taken come next (a stack; the lowest id first among the
    /// initially ready), so a one-stream schedule's order is its stream and streams stay
    /// contiguous where they can. What the simulator, the executors and the memory passes walk.
    DepthFirst,
    /// Kahn's first-in first-out order: the sources by id, then each node as its last
    /// predecessor is taken, so nodes come by longest-path depth and streams interleave. The
    /// order compute_events lists its events in (schedule files and strategies keep it) and
    /// merge_streams interleaves two streams in.
    BreadthFirst,
    /// The ready node with the lowest id first (a heap): the priority order the search strategy
    /// starts its candidates from. O(V log V) more.
    LowestIdFirst,
  };

  /// H = data edges ∪ stream order ∪ events, checked and indexed. Errors (InvalidInput): more
  /// than kMaxScheduleStreams streams, a node placed twice, unknown or on no stream, an event
  /// naming an unknown node, or a cycle in H, which is the one deadlock message: "would deadlock:
  /// A on stream 1 waits for B on stream 2, which runs after C on stream 2, which waits for A".
  /// Data edges are part of H, so a schedule without its events builds (the memory passes accept
  /// one); enforced() says whether stream order ∪ events alone cover every data edge.
  /// O((V + E)·S) time, V·S ints for the clocks (S streams); no closure.
  static Expected<ExecutionOrder> build(const Graph& graph, const Schedule& schedule, Walk walk = Walk::DepthFirst);
  /// build(), refused unless enforced(): the error names a data edge that neither stream order
  /// nor an event enforces. A schedule that passes runs as written on a device.
  static Expected<ExecutionOrder> validate(const Graph& graph, const Schedule& schedule);
  /// The order of D = data edges ∪ stream order alone (the schedule's events ignored, not even
  /// checked): what compute_events reduces to the minimal events. Errors as build().
  static Expected<ExecutionOrder> build_without_events(const Graph& graph, const Schedule& schedule,
                                                       Walk walk = Walk::DepthFirst);
  /// build() without the vector clocks: placement, events, H's successors and the topological
  /// order (a deadlock refused in the same words), for passes that only walk H, such as the
  /// simulator, which runs once per search step. clock(), before() and enforced() abort
  /// on it. O(V + E) time, no V·S clocks.
  static Expected<ExecutionOrder> build_unclocked(const Graph& graph, const Schedule& schedule,
                                                  Walk walk = Walk::DepthFirst);

  /// The schedule this order was built from (its events included even by build_without_events).
  const Schedule& schedule() const { return m_schedule; }
  std::size_t node_count() const { return m_stream.size(); }
  std::size_t stream_count() const { return m_schedule.streams.size(); }
  const std::vector<NodeId>& stream(std::size_t s) const { return m_schedule.streams[s]; }
  std::int32_t stream_of(NodeId v) const { return m_stream[idx(v)]; }
  /// Position of v on its stream.
  std::int32_t index(NodeId v) const { return m_index[idx(v)]; }
  /// The node after v on its stream, or kNoNode.
  NodeId next_on_stream(NodeId v) const {
    const auto& st = stream(static_cast<std::size_t>(stream_of(v)));
    const auto k = static_cast<std::size_t>(index(v)) + 1;
    return k < st.size() ? st[k] : kNoNode;
  }
  /// Indices into schedule().events of the events v waits for (before it runs) and records
  /// (after it runs), in event order.
  std::span<const std::uint32_t> waits(NodeId v) const { return span_of(m_wait_begin, m_waits, v); }
  std::span<const std::uint32_t> records(NodeId v) const { return span_of(m_record_begin, m_records, v); }
  /// v's successors by H's generating edges (data, stream order, events), sorted, no duplicates.
  std::span<const NodeId> successors(NodeId v) const { return span_of(m_succ_begin, m_succ, v); }
  /// A topological order of H, as walk() picks it (depth first unless asked otherwise).
  const std::vector<NodeId>& order() const { return m_order; }
  /// True when stream order ∪ events enforce every data edge (validate() requires it).
  bool enforced() const {
    require_clocks();
    return m_enforced;
  }
  /// False for build_unclocked().
  bool has_clocks() const { return m_clocked; }
  /// False for build_without_events(): H is then D, waits() and records() are empty.
  bool includes_events() const { return m_with_events; }
  Walk walk() const { return m_walk; }

  /// clock(v)[s]: the highest index on stream s of a node that happens before v or is v (-1:
  /// none). Clocks grow along each stream.
  std::span<const std::int32_t> clock(NodeId v) const {
    require_clocks();
    return {m_clock.data() + idx(v) * stream_count(), stream_count()};
  }
  /// a happens strictly before b on every interleaving. O(1).
  bool before(NodeId a, NodeId b) const { return a != b && clock(b)[static_cast<std::size_t>(stream_of(a))] >= index(a); }

  /// Text for people: "conv_3 on stream 1".
  std::string where(const Graph& graph, NodeId v) const;

 private:
  static std::size_t idx(NodeId v) { return static_cast<std::size_t>(v); }
  template <class T>
  static std::span<const T> span_of(const std::vector<std::uint32_t>& begin, const std::vector<T>& items, NodeId v) {
    return {items.data() + begin[idx(v)], items.data() + begin[idx(v) + 1]};
  }
  static Expected<ExecutionOrder> make(const Graph& graph, const Schedule& schedule, bool with_events, bool clocks,
                                       Walk walk);
  void require_clocks() const;

  Schedule m_schedule;
  std::vector<std::int32_t> m_stream, m_index;
  std::vector<std::uint32_t> m_wait_begin, m_record_begin, m_succ_begin;
  std::vector<std::uint32_t> m_waits, m_records;
  std::vector<NodeId> m_succ;
  std::vector<NodeId> m_order;
  std::vector<std::int32_t> m_clock;
  /// The first data edge (u, v) stream order ∪ events leave unordered, in order() and then
  /// predecessor order (validate()'s message), or kNoNode twice.
  NodeId m_unenforced_from = kNoNode, m_unenforced_to = kNoNode;
  bool m_enforced = false;
  bool m_clocked = false;
  bool m_with_events = true;
  Walk m_walk = Walk::DepthFirst;
};

/// The reverse of the vector clocks: for every node v and stream s, the index on s of the first
/// node that v happens strictly before (the stream's length when none). Nodes after it on s are
/// after v too, so the first node of s strictly after a set of nodes is the largest of their
/// entries: the dead-from frontiers of the memory passes. One pass over H's generating edges in
/// reverse topological order; any build of the order will do (no clocks are read).
/// O((V + E)·S) time, V·S ints.
class FirstAfter {
 public:
  explicit FirstAfter(const ExecutionOrder& order);
  std::size_t stream_count() const { return m_streams; }
  /// Per stream, the first index after v.
  std::span<const std::int32_t> of(NodeId v) const {
    return {m_first.data() + static_cast<std::size_t>(v) * m_streams, m_streams};
  }
  /// Per stream, the first index whose node happens strictly after every node of `nodes` (not
  /// empty), into `out` (resized to the stream count). O(|nodes|·S).
  void after_all(std::span<const NodeId> nodes, std::vector<std::int32_t>& out) const;

 private:
  std::size_t m_streams;
  std::vector<std::int32_t> m_first;
};

}  // namespace weft::core
