#include "weft/core/base/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

extern char** environ;

namespace weft::core {
namespace {

constexpr std::size_t kMaxStderr = 64 * 1024;

struct Pipe {
  int fd[2] = {-1, -1};
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
};

}  // namespace

Expected<ProcessResult> run_process(const std::vector<std::string>& argv, std::string_view input, double timeout_s) {
  if (argv.empty() || argv.front().empty()) return make_error(ErrorKind::Runtime, "no program to run");
  Pipe in, out, err;
  for (Pipe* p : {&in, &out, &err})
    if (::pipe2(p->fd, O_CLOEXEC) != 0) return make_error(ErrorKind::Runtime, std::string("pipe: ") + std::strerror(errno));

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return make_error(ErrorKind::Runtime, "cannot run '" + argv[0] + "': " + std::strerror(rc));
  in.close_end(0);
  out.close_end(1);
  err.close_end(1);
  ::fcntl(in.fd[1], F_SETFL, O_NONBLOCK);

  // A closed reader must not kill us with SIGPIPE while we write its input.
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &old);

  ProcessResult r;
  std::size_t written = 0;
  if (input.empty()) in.close_end(1);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  char buf[65536];
  while (out.fd[0] >= 0 || err.fd[0] >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd fds[3];
    nfds_t n = 0;
    for (int f : {out.fd[0], err.fd[0]})
      if (f >= 0) fds[n++] = pollfd{f, POLLIN, 0};
    if (in.fd[1] >= 0) fds[n++] = pollfd{in.fd[1], POLLOUT, 0};
    const int ready = ::poll(fds, n, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (nfds_t i = 0; i < n && ready > 0; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in.fd[1]) {
        const ssize_t w = ::write(in.fd[1], input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if (w < 0 && errno != EAGAIN && errno != EINTR) in.close_end(1);  // the program stopped reading
        else if (written == input.size()) in.close_end(1);
        continue;
      }
      const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        if (fds[i].fd == out.fd[0]) {
          r.out.append(buf, static_cast<std::size_t>(got));
        } else {
          r.err.append(buf, static_cast<std::size_t>(got));
          if (r.err.size() > kMaxStderr) r.err.erase(0, r.err.size() - kMaxStderr);
        }
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        (fds[i].fd == out.fd[0] ? out : err).close_end(0);
      }
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::sigaction(SIGPIPE, &old, nullptr);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace weft::core
