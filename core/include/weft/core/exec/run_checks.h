#pragma once
// What every executor does around its run: the checks before (returning the schedule's
// checked execution order) and the measured timeline after.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/schedule/execution_order.h"
#include "weft/core/exec/executor.h"
#include "weft/core/graph/graph.h"
#include "weft/core/memory/memory_plan.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/schedule/timeline.h"

namespace weft::core {

/// What every executor checks before running: the schedule places each node once, stream order
/// ∪ events is acyclic and enforces every data edge, the plan fits the graph, and (when
/// options.check_plan) check_plan accepts it for this schedule. InvalidInput errors. Returns the
/// schedule's checked execution order, which the executor then reads (each node's stream, the
/// events it waits for and records, a topological order) rather than rebuilding it.
/// O((V + E)·S) without check_plan.
Expected<ExecutionOrder> check_run(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan,
                                   const RunOptions& options);

/// After the timed iterations (result.iteration_ms, and per iteration its node items in
/// item_runs, possibly empty): the median iteration gives result.wall_ms and the measured
/// timeline (kind Measured, backend `backend`, the schedule's strategy, run_label's "measured
/// <backend> <strategy>", `device`, the schedule's streams and events, a flat arena counter of
/// `arena_bytes`); result.arena_bytes is set, and result.node_median_us from every iteration's items.
void finish_measured_run(RunResult& result, std::vector<std::vector<TimelineItem>> item_runs, const Schedule& schedule,
                         std::int64_t arena_bytes, std::string_view backend, std::string device);

/// One result from the rounds a run was split into (compare_runs alternates two schedules'
/// rounds): every round's iterations in run order, the median over all of them as wall_ms (as
/// finish_measured_run picks it), the timeline of the round whose own median is nearest it,
/// per node the median of the rounds' node medians; outputs, arena and seeded weights from the
/// last round. One round is returned as it is. `rounds` is not empty.
RunResult combine_rounds(std::vector<RunResult> rounds);

}  // namespace weft::core
