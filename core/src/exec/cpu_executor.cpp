// The CPU reference executor: a worker thread per stream (per CPU when streams outnumber them),
// events as one-shot latches, every planned tensor a view into one arena allocation.
#include "weft/core/exec/cpu_executor.h"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <new>
#include <numeric>
#include <optional>
#include <system_error>
#include <thread>

#include <unistd.h>

#include "cpu_node_teams.h"
#include "cpu_threads.h"
#include "kernel.h"
#include "library_kernel.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/exec/initial_values.h"
#include "weft/core/graph/merged_node.h"
#include "weft/core/exec/run_checks.h"
#include "weft/core/base/tensor_size.h"
#include "weft/core/base/text_format.h"

namespace weft::core {

struct LibraryKernelShare {
  std::mutex mutex;
  bool ready = false;  ///< prepared (by the first run to take the mutex)
  std::vector<char> channels_last;
  std::vector<std::shared_ptr<const detail::PreparedKernel>> prepared;
};

std::shared_ptr<LibraryKernelShare> make_library_kernel_share() { return std::make_shared<LibraryKernelShare>(); }

namespace {

using detail::allowed_cpus;
using detail::await_change;
using detail::CallerPin;
using detail::idx;
using detail::IterationBarrier;
using detail::owns_cpus;
using detail::pin_to;
using detail::worker_count;
using detail::View;
using Clock = std::chrono::steady_clock;
// A bound on warm-up iterations, whatever RunOptions::warmup_ms asks of a tiny model.
constexpr int kMaxWarmupIterations = 10000;

/// One aligned byte allocation (the arena, or a tensor's own buffer).
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(std::size_t bytes) { resize(bytes); }
  ~Buffer() { release(); }
  Buffer(Buffer&& o) noexcept : m_data(std::exchange(o.m_data, nullptr)), m_size(std::exchange(o.m_size, 0)) {}
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      release();
      m_data = std::exchange(o.m_data, nullptr);
      m_size = std::exchange(o.m_size, 0);
    }
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  /// Grows to at least `bytes` (contents are not kept).
  void resize(std::size_t bytes) {
    if (bytes <= m_size && m_data) return;
    release();
    // The nothrow form, then bad_alloc: the sanitizers' allocators stop the process where the
    // throwing form finds no memory, but return null from this one (allocator_may_return_null).
    m_data = static_cast<std::uint8_t*>(::operator new(std::max<std::size_t>(bytes, 1), std::align_val_t{kAlign}, std::nothrow));
    if (!m_data) throw std::bad_alloc();
    m_size = bytes;
  }
  std::uint8_t* data() const { return m_data; }
  std::size_t size() const { return m_size; }

 private:
  static constexpr std::size_t kAlign = 64;
  void release() {
    if (m_data) ::operator delete(m_data, std::align_val_t{kAlign});
    m_data = nullptr;
    m_size = 0;
  }
  std::uint8_t* m_data = nullptr;
  std::size_t m_size = 0;
};

