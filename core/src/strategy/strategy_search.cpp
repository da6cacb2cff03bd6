// search: simulated annealing over stream assignments and issue priorities with the simulator as
// the objective, started from the best of the fixed strategies (so never worse than them).
// Moves: one node to another (or a new) stream; a node's run of stream-mates to another stream;
// two streams merged; two independent neighbours swapped in the priority order. Each candidate
// gets its minimal events and is simulated in the launch mode of the options. Anytime: the best
// schedule so far is kept; the budget is wall time, or a count of candidates for results that
// depend only on the seed. On a CPU calibrated at several team sizes the threads per stream are
// searched too (search_teams).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <random>

#include "strategy_detail.h"
#include "weft/core/analysis/antichain.h"
#include "weft/core/base/check.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/analysis/critical_path.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/schedule/node_teams.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/strategy/registry.h"
#include "weft/core/schedule/sync.h"
#include "weft/core/base/text_format.h"

namespace weft::core::detail {
namespace {

struct SearchCandidate {
  std::vector<int> stream_of;  // by node
  std::vector<NodeId> order;   // a topological order: the priority in which streams list nodes
};

class Search {
 public:
  explicit Search(const StrategyInput& in) : m_in(in), m_rng(in.options.seed) {
    m_sim.cuda_graph = in.options.cuda_graph;
  }

  double makespan(const SearchCandidate& c) {
    ++m_evaluations;
    Schedule s = from_assignment(c.stream_of, c.order);
    s.events = compute_events(m_in.graph, s);
    return simulate(m_in.graph, s, m_in.costs, m_in.device, m_sim).makespan_us();
  }

  // The fixed strategies' schedules as candidates; the best one starts the search.
  SearchCandidate start(std::string& from, double& best_us) {
    SearchCandidate best;
    best_us = std::numeric_limits<double>::infinity();
    // chains and resource-aware start from one chain cover.
    StrategyOptions options = m_in.options;
    if (!options.chain_cover) options.chain_cover = std::make_shared<const ChainCover>(min_chain_cover(m_in.graph));
    for (const std::string& name : fixed_strategy_names()) {
      auto made = make_schedule(name, m_in.graph, m_in.costs, m_in.device, options);
      if (!made || static_cast<int>(made->stream_count()) > m_in.options.max_streams) continue;
      SearchCandidate c = from_schedule(*made);
      const double t = makespan(c);
      if (t < best_us) {
        best_us = t;
        best = std::move(c);
        from = name;
      }
    }
    return best;
  }

  SearchCandidate from_schedule(const Schedule& s) const {
    SearchCandidate c;
    c.stream_of.assign(m_in.graph.node_count(), 0);
    for (std::size_t i = 0; i < s.streams.size(); ++i)
      for (NodeId v : s.streams[i]) c.stream_of[static_cast<std::size_t>(v)] = static_cast<int>(i);
    // Issue order: a topological order of data edges and stream order, the lowest id first (the
    // schedule's events are data edges: they add no order).
    auto order = ExecutionOrder::build_unclocked(m_in.graph, s, ExecutionOrder::Walk::LowestIdFirst);
    WEFT_CHECK_MSG(order, "a valid schedule's stream order is acyclic");
    c.order = order->order();
    return c;
  }

  // A random neighbour of `c`; false when the move changed nothing.
  bool mutate(SearchCandidate& c) {
    const std::size_t n = c.stream_of.size();
    if (n == 0) return false;
    int streams = 0;
    for (int s : c.stream_of) streams = std::max(streams, s + 1);
    const int cap = m_in.options.max_streams;
    std::uniform_int_distribution<std::size_t> pick_node(0, n - 1);
    const NodeId v = static_cast<NodeId>(pick_node(m_rng));
    const int from = c.stream_of[static_cast<std::size_t>(v)];
    auto other_stream = [&]() {
      const int choices = std::min(streams + 1, cap);  // an existing stream or a new one, under the cap
      if (choices <= 1) return from;
      std::uniform_int_distribution<int> pick(0, choices - 2);
      const int t = pick(m_rng);
      return t >= from ? t + 1 : t;
    };
    switch (std::uniform_int_distribution<int>(0, 9)(m_rng)) {
      case 0:
      case 1:
      case 2:
      case 3: {  // one node elsewhere
        const int to = other_stream();
        if (to == from) return false;
        c.stream_of[static_cast<std::size_t>(v)] = to;
        return true;
      }
      case 4:
      case 5:
      case 6: {  // v and its stream-mates reachable by single edges, as a run, elsewhere
        const int to = other_stream();
        if (to == from) return false;
        std::vector<NodeId> run = {v};
        for (std::size_t i = 0; i < run.size() && run.size() < 64; ++i)
          for (NodeId w : m_in.graph.successors(run[i]))
            if (c.stream_of[static_cast<std::size_t>(w)] == from && m_in.graph.predecessors(w).size() == 1) run.push_back(w);
        for (NodeId w : run) c.stream_of[static_cast<std::size_t>(w)] = to;
        return true;
      }
      case 7: {  // merge v's stream into another
        const int to = other_stream();
        if (to == from || to >= streams) return false;
        for (int& s : c.stream_of)
          if (s == from) s = to;
        return true;
      }
      default: {  // swap v with its successor in the priority order when no edge joins them
        std::size_t at = 0;
        while (c.order[at] != v) ++at;
        if (at + 1 >= c.order.size()) return false;
        const NodeId w = c.order[at + 1];
        const auto succ = m_in.graph.successors(v);
        if (std::binary_search(succ.begin(), succ.end(), w)) return false;
        std::swap(c.order[at], c.order[at + 1]);
        return true;
      }
    }
  }

