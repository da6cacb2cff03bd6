#pragma once
// The CUDA executor: the schedule's streams as CUDA streams, its events as CUDA events, the memory
// plan as one device arena. No CUDA types here: callers need not have the toolkit. The executor
// lives in the CUDA module (see devices.h), loaded by the first call below that needs it.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/exec/executor.h"

namespace weft::gpu {

/// What the CUDA executor does beyond core::RunOptions (which gives iterations, warm-up, seed,
/// inputs, per-node timing and the plan check).
struct CudaRunOptions {
  int device = 0;
  /// Capture the whole multi-stream schedule once as a CUDA Graph (fork from stream 0 by an
  /// event, join back), instantiate it and time replays. One eager iteration runs and is
  /// synchronised first (first uses of cuBLAS and cuDNN handles may allocate or load kernels,
  /// which capture forbids). Per-node timing is not available in this mode (the timeline stays
  /// empty); wall times are events around each launch.
  bool cuda_graph = false;
  /// Allow TF32 tensor cores in cuBLAS and cuDNN (convolutions take the math type of the
  /// algorithm cuDNN chose). Off by default so that outputs compare with the CPU reference
  /// within float32 rounding (FMA order aside).
  bool tf32 = false;
  /// NVTX ranges: one per run ("weft <strategy>") and per node (name and operator, coloured by
  /// stream), streams named "weft stream <i>". Costs a few hundred ns per node when a tool listens.
  bool nvtx = true;
};

/// The CUDA executor. run(): cuda_check_supported, core::check_run, then one non-blocking stream
/// per schedule stream, one event per schedule event (recorded after its producer, waited before
/// its consumer), the arena as one device allocation at the plan's offsets, weights and inputs
/// (core::initial_value: the CPU executor's exact data) in a second allocation (uploaded, then
/// the device synchronised before any stream reads them), unplanned outputs in a third; a cuBLAS
/// and a cuDNN handle and a workspace per stream. With RunOptions::per_node_timing an event pair
/// around each node gives a "measured" timeline (µs from the iteration's start, on the schedule's
/// streams) of the median iteration; without it only wall times. Every CUDA, cuBLAS and cuDNN
/// call is checked: errors are Runtime values naming the node and the call (allocation failures
/// name the size). With CUDA_LAUNCH_BLOCKING=1 in the environment every node is synchronised
/// after its launch, so a kernel fault names its node. Where the CUDA module cannot be loaded
/// the executor exists and run() returns load_cuda_module()'s error.
///
/// The process's CUDA context gets CUDA_DEVICE_MAX_CONNECTIONS=32 hardware queues (the most
/// CUDA allows) unless the environment already sets it: the default of 8 would make streams
/// beyond the eighth share queues and serialise. CudaRuntimeInfo::max_connections reports it.
std::unique_ptr<core::Executor> make_cuda_executor(const CudaRunOptions& options = {});

/// Operators the CUDA executor supports (sorted); float32 only. Empty when the module cannot load.
std::vector<std::string> cuda_supported_ops();

/// Fails (InvalidInput, "unsupported: operator X at node Y ...") when some node has no CUDA
/// kernel for its operator, attributes, dtypes or shapes; Runtime when the module cannot load.
/// Nothing is launched. O(V+E).
core::Status cuda_check_supported(const core::Graph& graph);

/// True when this process's CUDA context holds a sticky fault (an illegal address, a device-side
/// trap...): every later CUDA call fails, and asynchronous launches could not say which node
/// faulted. False when the module is not loaded.
bool cuda_context_faulted();

/// After a sticky fault: replaces this process (execv of /proc/self/exe with the same arguments)
/// by a rerun with CUDA_LAUNCH_BLOCKING=1, in which the executor synchronises after every node
/// and so names the node that faults. `fault` (the first run's stage and error, at most 4000
/// characters) reaches the rerun as WEFT_CUDA_FAULT (rerun_fault()). Once only: where
/// WEFT_CUDA_RERUN=1 is set (the rerun itself, or a caller that wants no rerun, such as the GPU
/// check under compute-sanitizer) it does nothing. Returns only when no rerun happened, with the
/// reason.
core::Error rerun_with_blocking_launches(std::string_view fault = {});

/// True where WEFT_CUDA_RERUN is set: no rerun after a fault (the process rerun_with_blocking_launches
/// started, or one told not to rerun).
bool is_blocking_rerun();

/// The fault that made this process a rerun (WEFT_CUDA_FAULT), empty elsewhere.
std::string rerun_fault();

/// True where CUDA_LAUNCH_BLOCKING=1: every launch is synchronous, the executor synchronises
/// after each node and replays no graph, so wall times are not the schedule's.
bool launches_blocking();

}  // namespace weft::gpu
