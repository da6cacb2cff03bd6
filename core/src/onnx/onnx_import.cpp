// Placeholder until the importer lands (issue 2).
#include "weft/core/onnx_import.h"

namespace weft::core {

Expected<Graph> import_onnx(const std::string& path, const ImportOptions&) {
  return make_error(ErrorKind::Internal, path + ": the ONNX importer is not built yet");
}

Expected<Graph> import_onnx_bytes(std::string_view, const std::string& model_path, const ImportOptions&) {
  return make_error(ErrorKind::Internal, model_path + ": the ONNX importer is not built yet");
}

}  // namespace weft::core
