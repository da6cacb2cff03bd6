// libFuzzer target: the ONNX loader (parse, structure checks, external-data confinement, shape
// inference, constant folding) and the analysis of whatever it accepts.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "weft/core/analysis/analyze.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/onnx/onnx_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace weft::core;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // A folder that does not exist: external references resolve, confine and read nothing.
  auto graph = import_onnx_bytes(bytes, "/nonexistent/weft-fuzz/model.onnx");
  if (!graph) return 0;
  static const auto device = load_device(default_device_name());
  if (!device) return 0;
  const CostTable costs = estimate_costs(*graph, *device);
  (void)analyze(*graph, costs);
  return 0;
}
