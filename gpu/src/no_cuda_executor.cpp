// The executor factory of a build without CUDA (or without cuDNN): it exists, and says why it
// cannot run.
#include "weft/gpu/cuda_executor.h"

#ifndef WEFT_GPU_MISSING
#define WEFT_GPU_MISSING "CUDA"
#endif

namespace weft::gpu {
namespace {

core::Error missing() {
  return core::make_error(core::ErrorKind::Runtime, "this weft was built without " WEFT_GPU_MISSING
                                                    ": the CUDA executor is not available");
}

class MissingExecutor final : public core::Executor {
 public:
  std::string name() const override { return "cuda"; }
  core::Expected<core::RunResult> run(const core::Graph&, const core::Schedule&, const core::MemoryPlan&,
                                      const core::RunOptions&) override {
    return missing();
  }
};

}  // namespace

std::unique_ptr<core::Executor> make_cuda_executor(const CudaRunOptions&) { return std::make_unique<MissingExecutor>(); }

std::vector<std::string> cuda_supported_ops() { return {}; }

core::Status cuda_check_supported(const core::Graph&) { return missing(); }

}  // namespace weft::gpu
