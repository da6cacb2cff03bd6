#pragma once
// A model's inputs given as files (weft run --inputs, a test data set, Python's inputs=): which
// tensor feeds which graph input, checked against what the model declares, and the symbolic
// dimensions the given shapes bind.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "weft/core/exec/executor.h"
#include "weft/core/base/expected.h"
#include "weft/core/graph/graph.h"
#include "weft/core/exec/tensor_files.h"

namespace weft::core {

/// The values for a graph's inputs (RunOptions::inputs) and what was said while matching them.
struct GivenInputs {
  std::map<std::string, HostTensor> values;  ///< by graph-input name, one per input
  /// Tensors left over once every input has its value (ignored), and tensors whose name named
  /// no input but whose position did.
  std::vector<std::string> warnings;
};

/// Matches `given` to `graph`'s inputs: a tensor whose name is an input's feeds it; else a
/// tensor with a position feeds the input at that place (unless another feeds it by name).
/// Every input must get a value of its dtype and, where its shape is static, of its shape.
/// Errors (InvalidInput), each naming the input, what the model expects and the file: an input
/// without a value (with the given names that matched nothing, when any), a wrong dtype, a wrong
/// shape, two tensors for one input. O(inputs + tensors), one copy of the values.
Expected<GivenInputs> match_inputs(const Graph& graph, const TensorFiles& given);

/// The dimension bindings (ImportOptions::dims keys: the symbol, or "INPUT:AXIS" for an unnamed
/// dim) that the shapes of `given` imply for `graph`'s unknown input dims, leaving out keys in
/// `bound` (what --dim already binds). Tensors are matched as match_inputs matches them; a tensor
/// whose rank differs from its input's binds nothing (match_inputs refuses it). Errors
/// (InvalidInput): one symbol given two values (naming both inputs and files). O(Σ input ranks).
Expected<std::map<std::string, std::int64_t>> dims_from_inputs(const Graph& graph, const TensorFiles& given,
                                                               const std::map<std::string, std::int64_t>& bound = {});

}  // namespace weft::core
