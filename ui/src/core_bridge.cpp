// Adapter between the studio and weft_core's scheduling passes. Passes written in parallel land
// one by one; until one has, its call goes to the stand-in below (same contract, simpler
// algorithm), so the studio links and works at every commit. Flip a kLive* flag when the core
// function lands on main: discarded `if constexpr` branches need no definition to link.
#include "weft/ui/core_bridge.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <algorithm>
#include <cassert>
#include <numeric>
#include <sstream>

#include "weft/core/analysis.h"
#include "weft/core/bitset.h"
#include "weft/core/levels.h"
#include "weft/core/schedule_edit.h"
#include "weft/core/schedule_json.h"
#include "weft/core/strategies.h"
#include "weft/core/sync.h"

namespace weft::ui::bridge {

namespace {

constexpr bool kLiveAnalysis = false;
constexpr bool kLiveStrategies = true;
constexpr bool kLiveSync = true;
constexpr bool kLiveEdits = true;
constexpr bool kLiveJson = true;

using core::Event;
using core::Expected;
using core::Graph;
using core::NodeId;
using core::Schedule;

std::size_t idx(NodeId n) { return static_cast<std::size_t>(n); }

// ---- stand-ins --------------------------------------------------------------------------------

// Kahn over data edges ∪ stream order ∪ (optionally) events; empty result when cyclic.
std::vector<NodeId> order_of(const Graph& g, const Schedule& s, bool with_events) {
  const std::size_t n = g.node_count();
  std::vector<std::vector<NodeId>> succ(n);
  for (std::size_t u = 0; u < n; ++u)
    for (NodeId v : g.successors(static_cast<NodeId>(u))) succ[u].push_back(v);
  for (const auto& st : s.streams)
    for (std::size_t i = 1; i < st.size(); ++i) succ[idx(st[i - 1])].push_back(st[i]);
  if (with_events)
    for (const Event& e : s.events) succ[idx(e.from)].push_back(e.to);
  std::vector<int> indeg(n, 0);
  for (const auto& l : succ)
    for (NodeId v : l) ++indeg[idx(v)];
  std::vector<NodeId> ready, order;
  for (std::size_t v = n; v-- > 0;)
    if (indeg[v] == 0) ready.push_back(static_cast<NodeId>(v));
  while (!ready.empty()) {
    const NodeId u = ready.back();
    ready.pop_back();
    order.push_back(u);
    for (NodeId v : succ[idx(u)])
      if (--indeg[idx(v)] == 0) ready.push_back(v);
  }
  if (order.size() != n) order.clear();
  return order;
}

std::vector<Event> fallback_events(const Graph& g, const Schedule& s) {
  // Transitive reduction of data edges ∪ stream order, keeping only cross-stream edges: u→v is
  // needed iff no other predecessor p of v has u among its ancestors.
  const std::size_t n = g.node_count();
  std::vector<int> stream_of, pos;
  s.locate(n, stream_of, pos);
  std::vector<std::vector<NodeId>> pred(n);
  for (std::size_t v = 0; v < n; ++v)
    for (NodeId u : g.predecessors(static_cast<NodeId>(v))) pred[v].push_back(u);
  for (const auto& st : s.streams)
    for (std::size_t i = 1; i < st.size(); ++i) pred[idx(st[i])].push_back(st[i - 1]);
  const std::vector<NodeId> order = order_of(g, s, false);
  assert(order.size() == n && "compute_events needs an acyclic schedule");
  std::vector<core::Bitset> anc(n, core::Bitset(n));
  std::vector<Event> events;
  for (NodeId v : order) {
    auto& pv = pred[idx(v)];
    std::sort(pv.begin(), pv.end());
    pv.erase(std::unique(pv.begin(), pv.end()), pv.end());
    for (NodeId u : pv) {
      anc[idx(v)] |= anc[idx(u)];
      anc[idx(v)].set(idx(u));
    }
    for (NodeId u : pv) {
      if (stream_of[idx(u)] == stream_of[idx(v)]) continue;
      bool implied = false;
      for (NodeId p : pv)
        if (p != u && anc[idx(p)].test(idx(u))) { implied = true; break; }
      if (!implied) events.push_back(Event{u, v});
    }
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.from != b.from ? a.from < b.from : a.to < b.to;
  });
  return events;
}

core::Status fallback_validate(const Graph& g, const Schedule& s) {
  auto hb = core::HappensBefore::build(g, s, false);
  if (!hb) return hb.error();
  for (std::size_t u = 0; u < g.node_count(); ++u)
    for (NodeId v : g.successors(static_cast<NodeId>(u)))
      if (!hb->before(static_cast<NodeId>(u), v))
        return core::make_error(core::ErrorKind::InvalidInput, "data edge " + g.key(static_cast<NodeId>(u)) + " -> " +
                                                                   g.key(v) + " is not enforced by stream order or events");
  return {};
}

double fallback_makespan(const Graph& g, const Schedule& s, std::span<const double> t) {
  const std::vector<NodeId> order = order_of(g, s, true);
  std::vector<std::vector<NodeId>> pred(g.node_count());
  for (std::size_t v = 0; v < g.node_count(); ++v)
    for (NodeId u : g.predecessors(static_cast<NodeId>(v))) pred[v].push_back(u);
  for (const auto& st : s.streams)
    for (std::size_t i = 1; i < st.size(); ++i) pred[idx(st[i])].push_back(st[i - 1]);
  for (const Event& e : s.events) pred[idx(e.to)].push_back(e.from);
  std::vector<double> finish(g.node_count(), 0.0);
  double best = 0;
  for (NodeId v : order) {
    double start = 0;
    for (NodeId u : pred[idx(v)]) start = std::max(start, finish[idx(u)]);
    finish[idx(v)] = start + (idx(v) < t.size() ? t[idx(v)] : 0.0);
    best = std::max(best, finish[idx(v)]);
  }
  return best;
}

// A changed schedule is accepted when data edges ∪ stream order stay acyclic; its events are
// then recomputed. The refusal names the cycle (HappensBefore's message).
Expected<Schedule> finish_edit(const Graph& g, Schedule s) {
  s.events.clear();
  if (order_of(g, s, false).empty()) {
    auto hb = core::HappensBefore::build(g, s, true);
    if (!hb) return hb.error();
    return core::make_error(core::ErrorKind::InvalidInput, "the edit would deadlock");
  }
  s.events = fallback_events(g, s);
  s.strategy = "hand";
  return s;
}

Expected<Schedule> fallback_move_nodes(const Graph& g, const Schedule& in, std::span<const NodeId> nodes, int stream,
                                       int position) {
  if (nodes.empty()) return core::make_error(core::ErrorKind::Usage, "no node to move");
  std::vector<int> stream_of, pos;
  in.locate(g.node_count(), stream_of, pos);
  const int from = stream_of[idx(nodes[0])];
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (stream_of[idx(nodes[i])] != from || pos[idx(nodes[i])] != pos[idx(nodes[0])] + static_cast<int>(i))
      return core::make_error(core::ErrorKind::Usage, "the nodes to move must be a contiguous run of one stream");
  if (stream < 0 || static_cast<std::size_t>(stream) >= in.streams.size())
    return core::make_error(core::ErrorKind::Usage, "there is no stream " + std::to_string(stream));
  Schedule s = in;
  auto& src = s.streams[static_cast<std::size_t>(from)];
  src.erase(src.begin() + pos[idx(nodes[0])], src.begin() + pos[idx(nodes[0])] + static_cast<long>(nodes.size()));
  auto& dst = s.streams[static_cast<std::size_t>(stream)];
  if (position < 0 || static_cast<std::size_t>(position) > dst.size())
    return core::make_error(core::ErrorKind::Usage, "position " + std::to_string(position) + " is outside stream " +
                                                        std::to_string(stream));
  dst.insert(dst.begin() + position, nodes.begin(), nodes.end());
  return finish_edit(g, std::move(s));
}

Expected<Schedule> fallback_merge(const Graph& g, const Schedule& in, int a, int b) {
  const int count = static_cast<int>(in.streams.size());
  if (a < 0 || b < 0 || a >= count || b >= count || a == b)
    return core::make_error(core::ErrorKind::Usage, "merge needs two distinct existing streams");
  const std::vector<NodeId> order = order_of(g, in, true);
  if (order.empty()) return core::make_error(core::ErrorKind::InvalidInput, "the schedule is cyclic");
  std::vector<int> rank(g.node_count());
  for (std::size_t i = 0; i < order.size(); ++i) rank[idx(order[i])] = static_cast<int>(i);
  Schedule s = in;
  auto& sa = s.streams[static_cast<std::size_t>(a)];
  const auto& sb = in.streams[static_cast<std::size_t>(b)];
  sa.insert(sa.end(), sb.begin(), sb.end());
  std::sort(sa.begin(), sa.end(), [&](NodeId x, NodeId y) { return rank[idx(x)] < rank[idx(y)]; });
  s.streams.erase(s.streams.begin() + b);
  return finish_edit(g, std::move(s));
}

core::AnalysisReport fallback_analyze(const Graph& g, const core::CostTable& costs) {
  core::AnalysisReport r;
  r.levels = core::compute_levels(g);
  r.costs = costs;
  const std::size_t n = g.node_count();
  std::vector<double> finish(n, 0.0);
  std::vector<NodeId> from(n, core::kNoNode);
  for (NodeId v : g.topo_order()) {
    double start = 0;
    for (NodeId u : g.predecessors(v))
      if (from[idx(v)] == core::kNoNode || finish[idx(u)] > start) {
        start = finish[idx(u)];
        from[idx(v)] = u;
      }
    finish[idx(v)] = start + (idx(v) < costs.nodes.size() ? costs.nodes[idx(v)].time_us : 0.0);
    r.critical.work_us += finish[idx(v)] - start;
  }
  NodeId end = core::kNoNode;
  for (std::size_t v = 0; v < n; ++v)
    if (end == core::kNoNode || finish[v] > finish[idx(end)]) end = static_cast<NodeId>(v);
  for (NodeId v = end; v != core::kNoNode; v = from[idx(v)]) r.critical.nodes.push_back(v);
  std::reverse(r.critical.nodes.begin(), r.critical.nodes.end());
  r.critical.span_us = end == core::kNoNode ? 0.0 : finish[idx(end)];
  // Stand-in for the exact maximum antichain: the widest level (a lower bound of it).
  r.antichain_width = static_cast<std::size_t>(r.levels.widest_level);
  for (const core::Tensor& t : g.tensors())
    if (!t.shape_known()) ++r.unknown_shapes;
  std::ostringstream v;
  if (r.antichain_width <= 1) {
    v << "chain: concurrency cannot help";
  } else {
    v.precision(2);
    v << std::fixed << "up to " << std::min(r.critical.parallelism(), static_cast<double>(r.antichain_width))
      << "x from concurrency";
  }
  r.verdict = v.str();
  return r;
}

Expected<Schedule> fallback_make_schedule(std::string_view name, const Graph& g, const core::CostTable& costs,
                                          const core::StrategyOptions& opt) {
  Schedule s;
  s.strategy = std::string(name);
  s.options = "streams=" + std::to_string(opt.max_streams);
  const auto topo = g.topo_order();
  if (name == "sequential") {
    s.streams.emplace_back(topo.begin(), topo.end());
    return s;
  }
  if (name != "chains")
    return core::make_error(core::ErrorKind::Usage, "unknown strategy '" + std::string(name) + "' (known: sequential, chains)");
  // Greedy chains: a node follows a predecessor that ends its stream when it can, else opens a
  // new stream (up to the cap), else joins the stream that frees up first. Stream order follows
  // the topological order, so the result is acyclic by construction.
  const double grain = opt.granularity_us;
  std::vector<double> stream_end;
  std::vector<int> stream_of(g.node_count(), -1);
  std::vector<double> finish(g.node_count(), 0.0);
  for (NodeId v : topo) {
    double ready = 0;
    for (NodeId u : g.predecessors(v)) ready = std::max(ready, finish[idx(u)]);
    const double t = idx(v) < costs.nodes.size() ? costs.nodes[idx(v)].time_us : 1.0;
    int pick = -1;
    for (NodeId u : g.predecessors(v)) {
      const int su = stream_of[idx(u)];
      if (!s.streams[static_cast<std::size_t>(su)].empty() && s.streams[static_cast<std::size_t>(su)].back() == u) {
        pick = su;
        break;
      }
    }
    if (pick < 0 && grain > 0 && t < grain && !g.predecessors(v).empty()) pick = stream_of[idx(g.predecessors(v)[0])];
    if (pick < 0 && static_cast<int>(s.streams.size()) < std::max(1, opt.max_streams)) {
      s.streams.emplace_back();
      stream_end.push_back(0);
      pick = static_cast<int>(s.streams.size()) - 1;
    }
    if (pick < 0)
      pick = static_cast<int>(std::min_element(stream_end.begin(), stream_end.end()) - stream_end.begin());
    const auto ps = static_cast<std::size_t>(pick);
    s.streams[ps].push_back(v);
    stream_of[idx(v)] = pick;
    finish[idx(v)] = std::max(ready, stream_end[ps]) + t;
    stream_end[ps] = finish[idx(v)];
  }
  s.events = fallback_events(g, s);
  return s;
}

std::string fallback_to_json(const Graph& g, const Schedule& s, std::string_view device) {
  QJsonObject root;
  root["format"] = "weft-schedule";
  root["version"] = 1;
  root["model"] = QJsonObject{{"path", QString::fromStdString(g.info().model_path)},
                              {"sha256", QString::fromStdString(g.info().model_sha256)}};
  QJsonArray streams;
  for (const auto& st : s.streams) {
    QJsonArray keys;
    for (NodeId v : st) keys.append(QString::fromStdString(g.key(v)));
    streams.append(keys);
  }
  root["streams"] = streams;
  QJsonArray events;
  for (const Event& e : s.events)
    events.append(QJsonArray{QString::fromStdString(g.key(e.from)), QString::fromStdString(g.key(e.to))});
  root["events"] = events;
  root["strategy"] = QString::fromStdString(s.strategy);
  root["options"] = QString::fromStdString(s.options);
  root["device"] = QString::fromStdString(std::string(device));
  return QJsonDocument(root).toJson(QJsonDocument::Indented).toStdString();
}

Expected<Schedule> fallback_from_json(const Graph& g, std::string_view text) {
  QJsonParseError perr;
  const QJsonDocument doc =
      QJsonDocument::fromJson(QByteArray(text.data(), static_cast<qsizetype>(text.size())), &perr);
  if (doc.isNull())
    return core::make_error(core::ErrorKind::InvalidInput, "schedule JSON: " + perr.errorString().toStdString());
  const QJsonObject root = doc.object();
  if (root["format"].toString() != "weft-schedule")
    return core::make_error(core::ErrorKind::InvalidInput, "schedule JSON: 'format' is not weft-schedule");
  const QString sha = root["model"].toObject()["sha256"].toString();
  if (!sha.isEmpty() && !g.info().model_sha256.empty() && sha.toStdString() != g.info().model_sha256)
    return core::make_error(core::ErrorKind::InvalidInput, "schedule JSON: made for another model (sha256 differs)");
  Schedule s;
  auto node_of = [&](const QJsonValue& v) -> Expected<NodeId> {
    const auto n = g.find_node(v.toString().toStdString());
    if (!n) return core::make_error(core::ErrorKind::InvalidInput,
                                    "schedule JSON: unknown node '" + v.toString().toStdString() + "'");
    return *n;
  };
  for (const QJsonValue& st : root["streams"].toArray()) {
    s.streams.emplace_back();
    for (const QJsonValue& k : st.toArray()) {
      auto n = node_of(k);
      if (!n) return n.error();
      s.streams.back().push_back(*n);
    }
  }
  for (const QJsonValue& ev : root["events"].toArray()) {
    auto a = node_of(ev.toArray().at(0));
    auto b = node_of(ev.toArray().at(1));
    if (!a) return a.error();
    if (!b) return b.error();
    s.events.push_back(Event{*a, *b});
  }
  s.strategy = root["strategy"].toString().toStdString();
  s.options = root["options"].toString().toStdString();
  if (auto ok = fallback_validate(g, s); !ok) return ok.error();
  return s;
}

}  // namespace

