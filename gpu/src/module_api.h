#pragma once
// Private: the table of entry points libweft_cuda.so hands to the loader (gpu/src/loader.cpp).
// C++ types cross the boundary, so the module and the programs that load it must come from the
// same build: the loader refuses a module whose ABI number or type sizes differ from its own.
#include <cstddef>
#include <string>
#include <vector>

#include "weft/core/exec/executor.h"
#include "weft/gpu/cuda_executor.h"
#include "weft/gpu/devices.h"

namespace weft::gpu::detail {

/// Raised whenever the table or any type crossing it changes meaning.
inline constexpr int kModuleAbi = 2;

/// Sizes of the types that cross the boundary, as the compiling side sees them: a cheap guard
/// against a module from another build whose ABI number happens to match.
struct AbiSizes {
  std::size_t graph = sizeof(core::Graph);
  std::size_t schedule = sizeof(core::Schedule);
  std::size_t plan = sizeof(core::MemoryPlan);
  std::size_t run_options = sizeof(core::RunOptions);
  std::size_t run_result = sizeof(core::RunResult);
  std::size_t error = sizeof(core::Error);
  std::size_t cuda_options = sizeof(CudaRunOptions);
  std::size_t gpu_info = sizeof(GpuInfo);
  std::size_t runtime_info = sizeof(CudaRuntimeInfo);
  std::size_t launch_costs = sizeof(LaunchCosts);
  bool operator==(const AbiSizes&) const = default;
};

struct ModuleApi {
  int abi = 0;
  AbiSizes sizes;
  /// "weft 0.1.0; CUDA 13.0; cuBLAS 13.x; cuDNN 9.19.0" — what the module was compiled against.
  const char* built_against = "";
  core::Expected<std::vector<GpuInfo>> (*list_gpus)() = nullptr;
  /// Owned by the caller (delete through the virtual destructor, which runs module code).
  core::Executor* (*make_executor)(const CudaRunOptions& options) = nullptr;
  core::Status (*check_supported)(const core::Graph& graph) = nullptr;
  std::vector<std::string> (*supported_ops)() = nullptr;
  /// Versions and files of the NVIDIA libraries in use (loads cuBLAS and cuDNN's handles' code).
  core::Expected<CudaRuntimeInfo> (*runtime_info)() = nullptr;
  /// The CUDA error code when the process's CUDA context holds a sticky fault (an illegal
  /// address, a trap...) that makes every later call fail; 0 otherwise.
  int (*sticky_fault)() = nullptr;
  /// Pushes and pops one NVTX range with this text (tests check that tools see the module's ranges).
  void (*nvtx_mark)(const char* text) = nullptr;
  core::Expected<LaunchCosts> (*measure_launch_costs)(int device, int kernels) = nullptr;
};

/// The loaded module's table, or null when it could not be loaded (programs' side: loader.cpp).
const ModuleApi* module_api();

}  // namespace weft::gpu::detail

/// The module's one exported symbol. Never null.
extern "C" const weft::gpu::detail::ModuleApi* weft_cuda_module_v1();
