// libFuzzer target: the studio's project file (.weft) parser, core::parse_project (Qt-free).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "weft/core/base/project_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto project = weft::core::parse_project(text, "/nonexistent/weft-fuzz/project.weft");
  if (project) (void)weft::core::project_to_json(*project, "/nonexistent/weft-fuzz/project.weft");
  return 0;
}
