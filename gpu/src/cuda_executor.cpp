// The CUDA executor: schedule streams as CUDA streams, schedule events as CUDA events, the memory
// plan as one device arena; eager launches (optionally timed per node) or one captured CUDA Graph.
#include "weft/gpu/cuda_executor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <numeric>
#include <string_view>

#include "cuda_check.h"
#include "cuda_devices.h"
#include "cuda_ops.h"
#include "cuda_resources.h"
#include "nvtx_trace.h"
#include "weft/core/exec/initial_values.h"
#include "weft/core/exec/run_checks.h"

namespace weft::gpu {
namespace {

using core::Graph;
using core::NodeId;
using core::Status;
using core::TensorId;
using detail::CudaEvent;
using detail::DeviceBuffer;

constexpr std::size_t kAlign = 256;                  // cudaMalloc's own alignment; keeps every tensor aligned alike
constexpr std::size_t kCublasWorkspace = 32u << 20;  // NVIDIA's recommendation for Hopper

std::size_t align_up(std::size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

struct Issue {
  NodeId node = core::kNoNode;
  int stream = 0;
};

core::Error at_node(const Graph& graph, NodeId n, const core::Error& e) {
  return core::make_error(e.kind, "node '" + graph.key(n) + "' (" + graph.node(n).op_type + "): " + e.message);
}

/// Everything one run() owns on the device. Members are released in reverse order: handles and
/// events before streams, streams before memory.
struct DeviceRun {
  DeviceBuffer arena, sources, extra;
  std::vector<DeviceBuffer> cudnn_workspace, cublas_workspace;
  std::vector<detail::Stream> streams;
  std::vector<detail::CublasHandle> cublas;
  std::vector<detail::CudnnHandle> cudnn;
  detail::CublasLtHandle cublaslt;    ///< one for every stream (cublasLtMatmul takes the stream)
  std::vector<detail::StreamContext> contexts;
  std::vector<CudaEvent> events;      ///< one per schedule event
  std::vector<CudaEvent> joins;       ///< one per stream: joins it back into stream 0
  CudaEvent fork, start, stop;
  std::vector<CudaEvent> node_start, node_end;
  std::vector<void*> ptr;             ///< per tensor
  std::vector<detail::PreparedNode> prepared;
  std::vector<std::string> labels;    ///< NVTX text per node
  const core::ExecutionOrder* xo = nullptr;  ///< check_run's: events each node waits for and records
  std::vector<Issue> order;  ///< the host's issue order: the checked execution order's topological order
};

Status create_event(CudaEvent& e, bool timing) {
  WEFT_CUDA_CHECK(cudaEventCreateWithFlags(e.out(), timing ? cudaEventDefault : cudaEventDisableTiming));
  return {};
}

/// CUDA_LAUNCH_BLOCKING=1: launches are synchronous, and the executor synchronises each node too,
/// so that a fault (also one inside cuBLAS or cuDNN) is reported at the node that caused it.
bool blocking_launches() {
  const char* v = std::getenv("CUDA_LAUNCH_BLOCKING");
  return v && std::string_view(v) == "1";
}

class CudaExecutor final : public core::Executor {
 public:
  explicit CudaExecutor(const CudaRunOptions& options) : m_options(options), m_blocking(blocking_launches()) {}
  std::string name() const override { return m_options.cuda_graph ? "cuda-graph" : "cuda"; }

  core::Expected<core::RunResult> run(const Graph& graph, const core::Schedule& schedule, const core::MemoryPlan& plan,
                                      const core::RunOptions& options) override {
    // No exception leaves the module: allocation failures on the host become errors too.
    try {
      return run_checked(graph, schedule, plan, options);
    } catch (const std::exception& e) {
      return core::make_error(core::ErrorKind::Runtime, std::string("CUDA executor: ") + e.what());
    }
  }

 private:
  core::Expected<core::RunResult> run_checked(const Graph& graph, const core::Schedule& schedule, const core::MemoryPlan& plan,
                                              const core::RunOptions& options) {
    WEFT_TRY(detail::check_graph(graph));
    // The checked execution order: each node's stream, the events it waits for and records, and
    // a topological order of stream order ∪ events ∪ data edges, in which every waited event's
    // producer is issued before its waiter (cudaStreamWaitEvent waits for the latest record only).
    WEFT_TRY_ASSIGN(const core::ExecutionOrder xo, core::check_run(graph, schedule, plan, options));
    WEFT_TRY(detail::require_device());
    WEFT_CUDA_CHECK(cudaSetDevice(m_options.device));
    // An earlier run that failed may have left the thread's last error set; the kernel launchers
    // read it (cudaGetLastError) and would pin it on this run's first node.
    static_cast<void>(cudaGetLastError());
    cudaDeviceProp prop{};
    WEFT_CUDA_CHECK(cudaGetDeviceProperties(&prop, m_options.device));

    DeviceRun r;
    core::RunResult result;
    std::map<TensorId, core::HostTensor> host;
    WEFT_TRY(place_tensors(graph, plan, options, r, host, result));
    WEFT_TRY(create_streams(graph, schedule, r));
    r.xo = &xo;
    r.order.reserve(graph.node_count());
    for (NodeId v : xo.order()) r.order.push_back({v, xo.stream_of(v)});

    // Prepare every node before anything is launched: unsupported shapes fail here.
    detail::PrepareContext pc{&graph, &r.ptr, &host, r.cudnn[0].get(), m_options.tf32, r.cublaslt.get()};
    r.prepared.resize(graph.node_count());
    std::vector<std::size_t> workspace(schedule.streams.size(), 0);
    for (const Issue& is : r.order) {
      auto p = detail::prepare_node(pc, is.node);
      if (!p) return at_node(graph, is.node, p.error());
      workspace[static_cast<std::size_t>(is.stream)] = std::max(workspace[static_cast<std::size_t>(is.stream)], p->workspace_bytes);
      if (!p->merged_path.empty()) ++result.merged_paths[p->merged_path];
      r.prepared[static_cast<std::size_t>(is.node)] = std::move(*p);
    }
    for (std::size_t s = 0; s < schedule.streams.size(); ++s) {
      WEFT_TRY(r.cudnn_workspace[s].allocate(workspace[s], "the cuDNN workspace of stream " + std::to_string(s)));
      r.contexts[s].workspace = r.cudnn_workspace[s].get();
      r.contexts[s].workspace_bytes = workspace[s];
    }
    // Preparing copied device data on the legacy stream (merged GEMMs' pointer arrays,
    // concatenated weights and biases): a pageable cudaMemcpy may return before its DMA lands, and
    // the run's non-blocking streams do not wait for the legacy stream.
    WEFT_CUDA_CHECK(cudaDeviceSynchronize());
    host.clear();

    const bool timing = options.per_node_timing && !m_options.cuda_graph;
    if (timing) {
      r.node_start.resize(graph.node_count());
      r.node_end.resize(graph.node_count());
      for (std::size_t v = 0; v < graph.node_count(); ++v) {
        WEFT_TRY(create_event(r.node_start[v], true));
        WEFT_TRY(create_event(r.node_end[v], true));
      }
    }
    WEFT_TRY(create_event(r.start, true));
    WEFT_TRY(create_event(r.stop, true));

    const std::string strategy = schedule.strategy.empty() ? std::string("schedule") : schedule.strategy;
    detail::NvtxRange run_range(m_options.nvtx, "weft " + strategy, 0xff000000u);

    detail::CudaGraphExec exec;
    // With CUDA_LAUNCH_BLOCKING=1 (the rerun that names a faulting node) a launch synchronises,
    // which a stream capture does not allow: the run then stays eager, each node synchronised.
    const bool replay = m_options.cuda_graph && !m_blocking;
    if (replay) {
      // The run's cuBLAS and cuDNN handles are fresh: their first use may allocate, load kernels
      // or synchronise, none of which a capture allows. One eager iteration, finished, first.
      if (auto s = enqueue(graph, r, false); !s) {
        static_cast<void>(cudaDeviceSynchronize());
        return s.error();
      }
      if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
        return synchronise_error(e, "cudaDeviceSynchronize (the eager iteration before capture)");
      WEFT_TRY(capture(graph, r, exec));
    }
    const cudaStream_t s0 = r.streams[0].get();
    const int warmup = std::max(options.warmup, 0), iterations = std::max(options.iterations, 1);
    std::vector<std::vector<core::TimelineItem>> item_runs;
    for (int it = 0; it < warmup + iterations; ++it) {
      WEFT_CUDA_CHECK(cudaEventRecord(r.start.get(), s0));
      if (replay) {
        WEFT_CUDA_CHECK(cudaGraphLaunch(exec.get(), s0));
      } else if (auto s = enqueue(graph, r, timing); !s) {
        static_cast<void>(cudaDeviceSynchronize());
        return s.error();
      }
      WEFT_CUDA_CHECK(cudaEventRecord(r.stop.get(), s0));
      if (const cudaError_t e = cudaEventSynchronize(r.stop.get()); e != cudaSuccess)
        return synchronise_error(e, "cudaEventSynchronize (end of iteration)");
      float ms = 0;
      WEFT_CUDA_CHECK(cudaEventElapsedTime(&ms, r.start.get(), r.stop.get()));
      if (it < warmup) continue;
      result.iteration_ms.push_back(static_cast<double>(ms));
      std::vector<core::TimelineItem> items;
      if (timing) {
        items.reserve(graph.node_count());
        for (const Issue& is : r.order) {
          float t0 = 0, t1 = 0;
          WEFT_CUDA_CHECK(cudaEventElapsedTime(&t0, r.start.get(), r.node_start[static_cast<std::size_t>(is.node)].get()));
          WEFT_CUDA_CHECK(cudaEventElapsedTime(&t1, r.start.get(), r.node_end[static_cast<std::size_t>(is.node)].get()));
          items.push_back({is.node, is.stream, 1000.0 * t0, 1000.0 * t1});
        }
        std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.node < b.node; });
      }
      item_runs.push_back(std::move(items));
    }

    core::finish_measured_run(result, std::move(item_runs), schedule, plan.arena_bytes, name(), prop.name);

    for (TensorId t : graph.outputs()) {
      const core::Tensor& tensor = graph.tensor(t);
      core::HostTensor h;
      h.dtype = tensor.dtype;
      h.shape = tensor.shape();
      h.bytes.resize(static_cast<std::size_t>(std::max<std::int64_t>(tensor.bytes(), 0)));
      if (!h.bytes.empty())
        WEFT_CUDA_CHECK(cudaMemcpyAsync(h.bytes.data(), r.ptr[static_cast<std::size_t>(t)], h.bytes.size(), cudaMemcpyDeviceToHost, s0));
      result.outputs[tensor.name] = std::move(h);
    }
    WEFT_CUDA_CHECK(cudaStreamSynchronize(s0));
    return result;
  }

