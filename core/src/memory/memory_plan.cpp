#include "weft/core/memory_plan.h"

namespace weft::core {

bool is_planned_tensor(const Tensor& t, bool outputs_in_arena) {
  if (t.bytes() < 0 || t.producer == kNoNode) return false;
  if (t.kind == TensorKind::Intermediate) return true;
  return t.kind == TensorKind::Output && outputs_in_arena;
}

MemoryPlan plan_no_reuse(const Graph& graph, std::int64_t alignment, bool outputs_in_arena) {
  MemoryPlan plan;
  plan.planner = "none";
  plan.alignment = alignment;
  plan.outputs_in_arena = outputs_in_arena;
  plan.offset.assign(graph.tensor_count(), kNotPlanned);
  plan.size.assign(graph.tensor_count(), 0);
  std::int64_t top = 0;
  for (std::size_t t = 0; t < graph.tensor_count(); ++t) {
    const Tensor& tensor = graph.tensor(static_cast<TensorId>(t));
    if (!is_planned_tensor(tensor, outputs_in_arena)) continue;
    plan.size[t] = align_up(std::max<std::int64_t>(tensor.bytes(), 1), alignment);
    plan.offset[t] = top;
    top += plan.size[t];
  }
  plan.arena_bytes = top;
  return plan;
}

}  // namespace weft::core
