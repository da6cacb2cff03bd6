// The plan checker: every planned tensor placed and aligned, no two conflicting blocks overlap.
#include "weft/core/memory/plan_checker.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "allocation_detail.h"
#include "weft/core/memory/allocation_problem.h"
#include "weft/core/memory/liveness.h"

namespace weft::core {

Status check_placement(const AllocationProblem& problem, const Placement& placement) {
  const std::size_t n = problem.block_count();
  if (placement.offset.size() != n)
    return make_error(ErrorKind::Internal, "placement has " + std::to_string(placement.offset.size()) + " offsets for " +
                                               std::to_string(n) + " blocks");
  for (std::size_t b = 0; b < n; ++b) {
    const std::int64_t off = placement.offset[b];
    if (off < 0) return make_error(ErrorKind::Internal, "block " + std::to_string(b) + " is not placed");
    if (off % problem.alignment != 0)
      return make_error(ErrorKind::Internal, "block " + std::to_string(b) + " at offset " + std::to_string(off) +
                                                 " is not aligned to " + std::to_string(problem.alignment));
    if (off + problem.size[b] > placement.arena_bytes)
      return make_error(ErrorKind::Internal, "block " + std::to_string(b) + " ends past the arena");
    if (problem.conflicts_omitted()) continue;  // checked below by overlapping ranges
    for (std::int32_t c : problem.conflicts[b]) {
      const auto uc = static_cast<std::size_t>(c);
      if (uc <= b) continue;
      const std::int64_t oc = placement.offset[uc];
      if (oc < 0) continue;  // reported when c is visited
      if (off < oc + problem.size[uc] && oc < off + problem.size[b])
        return make_error(ErrorKind::Internal, "blocks " + std::to_string(b) + " and " + std::to_string(c) +
                                                   " conflict but overlap in the arena");
    }
  }
  if (problem.conflicts_omitted()) {
    // The exact conflicts where the frontiers give them (a stream sweep's plan reuses bytes the
    // ranges alone would keep apart), else every overlap of the ranges.
    const std::string clash = problem.frontiers.empty() ? detail::check_interval_placement(problem, placement)
                                                        : detail::check_stream_placement(problem, placement);
    if (!clash.empty()) return make_error(ErrorKind::Internal, clash);
  }
  return {};
}

Status check_plan(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan) {
  WEFT_TRY_ASSIGN(const ExecutionOrder order, ExecutionOrder::build(graph, schedule));
  return check_plan(graph, order, plan);
}

Status check_plan(const Graph& graph, const ExecutionOrder& order, const MemoryPlan& plan, std::int64_t max_conflict_pairs) {
  if (plan.alignment <= 0 || plan.alignment > kMaxAlignment)
    return make_error(ErrorKind::InvalidInput, "plan alignment must be from 1 to " + std::to_string(kMaxAlignment));
  return PlanChecker(graph, order, plan.alignment, plan.outputs_in_arena, max_conflict_pairs).check(plan);
}

PlanChecker::PlanChecker(const Graph& graph, const ExecutionOrder& order, std::int64_t alignment, bool outputs_in_arena,
                         std::int64_t max_conflict_pairs)
    : m_graph(graph), m_order(order), m_max_conflict_pairs(max_conflict_pairs), m_outputs_in_arena(outputs_in_arena) {
  if (alignment <= 0 || alignment > kMaxAlignment) return;  // check() refuses every plan of it
  PlanOptions options;
  options.alignment = alignment;
  options.outputs_in_arena = outputs_in_arena;
  options.max_conflict_pairs = max_conflict_pairs;
  // A liveness of its own, not the planner's: the check stays independent of what was planned.
  m_live = compute_liveness(graph, order, options);
}

Status PlanChecker::check(const MemoryPlan& plan) const {
  const Graph& graph = m_graph;
  const ExecutionOrder& order = m_order;
  if (plan.offset.size() != graph.tensor_count() || plan.size.size() != graph.tensor_count())
    return make_error(ErrorKind::InvalidInput, "plan covers " + std::to_string(plan.offset.size()) + " tensors, the model has " +
                                                   std::to_string(graph.tensor_count()));
  if (plan.alignment <= 0 || plan.alignment > kMaxAlignment)
    return make_error(ErrorKind::InvalidInput, "plan alignment must be from 1 to " + std::to_string(kMaxAlignment));
  if (plan.arena_bytes < 0 || plan.arena_bytes > kMaxArenaBytes)
    return make_error(ErrorKind::InvalidInput, "plan arena of " + std::to_string(plan.arena_bytes) + " bytes is outside 0 to 2^50");
  // A plan of other settings than this checker's liveness gets one of its own.
  if (plan.alignment != m_live.problem.alignment || plan.outputs_in_arena != m_outputs_in_arena)
    return check_plan(graph, order, plan, m_max_conflict_pairs);
  const Liveness& live = m_live;
  const auto name = [&](TensorId t) { return "'" + graph.tensor(t).name + "'"; };
  for (std::size_t b = 0; b < live.tensors.size(); ++b) {
    const TensorId t = live.tensors[b];
    const auto ut = static_cast<std::size_t>(t);
    if (plan.offset[ut] < 0) return make_error(ErrorKind::InvalidInput, "tensor " + name(t) + " is not placed");
    if (plan.offset[ut] % plan.alignment != 0)
      return make_error(ErrorKind::InvalidInput, "tensor " + name(t) + " at offset " + std::to_string(plan.offset[ut]) +
                                                     " is not aligned to " + std::to_string(plan.alignment));
    if (plan.size[ut] < live.problem.size[b])
      return make_error(ErrorKind::InvalidInput, "tensor " + name(t) + " is given " + std::to_string(plan.size[ut]) +
                                                     " bytes, it needs " + std::to_string(live.problem.size[b]));
    if (plan.offset[ut] > plan.arena_bytes - plan.size[ut])  // sizes are at least the tensor's, so positive
      return make_error(ErrorKind::InvalidInput, "tensor " + name(t) + " ends past the arena (" +
                                                     std::to_string(plan.arena_bytes) + " bytes)");
  }
  // Views lie where their parent's bytes are (outside the arena when the parent is).
  for (std::size_t i = 0; i < graph.tensor_count(); ++i) {
    const Tensor& v = graph.tensor(static_cast<TensorId>(i));
    if (!v.is_view()) continue;
    const auto p = static_cast<std::size_t>(v.view_of);
    const std::int64_t want = plan.offset[p] == kNotPlanned ? kNotPlanned : plan.offset[p] + v.view_offset;
    if (plan.offset[i] != want)
      return make_error(ErrorKind::InvalidInput, "view " + name(static_cast<TensorId>(i)) + " is at offset " +
                                                     std::to_string(plan.offset[i]) + ", not inside its parent " +
                                                     name(v.view_of) + " at " + std::to_string(want));
    if (want != kNotPlanned && plan.offset[i] + std::max<std::int64_t>(v.bytes(), 0) > plan.offset[p] + plan.size[p])
      return make_error(ErrorKind::InvalidInput, "view " + name(static_cast<TensorId>(i)) + " ends past its parent " + name(v.view_of));
  }
  if (live.problem.conflicts_omitted()) {
    // Too many pairs to list: sweep the conservative ranges (which cover every pair that may be
    // live at once) in start order and test, by the clocks, only the pairs that also share bytes.
    // Exact, as the listed check is, without listing: a plan the sweep made has no such pair, a
    // listed planner's has only the byte reuses it chose.
    const std::size_t n = live.tensors.size();
    std::vector<std::int64_t> offset(n), size(n);
    for (std::size_t b = 0; b < n; ++b) {
      offset[b] = plan.offset[static_cast<std::size_t>(live.tensors[b])];
      size[b] = plan.size[static_cast<std::size_t>(live.tensors[b])];
    }
    std::optional<Error> clash;
    detail::for_each_shared_live_pair(live.problem.start, live.problem.end, offset, size, [&](std::int32_t b, std::int32_t c) {
      const auto ta = live.tensors[static_cast<std::size_t>(b)], tc = live.tensors[static_cast<std::size_t>(c)];
      if (detail::dead_before(graph, order, ta, tc) || detail::dead_before(graph, order, tc, ta)) return true;
      clash = make_error(ErrorKind::InvalidInput, "tensors " + name(tc) + " and " + name(ta) +
                                                      " may be live at once under this schedule but overlap in the arena (offsets " +
                                                      std::to_string(plan.offset[static_cast<std::size_t>(tc)]) + " and " +
                                                      std::to_string(plan.offset[static_cast<std::size_t>(ta)]) + ")");
      return false;
    });
    if (clash) return *clash;
    return {};
  }
  for (std::size_t b = 0; b < live.tensors.size(); ++b) {
    const auto ta = static_cast<std::size_t>(live.tensors[b]);
    for (std::int32_t c : live.problem.conflicts[b]) {
      if (static_cast<std::size_t>(c) <= b) continue;
      const auto tb = static_cast<std::size_t>(live.tensors[static_cast<std::size_t>(c)]);
      if (plan.offset[ta] < plan.offset[tb] + plan.size[tb] && plan.offset[tb] < plan.offset[ta] + plan.size[ta])
        return make_error(ErrorKind::InvalidInput,
                          "tensors " + name(static_cast<TensorId>(ta)) + " and " + name(static_cast<TensorId>(tb)) +
                              " may be live at once under this schedule but overlap in the arena (offsets " +
                              std::to_string(plan.offset[ta]) + " and " + std::to_string(plan.offset[tb]) + ")");
    }
  }
  return {};
}

}  // namespace weft::core
