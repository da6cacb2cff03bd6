#include "weft/core/memory/memory_plan.h"

#include <algorithm>

namespace weft::core {

namespace {
bool planned(const Tensor& t, std::int64_t bytes, bool outputs_in_arena) {
  if (bytes < 0 || t.is_view()) return false;
  if (t.producer == kNoNode) {
    // A block written through its views: a split's output (in the arena when outputs are), or
    // a merged node's outputs side by side (an intermediate, always).
    if (t.views.empty()) return false;
    return t.kind == TensorKind::Intermediate || (t.kind == TensorKind::Output && outputs_in_arena);
  }
  if (t.kind == TensorKind::Intermediate) return true;
  return t.kind == TensorKind::Output && outputs_in_arena;
}
}  // namespace

bool is_planned_tensor(const Tensor& t, bool outputs_in_arena) { return planned(t, t.bytes(), outputs_in_arena); }

bool is_planned_tensor(const Graph& graph, TensorId t, bool outputs_in_arena) {
  return planned(graph.tensor(t), graph.bytes(t), outputs_in_arena);
}

std::span<const NodeId> tensor_writers(const Graph& graph, TensorId t) { return graph.writers(t); }

std::span<const NodeId> tensor_readers(const Graph& graph, TensorId t) { return graph.readers(t); }

bool has_multi_writer_tensors(const Graph& graph, bool outputs_in_arena) {
  for (std::size_t i = 0; i < graph.tensor_count(); ++i) {
    const auto t = static_cast<TensorId>(i);
    if (graph.writers(t).size() > 1 && is_planned_tensor(graph, t, outputs_in_arena)) return true;
  }
  return false;
}

void place_views(const Graph& graph, MemoryPlan& plan) {
  for (std::size_t i = 0; i < graph.tensor_count(); ++i) {
    const Tensor& t = graph.tensor(static_cast<TensorId>(i));
    if (!t.is_view()) continue;
    const auto parent = static_cast<std::size_t>(t.view_of);
    if (plan.offset[parent] == kNotPlanned) continue;
    plan.offset[i] = plan.offset[parent] + t.view_offset;
    plan.size[i] = std::max<std::int64_t>(t.bytes(), 0);
  }
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
  place_views(graph, plan);
  return plan;
}

}  // namespace weft::core
