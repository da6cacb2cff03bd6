#pragma once
// Horizontal merging: operators of one layer that are the same computation on different data
// (equal operator, attributes, dtypes and shapes) run as one launch, as IOS's operator merge and
// TensorRT's horizontal fusion do: MatMul/Gemm as one batched GEMM, convolutions as one grouped
// convolution over their concatenated channels, elementwise and normalisation operators over the
// concatenated range.
#include <span>
#include <string_view>
#include <vector>

#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"
#include "weft/core/transform/wire_layering.h"

namespace weft::core {

/// One merged launch: two or more nodes of one layer with equal signatures, sorted by id.
struct MergeGroup {
  std::vector<NodeId> nodes;
  bool shared_input = false;  ///< every member reads the same first input (read once when merged)
  double time_us = 0;         ///< predicted time of the merged launch (merged_time_us)
};

struct MergePlan {
  std::vector<MergeGroup> groups;
  std::vector<int> group_of;       ///< by NodeId: index into groups, or -1
  std::size_t launches_before = 0; ///< nodes that launch a kernel (metadata-only ones do not)
  std::size_t launches_after = 0;  ///< after merging each group into one launch
  double time_before_us = 0;       ///< Σ node times (one stream, eager launches)
  double time_after_us = 0;        ///< the same with each group as one merged launch
};

/// True for the operators that have a merged kernel form (GEMMs, convolutions, elementwise,
/// normalisation, softmax, pooling, transpose).
bool mergeable_op(std::string_view op_type);

/// Predicted time of `nodes` as one launch on `device`: the roofline of their summed flops and
/// bytes (each at its own peak rate, scaled by the fill of the merged grid, the members' output
/// elements together) plus one launch overhead. O(|nodes| + inputs).
double merged_time_us(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                      std::span<const NodeId> nodes);

/// One merge group of `nodes` (sorted here), priced as find_merge_groups prices it: merged_time_us,
/// less the repeated reads of a shared first input. O(|nodes| + inputs).
MergeGroup make_merge_group(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                            std::vector<NodeId> nodes);

/// A plan of the given groups (each made by make_merge_group) with its launch and time totals;
/// group_of is -1 outside the groups. Groups are kept in the order of their first node. The
/// groups are not checked (merge_graph refuses members that are not independent). O(V + Σ|group|).
MergePlan make_merge_plan(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                          std::vector<std::vector<NodeId>> groups);

/// Groups each layer's mergeable nodes by signature (operator, domain, attributes, input and
/// output dtypes and shapes) into batched launches; convolutions and GEMMs that read the same input
/// with the same attributes and differ at most in output channels form concat merges (IOS), equal
/// signatures among them included. Groups of one are not merges; metadata-only and zero-time nodes
/// never merge. O(V · signature size) plus sorting within layers.
MergePlan find_merge_groups(const Graph& graph, const WireLayering& layering, const CostTable& costs,
                            const DeviceSpec& device);

}  // namespace weft::core
