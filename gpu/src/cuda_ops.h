#pragma once
// Private: per-node preparation (the host-side checks and geometry are op_geometry.h's). Everything a node needs (attributes parsed, shapes checked,
// cuDNN descriptors and algorithms chosen) is built before the first launch; what is left is a
// launch function that enqueues the node's work on a stream.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "weft/core/exec/executor.h"
#include "weft/gpu/cuda_executor.h"
#include "op_geometry.h"

namespace weft::gpu::detail {

/// The per-stream resources a launch may use.
struct StreamContext {
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  cudnnHandle_t cudnn = nullptr;
  cublasLtHandle_t cublaslt = nullptr;  ///< the run's (one for every stream: cublasLtMatmul takes the stream)
  void* workspace = nullptr;  ///< cuDNN (and cuBLASLt) workspace of this stream
  std::size_t workspace_bytes = 0;
};

/// Enqueues a node's work on ctx.stream. Errors name the failing call (the caller adds the node).
using LaunchFn = std::function<core::Status(const StreamContext& ctx)>;

struct PreparedNode {
  LaunchFn launch;
  std::size_t workspace_bytes = 0;  ///< cuDNN or cuBLASLt workspace the launch needs on its stream
  /// A merged node: how its members launch (RunResult::merged_paths); empty otherwise.
  std::string merged_path;
};

struct PrepareContext {
  const core::Graph* graph = nullptr;
  const std::vector<void*>* device = nullptr;  ///< device pointer of every tensor
  const std::map<core::TensorId, core::HostTensor>* host = nullptr;  ///< starting values of weights and inputs
  cudnnHandle_t cudnn = nullptr;  ///< for algorithm queries only
  bool tf32 = false;
  cublasLtHandle_t cublaslt = nullptr;  ///< for heuristic queries; null: no cuBLASLt launches
};

/// A new CUDA executor (cuda_executor.cpp); the module's entry point hands it to the program.
core::Executor* create_executor(const CudaRunOptions& options);

/// Builds the node's launch (descriptors, algorithm). Runtime errors name the cuDNN call.
core::Expected<PreparedNode> prepare_node(const PrepareContext& ctx, core::NodeId n);

}  // namespace weft::gpu::detail
