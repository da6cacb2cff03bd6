// make_schedule (check, run a registered strategy, attach minimal events, validate) and the
// helpers the strategies share.
#include "weft/core/strategy/strategies.h"
#include "weft/core/strategy/registry.h"

#include <algorithm>
#include <numeric>
#include <sstream>

#include "strategy_detail.h"
#include "weft/core/strategy/registry.h"
#include "weft/core/schedule/sync.h"

namespace weft::core {
namespace {

std::string format_number(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

}  // namespace

double resolved_granularity_us(const StrategyOptions& options, const DeviceSpec& device) {
  if (options.granularity_us >= 0) return options.granularity_us;
  return options.cuda_graph ? 0.0 : 2.0 * (device.event_record_us + device.event_wait_us);
}

std::vector<std::string> schedule_warnings(const Schedule& schedule, const StrategyOptions& options,
                                           const DeviceSpec& device) {
  std::vector<std::string> warnings;
  const int queues = device.hardware_queues > 0 ? device.hardware_queues : kDefaultMaxStreams;
  // A CPU device's "queues" are its cores: the executor's threads take the streams beyond them in
  // turn, as a run's report says; nothing serialises that a person must be warned of.
  if (options.max_streams > queues && device.kind != DeviceKind::Cpu)
    warnings.push_back("a cap of " + std::to_string(options.max_streams) + " streams is above the device's " +
                       std::to_string(queues) + " hardware work queues: streams beyond them share queues and may serialise");
  if (static_cast<int>(schedule.stream_count()) > std::max(options.max_streams, queues))
    warnings.push_back("strategy '" + schedule.strategy + "' opened " + std::to_string(schedule.stream_count()) +
                       " streams, above the cap of " + std::to_string(options.max_streams) + " (it ignores the cap)");
  return warnings;
}

Expected<StrategyOptions> strategy_options_for(const StrategyRequest& r) {
  StrategyOptions o;
  const auto bad = [](const std::string& what) { return make_error(ErrorKind::InvalidInput, what); };
  if (r.max_streams) {
    if (*r.max_streams < 1 || static_cast<std::size_t>(*r.max_streams) > kMaxScheduleStreams)
      return bad("the stream cap must be between 1 and " + std::to_string(kMaxScheduleStreams) + ", got " + std::to_string(*r.max_streams));
    o.max_streams = static_cast<int>(*r.max_streams);
  }
  if (r.granularity_us) {
    if (!(*r.granularity_us >= 0)) return bad("the granularity must be >= 0 microseconds (or automatic), got " + format_number(*r.granularity_us));
    o.granularity_us = *r.granularity_us;
  }
  o.cuda_graph = r.cuda_graph;
  if (r.search_budget_ms) {
    if (!(*r.search_budget_ms > 0)) return bad("the search's time budget must be > 0 milliseconds, got " + format_number(*r.search_budget_ms));
    o.search_budget_ms = *r.search_budget_ms;
  }
  if (r.search_evaluations) {
    if (*r.search_evaluations <= 0) return bad("the search's count of candidates must be > 0, got " + std::to_string(*r.search_evaluations));
    o.search_evaluations = *r.search_evaluations;
    // A count alone makes the result depend on the seed only: no time limit unless one is given.
    if (!r.search_budget_ms) o.search_budget_ms = kUnlimitedSearchMs;
  }
  if (r.seed) {
    if (*r.seed < 0) return bad("the search's seed must be >= 0, got " + std::to_string(*r.seed));
    o.seed = static_cast<std::uint64_t>(*r.seed);
  }
  return o;
}

Status check_strategy(std::string_view strategy, const StrategyOptions& options) {
  if (!find_strategy(strategy)) {
    std::string known;
    for (const std::string& n : strategy_names()) known += (known.empty() ? "" : ", ") + n;
    return make_error(ErrorKind::InvalidInput, "unknown strategy '" + std::string(strategy) + "' (known: " + known + ")");
  }
  if (options.max_streams < 1 || static_cast<std::size_t>(options.max_streams) > kMaxScheduleStreams)
    return make_error(ErrorKind::InvalidInput, "the stream cap must be between 1 and " +
                                                   std::to_string(kMaxScheduleStreams) + ", got " +
                                                   std::to_string(options.max_streams));
  return {};
}

Expected<Schedule> make_schedule(std::string_view strategy, const Graph& graph, const CostTable& costs,
                                 const DeviceSpec& device, const StrategyOptions& options) {
  WEFT_TRY(check_strategy(strategy, options));
  const auto entry = find_strategy(strategy);
  const StrategyInput in = detail::make_input(graph, costs, device, options);
  WEFT_TRY_ASSIGN(Schedule s, entry->schedule(in));
  s.strategy = entry->name();
  // Made for a CPU's streams of several threads: the schedule runs them so (unless the strategy
  // chose its own team size, as search does on a CPU calibrated at several).
  if (device.kind == DeviceKind::Cpu && s.threads_per_stream == 1) s.threads_per_stream = std::max(device.threads_per_stream, 1);
  const std::string extra = s.options;
  s.options = "streams=" + std::to_string(options.max_streams) + " granularity_us=" + format_number(in.options.granularity_us);
  if (options.cuda_graph) s.options += " cuda_graph=on";
  if (!extra.empty()) s.options += " " + extra;
  s.events = compute_events(graph, s);
  if (Status ok = validate_schedule(graph, s); !ok)
    return make_error(ErrorKind::Internal, "strategy '" + s.strategy + "' produced an invalid schedule: " + ok.error().message);
  return s;
}

namespace detail {

StrategyInput make_input(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                         const StrategyOptions& options) {
  StrategyInput in{graph, costs, device, options, {}, device.event_record_us + device.event_wait_us};
  in.options.granularity_us = resolved_granularity_us(options, device);
  in.time_us.assign(graph.node_count(), 1.0);
  for (std::size_t v = 0; v < graph.node_count() && v < costs.nodes.size(); ++v) in.time_us[v] = costs.nodes[v].time_us;
  return in;
}

Schedule from_assignment(std::vector<int> stream_of, const std::vector<NodeId>& order) {
  std::vector<int> renumber;
  Schedule s;
  for (NodeId v : order) {
    const int old = stream_of[static_cast<std::size_t>(v)];
    if (static_cast<std::size_t>(old) >= renumber.size()) renumber.resize(static_cast<std::size_t>(old) + 1, -1);
    int& to = renumber[static_cast<std::size_t>(old)];
    if (to < 0) {
      to = static_cast<int>(s.streams.size());
      s.streams.emplace_back();
    }
    s.streams[static_cast<std::size_t>(to)].push_back(v);
  }
  return s;
}

std::vector<double> earliest_start(const StrategyInput& in) {
  std::vector<double> est(in.graph.node_count(), 0);
  for (NodeId v : in.graph.topo_order())
    for (NodeId u : in.graph.predecessors(v))
      est[static_cast<std::size_t>(v)] =
          std::max(est[static_cast<std::size_t>(v)], est[static_cast<std::size_t>(u)] + in.time_us[static_cast<std::size_t>(u)]);
  return est;
}

std::vector<double> upward_rank(const StrategyInput& in, double edge_us) {
  std::vector<double> rank(in.graph.node_count(), 0);
  const auto topo = in.graph.topo_order();
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    double tail = 0;
    for (NodeId w : in.graph.successors(*it)) tail = std::max(tail, rank[static_cast<std::size_t>(w)] + edge_us);
    rank[static_cast<std::size_t>(*it)] = in.time_us[static_cast<std::size_t>(*it)] + tail;
  }
  return rank;
}

std::vector<NodeId> order_by(const Graph& graph, const std::vector<double>& key, bool descending) {
  std::vector<int> topo_rank(graph.node_count());
  const auto topo = graph.topo_order();
  for (std::size_t i = 0; i < topo.size(); ++i) topo_rank[static_cast<std::size_t>(topo[i])] = static_cast<int>(i);
  std::vector<NodeId> order(topo.begin(), topo.end());
  std::stable_sort(order.begin(), order.end(), [&](NodeId a, NodeId b) {
    const double ka = key[static_cast<std::size_t>(a)], kb = key[static_cast<std::size_t>(b)];
    if (ka != kb) return descending ? ka > kb : ka < kb;
    return topo_rank[static_cast<std::size_t>(a)] < topo_rank[static_cast<std::size_t>(b)];
  });
  return order;
}

void keep_small_on_producer_stream(const StrategyInput& in, std::vector<int>& stream_of) {
  if (in.options.granularity_us <= 0) return;
  const std::vector<double> est = earliest_start(in);
  for (NodeId v : in.graph.topo_order()) {
    const auto vi = static_cast<std::size_t>(v);
    const auto preds = in.graph.predecessors(v);
    if (preds.empty() || in.time_us[vi] >= in.options.granularity_us) continue;
    NodeId latest = kNoNode;
    bool on_producer_stream = false;
    for (NodeId u : preds) {
      const auto ui = static_cast<std::size_t>(u);
      if (stream_of[ui] == stream_of[vi]) on_producer_stream = true;
      if (latest == kNoNode || est[ui] + in.time_us[ui] > est[static_cast<std::size_t>(latest)] + in.time_us[static_cast<std::size_t>(latest)])
        latest = u;
    }
    if (!on_producer_stream) stream_of[vi] = stream_of[static_cast<std::size_t>(latest)];
  }
}

}  // namespace detail
}  // namespace weft::core
