#pragma once
// Private: RAII owners of CUDA, cuBLAS and cuDNN handles and device memory. Destructors ignore
// errors (nothing useful can be done with them while unwinding a run).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstddef>
#include <string>
#include <utility>

#include "cuda_check.h"

namespace weft::gpu::detail {

/// Owns one handle of type T released by Destroy.
template <class T, auto Destroy>
class Owned {
 public:
  Owned() = default;
  explicit Owned(T h) : m_h(h) {}
  ~Owned() { reset(); }
  Owned(Owned&& o) noexcept : m_h(std::exchange(o.m_h, T{})) {}
  Owned& operator=(Owned&& o) noexcept {
    if (this != &o) {
      reset();
      m_h = std::exchange(o.m_h, T{});
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  T get() const { return m_h; }
  /// For the C APIs that create into a T*: releases what is held first.
  T* out() {
    reset();
    return &m_h;
  }
  void reset() {
    if (m_h) static_cast<void>(Destroy(m_h));
    m_h = T{};
  }

 private:
  T m_h{};
};

using Stream = Owned<cudaStream_t, cudaStreamDestroy>;
using CudaEvent = Owned<cudaEvent_t, cudaEventDestroy>;
using CudaGraph = Owned<cudaGraph_t, cudaGraphDestroy>;
using CudaGraphExec = Owned<cudaGraphExec_t, cudaGraphExecDestroy>;
using CublasHandle = Owned<cublasHandle_t, cublasDestroy>;
using CudnnHandle = Owned<cudnnHandle_t, cudnnDestroy>;
using CublasLtHandle = Owned<cublasLtHandle_t, cublasLtDestroy>;
using LtMatmulDesc = Owned<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;
using LtLayout = Owned<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;
using LtPreference = Owned<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>;
using TensorDesc = Owned<cudnnTensorDescriptor_t, cudnnDestroyTensorDescriptor>;
using FilterDesc = Owned<cudnnFilterDescriptor_t, cudnnDestroyFilterDescriptor>;
using ConvDesc = Owned<cudnnConvolutionDescriptor_t, cudnnDestroyConvolutionDescriptor>;

/// One device allocation.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : m_ptr(std::exchange(o.m_ptr, nullptr)), m_bytes(std::exchange(o.m_bytes, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      m_ptr = std::exchange(o.m_ptr, nullptr);
      m_bytes = std::exchange(o.m_bytes, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// Allocates `bytes` (none for 0). Errors name what the bytes are for and how many were asked.
  core::Status allocate(std::size_t bytes, std::string_view what) {
    reset();
    if (bytes == 0) return {};
    const cudaError_t e = cudaMalloc(&m_ptr, bytes);
    if (e != cudaSuccess) {
      m_ptr = nullptr;
      static_cast<void>(cudaGetLastError());  // clear the sticky-free allocation error
      return check(e, "cudaMalloc(" + std::to_string(bytes) + " bytes for " + std::string(what) + ")");
    }
    m_bytes = bytes;
    return {};
  }
  void* get() const { return m_ptr; }
  std::uint8_t* bytes() const { return static_cast<std::uint8_t*>(m_ptr); }
  std::size_t size() const { return m_bytes; }
  void reset() {
    if (m_ptr) static_cast<void>(cudaFree(m_ptr));
    m_ptr = nullptr;
    m_bytes = 0;
  }

 private:
  void* m_ptr = nullptr;
  std::size_t m_bytes = 0;
};

}  // namespace weft::gpu::detail
