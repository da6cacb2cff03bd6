#include "weft/core/transform/wire_layering.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <queue>
#include <string>
#include <utility>

#include "weft/core/analysis/antichain.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/analysis/levels.h"

namespace weft::core {

namespace {

void sort_unique(std::vector<WireId>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// Kahn's algorithm over `succ` (adjacency by node), smallest (ASAP level, id) first. Returns fewer
// than V nodes when the edges have a cycle.
std::vector<NodeId> level_order(const Graph& graph, const std::vector<std::vector<NodeId>>& succ) {
  const std::size_t n = graph.node_count();
  const Levels levels = compute_levels(graph);
  std::vector<int> indegree(n, 0);
  for (const auto& s : succ)
    for (NodeId v : s) ++indegree[static_cast<std::size_t>(v)];
  using Key = std::pair<int, NodeId>;
  std::priority_queue<Key, std::vector<Key>, std::greater<>> ready;
  for (std::size_t i = 0; i < n; ++i)
    if (indegree[i] == 0) ready.emplace(levels.asap[i], static_cast<NodeId>(i));
  std::vector<NodeId> order;
  order.reserve(n);
  while (!ready.empty()) {
    const NodeId u = ready.top().second;
    ready.pop();
    order.push_back(u);
    for (NodeId v : succ[static_cast<std::size_t>(u)])
      if (--indegree[static_cast<std::size_t>(v)] == 0) ready.emplace(levels.asap[static_cast<std::size_t>(v)], v);
  }
  return order;
}

std::vector<std::vector<NodeId>> data_successors(const Graph& graph) {
  std::vector<std::vector<NodeId>> succ(graph.node_count());
  for (std::size_t u = 0; u < graph.node_count(); ++u) {
    const auto s = graph.successors(static_cast<NodeId>(u));
    succ[u].assign(s.begin(), s.end());
  }
  return succ;
}

}  // namespace

std::size_t WireLayering::max_width() const {
  std::size_t w = 0;
  for (const auto& l : layers) w = std::max(w, l.size());
  return w;
}

Wires wires_from_graph(const Graph& graph) {
  const ChainCover cover = min_chain_cover(graph);
  std::vector<WireId> chain_of(graph.node_count(), 0);
  Wires w;
  w.origin = "graph chains";
  for (std::size_t c = 0; c < cover.chains.size(); ++c) {
    w.names.push_back("chain" + std::to_string(c));
    for (NodeId n : cover.chains[c]) chain_of[static_cast<std::size_t>(n)] = static_cast<WireId>(c);
  }
  w.support.resize(graph.node_count());
  for (std::size_t i = 0; i < graph.node_count(); ++i) w.support[i] = {chain_of[i]};
  return w;
}

Expected<Wires> wires_from_schedule(const Graph& graph, const Schedule& schedule) {
  // The schedule's execution order checks the placement and the events and refuses a deadlock in
  // the words every pass uses; its topological order of H is the order the words follow.
  WEFT_TRY_ASSIGN(const ExecutionOrder order, ExecutionOrder::build_unclocked(graph, schedule));
  Wires w;
  w.origin = "schedule " + schedule.strategy;
  for (std::size_t s = 0; s < schedule.streams.size(); ++s) w.names.push_back("stream" + std::to_string(s));
  w.support.resize(graph.node_count());
  for (std::size_t v = 0; v < graph.node_count(); ++v) w.support[v] = {order.stream_of(static_cast<NodeId>(v))};
  w.order = order.order();
  return w;
}

Expected<Wires> parse_wires_json(const Graph& graph, std::string_view text, std::string_view origin) {
  const std::string where(origin);
  auto bad = [&](const std::string& what) { return make_error(ErrorKind::InvalidInput, where + ": " + what); };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return bad(std::string("not JSON: ") + e.what());
  }
  if (!j.is_object() || j.value("format", "") != "weft-wires")
    return bad("not a wires file (expected \"format\": \"weft-wires\")");
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int>() != 1)
    return bad("unsupported version (expected 1)");
  if (!j.contains("wires") || !j["wires"].is_array() || j["wires"].empty())
    return bad("\"wires\" must be a non-empty array");
  Wires w;
  w.origin = "file " + where;
  w.support.resize(graph.node_count());
  for (const auto& wire : j["wires"]) {
    if (!wire.is_object() || !wire.contains("nodes") || !wire["nodes"].is_array())
      return bad("each wire needs \"nodes\": [node keys]");
    const auto id = static_cast<WireId>(w.names.size());
    w.names.push_back(wire.contains("name") && wire["name"].is_string() ? wire["name"].get<std::string>()
                                                                        : "wire" + std::to_string(id));
    for (const auto& key : wire["nodes"]) {
      if (!key.is_string()) return bad("wire '" + w.names.back() + "': node keys must be strings");
      const auto node = graph.find_node(key.get<std::string>());
      if (!node) return bad("wire '" + w.names.back() + "': unknown node '" + key.get<std::string>() + "'");
      w.support[static_cast<std::size_t>(*node)].push_back(id);
    }
  }
  for (std::size_t i = 0; i < graph.node_count(); ++i) {
    sort_unique(w.support[i]);
    if (w.support[i].empty()) return bad("node '" + graph.key(static_cast<NodeId>(i)) + "' is on no wire");
  }
  return w;
}

