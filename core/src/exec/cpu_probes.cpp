// The CPU probes calibration runs beside the executor: copies of a one-stream run at once
// (contention between cores), a latch's round trip between two pinned threads (the cost of an
// event) and a buffer written by one of them and read by the other (the cost of a tensor that
// crosses streams).
#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <latch>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include <unistd.h>

#include "cpu_threads.h"
#include "weft/core/base/median.h"
#include "weft/core/exec/cpu_executor.h"

namespace weft::core {
namespace {

using detail::allowed_cpus;
using detail::await_change;
using detail::CallerPin;
using detail::owns_cpus;
using detail::pin_to;
using detail::worker_count;
using Clock = std::chrono::steady_clock;

// Records as a node's latch is recorded: a store, then a wake-up.
void record(std::atomic<std::uint32_t>& latch, std::uint32_t value) {
  latch.store(value, std::memory_order_release);
  latch.notify_all();
}

}  // namespace

Expected<std::vector<RunResult>> run_cpu_copies(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan,
                                                const RunOptions& options, std::size_t copies) {
  WEFT_CHECK_MSG(schedule.streams.size() == 1, "run_cpu_copies: a one-stream schedule (the executor pins the threads of others)");
  const std::vector<int> cpus = allowed_cpus();
  const auto team = static_cast<std::size_t>(std::max(options.threads_per_stream, 1));
  std::vector<std::optional<Expected<RunResult>>> results(copies);
  std::latch start(static_cast<std::ptrdiff_t>(copies));
  // Each iteration starts on every copy at once: a copy's preparation (the library's primitives
  // and packed weights) can take longer than all its iterations, which then ran beside another
  // copy's preparation, or beside nothing, and the contention they measured was too small.
  std::barrier<> iteration(static_cast<std::ptrdiff_t>(copies));
  RunOptions each = options;
  each.before_iteration = [&iteration] { iteration.arrive_and_wait(); };
  // One set of library kernels and packed weights for all copies: copies holding their own
  // doubled the weights the caches saw (grouped_mlp: 2 x 12.5 MiB against a 32 MiB L3, where a
  // run on two streams reads 12.5), and the probe measured contention the run did not have.
  if (!each.library_kernels) each.library_kernels = make_library_kernel_share();
  // Warm-up by count only: a copy warming up by time could stop before another, and its timed
  // iterations would start beside the other's warm-up (the caller sizes the count).
  if (copies > 1) each.warmup_ms = 0;
  {
    std::vector<std::jthread> threads;
    threads.reserve(copies);
    try {
      for (std::size_t c = 0; c < copies; ++c)
        threads.emplace_back([&, c] {
          // Each copy on CPUs of its own: one, or a team's worth (its library team inherits the mask).
          if (cpus.size() >= copies * team) pin_to(cpus, c, std::max<std::size_t>(copies, 2), team);
          start.arrive_and_wait();
          results[c] = make_cpu_executor()->run(graph, schedule, plan, each);
          // Leaves the barrier: the others' remaining iterations (all of them when this copy
          // failed) do not wait for it.
          iteration.arrive_and_drop();
        });
    } catch (const std::system_error& e) {
      start.count_down(static_cast<std::ptrdiff_t>(copies - threads.size()));  // release the started ones
      threads.clear();  // join
      return make_error(ErrorKind::Runtime, std::string("could not start a thread per copy: ") + e.what());
    }
  }  // join
  std::vector<RunResult> out;
  for (auto& r : results) {
    if (!*r) return r->error();
    out.push_back(std::move(**r));
  }
  return out;
}

double cpu_latch_latency_us(std::size_t streams, int round_trips) {
  const std::vector<int> cpus = allowed_cpus();
  const std::size_t workers = std::max<std::size_t>(worker_count(cpus, streams), 2);
  const bool spin = owns_cpus(cpus, workers);
  std::atomic<std::uint32_t> ping{0}, pong{0};
  std::vector<double> trips;
  trips.reserve(static_cast<std::size_t>(std::max(round_trips, 1)));
  // Each side records as a node's latch is recorded and waits as run_node waits; the echo runs
  // where worker 1 runs.
  std::jthread echo([&] {
    pin_to(cpus, 1, workers);
    for (std::uint32_t i = 1; i <= static_cast<std::uint32_t>(round_trips); ++i) {
      await_change(ping, i - 1, spin);
      record(pong, i);
    }
  });
  const CallerPin caller_pin(cpus, workers);
  for (std::uint32_t i = 1; i <= static_cast<std::uint32_t>(round_trips); ++i) {
    const auto t0 = Clock::now();
    record(ping, i);
    await_change(pong, i - 1, spin);
    trips.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  return 0.5 * upper_middle(trips);
}

double cpu_cross_core_us_per_mib(std::size_t streams, std::size_t bytes, int rounds) {
  const std::vector<int> cpus = allowed_cpus();
  if (cpus.size() < 2 || rounds < 1 || bytes < 64) return 0;  // one CPU: every stream reads what its own core wrote
  const std::size_t workers = std::max<std::size_t>(worker_count(cpus, streams), 2);
  const bool spin = owns_cpus(cpus, workers);
  // One word per cache line is read: the transfer is per line, and an operator's own
  // arithmetic overlaps it no more than a sum does.
  constexpr std::size_t kWordsPerLine = 64 / sizeof(std::uint64_t);
  std::vector<std::uint64_t> buffer(bytes / sizeof(std::uint64_t));
  const auto write = [&](std::uint64_t value) {
    for (std::size_t i = 0; i < buffer.size(); i += kWordsPerLine) buffer[i] = value;
  };
  const auto read = [&] {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < buffer.size(); i += kWordsPerLine) sum += buffer[i];
    return sum;
  };
  std::atomic<std::uint32_t> written{0}, taken{0};
  std::atomic<std::uint64_t> sink{0};
  std::vector<double> extra_us;
  extra_us.reserve(static_cast<std::size_t>(rounds));
  std::jthread reader([&] {
    pin_to(cpus, 1, workers);
    for (std::uint32_t i = 1; i <= static_cast<std::uint32_t>(rounds); ++i) {
      await_change(written, i - 1, spin);
      const auto t0 = Clock::now();
      std::uint64_t sum = read();
      const auto t1 = Clock::now();
      write(i);
      const auto t2 = Clock::now();
      sum += read();
      const auto t3 = Clock::now();
      sink.fetch_add(sum, std::memory_order_relaxed);
      extra_us.push_back(std::chrono::duration<double, std::micro>((t1 - t0) - (t3 - t2)).count());
      record(taken, i);
    }
  });
  const CallerPin caller_pin(cpus, workers);
  for (std::uint32_t i = 1; i <= static_cast<std::uint32_t>(rounds); ++i) {
    write(i);
    record(written, i);
    await_change(taken, i - 1, spin);
  }
  reader.join();
  return std::max(0.0, upper_middle(extra_us)) * static_cast<double>(1 << 20) / static_cast<double>(buffer.size() * sizeof(std::uint64_t));
}

std::int64_t cpu_core_cache_bytes() {
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return l2 > 0 ? static_cast<std::int64_t>(l2) : std::int64_t{1} << 20;
}

}  // namespace weft::core
