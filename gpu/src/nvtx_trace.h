#pragma once
// Private: the executor's NVTX ranges behind a tiny interface that compiles to nothing when
// WEFT_NVTX is 0 (no NVTX headers), and costs one branch when tracing is switched off at run time.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#if WEFT_NVTX
// NVTX keeps its symbols hidden in the module: tools attach through NVTX_INJECTION64_PATH (as
// Nsight Systems does, and the GPU tests' counter library).
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>
#endif

namespace weft::gpu::detail {

/// ARGB colour of stream `s` (a fixed palette, repeated past eight streams).
inline std::uint32_t stream_colour(int s) {
  constexpr std::uint32_t kPalette[] = {0xff4e79a7u, 0xfff28e2bu, 0xffe15759u, 0xff76b7b2u,
                                        0xff59a14fu, 0xffedc948u, 0xffb07aa1u, 0xffff9da7u};
  return kPalette[static_cast<unsigned>(s) % 8u];
}

/// A pushed NVTX range, popped at scope exit.
class NvtxRange {
 public:
  NvtxRange(bool enabled, const std::string& text, std::uint32_t argb) : m_enabled(enabled) {
#if WEFT_NVTX
    if (!m_enabled) return;
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = argb;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = text.c_str();
    nvtxRangePushEx(&a);
#else
    static_cast<void>(text);
    static_cast<void>(argb);
#endif
  }
  ~NvtxRange() {
#if WEFT_NVTX
    if (m_enabled) nvtxRangePop();
#endif
  }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

 private:
  bool m_enabled;
};

/// Names a stream in profilers ("weft stream 2").
inline void nvtx_name_stream(bool enabled, cudaStream_t stream, const std::string& name) {
#if WEFT_NVTX
  if (enabled) nvtxNameCudaStreamA(stream, name.c_str());
#else
  static_cast<void>(enabled);
  static_cast<void>(stream);
  static_cast<void>(name);
#endif
}

}  // namespace weft::gpu::detail
