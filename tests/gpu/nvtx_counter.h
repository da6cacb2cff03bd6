#pragma once
// What the static NVTX injection of the GPU tests (nvtx_counter.cpp) has seen so far.
#include <string>
#include <vector>

namespace weft::test {

struct NvtxCounts {
  int pushes = 0;
  int pops = 0;
  std::vector<std::string> messages;  ///< ASCII messages of pushed ranges, in order
};

NvtxCounts nvtx_counts();

}  // namespace weft::test