Liveness liveness() { return Liveness{kLiveAnalysis, kLiveStrategies, kLiveSync, kLiveEdits, kLiveJson}; }

std::string liveness_text() {
  const Liveness l = liveness();
  auto w = [](bool live) { return live ? "live" : "bridged"; };
  return std::string("analysis ") + w(l.analysis) + ", strategies " + w(l.strategies) + ", sync " + w(l.sync) +
         ", edits " + w(l.edits) + ", schedule JSON " + w(l.schedule_json);
}

core::DeviceSpec default_device() {
  auto d = core::load_device(core::default_device_name());
  if (d) return *d;
  core::DeviceSpec spec;
  spec.name = std::string(core::default_device_name());
  return spec;
}

core::AnalysisReport analyze(const Graph& graph, const core::CostTable& costs) {
  if constexpr (kLiveAnalysis) return core::analyze(graph, costs);
  else return fallback_analyze(graph, costs);
}

std::vector<std::string> strategy_names() {
  if constexpr (kLiveStrategies) return core::strategy_names();
  else return {"sequential", "chains"};
}

Expected<Schedule> make_schedule(std::string_view strategy, const Graph& graph, const core::CostTable& costs,
                                 const core::DeviceSpec& device, const core::StrategyOptions& options) {
  if constexpr (kLiveStrategies) return core::make_schedule(strategy, graph, costs, device, options);
  else return fallback_make_schedule(strategy, graph, costs, options);
}

