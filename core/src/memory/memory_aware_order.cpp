// Memory-aware sequential order: greedy list scheduling on net allocation (bytes a node's outputs
// allocate minus the bytes of inputs it is the last to read), in the spirit of the "memory-aware
// topological sort" of TVM/ORT planners; kept only when its peak beats the file order's.
#include <algorithm>
#include <vector>

#include "weft/core/memory_planner.h"

namespace weft::core {
namespace {

enum class Tie : std::uint8_t { FileOrder, Newest };

std::vector<NodeId> greedy_order(const Graph& graph, Tie tie) {
  const std::size_t n = graph.node_count();
  std::vector<std::int64_t> bytes(graph.tensor_count(), 0);
  std::vector<std::int32_t> readers_left(graph.tensor_count(), 0);
  for (std::size_t t = 0; t < graph.tensor_count(); ++t) {
    const Tensor& tensor = graph.tensor(static_cast<TensorId>(t));
    if (is_planned_tensor(tensor, false)) bytes[t] = align_up(std::max<std::int64_t>(tensor.bytes(), 1), kDefaultAlignment);
    readers_left[t] = static_cast<std::int32_t>(tensor.consumers.size());
  }
  std::vector<std::uint32_t> indeg(n);
  std::vector<std::size_t> ready_since(n, 0);
  std::vector<NodeId> ready;
  for (std::size_t v = 0; v < n; ++v) {
    indeg[v] = static_cast<std::uint32_t>(graph.predecessors(static_cast<NodeId>(v)).size());
    if (indeg[v] == 0) ready.push_back(static_cast<NodeId>(v));
  }
  const auto net = [&](NodeId v) {
    std::int64_t d = 0;
    const Node& node = graph.node(v);
    for (TensorId t : node.outputs)
      if (t != kNoTensor) d += bytes[static_cast<std::size_t>(t)];
    std::vector<TensorId> seen;
    for (TensorId t : node.inputs) {
      if (t == kNoTensor || std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
      seen.push_back(t);
      if (readers_left[static_cast<std::size_t>(t)] == 1) d -= bytes[static_cast<std::size_t>(t)];
    }
    return d;
  };
  std::vector<NodeId> order;
  order.reserve(n);
  std::size_t clock = 0;
  while (!ready.empty()) {
    std::size_t pick = 0;
    std::int64_t best = net(ready[0]);
    for (std::size_t i = 1; i < ready.size(); ++i) {
      const std::int64_t d = net(ready[i]);
      const NodeId a = ready[i], b = ready[pick];
      const bool tie_better = tie == Tie::FileOrder ? a < b : ready_since[static_cast<std::size_t>(a)] > ready_since[static_cast<std::size_t>(b)];
      if (d < best || (d == best && tie_better)) {
        best = d;
        pick = i;
      }
    }
    const NodeId v = ready[pick];
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(pick));
    order.push_back(v);
    ++clock;
    std::vector<TensorId> seen;
    for (TensorId t : graph.node(v).inputs) {
      if (t == kNoTensor || std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
      seen.push_back(t);
      --readers_left[static_cast<std::size_t>(t)];
    }
    for (NodeId s : graph.successors(v))
      if (--indeg[static_cast<std::size_t>(s)] == 0) {
        ready.push_back(s);
        ready_since[static_cast<std::size_t>(s)] = clock;
      }
  }
  return order;
}

}  // namespace

std::vector<NodeId> memory_aware_order(const Graph& graph) {
  std::vector<NodeId> best(graph.topo_order().begin(), graph.topo_order().end());
  std::int64_t best_peak = linear_lower_bound(graph, best);
  for (Tie tie : {Tie::FileOrder, Tie::Newest}) {
    std::vector<NodeId> order = greedy_order(graph, tie);
    if (order.size() != graph.node_count()) continue;
    const std::int64_t peak = linear_lower_bound(graph, order);
    if (peak < best_peak) {
      best_peak = peak;
      best = std::move(order);
    }
  }
  return best;
}

}  // namespace weft::core
