#pragma once
// The executor interface shared by the CPU reference backend and the CUDA backend.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/execution_order.h"
#include "weft/core/graph.h"
#include "weft/core/memory_plan.h"
#include "weft/core/schedule.h"
#include "weft/core/timeline.h"

namespace weft::core {

/// A host tensor value (outputs, inputs read from .pb files).
struct HostTensor {
  DType dtype = DType::Float32;
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> bytes;  ///< little-endian, row-major
};

struct RunOptions {
  int iterations = 1;        ///< timed iterations (median is reported)
  int warmup = 1;
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
};

struct RunResult {
  std::map<std::string, HostTensor> outputs;  ///< by graph-output name
  Timeline timeline;          ///< measured, of the median iteration
  double wall_ms = 0;         ///< median wall time of one iteration
  std::vector<double> iteration_ms;  ///< every timed iteration, in run order
  std::int64_t arena_bytes = 0;       ///< the plan's arena (one allocation)
  std::int64_t random_weights = 0;    ///< weights without data (absent files) given seeded values
};

/// How two runs' outputs compare: the largest |a − b| over every output element, NaN when an
/// output is missing, shapes or dtypes differ or only one side is NaN (NaN on both sides agrees);
/// identical when every output's bytes match. O(output bytes).
struct OutputDiff {
  double max_abs_diff = 0;
  bool identical = true;
};
OutputDiff compare_outputs(const RunResult& a, const RunResult& b);

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

// ---- Shared by every executor (CPU reference, CUDA): same starting data, same checks ----
namespace weft::core {

/// Seeded values for a tensor without data: splitmix64 seeded with `seed` xor the FNV-1a hash of
/// the tensor's name (so values do not depend on ids or preparation order). Weights of rank >= 2
/// are uniform with variance 1/fan_in; 1-D weights in [0.5, 1) (keeps BN variances positive);
/// inputs in [-1, 1); integers zero. Writes t.bytes() bytes to `out`. O(elements).
void fill_initial_value(const Tensor& t, std::uint64_t seed, bool is_weight, std::uint8_t* out);

/// The value graph input or weight `t` starts a run with: the input from options.inputs (dtype
/// and shape checked), the weight's data (inline or external file), else fill_initial_value.
/// `seeded` (optional) is set when seeded values stood in for an absent weight. Errors
/// (InvalidInput) name the tensor. Both backends call this, so their data is bit-identical.
Expected<HostTensor> initial_value(const Graph& graph, TensorId t, const RunOptions& options, bool* seeded = nullptr);

/// What every executor checks before running: the schedule places each node once, stream order
/// ∪ events is acyclic and enforces every data edge, the plan fits the graph, and (when
/// options.check_plan) check_plan accepts it for this schedule. InvalidInput errors. Returns the
/// schedule's checked execution order, which the executor then reads (each node's stream, the
/// events it waits for and records, a topological order) rather than rebuilding it.
/// O((V + E)·S) without check_plan.
Expected<ExecutionOrder> check_run(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan,
                                   const RunOptions& options);

/// After the timed iterations (result.iteration_ms, and per iteration its node items in
/// item_runs, possibly empty): the median iteration gives result.wall_ms and the measured
/// timeline (kind Measured, backend `backend`, the schedule's strategy, run_label's "measured
/// <backend> <strategy>", `device`, the schedule's streams and events, a flat arena counter of
/// `arena_bytes`); result.arena_bytes is set.
void finish_measured_run(RunResult& result, std::vector<std::vector<TimelineItem>> item_runs, const Schedule& schedule,
                         std::int64_t arena_bytes, std::string_view backend, std::string device);

}  // namespace weft::core
