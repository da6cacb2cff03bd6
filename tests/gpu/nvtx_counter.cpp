// An NVTX injection library for the GPU tests (libweft_nvtx_counter.so): NVTX hands the ranges of
// the CUDA module to the functions below, which count pushes and pops and keep the messages. The
// module hides its NVTX symbols, so a static injection in the test program cannot reach it; the
// dynamic one can: this library, linked into the test, names itself in NVTX_INJECTION64_PATH when
// it is loaded (before main), and NVTX's dlopen of that path finds the copy already in the process.
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
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

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table) {
  return weft::test::initialise(get_table);
}

namespace {

__attribute__((constructor)) void name_this_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&InitializeInjectionNvtx2), &info) && info.dli_fname)
    ::setenv("NVTX_INJECTION64_PATH", info.dli_fname, 0);
}

}  // namespace
