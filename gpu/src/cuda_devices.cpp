// Device detection and the versions of the NVIDIA libraries the module runs on.
#include "cuda_devices.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <string>

namespace weft::gpu::detail {
namespace {

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

/// Why cudaGetDeviceCount failed, in the user's terms.
std::string no_device_reason(cudaError_t e) {
  // cudart reports a missing driver as an old one; say which it is.
  if (void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD); !driver) {
    if (void* loaded = dlopen("libcuda.so.1", RTLD_LAZY); !loaded) {
      const char* why = dlerror();
      return std::string("no NVIDIA driver (") + (why ? why : "libcuda.so.1 not found") + ")";
    }
  }
  if (e == cudaSuccess) return "the driver reports no GPU";
  return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
}

int on_library(dl_phdr_info* info, std::size_t, void* data) {
  auto* files = static_cast<std::vector<std::string>*>(data);
  const std::string path = info->dlpi_name ? info->dlpi_name : "";
  const std::string file = path.substr(path.find_last_of('/') + 1);
  for (const char* prefix : {"libcuda.so", "libcudart", "libcublas", "libcudnn", "libnvrtc", "libnvJitLink"})
    if (file.rfind(prefix, 0) == 0) {
      files->push_back(path);
      break;
    }
  return 0;
}

}  // namespace

core::Status require_device() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaSuccess && count > 0) return {};
  static_cast<void>(cudaGetLastError());
  return core::make_error(core::ErrorKind::Runtime, "no CUDA device: " + no_device_reason(e));
}

core::Expected<std::vector<GpuInfo>> device_list() {
  WEFT_TRY(require_device());
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
  std::vector<GpuInfo> gpus;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    GpuInfo g;
    g.index = i;
    g.name = prop.name;
    g.sm_count = prop.multiProcessorCount;
    g.memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
    g.cc_major = prop.major;
    g.cc_minor = prop.minor;
    gpus.push_back(std::move(g));
  }
  return gpus;
}

core::Expected<CudaRuntimeInfo> runtime_info() {
  CudaRuntimeInfo info;
  // Both answer without a GPU (the driver version is 0 without a driver).
  if (cudaDriverGetVersion(&info.driver_version) != cudaSuccess) info.driver_version = 0;
  if (cudaRuntimeGetVersion(&info.runtime_version) != cudaSuccess) info.runtime_version = 0;
  static_cast<void>(cudaGetLastError());
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS && cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS)
    info.cublas_version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  const std::size_t cudnn = cudnnGetVersion();
  info.cudnn_version = std::to_string(cudnn / 10000) + "." + std::to_string(cudnn % 10000 / 100) + "." + std::to_string(cudnn % 100);
  if (cudnn < static_cast<std::size_t>(CUDNN_VERSION))
    info.warnings.push_back("cuDNN " + info.cudnn_version + " is older than the " + std::to_string(CUDNN_MAJOR) + "." +
                            std::to_string(CUDNN_MINOR) + " the module was built with");
  if (info.driver_version != 0 && info.driver_version < CUDART_VERSION)
    info.warnings.push_back("the driver supports CUDA " + version_text(info.driver_version) + ", older than the module's CUDA " +
                            version_text(CUDART_VERSION));
  const char* connections = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  info.max_connections = connections && std::atoi(connections) > 0 ? std::atoi(connections) : 8;
  dl_iterate_phdr(&on_library, &info.libraries);
  return info;
}

}  // namespace weft::gpu::detail
