#pragma once
// Binding symbolic input dimensions (`--dim NAME=VALUE` or `--dim INPUT:AXIS=VALUE`): the
// importer's ImportOptions::dims, parsed and suggested here once for the CLI and the studio.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weft/core/base/expected.h"
#include "weft/core/graph/graph.h"

namespace weft::core {

/// One dimension of a graph input that the import left unknown.
struct UnboundDim {
  std::string input;   ///< the graph input's name
  int axis = 0;        ///< position in that input's shape
  int rank = 0;        ///< that input's rank
  std::string symbol;  ///< ONNX dim_param; empty for an unnamed dim
  /// What binds it in ImportOptions::dims: the symbol, or "INPUT:AXIS" for an unnamed dim.
  std::string key() const { return symbol.empty() ? input + ":" + std::to_string(axis) : symbol; }
  /// "x: dim 0 'batch'" (as GraphInfo::unresolved_dims words it).
  std::string describe() const;
};

/// The unknown dims of `graph`'s inputs, one per key (a symbol shared by several inputs or axes is
/// listed once, at its first place), in input and axis order. O(Σ input ranks).
std::vector<UnboundDim> unbound_dims(const Graph& graph);

/// Fails (InvalidInput) when `graph` has unresolved dimensions, so that tensor sizes are unknown:
/// "`what` needs every tensor's size; unresolved: x: dim 0 'batch' (bind the dimension)". For
/// the passes whose result is bytes (memory plans, budgets, the speed/memory front), which would
/// otherwise plan zero-byte tensors. O(unresolved dims).
Status require_bound_dims(const Graph& graph, std::string_view what);

/// A value to offer for `dim` before the user says: 1 for a leading (batch) axis, 224 for the
/// spatial axes of a rank-4 input (an image), 128 for a symbol that names a sequence length, 1
/// otherwise. A suggestion only: nothing binds a dim without being asked to.
std::int64_t suggested_dim_value(const UnboundDim& dim);

/// Parses one binding "NAME=VALUE" (NAME a symbol or INPUT:AXIS; VALUE a positive integer).
/// Errors (InvalidInput) quote the text and say what is wrong, naming no option: front ends that
/// read it from their command line (`--dim`) report it as a usage error.
Expected<std::pair<std::string, std::int64_t>> parse_dim_binding(std::string_view text);

}  // namespace weft::core
