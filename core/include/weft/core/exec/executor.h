#pragma once
// The executor interface shared by the CPU reference backend and the CUDA backend.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weft/core/graph/graph.h"
#include "weft/core/graph/host_tensor.h"
#include "weft/core/memory/memory_plan.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/schedule/timeline.h"

namespace weft::core {

/// Which kernels the CPU executor runs.
enum class KernelSet : std::uint8_t {
  /// oneDNN (and copy routines) for the operators it covers, prepared once per run; the
  /// reference kernels for every other node.
  Library,
  /// The reference kernels only: the conformance oracle the library kernels are checked against.
  Reference,
};

/// Library kernels one CPU run prepared (primitives made, weights packed), for other runs of
/// the same graph, schedule and options to run as they are: run_cpu_copies' copies hold one set
/// of packed weights, as the streams of one run do. Opaque; see make_library_kernel_share().
struct LibraryKernelShare;
std::shared_ptr<LibraryKernelShare> make_library_kernel_share();

struct RunOptions {
  int iterations = 1;        ///< timed iterations (median is reported)
  int warmup = 1;
  /// CPU, with warmup > 0: warm-up also lasts this long at least (ms), ending with an iteration:
  /// a core a stream thread lands on after idling runs its first milliseconds slow. 0: `warmup`
  /// iterations only.
  double warmup_ms = 25;
  std::uint64_t seed = 42;   ///< seeds random inputs and absent weights
  std::map<std::string, HostTensor> inputs;  ///< by graph-input name; others are seeded random
  bool per_node_timing = true;
  /// Verify the plan against the schedule (check_plan: no two conflicting tensors share bytes)
  /// before running. Off only to demonstrate what the checker prevents.
  bool check_plan = true;
  /// Each row of a matrix product (Gemm, MatMul) computed by its own BLAS call, so that a row's
  /// bits do not depend on how many rows the product has: OpenBLAS picks kernels by shape (on
  /// AVX-512 an M = 4 product's rows can differ in the last bits from the same rows of M = 8).
  /// compare_runs turns it on for both runs when the reference is another graph (a micro-batch
  /// split or a horizontal merge), whose outputs are then compared bit for bit. Slower.
  bool batch_invariant = false;
  /// CPU: the kernels to run (KernelSet::Library unless the reference is asked for).
  KernelSet kernels = KernelSet::Library;
  /// CPU: the threads of each stream's library team (intra-operator parallelism); streams x
  /// threads_per_stream must fit the CPUs the process may use. 1: every stream runs its nodes on
  /// its own thread alone. A node the schedule gives a team of its own (Schedule::node_threads)
  /// runs on that team instead, every node of it's on every CPU the process may use.
  int threads_per_stream = 1;
  /// CPU: called on the calling thread before each iteration (warm-ups included), before the
  /// iteration's clock starts. run_cpu_copies hands its copies one barrier here, so that their
  /// iterations run at the same time whatever each copy's preparation took. Empty: nothing.
  std::function<void()> before_iteration;
  /// CPU: prepared by the first run that has it empty, run as they are by the others (which
  /// must run the same graph, schedule, kernels and team sizes). Null: each run its own.
  std::shared_ptr<LibraryKernelShare> library_kernels;
};

struct RunResult {
  std::map<std::string, HostTensor> outputs;  ///< by graph-output name
  Timeline timeline;          ///< measured, of the median iteration
  double wall_ms = 0;         ///< median wall time of one iteration
  std::vector<double> iteration_ms;  ///< every timed iteration, in run order
  /// Per node, the median of its durations over the timed iterations, µs (-1 where it did not
  /// run); empty without per-node timing. Steadier than the median iteration's own node times,
  /// which one descheduled node can spoil: calibration reads these.
  std::vector<double> node_median_us;
  std::int64_t arena_bytes = 0;       ///< the plan's arena (one allocation)
  std::int64_t random_weights = 0;    ///< weights without data (absent files) given seeded values
  /// Merged nodes (core::merge_graph) by how the executor launched their members, e.g. "members
  /// in turn" (the CPU's, and the CUDA executor's fallback) or "cuBLASLt bias-epilogue GEMM,
  /// pointer arrays"; empty for a graph without merged nodes.
  std::map<std::string, std::int64_t> merged_paths;
  /// CPU: nodes by the kernel that ran them ("oneDNN brgconv:avx512_core", "reference"); empty
  /// from other executors.
  std::map<std::string, std::int64_t> kernel_paths;
  /// CPU: bytes the library kernels hold beside the arena: scratch (each worker thread's, sized
  /// for the largest need among the nodes it may run) and weights reordered for the library.
  std::int64_t library_scratch_bytes = 0;
  std::int64_t packed_weight_bytes = 0;
  /// CPU: intermediate tensors the library kernels kept channels-last between them (the same
  /// bytes in another order: the arena does not change).
  std::int64_t channels_last_tensors = 0;
  int threads_per_stream = 1;  ///< the team size each stream ran with
  /// CPU: nodes that ran on a team other than their stream's (Schedule::node_threads, hybrid
  /// parallelism) and the largest such team; 0 when none.
  std::int64_t node_team_nodes = 0;
  int node_team_threads = 0;
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual std::string name() const = 0;
  /// Runs graph under schedule with plan. Errors: InvalidInput (unsupported operator, plan
  /// that does not fit), Runtime (device failures).
  virtual Expected<RunResult> run(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan,
                                  const RunOptions& options) = 0;
};

}  // namespace weft::core
