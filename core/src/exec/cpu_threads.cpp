// The CPU executor's threads: CPU sets, worker counts, pinning, and the waits (cpu_threads.h).
#include "cpu_threads.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace weft::core::detail {
namespace {

using Clock = std::chrono::steady_clock;

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

// The CPUs this process may run on (taskset, cgroups), in order.
std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

// The threads that run a schedule of `streams` streams: one per stream, but never more than the
// CPUs this process may use. With more streams than CPUs, one thread per CPU takes the streams in
// turn (StreamPool): threads that outnumber the cores sleep in their waits and share cores by
// the scheduler's time slices, and the run then depends on when the kernel wakes them
// (transformer4h, 8 streams as 8 threads on 2 cores: 0.35-1.08x the sequential run, against a
// prediction of 1.7x).
// With a library team of `team` threads per stream, each worker takes `team` CPUs.
std::size_t worker_count(const std::vector<int>& cpus, std::size_t streams, std::size_t team) {
  const std::size_t usable = cpus.empty() ? std::max(1u, std::thread::hardware_concurrency()) : cpus.size();
  return std::min(streams, std::max<std::size_t>(usable / std::max<std::size_t>(team, 1), 1));
}

// Every worker has CPUs of its own (`team` each): the workers are pinned and their waits spin.
// A single worker is never pinned: it waits for no other, and it keeps the caller's CPUs (a
// copy's, in run_cpu_copies) for its team.
bool owns_cpus(const std::vector<int>& cpus, std::size_t workers, std::size_t team) {
  return cpus.size() >= 2 && workers >= 2 && workers * team <= cpus.size();
}

// Worker w's thread on the w-th allowed CPU (a worker per stream, or per CPU).
// Unpinned, the scheduler wakes every stream thread on the core of the thread that released them
// (wake-affine placement), and on a run of a few milliseconds they take turns on one core while
// the other idles: the streams then run one after the other (grouped_mlp on 2 streams measured
// 0.96-1.00x instead of the 2x its independent chains allow; pinned, 1.86-2.19x). With more
// streams than CPUs the scheduler balances them as they block and wake.
void pin_to_cpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);  // best effort: unpinned still runs
}

// Worker w's thread, and the library team it starts, on the w-th group of `team` allowed CPUs
// (the team's helpers inherit the mask when the OpenMP runtime creates them).
void pin_to(const std::vector<int>& cpus, std::size_t worker, std::size_t workers, std::size_t team) {
  if (!owns_cpus(cpus, workers, team)) return;
  if (team <= 1) {
    pin_to_cpu(cpus[worker]);
    return;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  for (std::size_t c = worker * team; c < (worker + 1) * team; ++c) CPU_SET(cpus[c], &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);  // best effort
}


// Waits until `value` is no longer `old`. When every stream has a CPU of its own (`spin`) it
// spins first: a stream thread that sleeps in the kernel leaves its virtual CPU idle, and waking
// it again took up to a scheduler tick on these VMs (grouped_mlp, 2 streams on 2 vCPUs:
// iterations of 0.3 to 4.6 ms for one of 0.24, plateaus at 4.0 ms). The spin gives up after a
// millisecond, so that threads sharing their cores with other processes still make way.
// While a wide node runs (`quiet` non-zero) the waiter sleeps at once: the node's team has a
// thread on every CPU, the waiter's included.
void await_change(const std::atomic<std::uint32_t>& value, std::uint32_t old, bool spin, const std::atomic<std::uint32_t>* quiet) {
  constexpr auto kSpin = std::chrono::milliseconds(1);
  if (spin) {
    const Clock::time_point until = Clock::now() + kSpin;
    for (unsigned i = 1; value.load(std::memory_order_acquire) == old; ++i) {
      if (quiet && quiet->load(std::memory_order_relaxed) != 0) break;
      cpu_relax();
      if (i % 64 == 0 && Clock::now() > until) break;
    }
  }
  while (value.load(std::memory_order_acquire) == old) value.wait(old, std::memory_order_acquire);
}

}  // namespace weft::core::detail
