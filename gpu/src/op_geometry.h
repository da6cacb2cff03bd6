#pragma once
// Private: the CUDA executor's host-side view of a node, without CUDA types: which operators it
// takes, the checks cuda_check_supported makes before any launch, and the geometry each launch is
// built from (convolution, pooling, GEMM, broadcasting, strided copies, row-wise reductions).
// Built into libweft_cuda.so and into the weft_gpu_geometry library the CPU build tests
// (test_op_geometry), so these checks run in CI on machines without a GPU or a CUDA toolkit.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernel_params.h"
#include "weft/core/exec/executor.h"
#include "weft/core/base/expected.h"
#include "weft/core/graph/graph.h"

namespace weft::gpu::detail {

using Shape = std::vector<std::int64_t>;
/// Weights' and inputs' starting values on the host, by tensor (Clip's bounds, Slice's starts...).
using HostValues = std::map<core::TensorId, core::HostTensor>;

/// Sorted names of the supported operators.
std::vector<std::string> supported_op_names();
/// Host-only check of one node (operator, dtypes, static shapes, attributes the kernels handle).
/// InvalidInput "unsupported: operator X at node Y: ..." on failure.
core::Status check_node(const core::Graph& graph, core::NodeId n);
/// check_node over every node: the first unsupported one's error. O(V+E).
core::Status check_graph(const core::Graph& graph);

/// InvalidInput "unsupported: operator X at node 'Y' on CUDA: what".
core::Error unsupported(const core::Graph& g, core::NodeId n, const std::string& what);
/// Flatten, Reshape, Squeeze, Unsqueeze, Identity, Dropout: a device copy (or nothing in place).
bool is_copy_op(std::string_view op);
/// Product of s[begin, end).
std::int64_t product(const Shape& s, std::size_t begin, std::size_t end);
Shape shape_of(const core::Graph& g, core::TensorId t);
/// node.inputs[i], or kNoTensor past the end.
core::TensorId input(const core::Node& node, std::size_t i);
std::int64_t normalise_axis(std::int64_t axis, std::size_t rank);
/// Integer values of a weight known on the host (axes of opset-18 reductions).
std::optional<Shape> host_ints(const HostValues* host, core::TensorId t);

struct ConvGeometry {
  Shape x, w, y;
  std::int64_t group = 1;
  std::int64_t pads[4] = {};
  Shape stride, dilation;
  bool bias = false;
};
core::Expected<ConvGeometry> conv_geometry(const core::Graph& g, core::NodeId n);
core::Expected<Pool2d> pool_geometry(const core::Graph& g, core::NodeId n);
/// [outer, dim, inner] of Softmax (opset >= 13: one axis; before: everything from axis on).
core::Expected<std::array<std::int64_t, 3>> softmax_geometry(const core::Graph& g, core::NodeId n);
/// [outer, dim, inner] of ReduceMean over contiguous axes. `host` may be null (check only: an
/// axes input is then accepted when it is a weight).
core::Expected<std::array<std::int64_t, 3>> reduce_geometry(const core::Graph& g, core::NodeId n, const HostValues* host);
/// Element strides of `in` broadcast (numpy rules) to `out`, right-aligned; 0 where broadcast.
bool broadcast_strides(const Shape& in, const Shape& out, std::int64_t* strides);
/// `out` with a's (and b's, when given) strides into it; refuses shapes that do not broadcast.
core::Expected<Broadcast> broadcast_geometry(const core::Graph& g, core::NodeId n, const Shape& a, const Shape* b, const Shape& out);

struct GemmGeometry {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  bool trans_a = false, trans_b = false;
  std::int64_t stride_a = 0, stride_b = 0;  ///< between batches (elements); b 0: shared
  float alpha = 1, beta = 0;
  bool has_c = false;
};

core::Expected<GemmGeometry> gemm_geometry(const core::Graph& g, core::NodeId n);
/// Row-major element strides of `shape`.
Shape strides_of(const Shape& shape);
/// Transpose as a strided copy: output dim d reads input dim perm[d].
core::Expected<Broadcast> transpose_geometry(const core::Graph& g, core::NodeId n);
/// Slice as a strided copy from an offset (ONNX clamping, as the CPU reference computes it): the
/// element offset of the first element read, and the strides.
core::Expected<std::pair<Broadcast, std::int64_t>> slice_geometry(const core::Graph& g, core::NodeId n, const HostValues* host);
/// The launch of an elementwise, strided-copy or row-wise node (MemberLaunch's families), or empty
/// for any other operator. `host` holds the weights read on the host (Clip's bounds, Slice's
/// starts, opset-18 reduction axes).
core::Expected<std::optional<MemberLaunch>> member_launch(const core::Graph& g, core::NodeId n, const HostValues* host);
/// True when two nodes' launches differ only in their pointers.
bool same_launch(const MemberLaunch& a, const MemberLaunch& b);
/// Equal spacing of `pointers` in floats (0: all the same), or empty when they are not equally
/// spaced or go backwards.
std::optional<std::int64_t> float_stride(const std::vector<const void*>& pointers);
/// A merged node's body (core::merge_graph): its members, reading the body's inputs (the node's,
/// in order) and writing its outputs (the node's). Null when the node has none or they do not
/// match the node's inputs and outputs.
const core::Graph* merged_body(const core::Node& node);

}  // namespace weft::gpu::detail
