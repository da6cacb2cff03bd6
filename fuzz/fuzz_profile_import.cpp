// libFuzzer target: measured-profile import (ONNX Runtime JSON, PyTorch and Weft Chrome traces:
// parse, format detection, mapping, the profiled run's own schedule) against a small real model,
// and the replay and report of whatever it accepts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "weft/core/cost_model.h"
#include "weft/core/device.h"
#include "weft/core/onnx_import.h"
#include "weft/core/profile.h"

namespace {

struct Model {
  weft::core::Graph graph;
  weft::core::CostTable costs;
  weft::core::DeviceSpec device;
};

const Model& model() {
  // tests/data/bad/tiny.onnx: two branches that meet, so a profile can put them on two streams.
  static const Model m = [] {
    auto imported = weft::core::import_onnx(WEFT_FUZZ_MODEL);
    auto device = weft::core::load_device(weft::core::default_device_name());
    if (!imported || !device) std::abort();  // the seed model and presets are part of the build
    weft::core::CostTable costs = weft::core::estimate_costs(*imported, *device);
    return Model{std::move(*imported), std::move(costs), std::move(*device)};
  }();
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace weft::core;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const Model& m = model();
  auto profile = import_profile(m.graph, m.costs, text, "fuzz.json");
  if (!profile) return 0;
  const ProfileReplay replay = replay_profile(m.graph, m.costs, *profile, m.device);
  (void)profile_report_text(m.graph, *profile, replay);
  (void)apply_profile(m.costs, *profile);
  return 0;
}
