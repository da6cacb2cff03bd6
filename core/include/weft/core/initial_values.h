#pragma once
// The data a run starts from, the same in every executor: graph inputs, weights, and seeded
// values for tensors without data.
#include <cstdint>
#include <string>

#include "weft/core/exec/executor.h"
#include "weft/core/graph/graph.h"
#include "weft/core/onnx/onnx_import.h"

namespace weft::core {

/// Seeded values for a tensor without data: splitmix64 seeded with `seed` xor the FNV-1a hash of
/// the tensor's name (so values do not depend on ids or preparation order). Weights of rank >= 2
/// are uniform with variance 1/fan_in; 1-D weights in [0.5, 1) (keeps BN variances positive);
/// inputs in [-1, 1); integers zero. Writes t.bytes() bytes to `out`. O(elements).
void fill_initial_value(const Tensor& t, std::uint64_t seed, bool is_weight, std::uint8_t* out);

/// The value graph input or weight `t` starts a run with: the input from options.inputs (dtype
/// and shape checked), the weight's data (inline or external file), else fill_initial_value.
/// `seeded` (optional) is set when seeded values stood in for an absent weight. Errors
/// (InvalidInput) name the tensor. Both backends call this, so their data is bit-identical.
Expected<HostTensor> initial_value(const Graph& graph, TensorId t, const RunOptions& options, bool* seeded = nullptr);

/// The model at `model_path` as `import` makes it (imported_model_bytes: folded, dims bound) with
/// every weight inline, each with the value a run with `seed` starts from (initial_value): the
/// file's own data, else the seeded values (a folded weight-only subgraph's output included, as
/// the executors seed it; a control-flow body's weights with RunOptions' default seed, as the
/// CPU executor seeds them), written atomically to `out_path`. Another runtime given this file
/// computes what Weft's run computes, on the same values. Errors: the import's and
/// inline_model_weights's (InvalidInput, Runtime), the write's (Runtime). O(model + weights).
Status save_model_with_weights(const std::string& model_path, const ImportOptions& import, const std::string& out_path,
                               std::uint64_t seed);

}  // namespace weft::core
