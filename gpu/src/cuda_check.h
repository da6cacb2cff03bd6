#pragma once
// Private: the one place where CUDA, cuBLAS and cuDNN return codes become core::Error values.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <string_view>

#include "weft/core/base/expected.h"

namespace weft::gpu::detail {

/// Errors after which the CUDA context is unusable (every later call returns them): faults of a
/// kernel (illegal address or instruction, trap, assert...) or of the device.
bool is_sticky_fault(cudaError_t code);

/// Ok, or a Runtime error "<call>: <library> error <name> (<description>)"; sticky faults add
/// "(kernel fault: this process's CUDA context is unusable)".
core::Status check(cudaError_t code, std::string_view call);
core::Status check(cublasStatus_t code, std::string_view call);
core::Status check(cudnnStatus_t code, std::string_view call);

}  // namespace weft::gpu::detail

/// Returns the error of a failed CUDA / cuBLAS / cuDNN call from the enclosing function, which
/// returns core::Status or core::Expected<T>. The message names the call as written.
#define WEFT_CUDA_CHECK(call) WEFT_TRY(::weft::gpu::detail::check((call), #call))
