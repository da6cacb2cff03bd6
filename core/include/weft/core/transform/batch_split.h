#pragma once
// Whether a graph can be cut along its batch into independent micro-batches, and if not, which
// operator mixes the batch. The first step of micro-batch splitting (DESIGN.md): a split copy
// reads and writes contiguous slices of the batch, so the batch must stay the outermost axis of
// every tensor that carries it, and no operator may combine different samples.
#include <string>
#include <vector>

#include "weft/core/graph/graph.h"

namespace weft::core {

struct BatchSplitCheck {
  bool splittable = false;
  NodeId blocker = kNoNode;  ///< the first operator (topological order) that mixes the batch
  std::string reason;        ///< "<op> '<node>': <why>", empty when splittable
  /// Per tensor: true when it carries the batch (as axis 0); weights and what only they feed do not.
  std::vector<bool> carries_batch;
};

/// Follows the batch (axis 0 of every graph input) through the graph in topological order.
/// Each operator either keeps it at axis 0 of its outputs (elementwise with broadcasting, Conv,
/// pooling, inference normalisation, MatMul/Gemm rows, reshapes that keep dim 0, reductions and
/// softmax over other axes, ...) or mixes it: a reduction, softmax, concat, split, slice or
/// gather over axis 0, a reshape or flatten that merges it, a transpose or unsqueeze that moves
/// it, BatchNormalization in training mode, the batch as a contraction axis, control flow and
/// operators whose treatment of the batch is not known. The first such operator is the blocker.
/// O(V + E + total ranks).
BatchSplitCheck check_batch_split(const Graph& graph);

}  // namespace weft::core
