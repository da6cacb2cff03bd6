#pragma once
// Runs the built `weft` binary (WEFT_CLI_PATH) for the CLI tests and captures what it prints.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace weft::test {

struct CliResult {
  int code = -1;    ///< exit status (-1: did not exit normally)
  std::string out;  ///< stdout (and stderr with StderrMode::Merge)
  std::string err;  ///< stderr with StderrMode::Separate
};

enum class StderrMode { Merge, Separate, Discard };

inline std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / name).string();
}

inline CliResult run_cli(const std::string& args, StderrMode mode = StderrMode::Merge) {
  CliResult r;
  const std::string err_path = temp_path("weft_cli_stderr_" + std::to_string(::getpid()) + ".txt");
  const std::string redirect = mode == StderrMode::Merge ? " 2>&1" : mode == StderrMode::Discard ? " 2>/dev/null" : " 2>" + err_path;
  FILE* p = ::popen((std::string(WEFT_CLI_PATH) + " " + args + redirect).c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  while (const std::size_t n = std::fread(buf.data(), 1, buf.size(), p)) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (mode == StderrMode::Separate) {
    std::ifstream in(err_path);
    std::ostringstream ss;
    ss << in.rdbuf();
    r.err = ss.str();
    std::filesystem::remove(err_path);
  }
  return r;
}

/// tests/data/models/<name>.onnx (".onnx" added unless present).
inline std::string model_path(const std::string& name) {
  const bool has_ext = name.size() > 5 && name.compare(name.size() - 5, 5, ".onnx") == 0;
  return std::string(WEFT_TEST_DATA_DIR) + "/models/" + name + (has_ext ? "" : ".onnx");
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace weft::test
