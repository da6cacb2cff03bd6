#pragma once
// Runs the built `weft` binary (test_paths.h weft_cli()) for the CLI tests and captures what it prints
// (fork + exec: no shell runs, so no argument is ever interpreted).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_paths.h"

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

/// Runs weft_cli() (the build's weft, or $WEFT_CLI) with `args` (argv[1...])
/// directly, never through a shell, in folder `cwd` (empty: the current one). stdout (and
/// stderr, per mode) is captured through a pipe.
inline CliResult run_argv(const std::vector<std::string>& args, StderrMode mode = StderrMode::Merge,
                          const std::string& cwd = {}) {
  CliResult r;
  const std::string err_path = temp_path("weft_cli_stderr_" + std::to_string(::getpid()) + ".txt");
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return r;
  std::vector<std::string> argv_text{weft_cli()};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipe_fds[1], 1);
    if (mode == StderrMode::Merge) {
      ::dup2(pipe_fds[1], 2);
    } else {
      const int fd = ::open(mode == StderrMode::Discard ? "/dev/null" : err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (fd >= 0) ::dup2(fd, 2);
    }
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  std::array<char, 4096> buf{};
  for (;;) {
    const ssize_t n = ::read(pipe_fds[0], buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    r.out.append(buf.data(), static_cast<std::size_t>(n));
  }
  ::close(pipe_fds[0]);
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return r;
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

/// Same, with the arguments as one string split at whitespace (no quoting: no shell ever runs).
inline CliResult run_cli(const std::string& args, StderrMode mode = StderrMode::Merge) {
  std::vector<std::string> words;
  std::istringstream in(args);
  for (std::string w; in >> w;) words.push_back(w);
  return run_argv(words, mode);
}

/// tests/data/models/<name>.onnx (".onnx" added unless present).
inline std::string model_path(const std::string& name) {
  const bool has_ext = name.size() > 5 && name.compare(name.size() - 5, 5, ".onnx") == 0;
  return std::string(WEFT_TEST_DATA_DIR) + "/models/" + name + (has_ext ? "" : ".onnx");
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace weft::test
