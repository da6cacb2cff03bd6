// CUDA, cuBLAS and cuDNN codes become Runtime errors here and nowhere else.
#include "cuda_check.h"

#include <string>

namespace weft::gpu::detail {
namespace {

core::Error runtime(std::string_view call, std::string_view what) {
  return core::make_error(core::ErrorKind::Runtime, std::string(call) + ": " + std::string(what));
}

}  // namespace

bool is_sticky_fault(cudaError_t code) {
  switch (code) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

core::Status check(cudaError_t code, std::string_view call) {
  if (code == cudaSuccess) return {};
  std::string what = std::string("CUDA error ") + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")";
  if (is_sticky_fault(code)) what += " (kernel fault: this process's CUDA context is unusable)";
  return runtime(call, what);
}

core::Status check(cublasStatus_t code, std::string_view call) {
  if (code == CUBLAS_STATUS_SUCCESS) return {};
  return runtime(call, std::string("cuBLAS error ") + cublasGetStatusName(code) + " (" + cublasGetStatusString(code) + ")");
}

core::Status check(cudnnStatus_t code, std::string_view call) {
  if (code == CUDNN_STATUS_SUCCESS) return {};
  return runtime(call, std::string("cuDNN error ") + cudnnGetErrorString(code));
}

}  // namespace weft::gpu::detail
