#pragma once
// One node evaluated on the CPU reference kernels outside any run: the constant folder's
// evaluator (weight-only and shape subgraphs fold by running the executor's own kernels).
#include <cstdint>
#include <span>
#include <vector>

#include "weft/core/exec/executor.h"
#include "weft/core/graph/graph.h"

namespace weft::core::detail {

/// A tensor shape as the kernels see it.
using Shape = std::vector<std::int64_t>;

/// The product of `shape`'s dims (1 for a scalar). O(rank).
std::int64_t shape_elements(std::span<const std::int64_t> shape);

/// Evaluates `node` (its inputs/outputs are only checked for kNoTensor: omitted ones) on
/// `inputs` (dtype Undefined: an omitted optional input; data may be null for an input whose
/// values the kernel does not read, e.g. Shape's). False when the operator has no kernel, the
/// kernel refuses the node, or an output would exceed `max_elements`; nothing is thrown.
/// O(the kernel's work).
bool evaluate_node(const Node& node, std::span<const HostTensor> inputs, const std::vector<bool>& has_data, std::int64_t opset,
                   std::int64_t max_elements, std::vector<HostTensor>& outputs);

/// True when the CPU executor has a kernel for `op` (default domain).
bool has_cpu_kernel(std::string_view op);

}  // namespace weft::core::detail
