#include "weft/core/base/text_format.h"

#include <cstdio>

namespace weft::core {

std::string fixed_text(double value, int decimals) {
  char buf[400];  // the widest double in "%f" has 309 integer digits
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string mib_text(std::int64_t bytes) { return fixed_text(static_cast<double>(bytes) / (1024.0 * 1024.0), 2) + " MiB"; }

}  // namespace weft::core
