// Memory-aware sequential order: greedy list scheduling on net allocation (bytes a node's outputs
// allocate minus the bytes of inputs it is the last to read), in the spirit of the "memory-aware
// topological sort" of TVM/ORT planners; kept only when its peak beats the file order's.
#include "weft/core/memory/memory_aware_order.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <tuple>
#include <vector>

#include "weft/core/memory/bounds.h"

namespace weft::core {
namespace {

enum class Tie : std::uint8_t { FileOrder, Newest };

std::vector<NodeId> greedy_order(const Graph& graph, Tie tie) {
  const std::size_t n = graph.node_count();
  std::vector<std::int64_t> bytes(graph.tensor_count(), 0);
  std::vector<std::int32_t> readers_left(graph.tensor_count(), 0);
  // net[v] = bytes v allocates − bytes of inputs v is the last remaining reader of. It only
  // falls as other readers run, so a lazy heap with re-pushes on each fall stays exact.
  std::vector<std::int64_t> net(n, 0);
  std::vector<char> done(n, 0);
  // A view's bytes are its parent's (a merged node's block of outputs): reading a view reads the
  // block, which is freed by the last reader of any of its views.
  const auto counted = [&](TensorId t) {
    const Tensor& x = graph.tensor(t);
    return x.is_view() && is_planned_tensor(graph, x.view_of, false) ? x.view_of : t;
  };
  for (std::size_t t = 0; t < graph.tensor_count(); ++t) {
    const auto id = static_cast<TensorId>(t);
    const std::span<const NodeId> readers = graph.readers(id);
    readers_left[t] = static_cast<std::int32_t>(readers.size());
    if (!is_planned_tensor(graph, id, false)) continue;
    bytes[t] = align_up(std::max<std::int64_t>(graph.bytes(id), 1), kDefaultAlignment);
    // Planned without outputs: one writer (its producer, or the merged node writing its views).
    net[static_cast<std::size_t>(graph.writers(id).front())] += bytes[t];
    if (readers.size() == 1) net[static_cast<std::size_t>(readers.front())] -= bytes[t];
  }
  std::vector<TensorId> reads;
  std::vector<std::uint32_t> indeg(n);
  std::vector<std::int64_t> tie_key(n, 0);
  using Entry = std::tuple<std::int64_t, std::int64_t, NodeId>;  // (net, tie, node), smallest first
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  std::int64_t clock = 0;
  const auto push = [&](NodeId v) {
    heap.emplace(net[static_cast<std::size_t>(v)], tie_key[static_cast<std::size_t>(v)], v);
  };
  for (std::size_t v = 0; v < n; ++v) {
    indeg[v] = static_cast<std::uint32_t>(graph.predecessors(static_cast<NodeId>(v)).size());
    tie_key[v] = tie == Tie::FileOrder ? static_cast<std::int64_t>(v) : 0;
    if (indeg[v] == 0) push(static_cast<NodeId>(v));
  }
  std::vector<NodeId> order;
  order.reserve(n);
  while (!heap.empty()) {
    const auto [key, tk, v] = heap.top();
    heap.pop();
    const auto uv = static_cast<std::size_t>(v);
    if (done[uv] || key != net[uv]) continue;  // stale entry
    done[uv] = 1;
    order.push_back(v);
    ++clock;
    // The graph's flat lists: nodes come off the heap in no memory order.
    reads.clear();
    for (TensorId t : graph.reads(v)) reads.push_back(counted(t));
    std::sort(reads.begin(), reads.end());
    reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
    for (TensorId t : reads) {
      if (--readers_left[static_cast<std::size_t>(t)] != 1) continue;
      // One reader left: it now frees t when it runs.
      for (NodeId r : graph.readers(t))
        if (!done[static_cast<std::size_t>(r)]) {
          net[static_cast<std::size_t>(r)] -= bytes[static_cast<std::size_t>(t)];
          if (indeg[static_cast<std::size_t>(r)] == 0) push(r);
        }
    }
    for (NodeId s : graph.successors(v))
      if (--indeg[static_cast<std::size_t>(s)] == 0) {
        if (tie == Tie::Newest) tie_key[static_cast<std::size_t>(s)] = -clock;
        push(s);
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
