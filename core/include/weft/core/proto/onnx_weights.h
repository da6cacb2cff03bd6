#pragma once
// A model file rewritten with every weight inline, for another runtime to run on the weights a
// Weft run used: the file's own data, and given values where the file has none.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/base/expected.h"
#include "weft/core/graph/graph.h"

namespace weft::core {

/// Fills `bytes` (already the weight's size) for a weight the file has no data for; `depth` is 0
/// in the main graph, 1 and more inside control-flow bodies (If, Loop, Scan).
using AbsentWeightFill = std::function<void(const Tensor& weight, int depth, std::vector<std::uint8_t>& bytes)>;

/// `model_bytes` (the file at `model_path`, whose folder external data is resolved against) with
/// every initializer and Constant value inline, in the main graph and in every body: external
/// data read where its file exists, `fill` called where the weight has no data (an absent file,
/// no location, no values), exactly the weights an executor seeds. Constant nodes keep their
/// names, so a weight keeps the name Weft seeds it by (a Constant's output's). Errors
/// (InvalidInput): the importer's for a malformed file or external reference, a result over
/// protobuf's 2 GB limit; Runtime when an external file cannot be read. O(model bytes + weights).
Expected<std::string> inline_model_weights(std::string_view model_bytes, const std::string& model_path, const AbsentWeightFill& fill);

}  // namespace weft::core
