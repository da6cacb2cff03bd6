#pragma once
// Synchronisation of a schedule: minimal cross-stream events, validation, ideal makespan.
#include <span>
#include <vector>

#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"

namespace weft::core {

class ExecutionOrder;

/// Most streams a schedule may have (validation and the per-stream vector clocks behind it use
/// V × streams ints); the CLI's --streams has the same limit.
inline constexpr std::size_t kMaxScheduleStreams = 1024;

/// The cross-stream data dependencies still needed after transitive reduction of
/// D = data edges ∪ stream order: the fewest events that enforce every data edge, listed by
/// their waiting node in the breadth-first order of D (ExecutionOrder::Walk::BreadthFirst), then
/// in the order of its predecessors. The schedule's own events are ignored. Returns {} when the
/// schedule misplaces a node or D has a cycle (validate_schedule names either).
/// O((V + E) · streams + Σ in-degree²) time, V · streams ints.
std::vector<Event> compute_events(const Graph& graph, const Schedule& schedule);

/// The same from D's execution order (ExecutionOrder::build_without_events; the events are listed
/// in its order(), so build it breadth first for the listing above), for callers that built it
/// to check D first, such as the schedule edits. An order with events aborts (WEFT_CHECK).
/// O(V + Σ in-degree²) on top of the order.
std::vector<Event> compute_events(const Graph& graph, const ExecutionOrder& without_events);

/// Valid iff every node is placed once, H = data edges ∪ stream order ∪ events is acyclic (else
/// the error says it would deadlock and names the cycle's nodes and streams) and every data
/// edge is enforced by stream order ∪ schedule.events. At most kMaxScheduleStreams streams.
/// O((V + E) · streams).
Status validate_schedule(const Graph& graph, const Schedule& schedule);

/// Ideal makespan: the longest cost-weighted path through H (no resource sharing, no overheads).
/// 0 for a schedule that does not validate. O(V + E).
double ideal_makespan_us(const Graph& graph, const Schedule& schedule, std::span<const double> node_time_us);

/// The same over an execution order already built (any build; H is its successors). O(V + E).
double ideal_makespan_us(const ExecutionOrder& order, std::span<const double> node_time_us);

/// Host cost of the schedule's events (each: one record + one wait), µs.
double event_host_cost_us(const Schedule& schedule, const DeviceSpec& device);

}  // namespace weft::core
