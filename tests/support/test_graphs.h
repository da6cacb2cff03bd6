#pragma once
// Small hand-built graphs and seeded random DAGs shared by the tests.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"

namespace weft::test {

/// Tensor named after its producer: node "n3" writes "n3_out", float32 [1, elems[3]] (input "x":
/// [1, elems[0]]). `edges` are (from, to) node pairs with from < to; nodes with no predecessor
/// read input "x". Sinks become graph outputs.
inline core::Graph make_sized_dag(int nodes, const std::vector<std::pair<int, int>>& edges,
                                  const std::vector<std::int64_t>& elems, const std::string& op = "Relu") {
  core::GraphBuilder b;
  b.add_input("x", core::DType::Float32, {core::Dim{1, {}}, core::Dim{elems.at(0), {}}});
  std::vector<std::vector<std::string>> ins(static_cast<std::size_t>(nodes));
  std::vector<bool> has_succ(static_cast<std::size_t>(nodes), false);
  for (auto [u, v] : edges) {
    ins[static_cast<std::size_t>(v)].push_back("n" + std::to_string(u) + "_out");
    has_succ[static_cast<std::size_t>(u)] = true;
  }
  for (int i = 0; i < nodes; ++i) {
    auto& in = ins[static_cast<std::size_t>(i)];
    if (in.empty()) in.push_back("x");
    const std::string out = "n" + std::to_string(i) + "_out";
    const std::string node_op = in.size() > 1 ? "Sum" : op;
    b.add_node("n" + std::to_string(i), node_op, std::span<const std::string>(in), std::span<const std::string>(&out, 1));
    b.set_shape(out, core::DType::Float32, {1, elems.at(static_cast<std::size_t>(i))});
  }
  for (int i = 0; i < nodes; ++i)
    if (!has_succ[static_cast<std::size_t>(i)]) b.mark_output("n" + std::to_string(i) + "_out");
  auto g = std::move(b).build();
  if (!g) std::abort();
  return std::move(*g);
}

/// make_sized_dag with every tensor float32 [1, elems].
inline core::Graph make_dag(int nodes, const std::vector<std::pair<int, int>>& edges, std::int64_t elems = 1024,
                            const std::string& op = "Relu") {
  return make_sized_dag(nodes, edges, std::vector<std::int64_t>(static_cast<std::size_t>(std::max(nodes, 1)), elems), op);
}

/// n0 -> n1 -> ... -> n(k-1)
inline core::Graph make_chain(int k) {
  std::vector<std::pair<int, int>> e;
  for (int i = 1; i < k; ++i) e.emplace_back(i - 1, i);
  return make_dag(k, e);
}

/// n0 -> {n1, n2} -> n3
inline core::Graph make_diamond() { return make_dag(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}}); }

/// n0 -> {n1 .. nk}
inline core::Graph make_fan_out(int k) {
  std::vector<std::pair<int, int>> e;
  for (int i = 1; i <= k; ++i) e.emplace_back(0, i);
  return make_dag(k + 1, e);
}

/// Two independent chains of length k: n0..n(k-1) and nk..n(2k-1).
inline core::Graph make_two_branches(int k) {
  std::vector<std::pair<int, int>> e;
  for (int i = 1; i < k; ++i) {
    e.emplace_back(i - 1, i);
    e.emplace_back(k + i - 1, k + i);
  }
  return make_dag(2 * k, e);
}

/// Random DAG: each pair (u < v) is an edge with probability p (and v's in-degree is capped).
inline std::vector<std::pair<int, int>> random_edges(int nodes, double p, std::uint64_t seed, int max_in = 4) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution coin(p);
  std::vector<std::pair<int, int>> e;
  for (int v = 1; v < nodes; ++v) {
    int in = 0;
    for (int u = v - 1; u >= 0 && in < max_in; --u)
      if (coin(rng)) {
        e.emplace_back(u, v);
        ++in;
      }
  }
  return e;
}

inline core::Graph make_random_dag(int nodes, double p, std::uint64_t seed, int max_in = 4) {
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  std::uniform_int_distribution<std::int64_t> size(64, 1 << 16);
  return make_dag(nodes, random_edges(nodes, p, seed, max_in), size(rng));
}

struct RandomSchedule {
  bool events_for_cross_edges = false;  ///< add an event for every cross-stream data edge
  bool drop_empty_streams = false;
};

/// Every node on a random stream (0..streams-1), each stream in topological order, so data edges ∪
/// stream order is acyclic: always a valid schedule (with events_for_cross_edges, also without
/// counting the data edges).
inline core::Schedule random_schedule(const core::Graph& g, int streams, std::uint64_t seed, RandomSchedule opts = {}) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(0, streams - 1);
  std::vector<int> stream_of(g.node_count());
  core::Schedule s;
  s.streams.resize(static_cast<std::size_t>(streams));
  for (core::NodeId v : g.topo_order()) {
    stream_of[static_cast<std::size_t>(v)] = pick(rng);
    s.streams[static_cast<std::size_t>(stream_of[static_cast<std::size_t>(v)])].push_back(v);
  }
  if (opts.events_for_cross_edges)
    for (std::size_t u = 0; u < g.node_count(); ++u)
      for (core::NodeId v : g.successors(static_cast<core::NodeId>(u)))
        if (stream_of[u] != stream_of[static_cast<std::size_t>(v)]) s.events.push_back({static_cast<core::NodeId>(u), v});
  if (opts.drop_empty_streams)
    std::erase_if(s.streams, [](const auto& st) { return st.empty(); });
  s.strategy = "random";
  return s;
}

/// Node attributes for hand-built graphs.
inline core::Attribute int_attr(const std::string& name, std::int64_t v) {
  core::Attribute a;
  a.name = name;
  a.type = core::Attribute::Type::Int;
  a.i = v;
  return a;
}
inline core::Attribute ints_attr(const std::string& name, std::vector<std::int64_t> v) {
  core::Attribute a;
  a.name = name;
  a.type = core::Attribute::Type::Ints;
  a.ints = std::move(v);
  return a;
}

}  // namespace weft::test
