#pragma once
// What a fused node's library kernel (library_fused.cpp) takes from the kernels of its members:
// the activations as oneDNN eltwise operations (library_elementwise.cpp) and the convolution made
// with post-ops (library_conv.cpp).
#include <memory>
#include <optional>
#include <vector>

#include "dnnl_runtime.h"
#include "library_kernel.h"

namespace weft::core::detail::library {

/// One oneDNN eltwise operation: algorithm and its two parameters.
struct EltwiseOp {
  dnnl::algorithm alg;
  float alpha = 0, beta = 0;
};

/// Clip's bounds when they are known at preparation: attributes (opset < 11) or weight inputs.
std::optional<EltwiseOp> clip_bounds(const KernelContext& ctx);

/// The eltwise operation of an activation node (Relu, LeakyRelu, Clip with known bounds), or none.
std::optional<EltwiseOp> activation_op(const KernelContext& ctx);

/// One operation applied to a convolution's result before it is written: an eltwise operation,
/// or (`add`) the sum with the residual tensor.
struct PostOp {
  bool add = false;
  EltwiseOp eltwise{dnnl::algorithm::eltwise_relu};
};

/// The operations in order (oneDNN post-ops), and the input of the running node that an add
/// reads (-1: none) with its layout.
struct ConvPostOps {
  std::vector<PostOp> steps;
  int residual_input = -1;
  bool residual_channels_last = false;
};

/// The Conv of `ctx` (its node a Conv, its inputs X, W and an optional B) prepared with `post`
/// applied to its output; run() is then called with the running node's context, whose inputs 0 to
/// 2 are the Conv's and whose input residual_input holds the tensor added. Null where oneDNN
/// declines. O(the primitive's creation).
std::unique_ptr<PreparedKernel> prepare_conv_with(const KernelContext& ctx, const ConvPostOps& post);

}  // namespace weft::core::detail::library
