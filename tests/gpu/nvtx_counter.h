#pragma once
// What the NVTX injection of the GPU tests (nvtx_counter.cpp, libweft_nvtx_counter.so) has seen so far.
#include <string>
#include <vector>

namespace weft::test {

struct NvtxCounts {
  int pushes = 0;
  int pops = 0;
  std::vector<std::string> messages;  ///< ASCII messages of pushed ranges, in order
};

__attribute__((visibility("default"))) NvtxCounts nvtx_counts();

}  // namespace weft::test
