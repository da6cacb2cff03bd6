#pragma once
// Attributes that libonnx's shape inference divides by, checked before it runs: a zero stride
// there is a division by zero (SIGFPE, no exception to catch), found by fuzz/fuzz_onnx_import.
#include <onnx/onnx_pb.h>

#include "weft/core/base/expected.h"

namespace weft::core::detail {

/// Refuses (InvalidInput, naming the node, its operator and the attribute) any ONNX-domain node of `graph`
/// or of its subgraphs whose `strides`, `dilations`, `kernel_shape`, `group` or `blocksize` is
/// not positive: the ONNX specification requires them positive for every operator that has them.
/// O(nodes + attribute values), recursing into subgraph attributes.
Status check_inference_attributes(const onnx::GraphProto& graph);

/// Refuses (InvalidInput, naming the tensor, the axis and the value) a declared dimension below 0
/// in `graph`'s inputs, outputs or value_info, or in its subgraphs' (initializers are checked as their
/// data is read): ONNX dimensions
/// are >= 0 (a symbolic one is a dim_param), and a negative one would otherwise read as unknown.
/// O(declared dimensions), recursing into subgraph attributes.
Status check_declared_dims(const onnx::GraphProto& graph);

}  // namespace weft::core::detail
