#pragma once
// Synchronisation of a schedule: minimal cross-stream events, validation, ideal makespan.
#include <span>
#include <vector>

#include "weft/core/cost_model.h"
#include "weft/core/graph.h"
#include "weft/core/schedule.h"

namespace weft::core {

/// Most streams a schedule may have (validation and the per-stream vector clocks behind it use
/// V × streams ints); the CLI's --streams has the same limit.
inline constexpr std::size_t kMaxScheduleStreams = 1024;

/// The cross-stream data dependencies still needed after transitive reduction of
/// (data edges ∪ stream order): the fewest events that enforce every data edge.
/// Returns {} when a node is misplaced. Precondition: data edges ∪ stream order is acyclic
/// (validate first); a cycle aborts (WEFT_CHECK).
/// O((V + E) · streams + Σ in-degree²) time, V · streams ints.
std::vector<Event> compute_events(const Graph& graph, const Schedule& schedule);

/// Valid iff every node is placed once, H = data edges ∪ stream order ∪ events is acyclic (else
/// the error says it would deadlock and names the cycle's nodes and streams) and every data
/// edge is enforced by stream order ∪ schedule.events. At most kMaxScheduleStreams streams.
/// O((V + E) · streams).
Status validate_schedule(const Graph& graph, const Schedule& schedule);

/// Ideal makespan: the longest cost-weighted path through H (no resource sharing, no overheads).
/// 0 for a schedule that does not validate. O(V + E).
double ideal_makespan_us(const Graph& graph, const Schedule& schedule, std::span<const double> node_time_us);

/// Host cost of the schedule's events (each: one record + one wait), µs.
double event_host_cost_us(const Schedule& schedule, const DeviceSpec& device);

}  // namespace weft::core
