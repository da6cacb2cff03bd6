// weft-synth: writes one synthetic model (bench/synthetic_models.h) as an ONNX file, for timing
// whole `weft` commands on it (docs/performance.md).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "synthetic_models.h"

int main(int argc, char** argv) {
  using namespace weft::bench;
  SyntheticFamily family{};
  if (argc < 4 || argc > 5 || !parse_family(argv[1], family)) {
    std::fprintf(stderr, "usage: weft-synth layered|transformer|moe|randwire|wide|longrange|bursty OPERATORS OUT.onnx [SEED]\n");
    return 1;
  }
  const long operators = std::strtol(argv[2], nullptr, 10);
  if (operators < 1 || operators > 10'000'000) {
    std::fprintf(stderr, "weft-synth: error: OPERATORS must be 1..10000000, not '%s'\n", argv[2]);
    return 1;
  }
  const std::uint64_t seed = argc == 5 ? std::strtoull(argv[4], nullptr, 10) : 1;
  std::string error;
  const int made = write_synthetic_model(argv[3], family, static_cast<int>(operators), seed, error);
  if (made < 0) {
    std::fprintf(stderr, "weft-synth: error: %s\n", error.c_str());
    return 2;
  }
  std::printf("%s: %s, %d operators\n", argv[3], argv[1], made);
  return 0;
}
