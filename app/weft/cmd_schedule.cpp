#include <iostream>

#include "cli.h"

namespace weft::cli {

int cmd_schedule(Args&) {
  std::cerr << "weft schedule: not implemented yet\n";
  return 4;
}

int cmd_validate(Args&) {
  std::cerr << "weft validate: not implemented yet\n";
  return 4;
}
}  // namespace weft::cli
