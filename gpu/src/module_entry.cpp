// The CUDA module's entry point: the table of functions the loader (loader.cpp) calls. Every
// entry catches what could escape it, so no exception crosses into the program.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdlib>
#include <exception>
#include <string>

#include "cuda_check.h"
#include "cuda_devices.h"
#include "cuda_ops.h"
#include "module_api.h"
#include "nvtx_trace.h"

#ifndef WEFT_VERSION
#define WEFT_VERSION "unknown"
#endif

namespace weft::gpu::detail {

namespace {

/// "weft 0.1.0; CUDA 13.0; cuBLAS 13.1.0; cuDNN 9.19.0": the headers this module was compiled with.
std::string built_against() {
  return "weft " WEFT_VERSION "; CUDA " + std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10) +
         "; cuBLAS " + std::to_string(CUBLAS_VER_MAJOR) + "." + std::to_string(CUBLAS_VER_MINOR) + "." + std::to_string(CUBLAS_VER_PATCH) +
         "; cuDNN " + std::to_string(CUDNN_MAJOR) + "." + std::to_string(CUDNN_MINOR) + "." + std::to_string(CUDNN_PATCHLEVEL);
}

core::Error internal(const std::exception& e) {
  return core::make_error(core::ErrorKind::Internal, std::string("CUDA module: ") + e.what());
}

core::Expected<std::vector<GpuInfo>> list_gpus_entry() {
  try {
    return device_list();
  } catch (const std::exception& e) {
    return internal(e);
  }
}

core::Executor* make_executor_entry(const CudaRunOptions& options) {
  try {
    return create_executor(options);
  } catch (const std::exception&) {
    return nullptr;  // the loader reports it
  }
}

core::Status check_supported_entry(const core::Graph& graph) {
  try {
    return check_graph(graph);
  } catch (const std::exception& e) {
    return internal(e);
  }
}

std::vector<std::string> supported_ops_entry() {
  try {
    return supported_op_names();
  } catch (const std::exception&) {
    return {};
  }
}

core::Expected<CudaRuntimeInfo> runtime_info_entry() {
  try {
    return runtime_info();
  } catch (const std::exception& e) {
    return internal(e);
  }
}

int sticky_fault_entry() {
  // A sticky fault is returned by every call from then on; a healthy context answers success.
  const cudaError_t e = cudaDeviceSynchronize();
  if (is_sticky_fault(e)) return static_cast<int>(e);
  static_cast<void>(cudaGetLastError());
  return 0;
}

core::Expected<LaunchCosts> launch_costs_entry(int device, int kernels) {
  try {
    return launch_costs(device, kernels);
  } catch (const std::exception& e) {
    return internal(e);
  }
}

void nvtx_mark_entry(const char* text) {
  const NvtxRange range(true, text ? text : "", 0xff000000u);
}

ModuleApi make_table() {
  // The hardware queue count is read when the CUDA context is created, which happens after this
  // (the loader calls the entry point before anything else): 32, the most CUDA allows, lets up
  // to 32 streams run without sharing a queue. A value the user set stays.
  ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
  ModuleApi api;
  api.abi = kModuleAbi;
  static const std::string built = built_against();
  api.built_against = built.c_str();
  api.list_gpus = &list_gpus_entry;
  api.make_executor = &make_executor_entry;
  api.check_supported = &check_supported_entry;
  api.supported_ops = &supported_ops_entry;
  api.runtime_info = &runtime_info_entry;
  api.sticky_fault = &sticky_fault_entry;
  api.nvtx_mark = &nvtx_mark_entry;
  api.measure_launch_costs = &launch_costs_entry;
  return api;
}

}  // namespace
}  // namespace weft::gpu::detail

extern "C" __attribute__((visibility("default"))) const weft::gpu::detail::ModuleApi* weft_cuda_module_v1() {
  static const weft::gpu::detail::ModuleApi api = weft::gpu::detail::make_table();
  return &api;
}
