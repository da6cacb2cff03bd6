#pragma once
// Micro-batch splitting as a graph transformation (DESIGN.md, "Micro-batch split"): the batch axis
// cut into k slices, the batch-carrying part of the graph instantiated k times, zero-copy: each
// copy reads a view of the input buffer and writes a view of the output buffer (Tensor::view_of),
// so no Slice or Concat runs and every pass downstream works on the split graph unchanged.
#include <cstdint>
#include <vector>

#include "weft/core/graph/graph.h"

namespace weft::core {

/// Splits `graph` into `k` micro-batches. Copy c's nodes are named "mb<c>/<key>" and its tensors
/// "mb<c>/<name>"; graph inputs and outputs keep their names and full shapes, each copy reading
/// and writing bytes [c·bytes/k, (c+1)·bytes/k) of them through views (dim 0 is outermost, so a
/// batch slice is contiguous). Weights and batch-independent nodes (what only weights feed) are
/// shared by the copies, not duplicated; a constant shape operand (Reshape, Expand, Resize sizes)
/// whose first value is the batch gets a shared copy holding batch/k. GraphInfo records k, the
/// batch, each node's copy and origin. k = 1 returns the graph rebuilt unchanged (names, ids and
/// order kept, no views), whatever its operators.
/// Errors (InvalidInput): k < 1; the graph mixes the batch (check_batch_split's reason, naming the
/// node); no graph input carries a batch; inputs with different or unknown batch sizes; k does not
/// divide the batch; a batch-carrying tensor whose dim 0 is not the batch or whose shape is not
/// static; a graph output that is a graph input. O(k · (V + E + total ranks)).
Expected<Graph> split_batch(const Graph& graph, int k);

/// The divisors of the batch that split_batch accepts as k, among 1, 2, 4, 8, ... up to
/// `max_k`, ascending (always holds 1). O(log max_k).
std::vector<int> split_factors(std::int64_t batch, int max_k);

/// The batch of a graph: dim 0 of its first graph input of rank >= 1 (-1 when unknown or none).
std::int64_t graph_batch(const Graph& graph);

}  // namespace weft::core
