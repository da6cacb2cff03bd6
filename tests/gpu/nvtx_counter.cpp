// A static NVTX injection for the GPU tests: defining InitializeInjectionNvtx2_fnptr (a weak
// symbol in every NVTX3 user) makes NVTX hand its calls to the functions below, which count
// range pushes and pops and keep the pushed messages.
#include <cstdint>

// The header's implementation refers to the symbol this file defines (below): declare it first.
#define NVTX_STATIC_INJECTION_IMPL
extern "C" int (*InitializeInjectionNvtx2_fnptr)(const void* (*)(std::uint32_t));
#include <nvtx3/nvToolsExt.h>

#include <mutex>

#include "nvtx_counter.h"

namespace weft::test {
namespace {

std::mutex g_mutex;
NvtxCounts g_counts;

int NVTX_API push(const nvtxEventAttributes_t* a) {
  std::lock_guard lock(g_mutex);
  ++g_counts.pushes;
  if (a && a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii) g_counts.messages.emplace_back(a->message.ascii);
  return 0;
}

int NVTX_API pop() {
  std::lock_guard lock(g_mutex);
  ++g_counts.pops;
  return 0;
}

int NVTX_API initialise(NvtxGetExportTableFunc_t get_table) {
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_table(NVTX_ETID_CALLBACKS));
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (!callbacks || !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) || size <= NVTX_CBID_CORE_RangePop)
    return 0;
  *table[NVTX_CBID_CORE_RangePushEx] = reinterpret_cast<NvtxFunctionPointer>(&push);
  *table[NVTX_CBID_CORE_RangePop] = reinterpret_cast<NvtxFunctionPointer>(&pop);
  return 1;
}

}  // namespace

NvtxCounts nvtx_counts() {
  std::lock_guard lock(g_mutex);
  return g_counts;
}

}  // namespace weft::test

extern "C" {
NvtxInitializeInjectionNvtxFunc_t InitializeInjectionNvtx2_fnptr = &weft::test::initialise;
}
