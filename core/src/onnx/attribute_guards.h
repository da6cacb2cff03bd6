#pragma once
// Attributes that libonnx's shape inference divides by, checked before it runs: a zero stride
// there is a division by zero (SIGFPE, no exception to catch), found by fuzz/fuzz_onnx_import.
#include <onnx/onnx_pb.h>

#include "weft/core/expected.h"

namespace weft::core::detail {

/// Refuses (InvalidInput, naming the node, its operator and the attribute) any ONNX-domain node of `graph`
/// or of its subgraphs whose `strides`, `dilations`, `kernel_shape`, `group` or `blocksize` is
/// not positive: the ONNX specification requires them positive for every operator that has them.
/// O(nodes + attribute values), recursing into subgraph attributes.
Status check_inference_attributes(const onnx::GraphProto& graph);

}  // namespace weft::core::detail
