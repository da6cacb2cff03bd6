#pragma once
// Constant folding on an ONNX graph: nodes whose inputs are all known (in-memory initializers,
// or Shape/Size of a tensor whose shape inference found static) are evaluated with small
// reference kernels and replaced by initializers. The importer alternates this with ONNX shape
// inference until nothing more folds.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace weft::core::detail {

struct FoldResult {
  std::int64_t folded = 0;                ///< nodes removed this round
  std::vector<std::string> warnings;
};

/// One folding round over the top-level graph (subgraphs of If/Loop/Scan are left alone, except
/// that an If whose condition is a constant is replaced by its chosen branch).
/// Uses the shapes currently in value_info / inputs / outputs. External weights are read (from
/// model_dir) only when a weight-only subgraph consumes them; where their file is absent the
/// subgraph is folded by shape alone and its outputs become weights without data. Folded nodes are removed and
/// every folded value still read by a remaining node (or a subgraph) becomes an initializer.
/// Nodes producing graph outputs and operators without a reference kernel are never folded.
/// O(nodes × sweeps + elements evaluated); values over kMaxFoldElements elements are not folded.
FoldResult fold_round(onnx::GraphProto& graph, std::int64_t opset, const std::string& model_dir);

/// Largest tensor (in elements) the folder evaluates or materialises.
inline constexpr std::int64_t kMaxFoldElements = std::int64_t{1} << 22;

/// Names a node's subgraphs (If/Loop/Scan bodies) read from the enclosing scope, sorted.
std::vector<std::string> outer_scope_inputs(const onnx::NodeProto& node);

/// Names a body reads from enclosing scopes (its nested bodies included), sorted.
std::vector<std::string> subgraph_captures(const onnx::GraphProto& body);

}  // namespace weft::core::detail
