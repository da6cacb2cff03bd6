#pragma once
// Where the GPU tests find their data and programs: the build tree's paths, or, in the GPU bundle
// (a relocatable build compiles in none), folders beside the test binary; environment variables
// override both (WEFT_TEST_DATA_DIR, WEFT_CLI).
#include <cstdlib>
#include <filesystem>
#include <string>

namespace weft::test {

inline std::string program_dir() {
  std::error_code ec;
  return std::filesystem::read_symlink("/proc/self/exe", ec).parent_path().string();
}

inline std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

/// tests/data (models/ under it).
inline std::string test_data_dir() {
  const std::string built = WEFT_TEST_DATA_DIR;
  return env_or("WEFT_TEST_DATA_DIR", built.empty() ? program_dir() + "/data" : built);
}

/// The weft binary the CLI-level tests run.
inline std::string weft_cli() {
  const std::string built = WEFT_CLI_PATH;
  return env_or("WEFT_CLI", built.empty() ? program_dir() + "/weft" : built);
}

/// The start-up measuring helper (spawn_measure.cpp), built beside the tests.
inline std::string spawn_measure() { return env_or("WEFT_SPAWN_MEASURE", program_dir() + "/weft_spawn_measure"); }

inline std::string model_file(const std::string& name) { return test_data_dir() + "/models/" + name + ".onnx"; }

}  // namespace weft::test