  std::int64_t evaluations() const { return m_evaluations; }
  std::mt19937_64& rng() { return m_rng; }

 private:
  const StrategyInput& m_in;
  std::mt19937_64 m_rng;
  SimOptions m_sim;
  std::int64_t m_evaluations = 0;
};

/// A lower bound on any schedule's simulated makespan (first start to last end), the largest of:
/// the critical path of device times (a kernel starts after its inputs' kernels end); the host's
/// time from the first kernel's issue to the last's (every kernel after the first costs the host a
/// launch, or its per-node share of a CUDA Graph replay); and the device's two shared resources (kernels running together never use
/// more than all of the SMs or all of the bandwidth: the simulator slows them so), so at least the
/// sum over kernels of isolated time x compute demand, and the same for bandwidth.
double makespan_bound_us(const Graph& graph, const CostTable& costs, const DeviceSpec& device, bool cuda_graph) {
  std::vector<double> time(graph.node_count(), 0.0);
  double compute = 0, bandwidth = 0, host = 0;
  bool first = true;
  for (std::size_t i = 0; i < graph.node_count(); ++i) {
    const auto v = static_cast<NodeId>(i);
    if (costs[v].time_us <= 0) continue;  // launches nothing
    if (!first) host += cuda_graph ? device.graph_launch_per_node_us : device.launch_us;
    first = false;
    time[i] = device_time_us(costs[v], device);
    const KernelDemand d = kernel_demand(graph, v, costs[v], device);
    compute += time[i] * d.compute;
    bandwidth += time[i] * d.bandwidth;
  }
  const double span = find_critical_path(graph, time).span_us;
  return std::max({span, host, compute, bandwidth});
}

/// One annealing run on `in`; `best_us_out` gets the best candidate's predicted makespan.
Expected<Schedule> search_one(const StrategyInput& in, double& best_us_out) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const StrategyOptions& o = in.options;
  Search search(in);
  std::string from;
  double best_us = 0;
  SearchCandidate best = search.start(from, best_us);
  if (best.stream_of.empty() && in.graph.node_count() > 0)
    return make_error(ErrorKind::Internal, "search: no fixed strategy gave a schedule to start from");
  const double start_us = best_us;
  SearchCandidate current = best;
  double current_us = best_us;
  const std::int64_t cap = o.search_evaluations > 0 ? o.search_evaluations : std::numeric_limits<std::int64_t>::max();
  const double budget_ms = std::max(0.0, o.search_budget_ms);
  auto elapsed_ms = [&] { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); };
  // Temperature: 2% of the start's makespan, falling linearly to 0 over the budget.
  const double t_start = 0.02 * start_us;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::int64_t accepted = 0, improved = 0;
  while (in.graph.node_count() > 1 && search.evaluations() < cap) {
    const double by_time = budget_ms > 0 ? elapsed_ms() / budget_ms : 1.0;
    const double by_count = o.search_evaluations > 0 ? static_cast<double>(search.evaluations()) / static_cast<double>(cap) : 0.0;
    const double done = std::max(by_time, by_count);
    if (done >= 1.0) break;
    if (o.progress && search.evaluations() % 64 == 0 && !o.progress(done, best_us)) break;
    SearchCandidate next = current;
    if (!search.mutate(next)) continue;
    const double t = search.makespan(next);
    const double temperature = t_start * (1.0 - done);
    if (t < current_us || (temperature > 0 && unit(search.rng()) < std::exp((current_us - t) / temperature))) {
      current = std::move(next);
      current_us = t;
      ++accepted;
      if (t < best_us - 1e-9) {
        best = current;
        best_us = t;
        ++improved;
      }
    }
  }
  if (o.progress) o.progress(1.0, best_us);
  const double bound_us = makespan_bound_us(in.graph, in.costs, in.device, o.cuda_graph);
  Schedule s = from_assignment(std::move(best.stream_of), best.order);
  s.options = "from=" + from + " start_us=" + fixed_text(start_us, 2) + " best_us=" + fixed_text(best_us, 2) +
              " bound_us=" + fixed_text(bound_us, 2) +
              " evaluations=" + std::to_string(search.evaluations()) + " accepted=" + std::to_string(accepted) +
              " improved=" + std::to_string(improved) + " seed=" + std::to_string(o.seed);
  best_us_out = best_us;
  return s;
}

