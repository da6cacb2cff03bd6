// The simulator: host issue thread, then a discrete-event fluid model of the device.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <tuple>

#include "weft/core/base/check.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/sim/simulator.h"

namespace weft::core {

namespace {

using detail::idx;

// The issue order over the schedule's one checked execution order (stream slots, events and H's
// successors): Kahn's algorithm keyed by each node's earliest ideal start.
std::vector<NodeId> order_by_ideal_start(const ExecutionOrder& order, const CostTable& costs) {
  const std::size_t n = order.node_count();
  std::vector<std::uint32_t> indeg(n, 0);
  for (std::size_t u = 0; u < n; ++u)
    for (NodeId v : order.successors(static_cast<NodeId>(u))) ++indeg[idx(v)];
  // Earliest ideal start (no overheads, no sharing): issuing by it interleaves the streams the
  // way a runtime walking the schedule breadth-first would, so no stream starves behind another.
  std::vector<double> est(n, 0.0);
  using Key = std::tuple<double, int, int, NodeId>;
  std::priority_queue<Key, std::vector<Key>, std::greater<>> ready;
  const auto key = [&](NodeId v) { return Key{est[idx(v)], order.stream_of(v), order.index(v), v}; };
  for (std::size_t v = 0; v < n; ++v)
    if (indeg[v] == 0) ready.push(key(static_cast<NodeId>(v)));
  std::vector<NodeId> issue;
  issue.reserve(n);
  while (!ready.empty()) {
    const NodeId u = std::get<3>(ready.top());
    ready.pop();
    issue.push_back(u);
    const double end = est[idx(u)] + (idx(u) < costs.nodes.size() ? std::max(0.0, costs[u].time_us) : 0.0);
    for (NodeId v : order.successors(u)) {
      est[idx(v)] = std::max(est[idx(v)], end);
      if (--indeg[idx(v)] == 0) ready.push(key(v));
    }
  }
  // ExecutionOrder refused cycles when it was built.
  WEFT_CHECK_MSG(issue.size() == n, "issue order: a cycle the execution order did not refuse");
  return issue;
}

struct Running {
  NodeId node;
  double remaining;  // µs of isolated work left
  double duration;
  KernelDemand demand;
  std::size_t slots = 1;  // CPU: the streams' worth of cores its team holds
};

void push_sample(std::vector<CounterSample>& v, double t, double value) {
  if (!v.empty() && v.back().value == value) return;
  if (!v.empty() && v.back().time_us == t) {
    v.back().value = value;
    // Collapsing may leave two equal neighbours; drop the redundant one.
    if (v.size() >= 2 && v[v.size() - 2].value == value) v.pop_back();
    return;
  }
  v.push_back({t, value});
}

}  // namespace

double device_time_us(const NodeCost& cost, const DeviceSpec& device) {
  if (cost.time_us <= 0) return 0;
  if (cost.measured) return cost.time_us;
  // On a CPU the stream's own thread pays the per-operator overhead: it is part of the run.
  if (device.kind == DeviceKind::Cpu) return std::max(device.kernel_min_us, cost.time_us);
  return std::max(device.kernel_min_us, cost.time_us - device.launch_us);
}

KernelDemand kernel_demand(const Graph& graph, NodeId n, const NodeCost& cost, const DeviceSpec& device) {
  KernelDemand d;
  if (device.kind == DeviceKind::Cpu) {
    // One thread runs the operator on one core for its whole duration, whatever it computes;
    // what cores share besides (caches, memory bandwidth, the clock budget) is the device's
    // concurrent_slowdown, applied by the simulator by the number of busy cores. A memory-bound
    // operator's bandwidth demand marks it for concurrent_slowdown_memory (its share of the
    // cores never makes the fluid model slow it on its own).
    d.occupancy = d.compute = device.sm_count > 0 ? 1.0 / device.sm_count : 1.0;
    if (cost.bound == Bound::Memory) d.bandwidth = d.occupancy;
    return d;
  }
  double elems = 0;
  for (TensorId t : graph.node(n).outputs)
    if (t != kNoTensor) elems += static_cast<double>(std::max<std::int64_t>(0, graph.tensor(t).elements()));
  const double blocks = std::ceil(elems / kThreadsPerBlock);
  d.occupancy = device.sm_count > 0 ? std::min(1.0, blocks / device.sm_count) : 1.0;
  if (elems <= 0) d.occupancy = device.sm_count > 0 ? 1.0 / device.sm_count : 1.0;  // one block at least
  const double t = device_time_us(cost, device) * 1e-6;  // s
  if (t <= 0) return d;
  if (cost.flops > 0 && device.peak_fp32_flops > 0)
    d.compute = std::min(d.occupancy, std::min(1.0, cost.flops / (t * device.peak_fp32_flops)));
  else if (cost.bytes <= 0)
    d.compute = d.occupancy;  // nothing known: assume it fills the SMs its grid covers
  if (cost.bytes > 0 && device.memory_bandwidth > 0) d.bandwidth = std::min(1.0, cost.bytes / (t * device.memory_bandwidth));
  return d;
}

std::vector<KernelDemand> kernel_demands(const Graph& graph, const CostTable& costs, const DeviceSpec& device) {
  std::vector<KernelDemand> out(graph.node_count());
  for (std::size_t v = 0; v < out.size(); ++v) out[v] = kernel_demand(graph, static_cast<NodeId>(v), costs.nodes[v], device);
  return out;
}

Expected<std::vector<NodeId>> issue_order(const Graph& graph, const Schedule& schedule, const CostTable& costs) {
  WEFT_TRY_ASSIGN(const ExecutionOrder order, ExecutionOrder::build_unclocked(graph, schedule));
  return order_by_ideal_start(order, costs);
}

std::vector<NodeId> issue_order(const ExecutionOrder& order, const CostTable& costs) {
  return order_by_ideal_start(order, costs);
}

Timeline simulate(const Graph& graph, const Schedule& schedule, const CostTable& costs, const DeviceSpec& device,
                  const SimOptions& options) {
  auto order = ExecutionOrder::build_unclocked(graph, schedule);
  WEFT_CHECK_MSG(order, "simulate: invalid or deadlocking schedule (check it with issue_order or validate_schedule first)");
  return simulate(graph, *order, costs, device, options);
}

namespace {

/// When the host has issued each node and each event record, and how long an event takes from
/// its producer's end to its consumer's start.
struct HostIssue {
  std::vector<double> issue;      ///< the node's kernel launch returns then
  std::vector<double> record_at;  ///< the event's record returns then
  /// Nothing for a GPU (the host's record and wait are charged on the host), a latch's store and
  /// wake-up for a CPU.
  double event_latency = 0;
};

HostIssue host_issue(const ExecutionOrder& sync, const std::vector<NodeId>& order, const CostTable& costs, const DeviceSpec& device,
                     const SimOptions& options) {
  HostIssue h;
  h.issue.assign(sync.node_count(), 0.0);
  h.record_at.assign(sync.schedule().events.size(), 0.0);
  if (device.kind == DeviceKind::Cpu) {
    // Each stream thread issues its own operators: no shared host thread to wait for.
    h.event_latency = device.event_record_us + device.event_wait_us;
  } else if (options.cuda_graph) {
    // One cudaGraphLaunch, then the graph executor releases the nodes in order at its per-node
    // rate; dependencies (events included) are graph edges and cost the host nothing.
    double t = device.launch_us;
    for (NodeId v : order) {
      if (costs[v].time_us > 0) t += device.graph_launch_per_node_us;
      h.issue[idx(v)] = t;
    }
  } else {
    double t = 0;
    for (NodeId v : order) {
      t += device.event_wait_us * static_cast<double>(sync.waits(v).size());
      if (costs[v].time_us > 0) t += device.launch_us;  // a node predicted at 0 µs launches nothing
      h.issue[idx(v)] = t;
      for (std::uint32_t e : sync.records(v)) {
        t += device.event_record_us;
        h.record_at[e] = t;
      }
    }
  }
  return h;
}

/// On a CPU device that measured what a core pays for data another core touched
/// (DeviceSpec::cross_core_us_per_mib, each tensor counted up to cross_core_max_bytes), what each
/// node pays, µs: for the inputs a node of another stream wrote and, with the plan, for writing
/// its outputs into arena bytes a node of another stream wrote last (each line is fetched from
/// the other core's cache first). Nodes of no time (metadata only) read and write nothing. The
/// writes are followed in `order`, a linear extension of the schedule's order, which orders every
/// two tensors the plan lets share bytes. Empty where nothing is paid. O(V log T + inputs + outputs).
std::vector<double> cross_core_us(const Graph& graph, const ExecutionOrder& sync, const std::vector<NodeId>& order,
                                  const CostTable& costs, const DeviceSpec& device, const MemoryPlan* plan) {
  if (device.kind != DeviceKind::Cpu || !(device.cross_core_us_per_mib > 0) || !(device.cross_core_max_bytes > 0) ||
      sync.schedule().stream_count() < 2)
    return {};
  std::vector<double> out(graph.node_count(), 0.0);
  const double per_byte = device.cross_core_us_per_mib / static_cast<double>(1 << 20);
  const auto pay = [&](NodeId v, double bytes) { out[idx(v)] += std::min(bytes, device.cross_core_max_bytes) * per_byte; };
  for (std::size_t v = 0; v < out.size(); ++v) {
    if (costs.nodes[v].time_us <= 0) continue;
    const std::int32_t stream = sync.stream_of(static_cast<NodeId>(v));
    const std::vector<TensorId>& inputs = graph.node(static_cast<NodeId>(v)).inputs;
    for (auto in = inputs.begin(); in != inputs.end(); ++in) {
      if (*in == kNoTensor || std::find(inputs.begin(), in, *in) != in) continue;  // each tensor once
      const NodeId producer = graph.tensor(*in).producer;
      if (producer != kNoNode && sync.stream_of(producer) != stream && graph.bytes(*in) > 0)
        pay(static_cast<NodeId>(v), static_cast<double>(graph.bytes(*in)));
    }
  }
  if (!plan) return out;
  // The stream that last wrote each run of arena bytes, by the run's first byte (-1: none yet).
  std::map<std::int64_t, std::int32_t> last{{0, -1}, {std::max<std::int64_t>(plan->arena_bytes, 1), -1}};
  const auto split = [&](std::int64_t at) {
    auto it = std::prev(last.upper_bound(at));
    if (it->first != at) last.emplace_hint(std::next(it), at, it->second);
  };
  for (NodeId v : order) {
    if (costs[v].time_us <= 0) continue;
    const std::int32_t stream = sync.stream_of(v);
    for (TensorId t : graph.node(v).outputs) {
      if (t == kNoTensor || idx(t) >= plan->offset.size() || plan->offset[idx(t)] < 0) continue;
      const std::int64_t lo = plan->offset[idx(t)];
      const std::int64_t hi = std::min(lo + std::max<std::int64_t>(graph.bytes(t), 0), plan->arena_bytes);
      if (hi <= lo) continue;
      split(lo);
      split(hi);
      double others = 0;
      for (auto it = last.find(lo); it->first < hi; ++it)
        if (it->second >= 0 && it->second != stream) others += static_cast<double>(std::next(it)->first - it->first);
      last.erase(std::next(last.find(lo)), last.find(hi));
      last[lo] = stream;
      pay(v, others);
    }
  }
  return out;
}

/// The fluid model's rates: running kernels share compute and bandwidth in proportion to their
/// demands (a CPU's busy cores also slow each other by the device's contention factor). Fills
/// `rate` per running kernel; returns the compute and bandwidth used.
std::pair<double, double> share_rates(const std::vector<Running>& running, const DeviceSpec& device, const SimOptions& options,
                                      std::vector<double>& rate) {
  double total_c = 0, total_b = 0;
  for (const Running& r : running) {
    total_c += r.demand.compute;
    total_b += r.demand.bandwidth;
  }
  rate.assign(running.size(), 1.0);
  double use_c = 0, use_b = 0;
  for (std::size_t i = 0; i < running.size(); ++i) {
    const KernelDemand& d = running[i].demand;
    if (options.share_compute && d.compute > 0 && total_c > 1) rate[i] = std::min(rate[i], 1.0 / total_c);
    if (options.share_bandwidth && d.bandwidth > 0 && total_b > 1) rate[i] = std::min(rate[i], 1.0 / total_b);
    use_c += d.compute * rate[i];
    use_b += d.bandwidth * rate[i];
  }
  // Memory-bound operators (a bandwidth demand on a CPU) take their own factor.
  const double memory_slowdown = device.concurrent_slowdown_memory >= 1 ? device.concurrent_slowdown_memory : device.concurrent_slowdown;
  if (device.kind == DeviceKind::Cpu && std::max(device.concurrent_slowdown, memory_slowdown) > 1 && device.sm_count > 1 &&
      running.size() > 1) {
    std::size_t held = 0;
    for (const Running& r : running) held += r.slots;
    const double busy = static_cast<double>(std::min<std::size_t>(held, static_cast<std::size_t>(device.sm_count)));
    const double share = (busy - 1) / (device.sm_count - 1);
    for (std::size_t i = 0; i < running.size(); ++i)
      rate[i] /= 1 + ((running[i].demand.bandwidth > 0 ? memory_slowdown : device.concurrent_slowdown) - 1) * share;
  }
  return {use_c, use_b};
}

}  // namespace

Timeline simulate(const Graph& graph, const ExecutionOrder& sync, const CostTable& costs, const DeviceSpec& device,
                  const SimOptions& options) {
  WEFT_CHECK_MSG(sync.includes_events(), "simulate: the order must include the schedule's events");
  const Schedule& schedule = sync.schedule();
  const std::size_t n = graph.node_count();
  Timeline tl;
  tl.kind = options.kind;
  tl.strategy = schedule.strategy;
  tl.label = options.label.empty() ? "predicted " + (schedule.strategy.empty() ? std::string("schedule") : schedule.strategy)
                                   : options.label;
  tl.device = device.name;
  tl.stream_count = static_cast<int>(schedule.stream_count());
  tl.events = schedule.events;
  WEFT_CHECK(costs.nodes.size() == n && sync.node_count() == n);
  WEFT_CHECK(!options.demands || options.demands->size() == n);
  const std::vector<NodeId> order = order_by_ideal_start(sync, costs);

  const HostIssue host = host_issue(sync, order, costs, device, options);
  const std::vector<double>& issue = host.issue;
  const std::vector<double>& record_at = host.record_at;
  const double event_latency = host.event_latency;

  // Device: fluid model. deps_left counts the stream predecessor and the waited events.
  std::vector<std::uint32_t> deps_left(n, 0);
  std::vector<double> ready_at(issue);
  for (std::size_t v = 0; v < n; ++v)
    deps_left[v] = static_cast<std::uint32_t>(sync.waits(static_cast<NodeId>(v)).size()) +
                   (sync.index(static_cast<NodeId>(v)) > 0 ? 1u : 0u);
  using Key = std::pair<double, NodeId>;
  std::priority_queue<Key, std::vector<Key>, std::greater<>> ready;
  for (std::size_t v = 0; v < n; ++v)
    if (deps_left[v] == 0) ready.emplace(ready_at[v], static_cast<NodeId>(v));
  // A CPU runs one node per core: the CPU executor has a thread per core at most. A core that
  // frees takes its stream's next node when that is ready at once, else the node that has
  // waited longest: `waiting` holds the ready nodes in that order (stream continuations first).
  // A GPU starts every ready kernel and shares the device between them.
  const bool capped = device.kind == DeviceKind::Cpu && device.sm_count > 0;
  const auto slots = capped ? static_cast<std::size_t>(device.sm_count) : n;
  using Wait = std::tuple<bool, double, NodeId>;  // not a continuation, ready at, node
  std::priority_queue<Wait, std::vector<Wait>, std::greater<>> waiting;
  std::vector<char> continues(capped ? n : 0, 0);
  // Hybrid teams (Schedule::node_threads): a node on a team wider than its stream's holds as
  // many streams' worth of cores (every one, for the nodes that run alone).
  const auto slots_of = [&](NodeId v) -> std::size_t {
    if (!capped) return 1;
    const int own = std::max(device.threads_per_stream, 1);
    const auto want = static_cast<std::size_t>((std::max(schedule.team_of(v), 1) + own - 1) / own);
    return std::clamp<std::size_t>(want, 1, slots);
  };
  std::size_t held = 0;  // slots the running nodes hold

  tl.items.resize(n);
  for (std::size_t v = 0; v < n; ++v) {
    tl.items[v].node = static_cast<NodeId>(v);
    tl.items[v].stream = sync.stream_of(static_cast<NodeId>(v));
  }
  auto release = [&](NodeId v, double t) {
    ready_at[idx(v)] = std::max(ready_at[idx(v)], t);
    if (--deps_left[idx(v)] == 0) ready.emplace(ready_at[idx(v)], v);
  };

  std::vector<Running> running;
  std::vector<double> rate;
  std::size_t done = 0;
  double now = 0;
  const std::vector<double> cross = cross_core_us(graph, sync, order, costs, device, options.plan);
  const auto start = [&](NodeId v) {
    const double dur = device_time_us(costs[v], device) + (cross.empty() ? 0.0 : cross[idx(v)]);
    tl.items[idx(v)].start_us = now;
    KernelDemand demand = options.demands ? (*options.demands)[idx(v)] : kernel_demand(graph, v, costs[v], device);
    const std::size_t k = slots_of(v);
    if (k > 1) {
      demand.compute *= static_cast<double>(k);
      demand.occupancy *= static_cast<double>(k);
      if (demand.bandwidth > 0) demand.bandwidth *= static_cast<double>(k);
    }
    held += k;
    running.push_back({v, dur, dur, demand, k});
  };
  while (done < n) {
    while (!ready.empty() && ready.top().first <= now) {
      const auto [at, v] = ready.top();
      ready.pop();
      if (capped) waiting.emplace(!continues[idx(v)], at, v);
      else start(v);
    }
    while (!waiting.empty() && held + slots_of(std::get<2>(waiting.top())) <= slots) {
      start(std::get<2>(waiting.top()));
      waiting.pop();
    }
    if (running.empty()) {
      WEFT_CHECK_MSG(!ready.empty(), "simulate: nothing running and nothing ready (deadlock)");
      now = ready.top().first;
      continue;
    }
    const auto [use_c, use_b] = share_rates(running, device, options, rate);
    push_sample(tl.compute_use, now, std::min(1.0, use_c));
    push_sample(tl.bandwidth_use, now, std::min(1.0, use_b));

    std::size_t first = 0;
    double t_fin = now + running[0].remaining / rate[0];
    for (std::size_t i = 1; i < running.size(); ++i) {
      const double t = now + running[i].remaining / rate[i];
      if (t < t_fin) {
        t_fin = t;
        first = i;
      }
    }
    const bool arrival_first = !ready.empty() && ready.top().first < t_fin;
    const double t_next = arrival_first ? ready.top().first : t_fin;
    const double dt = t_next - now;
    for (std::size_t i = 0; i < running.size(); ++i) running[i].remaining -= rate[i] * dt;
    now = t_next;
    if (!arrival_first) running[first].remaining = 0;  // exact, whatever the rounding did
    // Finish every kernel whose work is (numerically) done at `now`.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < running.size(); ++i) {
      Running& r = running[i];
      if (r.remaining > 1e-9 * std::max(1.0, r.duration)) {
        running[kept++] = r;
        continue;
      }
      const NodeId v = r.node;
      tl.items[idx(v)].end_us = now;
      held -= r.slots;
      ++done;
      const auto& stream = schedule.streams[static_cast<std::size_t>(sync.stream_of(v))];
      const auto next = static_cast<std::size_t>(sync.index(v)) + 1;
      if (next < stream.size()) {
        release(stream[next], now);
        // Ready the moment its stream predecessor ends: that core carries on with it.
        if (capped) continues[idx(stream[next])] = deps_left[idx(stream[next])] == 0 && ready_at[idx(stream[next])] <= now;
      }
      for (std::uint32_t e : sync.records(v)) release(schedule.events[e].to, std::max(now + event_latency, record_at[e]));
    }
    running.resize(kept);
  }
  push_sample(tl.compute_use, now, 0);
  push_sample(tl.bandwidth_use, now, 0);

