#pragma once
// A model written with the values a run starts from: what another runtime is given to compute
// what Weft's run computes (scripts/peer-bench.py, `weft run --save-model`).
#include <cstdint>
#include <string>

#include "weft/core/base/expected.h"
#include "weft/core/onnx/onnx_import.h"

namespace weft::core {

/// The model at `model_path` as `import` makes it (imported_model_bytes: folded, dims bound) with
/// every weight inline, each with the value a run with `seed` starts from (initial_value): the
/// file's own data, else the seeded values (a folded weight-only subgraph's output included, as
/// the executors seed it; a control-flow body's weights with RunOptions' default seed, as the
/// CPU executor seeds them), written atomically to `out_path`. Another runtime given this file
/// computes what Weft's run computes, on the same values. Errors: the import's and
/// inline_model_weights's (InvalidInput, Runtime), the write's (Runtime). O(model + weights).
Status save_model_with_weights(const std::string& model_path, const ImportOptions& import, const std::string& out_path,
                               std::uint64_t seed);

}  // namespace weft::core