Expected<WireLayering> layer_by_wires(const Graph& graph, const Wires& wires) {
  const std::size_t n = graph.node_count();
  WireLayering out;
  out.layer_of.assign(n, -1);
  if (n == 0) return out;
  if (wires.support.size() != n)
    return make_error(ErrorKind::InvalidInput, "wires give supports for " + std::to_string(wires.support.size()) +
                                                   " nodes; the graph has " + std::to_string(n));
  const std::vector<NodeId> order = wires.order.empty() ? level_order(graph, data_successors(graph)) : wires.order;
  if (order.size() != n) return make_error(ErrorKind::InvalidInput, "the wires' order does not list every node once");

  // Words: each wire's nodes in `order`.
  std::vector<std::vector<NodeId>> words(wires.names.size());
  std::vector<char> listed(n, 0);
  for (NodeId v : order) {
    const auto i = static_cast<std::size_t>(v);
    if (v < 0 || i >= n || listed[i]) return make_error(ErrorKind::InvalidInput, "the wires' order does not list every node once");
    listed[i] = 1;
    if (wires.support[i].empty())
      return make_error(ErrorKind::InvalidInput, "node '" + graph.key(v) + "' is on no wire");
    for (WireId w : wires.support[i]) {
      if (w < 0 || static_cast<std::size_t>(w) >= words.size())
        return make_error(ErrorKind::InvalidInput, "node '" + graph.key(v) + "' names wire " + std::to_string(w) +
                                                       " of " + std::to_string(words.size()));
      words[static_cast<std::size_t>(w)].push_back(v);
    }
  }

  // Head rule: heads[w] indexes the first unconsumed operator of word w; at_head[v] counts the
  // words v heads. v is feasible when it heads every word of its support and every producer it
  // reads is in an earlier layer (waiting[v] counts those still to come). Data edges are thus
  // kept whatever the wires say, and a support needs only the wires an operator occupies: a
  // consumer does not take its producer's wire, which would serialise the readers of a tensor.
  std::vector<std::size_t> heads(words.size(), 0);
  std::vector<std::size_t> at_head(n, 0);
  std::vector<std::size_t> waiting(n, 0);
  for (std::size_t i = 0; i < n; ++i) waiting[i] = graph.predecessors(static_cast<NodeId>(i)).size();
  std::vector<NodeId> frontier;
  auto feasible = [&](std::size_t i) { return at_head[i] == wires.support[i].size() && waiting[i] == 0; };
  auto arrive = [&](NodeId v) {
    if (++at_head[static_cast<std::size_t>(v)] == wires.support[static_cast<std::size_t>(v)].size() &&
        feasible(static_cast<std::size_t>(v)))
      frontier.push_back(v);
  };
  for (const auto& word : words)
    if (!word.empty()) arrive(word.front());
  std::size_t placed = 0;
  while (!frontier.empty()) {
    std::vector<NodeId> layer;
    layer.swap(frontier);
    std::sort(layer.begin(), layer.end());
    for (NodeId v : layer) {
      out.layer_of[static_cast<std::size_t>(v)] = static_cast<int>(out.layers.size());
      for (WireId w : wires.support[static_cast<std::size_t>(v)]) {
        const auto& word = words[static_cast<std::size_t>(w)];
        if (++heads[static_cast<std::size_t>(w)] < word.size()) arrive(word[heads[static_cast<std::size_t>(w)]]);
      }
      for (NodeId s : graph.successors(v))
        if (--waiting[static_cast<std::size_t>(s)] == 0 && feasible(static_cast<std::size_t>(s))) frontier.push_back(s);
    }
    placed += layer.size();
    out.layers.push_back(std::move(layer));
  }
  // Every word is a subsequence of one topological order, so the first unconsumed node of that
  // order heads all of its words and its producers are placed: the rule cannot stall.
  if (placed != n) {
    std::fprintf(stderr, "%s:%d: invariant failed: head rule stalled after %zu of %zu nodes\n", __FILE__, __LINE__,
                 placed, n);
    std::abort();
  }
  return out;
}

}  // namespace weft::core