// Bytes a run holds at once: the arena plus every tensor with its own buffer (sources, outputs).
// Refused before any allocation when over the machine's memory: a hostile or simply huge model
// gets a Runtime error naming the sizes, never an allocation failure mid-run.
Status check_host_memory(const Graph& graph, const MemoryPlan& plan) {
  double need = static_cast<double>(plan.arena_bytes);
  for (std::size_t i = 0; i < graph.tensor_count(); ++i) {
    const Tensor& t = graph.tensor(static_cast<TensorId>(i));
    if (t.is_view()) continue;  // inside its parent
    if (t.kind == TensorKind::Intermediate) continue;  // in the arena (a block written through views too)
    if (t.producer == kNoNode || t.kind == TensorKind::Output) need += static_cast<double>(std::max<std::int64_t>(t.bytes(), 0));
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  const double have = pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0;
  if (have > 0 && need > have)
    return make_error(ErrorKind::Runtime, "the run needs " + std::to_string(static_cast<std::int64_t>(need / (1 << 20))) +
                                              " MiB of memory, more than this machine's " +
                                              std::to_string(static_cast<std::int64_t>(have / (1 << 20))) + " MiB");
  return {};
}

/// Everything one run() needs, shared by the worker threads.
struct RunState {
  const Graph* graph = nullptr;
  const MemoryPlan* plan = nullptr;
  Buffer arena;
  std::vector<View> values;          ///< per tensor; written by its producer only
  std::vector<Buffer> own;           ///< per tensor not in the arena (graph inputs/weights/outputs, unplanned)
  const ExecutionOrder* order = nullptr;  ///< check_run's: the events each node waits for
  std::unique_ptr<std::atomic<std::uint32_t>[]> done;  ///< per node: one-shot latch
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::optional<Error> error;
  std::vector<TimelineItem> items;   ///< per node, this iteration
  Clock::time_point start;
  std::int64_t opset = 0;
  std::int64_t random_weights = 0;
  bool batch_invariant = false;  ///< RunOptions::batch_invariant
  bool spin = false;             ///< every worker has a CPU of its own: waits spin (IterationBarrier)
  /// Per node: its library kernel, prepared before the first iteration (null: the reference kernel).
  std::vector<std::shared_ptr<const detail::PreparedKernel>> prepared;
  std::vector<Buffer> scratch;   ///< per worker: the library kernels' scratch
  /// Per tensor: its bytes are channels-last (the layout plan of the library kernels).
  std::vector<char> channels_last;
  /// Per node, the threads of its library team (Schedule::node_threads, else the stream's).
  detail::NodeTeams teams;

  void fail(Error e) {
    std::lock_guard lock(error_mutex);
    if (!error) error = std::move(e);
    failed.store(true, std::memory_order_relaxed);
  }
};

class NodeContext final : public detail::KernelContext {
 public:
  NodeContext(RunState& state, NodeId n, std::span<const View> inputs)
      : KernelContext(state.graph->node(n), inputs, state.opset, state.graph), m_state(state), m_node_id(n) {
    set_batch_invariant(state.batch_invariant);
  }

  Expected<View> output(std::size_t i, DType dtype, detail::Shape shape) override {
    const Node& node = this->node();
    if (i >= node.outputs.size()) return detail::kernel_error(*this, "kernel wrote output " + std::to_string(i) + " the node lacks");
    // Shapes computed from data are checked like the graph's: no tensor past 2^48 bytes.
    if (!checked_elements(shape, dtype_size(dtype)))
      return detail::kernel_error(*this, "output " + std::to_string(i) + " would be " + std::string(dtype_name(dtype)) + " " +
                                             shape_text(shape) + ": past the 2^48 bytes a tensor may hold");
    View v{dtype, std::move(shape), nullptr};
    const std::size_t bytes = v.bytes();
    const TensorId t = node.outputs[i];
    if (t == kNoTensor) {
      m_scratch.emplace_back(bytes);
      v.data = m_scratch.back().data();
      return v;
    }
    const Tensor& tensor = m_state.graph->tensor(t);
    if (tensor.shape_known() && tensor.dtype != DType::Undefined && (tensor.shape() != v.shape || tensor.dtype != dtype))
      return detail::kernel_error(*this, "output '" + tensor.name + "' computed as " + std::string(dtype_name(dtype)) + " " +
                                             shape_text(v.shape) + " but the graph says " + std::string(dtype_name(tensor.dtype)) +
                                             " " + format_shape(tensor));
    const auto ti = static_cast<std::size_t>(t);
    const std::int64_t offset = m_state.plan->offset[ti];
    if (tensor.is_view()) {
      // A micro-batch's slice of a graph output: written in place, inside the parent's bytes.
      if (static_cast<std::int64_t>(bytes) > tensor.bytes())
        return detail::kernel_error(*this, "output '" + tensor.name + "' needs " + std::to_string(bytes) + " bytes; the view holds " +
                                               std::to_string(tensor.bytes()));
      v.data = static_cast<std::uint8_t*>(m_state.values[static_cast<std::size_t>(tensor.view_of)].data) + tensor.view_offset;
    } else if (offset != kNotPlanned) {
      if (static_cast<std::int64_t>(bytes) > m_state.plan->size[ti])
        return detail::kernel_error(*this, "output '" + tensor.name + "' needs " + std::to_string(bytes) +
                                               " bytes; the plan reserves " + std::to_string(m_state.plan->size[ti]));
      v.data = m_state.arena.data() + offset;
    } else {
      m_state.own[ti].resize(bytes);
      v.data = m_state.own[ti].data();
    }
    v.channels_last = ti < m_state.channels_last.size() && m_state.channels_last[ti];
    m_state.values[ti] = v;
    return v;
  }

  bool output_channels_last(std::size_t i) const override {
    const Node& node = this->node();
    return i < node.outputs.size() && node.outputs[i] != kNoTensor && static_cast<std::size_t>(node.outputs[i]) < m_state.channels_last.size() &&
           m_state.channels_last[static_cast<std::size_t>(node.outputs[i])];
  }

 private:
  static std::string shape_text(const detail::Shape& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) out += (i ? "x" : "") + std::to_string(s[i]);
    return out.empty() ? "scalar" : out;
  }
  RunState& m_state;
  NodeId m_node_id;
  std::vector<Buffer> m_scratch;
};

