#pragma once
// CUDA device detection. No CUDA types here: callers need not have the toolkit.
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

/// True when this build includes the CUDA executor.
bool built_with_cuda();

/// Lists the CUDA GPUs. Errors (Runtime): built without CUDA, no driver, no device — the
/// message says which.
core::Expected<std::vector<GpuInfo>> list_gpus();

}  // namespace weft::gpu
