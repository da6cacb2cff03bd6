// Stand-ins for libweft_cuda.so that the loader must refuse with a clear message (test_cuda_module):
// built with WEFT_STUB_MISSING_LIBRARY it needs a library that is on no search path at run time;
// otherwise it reports a module ABI no build has.
#include <cstddef>

#include "module_api.h"

#ifdef WEFT_STUB_MISSING_LIBRARY
extern "C" int weft_test_absent_function();  // in libweft_test_absent.so
#endif

extern "C" __attribute__((visibility("default"))) const weft::gpu::detail::ModuleApi* weft_cuda_module_v1() {
  static weft::gpu::detail::ModuleApi api;
  api.abi = -7;
#ifdef WEFT_STUB_MISSING_LIBRARY
  api.abi = weft_test_absent_function();
#endif
  return &api;
}
