#include <iostream>

#include "cli.h"

namespace weft::cli {

int cmd_devices(Args&) {
  std::cerr << "weft devices: not implemented yet\n";
  return 4;
}

}  // namespace weft::cli
