#pragma once
// Private: device detection inside the CUDA module.
#include <vector>

#include "weft/core/base/expected.h"
#include "weft/gpu/devices.h"

namespace weft::gpu::detail {

/// Ok when cudaGetDeviceCount finds a device; else Runtime "no CUDA device: <why>", where why
/// tells a missing driver (libcuda.so.1 not loadable) from a driver without devices.
core::Status require_device();

/// The CUDA GPUs (require_device's error when there are none).
core::Expected<std::vector<GpuInfo>> device_list();

/// Versions and files of the CUDA, cuBLAS and cuDNN libraries in this process. Needs no GPU.
core::Expected<CudaRuntimeInfo> runtime_info();

/// measure_launch_costs inside the module (cuda_launch_costs.cpp).
core::Expected<LaunchCosts> launch_costs(int device, int kernels);

}  // namespace weft::gpu::detail