std::vector<Event> compute_events(const Graph& graph, const Schedule& schedule) {
  if constexpr (kLiveSync) return core::compute_events(graph, schedule);
  else return fallback_events(graph, schedule);
}

core::Status validate_schedule(const Graph& graph, const Schedule& schedule) {
  if constexpr (kLiveSync) return core::validate_schedule(graph, schedule);
  else return fallback_validate(graph, schedule);
}

double ideal_makespan_us(const Graph& graph, const Schedule& schedule, std::span<const double> node_time_us) {
  if constexpr (kLiveSync) return core::ideal_makespan_us(graph, schedule, node_time_us);
  else return fallback_makespan(graph, schedule, node_time_us);
}

Expected<Schedule> move_node(const Graph& graph, const Schedule& schedule, NodeId n, int stream, int position) {
  if constexpr (kLiveEdits) return core::move_node(graph, schedule, n, stream, position);
  else return fallback_move_nodes(graph, schedule, std::span<const NodeId>(&n, 1), stream, position);
}

Expected<Schedule> move_nodes(const Graph& graph, const Schedule& schedule, std::span<const NodeId> nodes, int stream,
                              int position) {
  if constexpr (kLiveEdits) return core::move_nodes(graph, schedule, nodes, stream, position);
  else return fallback_move_nodes(graph, schedule, nodes, stream, position);
}

