// A model file carrying the weights a run starts from, for other runtimes (scripts/ort-test-data.py
// runs ONNX Runtime on it to make the test data sets Weft's runs are checked against).
#include "weft/core/onnx/seeded_model.h"

#include "weft/core/base/file_io.h"
#include "weft/core/exec/initial_values.h"
#include "weft/core/proto/onnx_weights.h"

namespace weft::core {

Status save_model_with_weights(const std::string& model_path, const ImportOptions& import, const std::string& out_path,
                               std::uint64_t seed) {
  auto file = read_file(model_path);
  if (!file) return make_error(ErrorKind::InvalidInput, file.error().message);
  // The graph the executors run, whose data-less weights include what folding made of absent
  // ones (a Transpose of a weight is a seeded weight of its own): the original file's weights
  // alone would not reproduce a run.
  WEFT_TRY_ASSIGN(const std::string bytes, imported_model_bytes(*file, model_path, import));
  // The seeds initial_value uses: the run's in the main graph; a body's weights are seeded by the
  // CPU executor's subgraph runner with RunOptions' default.
  const std::uint64_t body_seed = RunOptions{}.seed;
  WEFT_TRY_ASSIGN(const std::string model,
                  inline_model_weights(bytes, model_path, [&](const Tensor& w, int depth, std::vector<std::uint8_t>& out) {
                    fill_initial_value(w, depth == 0 ? seed : body_seed, /*is_weight=*/true, out.data());
                  }));
  return write_file_atomic(out_path, model);
}

}  // namespace weft::core
