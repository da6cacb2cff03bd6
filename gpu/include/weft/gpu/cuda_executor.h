#pragma once
// The CUDA executor: the schedule's streams as CUDA streams, its events as CUDA events, the memory
// plan as one device arena. No CUDA types here: callers need not have the toolkit.
#include <memory>
#include <string>
#include <vector>

#include "weft/core/executor.h"

namespace weft::gpu {

/// What the CUDA executor does beyond core::RunOptions (which gives iterations, warm-up, seed,
/// inputs, per-node timing and the plan check).
struct CudaRunOptions {
  int device = 0;
  /// Capture the whole multi-stream schedule once as a CUDA Graph (fork from stream 0 by an
  /// event, join back), instantiate it and time replays. Per-node timing is not available in
  /// this mode (the timeline stays empty); wall times are events around each launch.
  bool cuda_graph = false;
  /// Allow TF32 tensor cores in cuBLAS and cuDNN. Off by default so that outputs compare with
  /// the CPU reference within float32 rounding (FMA order aside).
  bool tf32 = false;
  /// NVTX ranges: one per run ("weft <strategy>") and per node (name and operator, coloured by
  /// stream), streams named "weft stream <i>". Costs a few hundred ns per node when a tool listens.
  bool nvtx = true;
};

/// The CUDA executor. run(): cuda_check_supported, core::check_run, then one non-blocking stream
/// per schedule stream, one event per schedule event (recorded after its producer, waited before
/// its consumer), the arena as one device allocation at the plan's offsets, weights and inputs
/// (core::initial_value: the CPU executor's exact data) in a second allocation, unplanned
/// outputs in a third; a cuBLAS and a cuDNN handle and a workspace per stream. With
/// RunOptions::per_node_timing an event pair around each node gives a "measured" timeline (µs
/// from the iteration's start, on the schedule's streams) of the median iteration; without it
/// only wall times. Every CUDA, cuBLAS and cuDNN call is checked: errors are Runtime values naming
/// the node and the call (allocation failures name the size). Built without CUDA, run() fails
/// (Runtime, "built without CUDA").
std::unique_ptr<core::Executor> make_cuda_executor(const CudaRunOptions& options = {});

/// Operators the CUDA executor supports (sorted); float32 only.
std::vector<std::string> cuda_supported_ops();

/// Fails (InvalidInput, "unsupported: operator X at node Y ...") when some node has no CUDA
/// kernel for its operator, attributes, dtypes or shapes. Nothing is launched. O(V+E).
core::Status cuda_check_supported(const core::Graph& graph);

}  // namespace weft::gpu
