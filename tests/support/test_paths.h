#pragma once
// Where tests find their data and the programs they run. The build compiles in paths that are the
// same in every build folder (the source tree's tests/data, and the weft binary relative to the
// test program's own folder), so the test objects of one preset serve another from ccache
// (tests/CMakeLists.txt); in the GPU bundle (a relocatable build) data and programs sit beside the
// test binary. Environment variables override both (WEFT_TEST_DATA_DIR, WEFT_CLI).
#include <cstdlib>
#include <filesystem>
#include <string>

namespace weft::test {

/// The folder of the running test program.
inline std::string program_dir() {
  std::error_code ec;
  return std::filesystem::read_symlink("/proc/self/exe", ec).parent_path().string();
}

inline std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

/// A path compiled in relative to the test program's folder, made absolute.
inline std::string beside_program(const std::string& relative) {
  return (std::filesystem::path(program_dir()) / relative).lexically_normal().string();
}

/// tests/data (models/ under it).
inline std::string test_data_dir() {
  const std::string built = WEFT_TEST_DATA_DIR;
  return env_or("WEFT_TEST_DATA_DIR", built.empty() ? program_dir() + "/data" : built);
}

/// The weft binary the CLI-level tests run ($WEFT_CLI, e.g. a sanitizer build's weft, overrides).
inline std::string weft_cli() { return env_or("WEFT_CLI", beside_program(WEFT_CLI_RELATIVE)); }

}  // namespace weft::test
