#include <iostream>

#include "cli.h"

namespace weft::cli {

int cmd_run(Args&) {
  std::cerr << "weft run: not implemented yet\n";
  return 4;
}

}  // namespace weft::cli
