#pragma once
// ONNX import: protobuf → shape inference → constant folding → immutable Graph.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "weft/core/graph/graph.h"

namespace weft::core {

struct ImportOptions {
  /// Dimension bindings (--dim): a symbol's name (dim_param), or "INPUT:AXIS" for one dim of one
  /// graph input by position (named or unnamed).
  std::map<std::string, std::int64_t> dims;
  bool fold = true;                          ///< fold constant subgraphs (--no-fold turns off)
  /// Re-batch (--batch N): dim 0 of every graph input of rank >= 1 set to this value, static or
  /// not, and the file's intermediate and output shapes dropped so shape inference derives them
  /// again. 0: keep the file's. Constants that bake the old batch in (a Reshape to [1, -1]) are the
  /// model's: such a model then fails shape inference or the batch split names the operator.
  std::int64_t batch = 0;
};

/// Loads an ONNX model file. Weights stay where they are (external data is referenced, never
/// read). Errors (InvalidInput unless the file cannot be opened: Runtime) name the file and,
/// where it applies, the node or tensor.
Expected<Graph> import_onnx(const std::string& path, const ImportOptions& options = {});

/// Same, from bytes in memory (model_path is used for messages and external data lookup).
Expected<Graph> import_onnx_bytes(std::string_view bytes, const std::string& model_path, const ImportOptions& options = {});

/// The ONNX model the Graph of import_onnx_bytes is built from, serialised: Constant nodes made
/// initializers, --batch and --dim applied, shapes inferred (value_info), constant subgraphs
/// folded; a weight-only subgraph over weights without data is an initializer without data
/// (external, no location) named after its output, which executors seed like any absent weight.
/// So it computes what Weft's run computes, on any ONNX runtime. Errors: import_onnx_bytes's.
/// Cost: an import without the Graph build, plus the serialisation.
Expected<std::string> imported_model_bytes(std::string_view bytes, const std::string& model_path, const ImportOptions& options = {});

}  // namespace weft::core
