// Launch and synchronisation costs timed with empty kernels: the launch figures of a device preset
// (launch_us, kernel_min_us, graph_launch_per_node_us, event_record_us, event_wait_us) measured
// on the GPU at hand rather than taken from a datasheet-era guess.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "cuda_check.h"
#include "cuda_devices.h"
#include "cuda_kernels.h"
#include "cuda_resources.h"

namespace weft::gpu::detail {

namespace {

using Clock = std::chrono::steady_clock;

double micros_since(Clock::time_point t0) { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// Device µs between two events already recorded, after waiting for the second.
core::Expected<double> elapsed_us(cudaEvent_t a, cudaEvent_t b) {
  WEFT_CUDA_CHECK(cudaEventSynchronize(b));
  float ms = 0;
  WEFT_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
  return static_cast<double>(ms) * 1000.0;
}

}  // namespace

core::Expected<LaunchCosts> launch_costs(int device, int kernels) {
  WEFT_TRY(require_device());
  int count = 0;
  WEFT_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (device < 0 || device >= count)
    return core::make_error(core::ErrorKind::InvalidInput,
                            "no CUDA device " + std::to_string(device) + " (this machine has " + std::to_string(count) + ")");
  WEFT_CUDA_CHECK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  WEFT_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  LaunchCosts out;
  out.device = device;
  out.name = prop.name;
  out.kernels = kernels;
  out.rounds = 7;

  Stream s, other;
  WEFT_CUDA_CHECK(cudaStreamCreateWithFlags(s.out(), cudaStreamNonBlocking));
  WEFT_CUDA_CHECK(cudaStreamCreateWithFlags(other.out(), cudaStreamNonBlocking));
  CudaEvent a, b, marker;
  WEFT_CUDA_CHECK(cudaEventCreate(a.out()));
  WEFT_CUDA_CHECK(cudaEventCreate(b.out()));
  WEFT_CUDA_CHECK(cudaEventCreateWithFlags(marker.out(), cudaEventDisableTiming));

  // The chain as a graph: `kernels` empty kernels captured on one stream, each after the last.
  CudaGraph chain;
  WEFT_CUDA_CHECK(cudaStreamBeginCapture(s.get(), cudaStreamCaptureModeThreadLocal));
  cudaError_t captured = cudaSuccess;
  for (int k = 0; k < kernels && captured == cudaSuccess; ++k) captured = launch_empty(s.get());
  // End the capture whatever happened, so that the stream leaves capture mode.
  const cudaError_t ended = cudaStreamEndCapture(s.get(), chain.out());
  WEFT_CUDA_CHECK(captured);
  WEFT_CUDA_CHECK(ended);
  CudaGraphExec chain_exec;
  WEFT_CUDA_CHECK(cudaGraphInstantiate(chain_exec.out(), chain.get(), 0));
  // The same number of independent kernels: roots of one graph, no edge between them.
  CudaGraph roots;
  WEFT_CUDA_CHECK(cudaGraphCreate(roots.out(), 0));
  for (int k = 0; k < kernels; ++k) {
    cudaGraphNode_t node = nullptr;
    WEFT_CUDA_CHECK(add_empty_node(roots.get(), nullptr, 0, &node));
  }
  CudaGraphExec roots_exec;
  WEFT_CUDA_CHECK(cudaGraphInstantiate(roots_exec.out(), roots.get(), 0));
  WEFT_CUDA_CHECK(cudaGraphUpload(chain_exec.get(), s.get()));
  WEFT_CUDA_CHECK(cudaGraphUpload(roots_exec.get(), s.get()));
  WEFT_CUDA_CHECK(cudaStreamSynchronize(s.get()));

  std::vector<double> launch, eager_chain, graph_chain, graph_nodes, graph_launch, record, wait;
  // Round 0 warms up (module load, first launches, graph upload) and is not kept.
  for (int round = 0; round <= out.rounds; ++round) {
    const bool keep = round > 0;
    // Eager: the host's cost per launch, and the device's time per kernel of the same launches.
    WEFT_CUDA_CHECK(cudaEventRecord(a.get(), s.get()));
    auto t0 = Clock::now();
    for (int k = 0; k < kernels; ++k) WEFT_CUDA_CHECK(launch_empty(s.get()));
    const double host_launch = micros_since(t0);
    WEFT_CUDA_CHECK(cudaEventRecord(b.get(), s.get()));
    WEFT_TRY_ASSIGN(const double eager, elapsed_us(a.get(), b.get()));

    // The chain replayed: per kernel, the shortest a dependent kernel takes.
    WEFT_CUDA_CHECK(cudaEventRecord(a.get(), s.get()));
    t0 = Clock::now();
    WEFT_CUDA_CHECK(cudaGraphLaunch(chain_exec.get(), s.get()));
    const double host_graph = micros_since(t0);
    WEFT_CUDA_CHECK(cudaEventRecord(b.get(), s.get()));
    WEFT_TRY_ASSIGN(const double chained, elapsed_us(a.get(), b.get()));

    // Independent kernels replayed: per node, the graph executor's release rate.
    WEFT_CUDA_CHECK(cudaEventRecord(a.get(), s.get()));
    WEFT_CUDA_CHECK(cudaGraphLaunch(roots_exec.get(), s.get()));
    WEFT_CUDA_CHECK(cudaEventRecord(b.get(), s.get()));
    WEFT_TRY_ASSIGN(const double released, elapsed_us(a.get(), b.get()));

    // The host's cost of recording an event, and of making another stream wait for it.
    t0 = Clock::now();
    for (int k = 0; k < kernels; ++k) WEFT_CUDA_CHECK(cudaEventRecord(marker.get(), s.get()));
    const double host_record = micros_since(t0);
    t0 = Clock::now();
    for (int k = 0; k < kernels; ++k) WEFT_CUDA_CHECK(cudaStreamWaitEvent(other.get(), marker.get(), 0));
    const double host_wait = micros_since(t0);
    WEFT_CUDA_CHECK(cudaStreamSynchronize(s.get()));
    WEFT_CUDA_CHECK(cudaStreamSynchronize(other.get()));

    if (!keep) continue;
    const double n = kernels;
    launch.push_back(host_launch / n);
    eager_chain.push_back(eager / n);
    graph_chain.push_back(chained / n);
    graph_nodes.push_back(released / n);
    graph_launch.push_back(host_graph);
    record.push_back(host_record / n);
    wait.push_back(host_wait / n);
  }
  out.launch_us = median(launch);
  out.eager_chain_us = median(eager_chain);
  out.graph_chain_us = median(graph_chain);
  out.graph_per_node_us = median(graph_nodes);
  out.graph_launch_us = median(graph_launch);
  out.event_record_us = median(record);
  out.event_wait_us = median(wait);
  return out;
}

}  // namespace weft::gpu::detail
