#pragma once
// A tensor's value on the host: what runs return, inputs and test data read, weights decoded.
#include <cstdint>
#include <vector>

#include "weft/core/graph/graph.h"

namespace weft::core {

/// A host tensor value (outputs, inputs read from .pb files).
struct HostTensor {
  DType dtype = DType::Float32;
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> bytes;  ///< little-endian, row-major
};

}  // namespace weft::core
