#include "weft/gpu/devices.h"

namespace weft::gpu {

bool built_with_cuda() { return false; }

core::Expected<std::vector<GpuInfo>> list_gpus() {
  return core::make_error(core::ErrorKind::Runtime, "this weft was built without CUDA (no toolkit was found at build time)");
}

}  // namespace weft::gpu