  /// Device addresses: planned tensors in the arena at their offsets; graph inputs and weights
  /// (core::initial_value, uploaded now) in a second allocation; other produced tensors in a third.
  static Status place_tensors(const Graph& graph, const core::MemoryPlan& plan, const core::RunOptions& options, DeviceRun& r,
                              std::map<TensorId, core::HostTensor>& host, core::RunResult& result) {
    const std::size_t count = graph.tensor_count();
    std::vector<std::size_t> source_offset(count, 0), extra_offset(count, 0);
    std::size_t source_bytes = 0, extra_bytes = 0;
    // Views have no storage of their own: they point into their parent (a graph input's buffer,
    // the graph output that a split's copies write in place, or the block of a merged node's
    // outputs), as on the CPU. A parent with no producer gets its bytes like any unplanned
    // output, or its planned place (the merged outputs' block always has one).
    const auto split_output = [](const core::Tensor& t) {
      return t.producer == core::kNoNode && t.kind != core::TensorKind::Input && t.kind != core::TensorKind::Weight && !t.views.empty();
    };
    for (std::size_t i = 0; i < count; ++i) {
      const core::Tensor& t = graph.tensor(static_cast<TensorId>(i));
      const auto bytes = static_cast<std::size_t>(std::max<std::int64_t>(t.bytes(), 0));
      if (t.is_view()) continue;
      if (split_output(t)) {
        if (plan.offset[i] == core::kNotPlanned) {
          extra_offset[i] = extra_bytes;
          extra_bytes += align_up(bytes);
        }
        continue;
      }
      if (t.producer == core::kNoNode) {
        if (t.kind != core::TensorKind::Weight && t.kind != core::TensorKind::Input) continue;
        bool seeded = false;
        WEFT_TRY_ASSIGN(auto h, core::initial_value(graph, static_cast<TensorId>(i), options, &seeded));
        if (seeded) ++result.random_weights;
        source_offset[i] = source_bytes;
        source_bytes += align_up(h.bytes.size());
        host.emplace(static_cast<TensorId>(i), std::move(h));
      } else if (plan.offset[i] == core::kNotPlanned) {
        extra_offset[i] = extra_bytes;
        extra_bytes += align_up(bytes);
      }
    }
    WEFT_TRY(r.arena.allocate(static_cast<std::size_t>(plan.arena_bytes), "the memory plan's arena"));
    WEFT_TRY(r.sources.allocate(source_bytes, "weights and inputs"));
    WEFT_TRY(r.extra.allocate(extra_bytes, "unplanned outputs"));
    r.ptr.assign(count, nullptr);
    for (std::size_t i = 0; i < count; ++i) {
      const core::Tensor& t = graph.tensor(static_cast<TensorId>(i));
      if (t.is_view()) continue;
      if (split_output(t)) {
        r.ptr[i] = plan.offset[i] == core::kNotPlanned ? r.extra.bytes() + extra_offset[i] : r.arena.bytes() + plan.offset[i];
        continue;
      }
      if (t.producer == core::kNoNode) {
        auto it = host.find(static_cast<TensorId>(i));
        if (it == host.end()) continue;
        r.ptr[i] = r.sources.bytes() + source_offset[i];
        if (!it->second.bytes.empty())
          WEFT_CUDA_CHECK(cudaMemcpy(r.ptr[i], it->second.bytes.data(), it->second.bytes.size(), cudaMemcpyHostToDevice));
      } else if (plan.offset[i] == core::kNotPlanned) {
        r.ptr[i] = r.extra.bytes() + extra_offset[i];
      } else {
        r.ptr[i] = r.arena.bytes() + plan.offset[i];
      }
    }
    for (std::size_t i = 0; i < count; ++i) {
      const core::Tensor& t = graph.tensor(static_cast<TensorId>(i));
      if (t.views.empty() || !r.ptr[i]) continue;
      for (TensorId v : t.views) r.ptr[static_cast<std::size_t>(v)] = static_cast<std::uint8_t*>(r.ptr[i]) + graph.tensor(v).view_offset;
    }
    // cudaMemcpy from pageable memory returns once the bytes are staged, possibly before they
    // reach the device, and the run's streams are non-blocking (no implicit order with the
    // legacy stream it used): wait here so that no kernel reads a weight still in flight.
    WEFT_CUDA_CHECK(cudaDeviceSynchronize());
    return {};
  }