/// Runs the node's prepared library kernel where it was prepared for these inputs, else its
/// reference kernel.
Status run_kernel_of(RunState& state, NodeContext& ctx, NodeId n, std::size_t worker) {
  if (const detail::PreparedKernel* k = state.prepared[idx(n)].get(); k && detail::prepared_for(*k, ctx)) {
    Buffer& scratch = state.scratch[worker];
    return k->run(ctx, std::span<std::uint8_t>(scratch.data(), scratch.size()));
  }
  // The layout plan gives channels-last tensors to library kernels only.
  const Node& node = ctx.node();
  for (std::size_t i = 0; i < node.inputs.size(); ++i)
    if (ctx.has_input(i) && ctx.in(i).channels_last)
      return make_error(ErrorKind::Internal, "node '" + node.name + "' (" + node.op_type +
                                                 "): its library kernel did not run, and the reference kernel cannot read the channels-last input '" +
                                                 state.graph->tensor(node.inputs[i]).name + "'");
  for (std::size_t i = 0; i < node.outputs.size(); ++i)
    if (ctx.output_channels_last(i))
      return make_error(ErrorKind::Internal, "node '" + node.name + "' (" + node.op_type +
                                                 "): its library kernel did not run, and the reference kernel cannot write channels-last");
  const detail::KernelFn* fn = detail::kernel_registry().find(detail::kernel_key(ctx.node()));
  return fn ? detail::run_kernel(*fn, ctx) : Status(detail::unsupported(ctx, "operator"));
}

/// Runs one node: waits for its events, runs the kernel, records its latch.
/// A node on a team other than its stream's runs with that team (and a wider one on every CPU,
/// the other workers' waits sleeping meanwhile).
void run_node(RunState& state, NodeId n, int stream, std::size_t worker) {
  for (std::uint32_t e : state.order->waits(n)) {
    auto& latch = state.done[static_cast<std::size_t>(state.order->schedule().events[e].from)];
    await_change(latch, 0, state.spin, state.teams.quiet());
  }
  std::optional<detail::NodeTeams::Scope> team(std::in_place, state.teams, worker, n);
  const double t0 = std::chrono::duration<double, std::micro>(Clock::now() - state.start).count();
  if (!state.failed.load(std::memory_order_relaxed)) {
    const Node& node = state.graph->node(n);
    std::vector<View> inputs(node.inputs.size());
    for (std::size_t i = 0; i < node.inputs.size(); ++i)
      if (node.inputs[i] != kNoTensor) inputs[i] = state.values[static_cast<std::size_t>(node.inputs[i])];
    NodeContext ctx(state, n, inputs);
    // A kernel that throws (an output sized by the data past what memory holds) fails the run
    // like an error value: every stream still records its latches and reaches the barrier.
    try {
      Status s = run_kernel_of(state, ctx, n, worker);
      if (!s) state.fail(s.error());
    } catch (const std::bad_alloc&) {
      state.fail(make_error(ErrorKind::Runtime, "out of memory running node '" + node.name + "' (" + node.op_type + ")"));
    } catch (const std::exception& e) {
      state.fail(make_error(ErrorKind::Runtime, "node '" + node.name + "' (" + node.op_type + ") failed: " + e.what()));
    }
  }
  const double t1 = std::chrono::duration<double, std::micro>(Clock::now() - state.start).count();
  team.reset();
  state.items[static_cast<std::size_t>(n)] = TimelineItem{n, stream, t0, t1};
  // Record even after a failure so that no waiter deadlocks.
  auto& latch = state.done[static_cast<std::size_t>(n)];
  latch.store(1, std::memory_order_release);
  latch.notify_all();
  state.teams.after(worker, n, state.order->next_on_stream(n));
}

// With more streams than workers: each worker takes a stream nobody holds whose next node is
// ready (its events recorded), the one whose node has waited longest, and runs that stream's
// nodes while the next is ready; then it lets the stream go and takes another. The simulator
// models the same rule for a CPU device (one node per core, the stream's own next node first).
class StreamPool {
 public:
  StreamPool(RunState& state, bool spin)
      : m_state(state), m_streams(state.order->schedule().streams), m_next(std::make_unique<std::atomic<std::uint32_t>[]>(m_streams.size())),
        m_held(std::make_unique<std::atomic<bool>[]>(m_streams.size())), m_spin(spin) {}

