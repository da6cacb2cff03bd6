#include <cuda_runtime_api.h>

#include "weft/gpu/devices.h"

namespace weft::gpu {

bool built_with_cuda() { return true; }

core::Expected<std::vector<GpuInfo>> list_gpus() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    const std::string why = err == cudaSuccess ? "no CUDA device found" : std::string(cudaGetErrorString(err));
    return core::make_error(core::ErrorKind::Runtime, "no usable CUDA GPU: " + why);
  }
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

}  // namespace weft::gpu
