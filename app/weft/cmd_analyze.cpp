#include <iostream>

#include "cli.h"

namespace weft::cli {

int cmd_analyze(Args&) {
  std::cerr << "weft analyze: not implemented yet\n";
  return 4;
}

}  // namespace weft::cli