  /// Before an iteration, on one thread while the workers wait in the barrier.
  void reset() {
    std::size_t nodes = 0;
    for (std::size_t s = 0; s < m_streams.size(); ++s) {
      m_next[s].store(0, std::memory_order_relaxed);
      m_held[s].store(false, std::memory_order_relaxed);
      nodes += m_streams[s].size();
    }
    m_left.store(nodes, std::memory_order_relaxed);
  }

  /// One worker's share of the iteration: returns when every node has run.
  void work(std::size_t worker) {
    while (m_left.load(std::memory_order_acquire) > 0) {
      // Read before looking, so that a node finishing during the look is not missed.
      const std::uint32_t seen = m_progress.load(std::memory_order_acquire);
      const std::size_t s = pick();
      if (s == kNone) {
        await_change(m_progress, seen, m_spin, m_state.teams.quiet());
        continue;
      }
      if (m_held[s].exchange(true, std::memory_order_acquire)) continue;  // another worker took it
      const auto& nodes = m_streams[s];
      for (std::uint32_t i = m_next[s].load(std::memory_order_relaxed); i < nodes.size() && ready(nodes[i]); ++i) {
        run_node(m_state, nodes[i], static_cast<int>(s), worker);
        m_next[s].store(i + 1, std::memory_order_release);
        m_left.fetch_sub(1, std::memory_order_acq_rel);
        advance();
      }
      m_held[s].store(false, std::memory_order_release);
      advance();
    }
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  // Every event `v` waits for is recorded (its stream predecessor ran before the stream's holder
  // moved past it). With `since`: also when it became ready, the last end among the events'
  // producers and `*since` as given (its stream predecessor's end).
  bool ready(NodeId v, double* since = nullptr) const {
    for (std::uint32_t e : m_state.order->waits(v)) {
      const auto from = idx(m_state.order->schedule().events[e].from);
      if (m_state.done[from].load(std::memory_order_acquire) == 0) return false;
      if (since) *since = std::max(*since, m_state.items[from].end_us);
    }
    return true;
  }

  // The free stream whose ready next node has waited longest (the lowest stream on a tie).
  std::size_t pick() const {
    std::size_t best = kNone;
    double best_at = 0;
    for (std::size_t s = 0; s < m_streams.size(); ++s) {
      if (m_held[s].load(std::memory_order_relaxed)) continue;
      const std::uint32_t i = m_next[s].load(std::memory_order_acquire);
      if (i >= m_streams[s].size()) continue;
      double at = i > 0 ? m_state.items[idx(m_streams[s][i - 1])].end_us : 0.0;
      if (!ready(m_streams[s][i], &at)) continue;
      if (best == kNone || at < best_at) {
        best = s;
        best_at = at;
      }
    }
    return best;
  }

  void advance() {
    m_progress.fetch_add(1, std::memory_order_acq_rel);
    m_progress.notify_all();
  }

  RunState& m_state;
  const std::vector<std::vector<NodeId>>& m_streams;
  std::unique_ptr<std::atomic<std::uint32_t>[]> m_next;  ///< per stream: its next node's index
  std::unique_ptr<std::atomic<bool>[]> m_held;           ///< per stream: a worker runs it
  std::atomic<std::size_t> m_left{0};                    ///< nodes not yet run this iteration
  std::atomic<std::uint32_t> m_progress{0};              ///< bumped when a node ends or a stream is let go
  const bool m_spin;
};

class CpuExecutor final : public Executor {
 public:
  CpuExecutor() {
    // Streams-as-threads is the concurrency; BLAS threads would oversubscribe and make timings noisy.
    openblas_set_num_threads(1);
  }
  std::string name() const override { return "cpu"; }

  Expected<RunResult> run(const Graph& graph, const Schedule& schedule, const MemoryPlan& plan,
                          const RunOptions& options) override {
    WEFT_TRY(cpu_check_supported(graph));
    WEFT_TRY_ASSIGN(const ExecutionOrder order, check_run(graph, schedule, plan, options));
    WEFT_TRY(check_host_memory(graph, plan));
    try {
      return run_checked(graph, order, plan, options);
    } catch (const std::bad_alloc&) {
      return make_error(ErrorKind::Runtime, "out of memory: the run's buffers (arena " + std::to_string(plan.arena_bytes) +
                                                " bytes, plus inputs, weights and outputs) could not be allocated");
    }
  }

