#pragma once
// The CPU executor's threads: which CPUs the process may use, how many stream workers a run
// gets and where they are pinned, and the waits that stand in for events (spinning only where a
// worker owns its CPU). Private to exec.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <pthread.h>
#include <sched.h>

namespace weft::core::detail {

/// The CPUs this process may run on (taskset, cgroups), in order; empty when unknown.
std::vector<int> allowed_cpus();
/// The worker threads for `streams` streams with a library team of `team` threads each: one per
/// stream, never more than the CPUs allow.
std::size_t worker_count(const std::vector<int>& cpus, std::size_t streams, std::size_t team = 1);
/// Every worker has CPUs of its own (`team` each): the workers are pinned and their waits spin.
bool owns_cpus(const std::vector<int>& cpus, std::size_t workers, std::size_t team = 1);
/// The calling thread on one CPU (best effort).
void pin_to_cpu(int cpu);
/// Worker `worker`'s thread, and the team it starts, on its group of `team` allowed CPUs.
void pin_to(const std::vector<int>& cpus, std::size_t worker, std::size_t workers, std::size_t team = 1);
/// Waits until `value` is no longer `old`, spinning up to a millisecond first when `spin`, and
/// only while `quiet` (when given) is 0: a wide node's team needs the core a spinning waiter holds.
void await_change(const std::atomic<std::uint32_t>& value, std::uint32_t old, bool spin,
                  const std::atomic<std::uint32_t>* quiet = nullptr);

// The iteration's start and end for the stream threads (a central barrier whose waits are
// await_change's).
class IterationBarrier {
 public:
  IterationBarrier(std::uint32_t threads, bool spin, const std::atomic<std::uint32_t>* quiet = nullptr)
      : m_threads(threads), m_spin(spin), m_quiet(quiet) {}
  /// Arrives for `count` threads (more than one: the caller stands in for threads that never
  /// started) and waits for the rest.
  void arrive_and_wait(std::uint32_t count = 1) {
    const std::uint32_t generation = m_generation.load(std::memory_order_acquire);
    if (m_arrived.fetch_add(count, std::memory_order_acq_rel) + count == m_threads) {
      m_arrived.store(0, std::memory_order_relaxed);
      m_generation.store(generation + 1, std::memory_order_release);
      m_generation.notify_all();
      return;
    }
    await_change(m_generation, generation, m_spin, m_quiet);
  }

 private:
  const std::uint32_t m_threads;
  const bool m_spin;
  const std::atomic<std::uint32_t>* m_quiet;
  std::atomic<std::uint32_t> m_arrived{0};
  std::atomic<std::uint32_t> m_generation{0};
};

// The calling thread on every CPU of `cpus` while it runs a node on a team wider than its own
// (hybrid parallelism), and back on its own CPUs after: a pinned worker's OpenMP helpers inherit
// its mask when they start, so a team started on one CPU would share that CPU. Switches lazily:
// consecutive wide nodes keep the wide mask.
class WideMask {
 public:
  /// `pinned`: the worker runs pinned (owns_cpus); otherwise its mask is every CPU already.
  WideMask(const std::vector<int>& cpus, std::size_t worker, std::size_t workers, std::size_t team, bool pinned)
      : m_cpus(cpus), m_worker(worker), m_workers(workers), m_team(team), m_pinned(pinned) {}
  /// Before each node: wide or the worker's own CPUs.
  void set(bool wide) {
    if (!m_pinned || wide == m_wide) return;
    m_wide = wide;
    if (!wide) {
      pin_to(m_cpus, m_worker, m_workers, m_team);
      return;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : m_cpus) CPU_SET(c, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);  // best effort
  }

 private:
  const std::vector<int>& m_cpus;
  std::size_t m_worker, m_workers, m_team;
  bool m_pinned;
  bool m_wide = false;
};

// The calling thread is worker 0: pinned like the other workers for the run, its own CPU mask
// restored afterwards.
class CallerPin {
 public:
  CallerPin(const std::vector<int>& cpus, std::size_t workers, std::size_t team = 1) {
    if (!owns_cpus(cpus, workers, team)) return;
    CPU_ZERO(&m_saved);
    if (pthread_getaffinity_np(pthread_self(), sizeof(m_saved), &m_saved) != 0) return;
    m_pinned = true;
    pin_to(cpus, 0, workers, team);
  }
  ~CallerPin() {
    if (m_pinned) pthread_setaffinity_np(pthread_self(), sizeof(m_saved), &m_saved);
  }
  CallerPin(const CallerPin&) = delete;
  CallerPin& operator=(const CallerPin&) = delete;

 private:
  cpu_set_t m_saved;
  bool m_pinned = false;
};

}  // namespace weft::core::detail
