// The memory report: one pipeline of liveness → bound → planners for the schedule and for the
// reference schedule, then the linear bounds and growth.
#include "weft/core/study/memory_report.h"

#include <optional>

#include "weft/core/base/beside.h"
#include "weft/core/memory/bounds.h"
#include "weft/core/onnx/dim_binding.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/memory/liveness.h"
#include "weft/core/memory/memory_growth.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/memory/plan_checker.h"
#include "weft/core/memory/plan_repair.h"

namespace weft::core {

Expected<MemoryPlan> study_plan(const Graph& graph, const Schedule& schedule, std::string_view planner,
                                const PlanOptions& options, std::int64_t lower_bound, std::vector<PlannerArena>* arenas,
                                bool verify) {
  if (!planner.empty()) WEFT_TRY(check_planner(planner));
  WEFT_TRY_ASSIGN(const ExecutionOrder order, ExecutionOrder::build(graph, schedule));
  return study_plan(graph, order, planner, options, lower_bound, arenas, verify);
}

Expected<MemoryPlan> study_plan(const Graph& graph, const ExecutionOrder& order, std::string_view planner,
                                const PlanOptions& options, std::int64_t lower_bound, std::vector<PlannerArena>* arenas,
                                bool verify) {
  if (!planner.empty()) WEFT_TRY(check_planner(planner));
  const Liveness live = compute_liveness(graph, order, options);
  if (order.stream_count() <= 1) {
    // One stream: the interval bound of this liveness is exact.
    lower_bound = interval_lower_bound(live.problem);
  } else if (lower_bound < 0) {
    lower_bound = concurrent_lower_bound(graph, order, options).bytes;
  }
  std::vector<MemoryPlan> plans;
  if (planner.empty()) {
    WEFT_TRY_ASSIGN(plans, plan_memory_all(graph, live, options, lower_bound));
  } else {
    WEFT_TRY_ASSIGN(MemoryPlan plan, plan_memory(graph, live, planner, options, lower_bound));
    plans.push_back(std::move(plan));
  }
  std::optional<MemoryPlan> best;
  // One independent liveness checks every planner's plan.
  std::optional<PlanChecker> checker;
  if (verify && !plans.empty()) checker.emplace(graph, order, plans.front().alignment, plans.front().outputs_in_arena);
  for (MemoryPlan& plan : plans) {
    const std::string name = plan.planner;
    if (checker)
      if (auto ok = checker->check(plan); !ok)
        return make_error(ErrorKind::Internal, "planner " + name + ": " + ok.error().message);
    if (arenas) arenas->push_back({name, plan.arena_bytes});
    if (!best || plan.arena_bytes < best->arena_bytes) best = std::move(plan);
  }
  WEFT_CHECK(best.has_value());
  return std::move(*best);
}

double MemoryReport::bound_ratio() const {
  return bound.bytes > 0 ? static_cast<double>(plan.arena_bytes) / static_cast<double>(bound.bytes) : 0.0;
}

double MemoryReport::price_of_concurrency() const {
  if (plan.arena_bytes <= 0 || reference_plan.arena_bytes <= 0) return 1.0;
  return static_cast<double>(plan.arena_bytes) / static_cast<double>(reference_plan.arena_bytes);
}

Status add_growth_over_time(const Graph& graph, MemoryReport& report,
                            const Timeline* timeline, const Timeline* reference_timeline) {
  // Only the series over time: the per-step series stay those of the schedule's linearisation.
  if (timeline) {
    WEFT_TRY_ASSIGN(MemoryGrowth timed, memory_growth_over_time(graph, report.plan, *timeline));
    report.growth.live_over_time = std::move(timed.live_over_time);
    report.growth.high_water_over_time = std::move(timed.high_water_over_time);
  }
  if (reference_timeline) {
    WEFT_TRY_ASSIGN(MemoryGrowth timed, memory_growth_over_time(graph, report.reference_plan, *reference_timeline));
    report.reference_growth.live_over_time = std::move(timed.live_over_time);
    report.reference_growth.high_water_over_time = std::move(timed.high_water_over_time);
  }
  return {};
}

namespace {

// The reference schedule's side of a report: its plan (unless given), the linear bounds, the
// no-reuse total and (with growth) its growth per step. It does not depend on the schedule, so
// on large models it is planned on a second thread beside the schedule's side.
struct ReferenceSide {
  MemoryPlan plan;
  std::int64_t linear_bound_bytes = 0, file_order_linear_bound_bytes = 0, no_reuse_bytes = 0;
  MemoryGrowth growth;
};

// Below this many nodes a thread costs more than the reference side it would take off this one.
constexpr std::size_t kBesideNodes = 1000;

const Error kCancelled{ErrorKind::Runtime, "cancelled"};

bool stopped(const MemoryReportOptions& options) { return options.cancelled && options.cancelled(); }

Expected<ReferenceSide> reference_side(const Graph& graph, const ExecutionOrder& reference_order,
                                       const MemoryReportOptions& options) {
  ReferenceSide side;
  if (stopped(options)) return kCancelled;
  if (options.reference_plan) {
    side.plan = *options.reference_plan;
  } else {
    WEFT_TRY_ASSIGN(side.plan, study_plan(graph, reference_order, options.planner, options.plan, -1, nullptr, options.verify));
  }
  if (stopped(options)) return kCancelled;
  const Schedule& reference = reference_order.schedule();
  side.linear_bound_bytes = reference.streams.empty() ? 0 : linear_lower_bound(graph, reference.streams[0], options.plan);
  side.file_order_linear_bound_bytes = linear_lower_bound(graph, graph.topo_order(), options.plan);
  side.no_reuse_bytes = plan_no_reuse(graph, options.plan.alignment, options.plan.outputs_in_arena).arena_bytes;
  if (options.growth) {
    if (stopped(options)) return kCancelled;
    WEFT_TRY_ASSIGN(side.growth, memory_growth(graph, reference_order, side.plan));
  }
  return side;
}

// The schedule's side (bound, plan, growth), then the reference's side from beside it.
Expected<MemoryReport> schedule_side(const Graph& graph, const ExecutionOrder& order, Beside<Expected<ReferenceSide>>& beside,
                                     const MemoryReportOptions& options) {
  MemoryReport r;
  r.options = options.plan;
  if (stopped(options)) return kCancelled;
  r.bound = concurrent_lower_bound(graph, order, options.plan);
  if (stopped(options)) return kCancelled;
  WEFT_TRY_ASSIGN(r.plan, study_plan(graph, order, options.planner, options.plan, r.bound.bytes, &r.planners,
                                     options.verify));
  for (std::int64_t o : r.plan.offset) r.planned_tensors += o != kNotPlanned ? 1 : 0;
  if (options.growth) {
    if (stopped(options)) return kCancelled;
    WEFT_TRY_ASSIGN(r.growth, memory_growth(graph, order, r.plan));
  }
  WEFT_TRY_ASSIGN(ReferenceSide side, beside.get());
  r.reference_plan = std::move(side.plan);
  r.linear_bound_bytes = side.linear_bound_bytes;
  r.file_order_linear_bound_bytes = side.file_order_linear_bound_bytes;
  r.no_reuse_bytes = side.no_reuse_bytes;
  if (options.growth) {
    r.reference_growth = std::move(side.growth);
    WEFT_TRY(add_growth_over_time(graph, r, options.timeline, options.reference_timeline));
  }
  return r;
}

bool beside_worthwhile(const Graph& graph, const MemoryReportOptions& options) {
  return options.parallel && graph.node_count() >= kBesideNodes;
}

}  // namespace

Expected<MemoryReport> memory_report(const Graph& graph, const Schedule& schedule, const MemoryReportOptions& options) {
  // Symbolic input dimensions leave tensor sizes unknown: a plan of them would hold nothing.
  WEFT_TRY(require_bound_dims(graph, "the memory plan"));
  if (options.plan.alignment <= 0)
    return make_error(ErrorKind::InvalidInput, "alignment must be positive, got " + std::to_string(options.plan.alignment));
  // Each schedule's execution order once, for its bound, liveness, plans and growth; the
  // reference schedule (a memory-aware order of the graph) is made beside this one's side.
  WEFT_TRY_ASSIGN(const ExecutionOrder order, ExecutionOrder::build(graph, schedule));
  Beside<Expected<ReferenceSide>> beside(
      [&]() -> Expected<ReferenceSide> {
        std::optional<Schedule> own_reference;
        const Schedule& reference = options.reference ? *options.reference : own_reference.emplace(reference_schedule(graph));
        WEFT_TRY_ASSIGN(const ExecutionOrder reference_order, ExecutionOrder::build(graph, reference));
        return reference_side(graph, reference_order, options);
      },
      beside_worthwhile(graph, options));
  return schedule_side(graph, order, beside, options);
}

Expected<MemoryReport> memory_report(const Graph& graph, const ExecutionOrder& order, const ExecutionOrder& reference_order,
                                     const MemoryReportOptions& options) {
  // Symbolic input dimensions leave tensor sizes unknown: a plan of them would hold nothing.
  WEFT_TRY(require_bound_dims(graph, "the memory plan"));
  if (options.plan.alignment <= 0)
    return make_error(ErrorKind::InvalidInput, "alignment must be positive, got " + std::to_string(options.plan.alignment));
  Beside<Expected<ReferenceSide>> beside([&] { return reference_side(graph, reference_order, options); },
                                         beside_worthwhile(graph, options));
  return schedule_side(graph, order, beside, options);
}

Expected<std::optional<MemoryReport>> repaired_memory_report(const Graph& graph, const ExecutionOrder& order,
                                                             const MemoryReport& previous, const MemoryReportOptions& options,
                                                             std::size_t max_moved) {
  if (previous.options.alignment != options.plan.alignment || previous.options.outputs_in_arena != options.plan.outputs_in_arena)
    return make_error(ErrorKind::InvalidInput, "the earlier memory report was planned with other options (alignment " +
                                                   std::to_string(previous.options.alignment) + ", outputs " +
                                                   (previous.options.outputs_in_arena ? "in" : "out of") + " the arena)");
  WEFT_TRY_ASSIGN(PlanRepair repair, repair_plan(graph, order, previous.plan, max_moved));
  if (!repair.complete) return std::optional<MemoryReport>{};
  std::optional<MemoryReport> out;
  MemoryReport& r = out.emplace();
  r.options = previous.options;
  r.repaired = true;
  r.repair_moved = repair.moved;
  r.plan = std::move(repair.plan);
  r.planners = {{r.plan.planner, r.plan.arena_bytes}};
  for (std::int64_t o : r.plan.offset) r.planned_tensors += o != kNotPlanned ? 1 : 0;
  r.bound = concurrent_lower_bound(graph, order, previous.options);
  // The graph's alone: the reference schedule, its plan and the linear bounds do not change.
  r.reference_plan = previous.reference_plan;
  r.linear_bound_bytes = previous.linear_bound_bytes;
  r.file_order_linear_bound_bytes = previous.file_order_linear_bound_bytes;
  r.no_reuse_bytes = previous.no_reuse_bytes;
  if (options.growth) {
    WEFT_TRY_ASSIGN(r.growth, memory_growth(graph, order, r.plan));
    // The reference's steps are the graph's; its series over time follow the timeline given now.
    r.reference_growth = previous.reference_growth;
    r.reference_growth.live_over_time.clear();
    r.reference_growth.high_water_over_time.clear();
    WEFT_TRY(add_growth_over_time(graph, r, options.timeline, options.reference_timeline));
  }
  return out;
}

}  // namespace weft::core