 private:
  Expected<RunResult> run_checked(const Graph& graph, const ExecutionOrder& order, const MemoryPlan& plan,
                                  const RunOptions& options) {
    const Schedule& schedule = order.schedule();

    RunState state;
    state.graph = &graph;
    state.plan = &plan;
    state.opset = graph.info().opset;
    state.batch_invariant = options.batch_invariant;
    state.arena.resize(static_cast<std::size_t>(plan.arena_bytes));
    state.values.resize(graph.tensor_count());
    state.own.resize(graph.tensor_count());
    state.order = &order;
    state.done = std::make_unique<std::atomic<std::uint32_t>[]>(graph.node_count());
    state.items.resize(graph.node_count());
    state.prepared.resize(graph.node_count());

    WEFT_TRY(prepare_sources(graph, options, state));

    RunResult result;
    const int warmup = std::max(options.warmup, 0), iterations = std::max(options.iterations, 1);
    std::vector<std::vector<TimelineItem>> item_runs;
    // Worker 0 is the calling thread and every other worker a thread of its own, started once for
    // the whole run (starting threads inside an iteration costs tens of microseconds, as much as
    // a small model's iteration). With a worker per stream, worker s runs stream s; with more
    // streams than CPUs, the workers share the streams (StreamPool). An iteration is timed from
    // releasing the workers to the last one finishing; two barrier phases per iteration. The
    // caller works instead of waiting beside them: a third runnable thread on as many cores.
    const std::size_t streams = schedule.streams.size();
    const std::vector<int> cpus = allowed_cpus();
    const auto team = static_cast<std::size_t>(std::max(options.threads_per_stream, 1));
    const std::size_t workers = worker_count(cpus, streams, team);
    state.spin = owns_cpus(cpus, workers, team);
    const auto usable = static_cast<int>(cpus.empty() ? std::max(1u, std::thread::hardware_concurrency()) : cpus.size());
    WEFT_TRY(state.teams.init(graph, schedule, static_cast<int>(team), usable));
    result.node_team_nodes = state.teams.nodes();
    result.node_team_threads = state.teams.widest();
    state.teams.set_workers(cpus, workers, team, state.spin);
    std::optional<StreamPool> pool;
    if (workers < streams) pool.emplace(state, state.spin);
    const auto work = [&state, &schedule, &pool](std::size_t w) {
      if (pool) {
        pool->work(w);
        return;
      }
      for (NodeId v : schedule.streams[w]) run_node(state, v, static_cast<int>(w), w);
    };
    std::atomic<bool> stop{false};
    IterationBarrier sync(static_cast<std::uint32_t>(std::max<std::size_t>(workers, 1)), state.spin, state.teams.quiet());
    {
      std::vector<std::jthread> threads;
      threads.reserve(workers);
      try {
        for (std::size_t w = 1; w < workers; ++w)
          threads.emplace_back([&sync, &stop, &cpus, &work, w, workers, team] {
            pin_to(cpus, w, workers, team);
            const detail::LibraryTeam library_team(static_cast<int>(team));
            while (true) {
              sync.arrive_and_wait();  // released by the iteration's start
              if (stop.load(std::memory_order_acquire)) return;
              work(w);
              sync.arrive_and_wait();  // the iteration's end
            }
          });
      } catch (const std::system_error& e) {
        // The threads started wait in the barrier for ones that never will: the caller arrives
        // for those too, and the started ones see `stop`.
        stop.store(true, std::memory_order_release);
        sync.arrive_and_wait(static_cast<std::uint32_t>(workers - threads.size()));
        threads.clear();  // join
        return make_error(ErrorKind::Runtime, std::string("could not start the run's threads: ") + e.what());
      }
      // After the workers start (they would inherit its mask).
      const CallerPin caller_pin(cpus, workers, team);
      // The library kernels are prepared here, on the caller pinned as worker 0 with its team
      // sized, while the workers wait for the first iteration: a primitive's work split follows
      // the team size of the thread that makes it, and the helpers a preparation starts keep the
      // mask they start with.
      const detail::LibraryTeam library_team(static_cast<int>(team));
      if (options.kernels == KernelSet::Library) prepare_library(graph, schedule, workers, pool.has_value(), options.library_kernels.get(), state, result);
      else result.kernel_paths["reference"] = static_cast<std::int64_t>(graph.node_count());
      result.threads_per_stream = static_cast<int>(team);
      // Warm-up (when asked for) lasts `warmup` iterations and warmup_ms at least: the threads
      // are new each run, and a core a stream thread lands on after idling runs its first
      // milliseconds slow (grouped_mlp on 2 streams, one warm-up iteration, then 0.21, 0.15,
      // 0.14 ms before settling at 0.12: a round of 7 timed iterations has its median moved).
      // One warm-up iteration of a model that runs 30 ms already lasts that long.
      double warmed_ms = 0;
      int timed = 0;
      for (int it = 0; timed < iterations; ++it) {
        for (std::size_t v = 0; v < graph.node_count(); ++v) state.done[v].store(0, std::memory_order_relaxed);
        if (pool) pool->reset();
        if (options.before_iteration) options.before_iteration();
        state.start = Clock::now();
        sync.arrive_and_wait();
        if (workers > 0) work(0);
        sync.arrive_and_wait();
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - state.start).count();
        if (state.error) break;
        if (it < warmup || (warmup > 0 && warmed_ms < options.warmup_ms && it < kMaxWarmupIterations)) {
          warmed_ms += ms;
        } else {
          ++timed;
          result.iteration_ms.push_back(ms);
          item_runs.push_back(state.items);
        }
      }
      state.teams.finish(0);  // the caller's team outlives the run
      stop.store(true, std::memory_order_release);
      sync.arrive_and_wait();  // the workers see `stop` and return
    }  // join
    if (state.error) return *state.error;
    finish_measured_run(result, std::move(item_runs), schedule, plan.arena_bytes, "cpu", "cpu");
    result.random_weights = state.random_weights;
    // The reference executor runs a merged node's members one after another, in their order.
    for (std::size_t v = 0; v < graph.node_count(); ++v)
      if (is_merged_node(graph.node(static_cast<NodeId>(v)))) ++result.merged_paths["members in turn"];

