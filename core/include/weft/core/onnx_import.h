#pragma once
// ONNX import: protobuf → shape inference → constant folding → immutable Graph.
#include <cstdint>
#include <map>
#include <string>

#include "weft/core/graph.h"

namespace weft::core {

struct ImportOptions {
  /// Dimension bindings (--dim): a symbol's name (dim_param), or "INPUT:AXIS" for one dim of one
  /// graph input by position (named or unnamed).
  std::map<std::string, std::int64_t> dims;
  bool fold = true;                          ///< fold constant subgraphs (--no-fold turns off)
};

/// Loads an ONNX model file. Weights stay where they are (external data is referenced, never
/// read). Errors (InvalidInput unless the file cannot be opened: Runtime) name the file and,
/// where it applies, the node or tensor.
Expected<Graph> import_onnx(const std::string& path, const ImportOptions& options = {});

/// Same, from bytes in memory (model_path is used for messages and external data lookup).
Expected<Graph> import_onnx_bytes(std::string_view bytes, const std::string& model_path, const ImportOptions& options = {});

}  // namespace weft::core
