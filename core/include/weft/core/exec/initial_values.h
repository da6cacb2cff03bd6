#pragma once
// The data a run starts from, the same in every executor: graph inputs, weights, and seeded
// values for tensors without data.
#include <cstdint>
#include <string>

#include "weft/core/exec/executor.h"
#include "weft/core/graph/graph.h"

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


}  // namespace weft::core
