#pragma once
// The executor interface shared by the CPU reference backend and the CUDA backend.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

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