    for (TensorId t : graph.outputs()) {
      const View& v = state.values[static_cast<std::size_t>(t)];
      HostTensor h;
      h.dtype = v.dtype;
      h.shape = v.shape;
      h.bytes.resize(v.bytes());
      if (!h.bytes.empty()) std::memcpy(h.bytes.data(), v.data, h.bytes.size());
      result.outputs[graph.tensor(t).name] = std::move(h);
    }
    return result;
  }

  /// Prepares every node a library kernel takes (its inputs' shapes known from the graph), sizes
  /// each worker's scratch for the nodes it may run (its stream's, or any node's when workers
  /// share the streams) and reports kernels, scratch and packed weights in `result`.
  static void prepare_library(const Graph& graph, const Schedule& schedule, std::size_t workers, bool shared_streams,
                              LibraryKernelShare* share, RunState& state, RunResult& result) {
    // A share's first run prepares while the others wait, then they take its kernels and layout.
    std::unique_lock<std::mutex> share_lock;
    if (share) share_lock = std::unique_lock(share->mutex);
    std::vector<std::shared_ptr<const detail::PreparedKernel>> prepared(graph.node_count());
    if (share && share->ready) {
      state.channels_last = share->channels_last;
      prepared = share->prepared;
    } else {
      prepare_layout_and_kernels(graph, state, prepared);
      if (share) {
        share->channels_last = state.channels_last;
        share->prepared = prepared;
        share->ready = true;
      }
    }
    if (share_lock) share_lock.unlock();
    state.teams.prepared();
    std::vector<std::size_t> need(graph.node_count(), 0);
    for (std::size_t v = 0; v < graph.node_count(); ++v) {
      const auto& k = prepared[v];
      ++result.kernel_paths[k ? k->implementation : "reference"];
      if (!k) continue;
      need[v] = k->scratch_bytes;
      result.packed_weight_bytes += static_cast<std::int64_t>(k->packed_bytes);
      state.prepared[v] = std::move(prepared[v]);
    }
    result.channels_last_tensors = std::count(state.channels_last.begin(), state.channels_last.end(), 1);
    state.scratch.resize(std::max<std::size_t>(workers, 1));
    const std::size_t any_node = need.empty() ? 0 : *std::max_element(need.begin(), need.end());
    for (std::size_t w = 0; w < state.scratch.size(); ++w) {
      std::size_t bytes = any_node;
      if (!shared_streams && w < schedule.streams.size()) {
        bytes = 0;
        for (NodeId v : schedule.streams[w]) bytes = std::max(bytes, need[idx(v)]);
      }
      state.scratch[w].resize(bytes);
      result.library_scratch_bytes += static_cast<std::int64_t>(bytes);
    }
  }

