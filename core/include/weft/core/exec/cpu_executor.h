#pragma once
// The CPU reference executor: reference kernels, a thread per stream (per CPU when streams outnumber
// the CPUs), the planned arena.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "weft/core/exec/executor.h"

namespace weft::core {

/// The CPU reference executor. run(): validates the schedule (stream order ∪ events must be
/// acyclic and enforce every data edge) and the plan's fit, then runs one thread per stream, or,
/// with more streams than the CPUs the process may use, one per CPU: each takes a free stream
/// whose next node is ready (the one that has waited longest) and runs it while its next node is
/// ready. Events are one-shot latches. Planned tensors are views into one arena allocation at their
/// offsets; other tensors get their own buffers. Weights come from their data (inline or
/// external), else seeded random values (per tensor name); inputs from RunOptions::inputs, else
/// seeded random. Kernels are deterministic: every valid schedule gives bit-identical outputs.
/// Errors whose message starts with "unsupported" name a feature the kernels lack (operator,
/// dtype, attribute mode); other InvalidInput errors name a node, tensor or schedule problem.
/// OpenBLAS is set to one thread (streams are the concurrency).
std::unique_ptr<Executor> make_cpu_executor();

/// One-way latency of the executor's event latch between two of the threads that run `streams`
/// streams, µs: the median of `round_trips` ping-pongs through the executor's own record and
/// wait, halved, with the threads pinned and waiting as such a run pins and waits them (spinning
/// when there are two CPUs or more, else sleeping in the kernel: a wake-up of microseconds to a
/// scheduler tick). The calibrated CPU device's event cost.
double cpu_latch_latency_us(std::size_t streams, int round_trips = 200);

/// How much longer a core takes to read data another core just wrote than data it wrote itself,
/// µs per MiB: the median over `rounds` of a `bytes` buffer written by the thread where a run's
/// stream 0 runs and read where stream 1 runs, less the same read after the reader wrote the
/// buffer itself (threads pinned and waiting as such a run pins and waits them). 0 with one CPU.
/// The calibrated CPU device's cross_core_us_per_mib. About rounds x 4 passes over `bytes`.
double cpu_cross_core_us_per_mib(std::size_t streams, std::size_t bytes = 256 * 1024, int rounds = 64);

/// The cache a core keeps its own data in, bytes (its L2 where the system says, else 1 MiB): the
/// calibrated CPU device's cross_core_max_bytes. O(1).
std::int64_t cpu_core_cache_bytes();

/// `copies` runs of a one-stream schedule at once, each on a thread of its own (pinned to its
/// own CPU when there are that many), started together: what the operators cost while every
/// core runs one (calibration's concurrent_slowdown). Every iteration starts on all copies at
/// once (a barrier), and with several copies warm-up is options.warmup iterations, not time, so
/// that the copies' timed iterations coincide. Results in copy order. Errors: the first
/// failed copy's. Aborts for a schedule of more than one stream.
Expected<std::vector<RunResult>> run_cpu_copies(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan,
                                                const RunOptions& options, std::size_t copies);

/// The CPUs this process may run on (its affinity mask: taskset, cgroups' cpusets), at least 1:
/// the most operators a CPU run runs at once, and the calibrated CPU device's core count.
int cpu_count();

/// The kernel library the CPU executor's library kernels run on, with the version loaded
/// ("oneDNN 2.6.3"); empty in a build without it (CMake option WEFT_ONEDNN off).
std::string cpu_kernel_library();

/// What ran a CPU run's nodes, for reports: "oneDNN 2.6.3 on 190 of 219 nodes (brgconv:avx512_core
/// 54, ...), reference kernels on 29; 1 thread per stream; library scratch 1.20 MiB, weights
/// packed for the library 90.00 MiB". O(kernel kinds).
std::string kernel_paths_text(const RunResult& run);

/// Operators the CPU executor supports (sorted).
std::vector<std::string> cpu_supported_ops();

/// Fails ("unsupported: ...") when some node's operator, domain or input dtype has no kernel. O(V+E).
Status cpu_check_supported(const Graph& graph);

}  // namespace weft::core
