#pragma once
// The execution order of a schedule, built once (by validation) and read by every pass after it:
// where each node runs (stream, index), the events it waits for and records, the generating
// edges of happens-before H (data edges ∪ stream order ∪ events), one topological order of H and
// per-stream vector clocks that answer "a happens before b" in O(1). validate_schedule (and so the
// run checks of both executors), liveness, the memory bound and growth read it instead of
// rebuilding H; every pass names a deadlock in the same words (schedule_detail's deadlock_error).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "weft/core/graph.h"
#include "weft/core/schedule.h"

namespace weft::core {

class ExecutionOrder {
 public:
  /// H = data edges ∪ stream order ∪ events, checked and indexed. Errors (InvalidInput): more
  /// than kMaxScheduleStreams streams, a node placed twice, unknown or on no stream, an event
  /// naming an unknown node, or a cycle in H, which is the one deadlock message: "would deadlock:
  /// A on stream 1 waits for B on stream 2, which runs after C on stream 2, which waits for A".
  /// Data edges are part of H, so a schedule without its events builds (the memory passes accept
  /// one); enforced() says whether stream order ∪ events alone cover every data edge.
  /// O((V + E)·S) time, V·S ints for the clocks (S streams); no closure.
  static Expected<ExecutionOrder> build(const Graph& graph, const Schedule& schedule);
  /// build(), refused unless enforced(): the error names a data edge that neither stream order
  /// nor an event enforces. A schedule that passes runs as written on a device.
  static Expected<ExecutionOrder> validate(const Graph& graph, const Schedule& schedule);
  /// The order of data edges ∪ stream order alone (the schedule's events ignored): what
  /// compute_events reduces to the minimal events. Errors as build().
  static Expected<ExecutionOrder> build_without_events(const Graph& graph, const Schedule& schedule);
  /// build() without the vector clocks: placement, events, H's successors and the topological
  /// order (a deadlock refused in the same words), for passes that only walk H, such as the
  /// simulator, which runs once per search step. clock(), before(), first_reaching() and
  /// enforced() abort on it. O(V + E log E) time, no V·S clocks.
  static Expected<ExecutionOrder> build_unclocked(const Graph& graph, const Schedule& schedule);

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
  /// A topological order of H. A ready node's successors are taken next (depth first, the
  /// lowest id first among the initially ready), so a one-stream schedule's order is its stream.
  const std::vector<NodeId>& order() const { return m_order; }
  /// True when stream order ∪ events enforce every data edge (validate() requires it).
  bool enforced() const {
    require_clocks();
    return m_enforced;
  }
  /// False for build_unclocked().
  bool has_clocks() const { return m_clocked; }

  /// clock(v)[s]: the highest index on stream s of a node that happens before v or is v (-1:
  /// none). Clocks grow along each stream.
  std::span<const std::int32_t> clock(NodeId v) const {
    require_clocks();
    return {m_clock.data() + idx(v) * stream_count(), stream_count()};
  }
  /// a happens strictly before b on every interleaving. O(1).
  bool before(NodeId a, NodeId b) const { return a != b && clock(b)[static_cast<std::size_t>(stream_of(a))] >= index(a); }
  /// The first index i on stream s whose node x has clock(x) >= need componentwise (need[k] < 0:
  /// no constraint), or the stream's length. A binary search along the stream: O(S log V).
  std::int32_t first_reaching(std::size_t s, std::span<const std::int32_t> need) const;

  /// Text for people: "conv_3 on stream 1".
  std::string where(const Graph& graph, NodeId v) const;

 private:
  static std::size_t idx(NodeId v) { return static_cast<std::size_t>(v); }
  template <class T>
  static std::span<const T> span_of(const std::vector<std::uint32_t>& begin, const std::vector<T>& items, NodeId v) {
    return {items.data() + begin[idx(v)], items.data() + begin[idx(v) + 1]};
  }
  static Expected<ExecutionOrder> make(const Graph& graph, const Schedule& schedule, bool with_events, bool clocks);
  void require_clocks() const;

  Schedule m_schedule;
  std::vector<std::int32_t> m_stream, m_index;
  std::vector<std::uint32_t> m_wait_begin, m_record_begin, m_succ_begin;
  std::vector<std::uint32_t> m_waits, m_records;
  std::vector<NodeId> m_succ;
  std::vector<NodeId> m_order;
  std::vector<std::int32_t> m_clock;
  bool m_enforced = false;
  bool m_clocked = false;
};

}  // namespace weft::core