  if (options.plan) add_arena_counter(graph, *options.plan, tl);
  return tl;
}

CostTable cpu_node_team_costs(const Graph& graph, const Schedule& schedule, const CostTable& costs, const DeviceSpec& device,
                              std::size_t* uncalibrated) {
  if (device.kind != DeviceKind::Cpu || !schedule.has_node_teams()) return costs;
  const int own = std::max(device.threads_per_stream, 1);
  CostTable out = costs;
  std::map<int, std::optional<CostTable>> at_team;  // per team size: the costs on that team, if calibrated
  for (std::size_t v = 0; v < out.nodes.size() && v < graph.node_count(); ++v) {
    const int team = schedule.team_of(static_cast<NodeId>(v));
    if (team == own) continue;
    auto it = at_team.find(team);
    if (it == at_team.end()) {
      std::optional<CostTable> moved;
      if (auto team_device = cpu_team_device(device, team)) moved = cpu_team_costs(graph, costs, device, *team_device);
      it = at_team.emplace(team, std::move(moved)).first;
    }
    if (it->second) out.nodes[v] = it->second->nodes[v];
    else if (uncalibrated) ++*uncalibrated;
  }
  return out;
}

void add_arena_counter(const Graph& graph, const MemoryPlan& plan, Timeline& tl) {
  // Arena bytes in use: a tensor is allocated when its producer starts and freed when its last
  // reader ends (its producer, if nobody reads it). Frees sort before allocations at one instant.
  // A block written through views (a split's output, a merged node's outputs) is one tensor,
  // from its first writer's start to its last access; its views are inside it.
  tl.arena_bytes.clear();
  std::vector<std::pair<double, double>> deltas;
  for (std::size_t t = 0; t < graph.tensor_count() && t < plan.offset.size(); ++t) {
    if (plan.offset[t] == kNotPlanned) continue;
    const auto id = static_cast<TensorId>(t);
    const Tensor& tensor = graph.tensor(id);
    if (tensor.is_view() || (tensor.producer == kNoNode && tensor.views.empty())) continue;
    const double bytes = static_cast<double>(t < plan.size.size() && plan.size[t] > 0 ? plan.size[t] : std::max<std::int64_t>(0, tensor.bytes()));
    double alloc_at = std::numeric_limits<double>::infinity(), free_at = 0;
    for (NodeId w : graph.writers(id)) {
      alloc_at = std::min(alloc_at, tl.items[idx(w)].start_us);
      free_at = std::max(free_at, tl.items[idx(w)].end_us);
    }
    for (NodeId c : graph.readers(id)) free_at = std::max(free_at, tl.items[idx(c)].end_us);
    if (alloc_at > free_at) continue;  // no writer
    deltas.emplace_back(alloc_at, bytes);
    deltas.emplace_back(free_at, -bytes);
  }
  std::sort(deltas.begin(), deltas.end());
  double live = 0;
  tl.arena_bytes.push_back({0, 0});
  for (const auto& [t, d] : deltas) {
    live += d;
    push_sample(tl.arena_bytes, t, std::max(0.0, live));
  }
}

std::string_view launch_mode_name(LaunchMode mode) { return mode == LaunchMode::Graph ? "graph" : "eager"; }

std::vector<double> launch_weights(const CostTable& costs, const DeviceSpec& device, LaunchMode mode) {
  double per_node = mode == LaunchMode::Graph ? device.graph_launch_per_node_us : device.launch_us;
  if (device.kind == DeviceKind::Cpu) per_node = 0;  // in device_time_us already
  std::vector<double> w(costs.nodes.size(), 0.0);
  for (std::size_t v = 0; v < w.size(); ++v)
    if (costs.nodes[v].time_us > 0) w[v] = device_time_us(costs.nodes[v], device) + per_node;
  return w;
}

}  // namespace weft::core
