#pragma once
// CUDA device detection and the CUDA module. No CUDA types here: callers need not have the toolkit.
//
// The CUDA backend lives in a module, libweft_cuda.so, that the programs load (dlopen) the first
// time a CUDA function below is called; `weft` and `weft-studio` link no CUDA library, so their
// other commands start without loading cuBLAS or cuDNN. Where the module is looked for:
// $WEFT_CUDA_MODULE when set (that file only); else beside the program, in its lib/ folder, in
// the installation's <libdir>/weft/ and in ../lib/, then the RUNPATH and LD_LIBRARY_PATH.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "weft/core/cost/device.h"
#include "weft/core/base/expected.h"

namespace weft::gpu {

struct GpuInfo {
  int index = 0;
  std::string name;
  int sm_count = 0;
  std::int64_t memory_bytes = 0;
  int cc_major = 0;
  int cc_minor = 0;
};

/// The NVIDIA libraries the CUDA module runs on (no GPU needed to read them).
struct CudaRuntimeInfo {
  std::string module_path;             ///< the libweft_cuda.so that was loaded
  std::string built_against;           ///< "weft 0.1.0; CUDA 13.0; cuBLAS 13.0.0; cuDNN 9.19.0"
  int driver_version = 0;              ///< cudaDriverGetVersion, e.g. 13000; 0: no driver
  int runtime_version = 0;             ///< cudaRuntimeGetVersion (linked statically into the module)
  std::string cublas_version;          ///< of the libcublas.so loaded, "13.0.2"
  std::string cudnn_version;           ///< of the libcudnn.so loaded, "9.19.0"
  int max_connections = 8;             ///< CUDA_DEVICE_MAX_CONNECTIONS this process uses (see cuda_executor.h)
  std::vector<std::string> libraries;  ///< files of the CUDA, cuBLAS and cuDNN libraries mapped in the process
  std::vector<std::string> warnings;   ///< e.g. a cuDNN older than the one the module was built with
};

/// True when this build made the CUDA module (a toolkit and cuDNN were found at build time).
/// The module may still be missing on this machine, or fail to load: see load_cuda_module().
bool built_with_cuda();

/// Loads the CUDA module once per process (later calls return the first outcome). Returns the
/// module's path, or a Runtime error that names what could not be loaded: the module itself
/// ("libweft_cuda.so not found; looked in ...") or a library it needs ("libcudnn.so.9: cannot
/// open shared object file"), or a module from another build. Thread-safe.
core::Expected<std::string> load_cuda_module();

/// Versions and files of the NVIDIA libraries in use. Runtime error when the module cannot load.
core::Expected<CudaRuntimeInfo> cuda_runtime_info();

/// Lists the CUDA GPUs. Errors (Runtime): the module cannot load (load_cuda_module's message),
/// or "no CUDA device: ..." (no driver, no device) saying which.
core::Expected<std::vector<GpuInfo>> list_gpus();

/// What launching and synchronising cost on one GPU, timed with empty kernels (one thread that
/// does nothing): the launch figures of a device preset, as the simulator reads them. Each is the
/// median of several rounds of `kernels` launches, after a warm-up round.
struct LaunchCosts {
  int device = 0;
  std::string name;
  int kernels = 0;                ///< empty kernels (or calls) per round
  int rounds = 0;
  double launch_us = 0;           ///< host µs per eager kernel launch (the preset's launch_us)
  double eager_chain_us = 0;      ///< device µs per kernel of the same launches on one stream, event to event
  /// Device µs per kernel of a chain (each after the last) replayed as one CUDA Graph: the
  /// shortest a dependent kernel takes (the preset's kernel_min_us).
  double graph_chain_us = 0;
  /// Device µs per node of a graph of independent kernels replayed: the rate the graph executor
  /// releases nodes at (the preset's graph_launch_per_node_us).
  double graph_per_node_us = 0;
  double graph_launch_us = 0;     ///< host µs per cudaGraphLaunch of the chain's graph
  double event_record_us = 0;     ///< host µs per cudaEventRecord (the preset's event_record_us)
  double event_wait_us = 0;       ///< host µs per cudaStreamWaitEvent (the preset's event_wait_us)
  /// The measured figures by name, in the order above (what `weft calibrate --json` and Python list).
  std::vector<std::pair<const char*, double>> figures() const {
    return {{"launch_us", launch_us},           {"eager_chain_us", eager_chain_us},   {"graph_chain_us", graph_chain_us},
            {"graph_per_node_us", graph_per_node_us}, {"graph_launch_us", graph_launch_us}, {"event_record_us", event_record_us},
            {"event_wait_us", event_wait_us}};
  }
};

/// Times LaunchCosts on GPU `device` with `kernels` (16..100000) empty kernels per round. Errors
/// (Runtime): the module cannot load, no such device, a CUDA call's failure naming the call;
/// InvalidInput: kernels out of range.
core::Expected<LaunchCosts> measure_launch_costs(int device = 0, int kernels = 500);

/// `preset` with its launch figures replaced by the measured ones: launch_us, kernel_min_us (the
/// replayed chain's time per kernel), graph_launch_per_node_us (the independent graph's time per
/// node), event_record_us and event_wait_us; rates and SMs are kept. The source names the GPU.
core::DeviceSpec with_launch_costs(core::DeviceSpec preset, const LaunchCosts& measured);

}  // namespace weft::gpu