  /// The layout plan, then every node prepared on it. A node its library declines cannot take
  /// channels-last tensors: those it touches go back to Weft's layout and the whole graph is
  /// planned and prepared again, until nothing changes (each round only adds plain tensors;
  /// oneDNN's primitive cache makes a second round cheap).
  static void prepare_layout_and_kernels(const Graph& graph, RunState& state,
                                         std::vector<std::shared_ptr<const detail::PreparedKernel>>& prepared) {
    std::vector<char> plain(graph.tensor_count(), 0);
    for (bool again = true; again;) {
      again = false;
      state.channels_last = detail::plan_channels_last(graph, plain);
      for (std::size_t v = 0; v < graph.node_count(); ++v) {
        const Node& node = graph.node(static_cast<NodeId>(v));
        const auto touches = [&](const std::vector<TensorId>& ts) {
          return std::any_of(ts.begin(), ts.end(), [&](TensorId t) { return t != kNoTensor && state.channels_last[idx(t)]; });
        };
        const bool on_plan = touches(node.inputs) || touches(node.outputs);
        // A node on a team of its own gets a primitive made for that team, on the CPUs it runs on.
        std::optional<detail::LibraryTeam> node_team;
        if (state.teams.team(static_cast<NodeId>(v)) != state.teams.stream_team()) node_team.emplace(state.teams.team(static_cast<NodeId>(v)));
        state.teams.prepare(static_cast<NodeId>(v));
        prepared[v] = prepare_node(graph, node, state);
        if (prepared[v] || !on_plan) continue;
        for (const auto* ts : {&node.inputs, &node.outputs})
          for (TensorId t : *ts)
            if (t != kNoTensor && state.channels_last[idx(t)]) plain[idx(t)] = 1;
        again = true;
      }
    }
  }

  /// One node prepared for its library kernel on the layout plan, or null (its inputs' shapes are
  /// not all known, or the library declines).
  static std::unique_ptr<detail::PreparedKernel> prepare_node(const Graph& graph, const Node& node, const RunState& state) {
    std::vector<View> inputs(node.inputs.size());
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      const TensorId t = node.inputs[i];
      if (t == kNoTensor) continue;
      const Tensor& tensor = graph.tensor(t);
      const View& value = state.values[idx(t)];
      if (value.present()) inputs[i] = value;  // a source or a view: its bytes are there
      else if (tensor.shape_known() && tensor.dtype != DType::Undefined) inputs[i] = View{tensor.dtype, tensor.shape(), nullptr};
      else return nullptr;
      inputs[i].channels_last = state.channels_last[idx(t)] != 0;
    }
    PrepareContext ctx(graph, node, inputs, state);
    return detail::prepare_library_kernel(ctx);
  }

  /// What a library kernel's preparation sees: the node, its inputs' shapes, the bytes of its
  /// sources; outputs cannot be asked for yet.
  class PrepareContext final : public detail::KernelContext {
   public:
    PrepareContext(const Graph& graph, const Node& node, std::span<const View> inputs, const RunState& state)
        : KernelContext(node, inputs, state.opset, &graph), m_channels_last(state.channels_last) {
      set_batch_invariant(state.batch_invariant);
    }
    Expected<View> output(std::size_t, DType, detail::Shape) override {
      return detail::kernel_error(*this, "outputs are not available while preparing");
    }
    bool output_channels_last(std::size_t i) const override {
      const Node& n = node();
      return i < n.outputs.size() && n.outputs[i] != kNoTensor && m_channels_last[idx(n.outputs[i])];
    }

   private:
    const std::vector<char>& m_channels_last;
  };

  static Status prepare_sources(const Graph& graph, const RunOptions& options, RunState& state) {
    for (std::size_t i = 0; i < graph.tensor_count(); ++i) {
      const Tensor& t = graph.tensor(static_cast<TensorId>(i));
      if (t.is_view() || t.producer != kNoNode || (t.kind != TensorKind::Weight && t.kind != TensorKind::Input)) continue;
      bool seeded = false;
      WEFT_TRY_ASSIGN(auto h, initial_value(graph, static_cast<TensorId>(i), options, &seeded));
      state.own[i].resize(h.bytes.size());
      if (!h.bytes.empty()) std::memcpy(state.own[i].data(), h.bytes.data(), h.bytes.size());
      state.values[i] = View{h.dtype, h.shape, state.own[i].data()};
      if (seeded) ++state.random_weights;
    }
    // Views alias their parent: a graph input's buffer, or the bytes (in the arena when planned
    // there) that the views' producers write in place: a split's output, a merged node's outputs.
    for (std::size_t i = 0; i < graph.tensor_count(); ++i) {
      const Tensor& t = graph.tensor(static_cast<TensorId>(i));
      if (t.views.empty()) continue;
      if (t.kind == TensorKind::Output || t.kind == TensorKind::Intermediate) {
        std::uint8_t* base = nullptr;
        if (state.plan->offset[i] != kNotPlanned) {
          base = state.arena.data() + state.plan->offset[i];
        } else {
          state.own[i].resize(static_cast<std::size_t>(t.bytes()));
          base = state.own[i].data();
        }
        state.values[i] = View{t.dtype, t.shape(), base};
      }
      for (TensorId v : t.views) {
        const Tensor& view = graph.tensor(v);
        state.values[static_cast<std::size_t>(v)] = View{view.dtype, view.shape(), static_cast<std::uint8_t*>(state.values[i].data) + view.view_offset};
      }
    }
    return {};
  }
};

}  // namespace

