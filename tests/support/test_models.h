#pragma once
// Loading the bundled test models in core tests.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "weft/core/onnx/onnx_import.h"

namespace weft::test {

/// tests/data/models/<stem>.onnx with the symbolic dim `batch` bound to `batch` (models without
/// it ignore the binding). A model that does not import fails the test and ends the program: the
/// data is part of the tests.
inline core::Graph load_with_batch(const std::string& stem, std::int64_t batch) {
  core::ImportOptions o;
  o.dims = {{"batch", batch}};
  auto g = core::import_onnx(std::string(WEFT_TEST_DATA_DIR) + "/models/" + stem + ".onnx", o);
  if (!g) {
    ADD_FAILURE() << g.error().message;
    std::abort();
  }
  return std::move(*g);
}

}  // namespace weft::test