  Status create_streams(const Graph& graph, const core::Schedule& schedule, DeviceRun& r) const {
    const std::size_t streams = std::max<std::size_t>(schedule.streams.size(), 1);
    r.streams.resize(streams);
    r.cublas.resize(streams);
    r.cudnn.resize(streams);
    r.contexts.resize(streams);
    r.cudnn_workspace.resize(streams);
    r.cublas_workspace.resize(streams);
    r.joins.resize(streams);
    WEFT_CUDA_CHECK(cublasLtCreate(r.cublaslt.out()));
    for (std::size_t s = 0; s < streams; ++s) {
      WEFT_CUDA_CHECK(cudaStreamCreateWithFlags(r.streams[s].out(), cudaStreamNonBlocking));
      detail::nvtx_name_stream(m_options.nvtx, r.streams[s].get(), "weft stream " + std::to_string(s));
      WEFT_CUDA_CHECK(cublasCreate(r.cublas[s].out()));
      // cublasSetStream resets the workspace: set the stream first.
      WEFT_CUDA_CHECK(cublasSetStream(r.cublas[s].get(), r.streams[s].get()));
      WEFT_TRY(r.cublas_workspace[s].allocate(kCublasWorkspace, "the cuBLAS workspace of stream " + std::to_string(s)));
      WEFT_CUDA_CHECK(cublasSetWorkspace(r.cublas[s].get(), r.cublas_workspace[s].get(), kCublasWorkspace));
      WEFT_CUDA_CHECK(cublasSetMathMode(r.cublas[s].get(), m_options.tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
      WEFT_CUDA_CHECK(cudnnCreate(r.cudnn[s].out()));
      WEFT_CUDA_CHECK(cudnnSetStream(r.cudnn[s].get(), r.streams[s].get()));
      r.contexts[s] = {r.streams[s].get(), r.cublas[s].get(), r.cudnn[s].get(), r.cublaslt.get(), nullptr, 0};
      WEFT_TRY(create_event(r.joins[s], false));
    }
    WEFT_TRY(create_event(r.fork, false));
    r.events.resize(schedule.events.size());
    for (std::size_t e = 0; e < schedule.events.size(); ++e)
      WEFT_TRY(create_event(r.events[e], false));
    r.labels.resize(graph.node_count());
    for (std::size_t v = 0; v < graph.node_count(); ++v)
      r.labels[v] = graph.key(static_cast<NodeId>(v)) + " (" + graph.node(static_cast<NodeId>(v)).op_type + ")";
    return {};
  }

  /// Enqueues one iteration: fork every stream from stream 0, each node after its waits (timed
  /// by an event pair when asked), its records after it, then join every stream back into 0.
  Status enqueue(const Graph& graph, DeviceRun& r, bool timing, bool capturing = false) const {
    const cudaStream_t s0 = r.streams[0].get();
    WEFT_CUDA_CHECK(cudaEventRecord(r.fork.get(), s0));
    for (std::size_t s = 1; s < r.streams.size(); ++s) WEFT_CUDA_CHECK(cudaStreamWaitEvent(r.streams[s].get(), r.fork.get(), 0));
    for (const Issue& is : r.order) {
      const auto v = static_cast<std::size_t>(is.node);
      const detail::StreamContext& ctx = r.contexts[static_cast<std::size_t>(is.stream)];
      detail::NvtxRange range(m_options.nvtx, r.labels[v], detail::stream_colour(is.stream));
      auto node_status = [&]() -> Status {
        for (std::uint32_t e : r.xo->waits(is.node)) WEFT_CUDA_CHECK(cudaStreamWaitEvent(ctx.stream, r.events[e].get(), 0));
        if (timing) WEFT_CUDA_CHECK(cudaEventRecord(r.node_start[v].get(), ctx.stream));
        WEFT_TRY(r.prepared[v].launch(ctx));
        // Never while capturing (a synchronise would invalidate the capture).
        if (m_blocking && !capturing) WEFT_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
        if (timing) WEFT_CUDA_CHECK(cudaEventRecord(r.node_end[v].get(), ctx.stream));
        for (std::uint32_t e : r.xo->records(is.node)) WEFT_CUDA_CHECK(cudaEventRecord(r.events[e].get(), ctx.stream));
        return {};
      }();
      if (!node_status) return at_node(graph, is.node, node_status.error());
    }
    for (std::size_t s = 1; s < r.streams.size(); ++s) {
      WEFT_CUDA_CHECK(cudaEventRecord(r.joins[s].get(), r.streams[s].get()));
      WEFT_CUDA_CHECK(cudaStreamWaitEvent(s0, r.joins[s].get(), 0));
    }
    return {};
  }

  /// Captures one iteration from stream 0 (the fork event pulls the other streams into the
  /// capture; the joins bring them back) and instantiates it.
  Status capture(const Graph& graph, DeviceRun& r, detail::CudaGraphExec& exec) const {
    const cudaStream_t s0 = r.streams[0].get();
    WEFT_CUDA_CHECK(cudaStreamBeginCapture(s0, cudaStreamCaptureModeThreadLocal));
    const Status enqueued = enqueue(graph, r, false, true);
    detail::CudaGraph captured;
    // End the capture whatever happened, so that the stream is usable and the error is the first one.
    const cudaError_t ended = cudaStreamEndCapture(s0, captured.out());
    if (!enqueued) {
      static_cast<void>(cudaGetLastError());
      return enqueued.error();
    }
    if (ended != cudaSuccess) static_cast<void>(cudaGetLastError());
    WEFT_CUDA_CHECK(ended);
    if (const cudaError_t e = cudaGraphInstantiate(exec.out(), captured.get(), 0); e != cudaSuccess) {
      static_cast<void>(cudaGetLastError());
      return detail::check(e, "cudaGraphInstantiate").error();
    }
    // Upload now, so that the first timed replay (with --warmup 0) does not include it.
    WEFT_CUDA_CHECK(cudaGraphUpload(exec.get(), s0));
    WEFT_CUDA_CHECK(cudaStreamSynchronize(s0));
    return {};
  }

  /// The error of a synchronise. A sticky fault found there cannot be pinned on a node with
  /// asynchronous launches, so the error says how to find it (the CLI reruns itself that way).
  core::Error synchronise_error(cudaError_t code, std::string_view call) const {
    core::Error e = detail::check(code, call).error();
    if (detail::is_sticky_fault(code) && !m_blocking)
      e.message += "; launches are asynchronous, so the faulting node is unknown: rerun with CUDA_LAUNCH_BLOCKING=1 "
                   "(the executor then synchronises after each node and names it)";
    return e;
  }

  CudaRunOptions m_options;
  bool m_blocking = false;
};

}  // namespace

namespace detail {
core::Executor* create_executor(const CudaRunOptions& options) { return new CudaExecutor(options); }
}  // namespace detail

}  // namespace weft::gpu