Expected<Schedule> add_stream(const Graph& graph, const Schedule& schedule) {
  if constexpr (kLiveEdits) return core::add_stream(graph, schedule);
  Schedule s = schedule;
  s.streams.emplace_back();
  return s;
}

Expected<Schedule> remove_stream(const Graph& graph, const Schedule& schedule, int stream) {
  if constexpr (kLiveEdits) return core::remove_stream(graph, schedule, stream);
  if (stream < 0 || static_cast<std::size_t>(stream) >= schedule.streams.size())
    return core::make_error(core::ErrorKind::Usage, "there is no stream " + std::to_string(stream));
  if (!schedule.streams[static_cast<std::size_t>(stream)].empty())
    return core::make_error(core::ErrorKind::Usage, "stream " + std::to_string(stream) + " still holds " +
                                                        std::to_string(schedule.streams[static_cast<std::size_t>(stream)].size()) +
                                                        " nodes; move or merge them first");
  Schedule s = schedule;
  s.streams.erase(s.streams.begin() + stream);
  return finish_edit(graph, std::move(s));
}

Expected<Schedule> merge_streams(const Graph& graph, const Schedule& schedule, int a, int b) {
  if constexpr (kLiveEdits) return core::merge_streams(graph, schedule, a, b);
  else return fallback_merge(graph, schedule, a, b);
}

std::string schedule_to_json(const Graph& graph, const Schedule& schedule, std::string_view device) {
  if constexpr (kLiveJson) return core::schedule_to_json(graph, schedule, device);
  else return fallback_to_json(graph, schedule, device);
}

Expected<Schedule> schedule_from_json(const Graph& graph, std::string_view json_text) {
  if constexpr (kLiveJson) return core::schedule_from_json(graph, json_text);
  else return fallback_from_json(graph, json_text);
}

}  // namespace weft::ui::bridge
