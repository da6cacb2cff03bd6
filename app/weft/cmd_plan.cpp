#include <iostream>

#include "cli.h"

namespace weft::cli {

int cmd_plan(Args&) {
  std::cerr << "weft plan: not implemented yet\n";
  return 4;
}

}  // namespace weft::cli
