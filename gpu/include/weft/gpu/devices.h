#pragma once
// CUDA device detection and the CUDA module. No CUDA types here: callers need not have the toolkit.
//
// The CUDA backend lives in a module, libweft_cuda.so, that the programs load (dlopen) the first
// time a CUDA function below is called; `weft` and `weft-studio` link no CUDA library, so their
// other commands start without loading cuBLAS or cuDNN. Where the module is looked for:
// $WEFT_CUDA_MODULE when set (that file only); else beside the program, in its lib/ and ../lib/
// folders, then the program's RUNPATH and LD_LIBRARY_PATH.
#include <cstdint>
#include <string>
#include <vector>

#include "weft/core/expected.h"

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

}  // namespace weft::gpu
