#include <iostream>

#include "cli.h"

namespace weft::cli {

int cmd_simulate(Args&) {
  std::cerr << "weft simulate: not implemented yet\n";
  return 4;
}

}  // namespace weft::cli