// A CPU calibrated at several team sizes (DeviceSpec::cpu_teams): the threads of each stream are
// part of the answer. One annealing run per team size, on that team's device (cores / threads
// streams at once) and node times (the given ones moved by the team's fitted rates, per node),
// each with an equal share of the budget; the fastest predicted makespan wins, and the schedule
// records its team size. Makespans are absolute predictions, so they compare across team sizes.
Expected<Schedule> search_teams(const StrategyInput& in, const std::vector<int>& teams) {
  WEFT_TRY_ASSIGN(const DeviceSpec own, cpu_team_device(in.device, std::max(in.device.threads_per_stream, 1)));
  const auto n = static_cast<double>(teams.size());
  std::optional<Schedule> best;
  double best_us = std::numeric_limits<double>::infinity();
  std::string tried;
  for (std::size_t i = 0; i < teams.size(); ++i) {
    const int threads = teams[i];
    WEFT_TRY_ASSIGN(const DeviceSpec device, cpu_team_device(in.device, threads));
    const CostTable costs = cpu_team_costs(in.graph, in.costs, own, device);
    StrategyOptions o = in.options;
    o.max_streams = std::min(o.max_streams, std::max(device.sm_count, 1));
    o.search_budget_ms = in.options.search_budget_ms / n;
    if (in.options.search_evaluations > 0)
      o.search_evaluations = std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<double>(in.options.search_evaluations) / n));
    if (in.options.progress) o.progress = nullptr;  // one bar for all: reported below
    const StrategyInput at = make_input(in.graph, costs, device, o);
    double us = 0;
    WEFT_TRY_ASSIGN(Schedule s, search_one(at, us));
    s.threads_per_stream = threads;
    tried += (tried.empty() ? "" : ",") + std::to_string(threads) + ":" + fixed_text(us, 2);
    // Hybrid teams: the same schedule with the nodes that run alone on a team of every core,
    // where the device was calibrated at that team size (its rates, per node).
    Schedule hybrid = s;
    if (s.stream_count() > 1 && make_hybrid(in.graph, hybrid, threads, device_cores(in.device), node_times(costs)) && hybrid.has_node_teams()) {
      std::size_t uncalibrated = 0;
      const CostTable at_teams = cpu_node_team_costs(in.graph, hybrid, costs, device, &uncalibrated);
      const double plain_us = simulate(in.graph, s, costs, device).makespan_us();
      const double hybrid_us = simulate(in.graph, hybrid, at_teams, device).makespan_us();
      if (uncalibrated == 0 && plain_us > 0 && hybrid_us < plain_us * (1 - 1e-9)) {
        const double scaled = us * hybrid_us / plain_us;
        tried += "," + std::to_string(threads) + "+hybrid:" + fixed_text(scaled, 2);
        if (scaled < us) {
          us = scaled;
          s = std::move(hybrid);
        }
      }
    }
    if (in.options.progress) in.options.progress(static_cast<double>(i + 1) / n, std::min(best_us, us));
    if (us < best_us * (1 - 1e-9)) {
      best_us = us;
      best = std::move(s);
    }
  }
  if (!best) return make_error(ErrorKind::Internal, "search: no team size gave a schedule");
  best->options += " threads_per_stream=" + std::to_string(best->threads_per_stream) + " teams_us=" + tried;
  if (const NodeTeamCount wide = count_node_teams(*best); wide.nodes > 0)
    best->options += " hybrid=" + std::to_string(wide.nodes) + "x" + std::to_string(wide.threads);
  return std::move(*best);
}

Expected<Schedule> search(const StrategyInput& in) {
  if (in.device.kind == DeviceKind::Cpu) {
    const std::vector<int> teams = cpu_team_sizes(in.device);
    if (teams.size() > 1) return search_teams(in, teams);
  }
  double best_us = 0;
  return search_one(in, best_us);
}

}  // namespace
}  // namespace weft::core::detail

WEFT_STRATEGY_FILE(search) {
  using namespace weft::core;
  WEFT_CHECK(register_strategy(make_strategy(
      "search",
      "simulated annealing over streams and issue order with the simulator as objective, from the best fixed strategy "
      "(--budget-ms, --search-evals, --seed)",
      70, detail::search, /*iterative=*/true)));
}