std::unique_ptr<Executor> make_cpu_executor() { return std::make_unique<CpuExecutor>(); }

int cpu_count() { return static_cast<int>(worker_count(allowed_cpus(), std::numeric_limits<int>::max())); }

std::vector<std::string> cpu_supported_ops() { return detail::kernel_registry().names(); }

std::string cpu_kernel_library() { return detail::library_name(); }

std::string kernel_paths_text(const RunResult& run) {
  std::int64_t total = 0, reference = 0;
  std::string library;
  for (const auto& [path, nodes] : run.kernel_paths) {
    total += nodes;
    if (path == "reference") {
      reference = nodes;
      continue;
    }
    // "oneDNN brgconv:avx512_core" -> "brgconv:avx512_core" (the library is named once).
    const std::string name = path.rfind("oneDNN ", 0) == 0 ? path.substr(7) : path;
    library += (library.empty() ? "" : ", ") + name + " " + std::to_string(nodes);
  }
  if (total == 0) return "none ran";
  std::string text;
  if (total > reference) {
    const std::string lib = cpu_kernel_library();
    text = (lib.empty() ? std::string("library kernels") : lib) + " on " + std::to_string(total - reference) + " of " + std::to_string(total) +
           " nodes (" + library + ")";
  }
  if (reference > 0) text += (text.empty() ? "" : ", ") + std::string("reference kernels on ") + std::to_string(reference);
  text += "; " + std::to_string(run.threads_per_stream) + (run.threads_per_stream == 1 ? " thread" : " threads") + " per stream";
  if (run.node_team_nodes > 0)
    text += " (" + std::to_string(run.node_team_nodes) + " nodes alone on teams of " + std::to_string(run.node_team_threads) + " threads)";
  if (run.channels_last_tensors > 0) text += "; " + std::to_string(run.channels_last_tensors) + " tensors channels-last";
  if (run.library_scratch_bytes > 0 || run.packed_weight_bytes > 0)
    text += "; library scratch " + mib_text(run.library_scratch_bytes) + ", weights packed for the library " + mib_text(run.packed_weight_bytes);
  return text;
}

namespace {

/// Every operator of `graph` and of its bodies has a kernel, and no input is a string; graph
/// inputs of a main graph must be tensors (a body's captures are typed at run time).
Status check_graph_supported(const Graph& graph, bool is_body) {
  const auto& registry = detail::kernel_registry();
  for (TensorId t : graph.inputs()) {
    const DType d = graph.tensor(t).dtype;
    if (d == DType::String)
      return make_error(ErrorKind::InvalidInput, "unsupported: input '" + graph.tensor(t).name + "': dtype " +
                                                     std::string(dtype_name(d)));
  }
  for (const Node& node : graph.nodes()) {
    if (!registry.find(detail::kernel_key(node)))
      return make_error(ErrorKind::InvalidInput, "unsupported: node '" + node.name + "': operator '" +
                                                     (node.domain.empty() ? std::string() : node.domain + "::") + node.op_type +
                                                     "' has no CPU kernel");
    for (TensorId t : node.inputs) {
      if (t == kNoTensor) continue;
      const DType d = graph.tensor(t).dtype;
      if (!is_body && d == DType::Undefined && graph.tensor(t).kind == TensorKind::Input)
        return make_error(ErrorKind::InvalidInput, "unsupported: node '" + node.name + "' (" + node.op_type +
                                                       "): non-tensor input '" + graph.tensor(t).name + "'");
      if (d == DType::String)
        return make_error(ErrorKind::InvalidInput, "unsupported: node '" + node.name + "' (" + node.op_type + "): dtype " +
                                                       std::string(dtype_name(d)));
    }
    for (const auto& [attr, body] : node_subgraphs(node))
      WEFT_TRY(check_graph_supported(*body, true));
  }
  return {};
}

}  // namespace

Status cpu_check_supported(const Graph& graph) { return check_graph_supported(graph, false); }

}  // namespace weft::core
