// libFuzzer target: the schedule JSON loader (parse, key lookup, deadlock and dependency checks)
// against a small real model, and the events of whatever it accepts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "weft/core/onnx/onnx_import.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/schedule/sync.h"

namespace {

const weft::core::Graph& model() {
  // tests/data/bad/tiny.onnx: two branches that meet, so schedules have streams and events.
  static const weft::core::Graph g = [] {
    auto imported = weft::core::import_onnx(WEFT_FUZZ_MODEL);
    if (!imported) std::abort();  // the seed model is part of the build; without it nothing runs
    return std::move(*imported);
  }();
  return g;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace weft::core;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto schedule = schedule_from_json(model(), text);
  if (!schedule) return 0;
  (void)compute_events(model(), *schedule);
  return 0;
}
