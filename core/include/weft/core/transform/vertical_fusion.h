#pragma once
// Vertical fusion as a graph transformation: a producer (Conv) and the chain of elementwise
// operators applied to its result alone (Relu, LeakyRelu, Clip with constant bounds, the Add of a
// residual tensor of the same shape) become one node, operator "Fused" in domain "weft", whose
// body holds the chain. ONNX Runtime's Conv+activation and Conv+Add+activation fusions and
// oneDNN's post-ops do the same inside a runtime; here the graph shows it, so schedules address
// the fused node and every pass downstream (strategies, events, memory plans, the simulator, the
// executors) works on the fused graph unchanged. The chain's intermediates are never written:
// they leave the graph and its memory plan.
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/graph/fused_node.h"
#include "weft/core/graph/graph.h"
#include "weft/core/transform/merge_graph.h"

namespace weft::core {

/// Whether `chain` (node ids of `graph`, producer first) may be fused: two or more nodes; the
/// first a float32 Conv of static shapes; each next one Relu, LeakyRelu, Clip whose bounds are
/// weights, or an Add (at most one per chain) of the previous result and another tensor of its
/// shape and dtype; each of them reading the previous one's output, which nothing else reads and
/// which is no graph output. Errors (InvalidInput) name the node and the reason. O(Σ degree).
Status check_fusion_chain(const Graph& graph, std::span<const NodeId> chain);

/// The fusable chains of `graph`, longest from each Conv (greedy: a chain stops at the first
/// consumer that check_fusion_chain refuses or a later Conv's chain holds: an Add of two
/// convolutions' results goes to the later one), in the order of their producers. O(V + E).
std::vector<std::vector<NodeId>> find_fusion_chains(const Graph& graph);

/// Builds the fused graph of `graph` for `chains` (each checked by check_fusion_chain; a node in
/// at most one). A fused node is named "fused:<producer's key>", reads the tensors its chain
/// reads from outside (the producer's inputs, then a residual or a Clip's bounds), writes the
/// chain's last output, and holds the chain in a body graph (attribute "body"), its label ("op":
/// the members' operators joined by '+', "Conv+Add+Relu") and its length ("members"). It sits at
/// its last member's place in node order. Other nodes, tensors, weights, inputs and outputs keep
/// their names; the chain's intermediates leave the graph. Costs: one launch; flops summed; bytes
/// the body's inputs and output (the intermediates are never written); time the producer's in
/// `costs` (at its family's efficiency, or measured) plus reading the residual at `device`'s
/// bandwidth. The CPU executor runs a fused node with the "weft.Fused" kernel (the library's
/// primitive with post-ops, or the members in order on the reference kernels). Errors
/// (InvalidInput) name the chain and the reason. O(V + E + tensors).
Expected<MergedModel> fuse_graph(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                                 const std::vector<std::vector<NodeId>>& chains);

/// What a fusion did, for reports: chains fused, operators they hold, and how many of each label.
struct FusionSummary {
  std::size_t chains = 0;
  std::size_t operators = 0;  ///< the chains' members together
  std::vector<std::pair<std::string, std::size_t>> labels;  ///< "Conv+Relu" -> count, most frequent first
  /// "94 chains of 188 operators (Conv+Relu 94)"; "no chain fused" when none.
  std::string text() const;
};

/// The fused nodes of `graph` (a fused or fused-and-merged model), summarised. O(V).
FusionSummary summarize_fusion(const Graph& graph);

/// `merged` (a model made from `fused.graph`, e.g. merge_model's) with its members named in the
/// graph `fused` was made from: each node's members are the original nodes its members stand
/// for. O(V).
MergedModel compose_transforms(const MergedModel& fused, MergedModel merged);

}  // namespace weft::core
