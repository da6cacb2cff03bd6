#pragma once
// The symbolic dimensions a test model needs bound before every tensor has a static shape.
#include <cstdint>
#include <map>
#include <string>

namespace weft::test {

/// By model file stem: ppocr's input is 1x3x640x640; the synthetic models of
/// scripts/make-test-models.py take `batch` (1 here). Empty for the rest.
inline std::map<std::string, std::int64_t> model_dims(const std::string& stem) {
  if (stem.rfind("ppocr", 0) == 0)
    return {{"p2o.DynamicDimension.0", 1}, {"p2o.DynamicDimension.1", 640}, {"p2o.DynamicDimension.2", 640}};
  if (stem == "grouped_mlp" || stem == "transformer4h" || stem == "randwire_ws" || stem == "inception_v3" || stem == "swin_dropout" ||
      stem == "vad_if")
    return {{"batch", 1}};
  return {};
}

/// The same as `--dim NAME=VALUE` options for the CLI (with a leading space, or empty).
inline std::string model_dim_args(const std::string& stem) {
  std::string s;
  for (const auto& [name, value] : model_dims(stem)) s += " --dim " + name + "=" + std::to_string(value);
  return s;
}

}  // namespace weft::test
