#pragma once
// Wire layering (the support-graph scheduler of shared/seeds/002): every operator touches a set of
// wires (its support); each wire is a word, the operators touching it in one linear order; an
// operator is feasible when it heads every word of its support (and, in Weft, when the producers
// it reads are placed), and each layer takes every feasible operator. Operators whose supports
// overlap keep their order; the rest commute.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/base/expected.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"

namespace weft::core {

using WireId = std::int32_t;

/// Wires and each node's support (sorted wire ids, at least one per node).
struct Wires {
  std::vector<std::string> names;              ///< one per wire
  std::vector<std::vector<WireId>> support;    ///< by NodeId
  /// The linear order the words follow (every node once, topological). Empty: ASAP level, then
  /// node id. A schedule's wires follow its streams' order.
  std::vector<NodeId> order;
  std::string origin;                          ///< "graph chains", "schedule chains", "file w.json"
};

/// Wires for any graph: the chains of a minimum chain cover (Dilworth; parallel branches, channel
/// groups and heads become separate wires), a node's support its own chain. Cost:
/// min_chain_cover() plus O(V).
Wires wires_from_graph(const Graph& graph);

/// Wires from a schedule: wire s is stream s, a node's support its stream; the words follow the
/// schedule's execution order (a topological order of data edges, stream order and events), so
/// the layering keeps every order the schedule enforces. (The seed also puts the streams a node
/// waits on in its support; the data edges already order a waiting node after the producer, and
/// taking the whole stream's head would serialise it behind unrelated later work there.) Fails
/// (InvalidInput) as ExecutionOrder::build does: a node not placed once, an event naming an
/// unknown node, or a deadlock (the one message, naming the cycle and its streams).
/// O(V + E + events).
Expected<Wires> wires_from_schedule(const Graph& graph, const Schedule& schedule);

/// User-defined wires, JSON: {"format": "weft-wires", "version": 1, "wires": [{"name": "head0",
/// "nodes": ["q0", "k0", ...]}, ...]} (node keys as in schedule JSON). A node may sit on several
/// wires. Errors (InvalidInput) name the problem: unknown node, a node on no wire, bad JSON.
Expected<Wires> parse_wires_json(const Graph& graph, std::string_view text, std::string_view origin);

/// The layering by the head rule.
struct WireLayering {
  std::vector<std::vector<NodeId>> layers;  ///< each sorted by node id
  std::vector<int> layer_of;                ///< by NodeId
  std::size_t depth() const { return layers.size(); }
  std::size_t max_width() const;
};

/// Layers `graph` by the head rule over `wires` plus data readiness. The words list each wire's
/// nodes in wires.order (default: ASAP level, then node id), so operators on a common wire keep
/// that order; every data edge goes to a later layer. Every layer's nodes have pairwise disjoint
/// supports (the head rule gives each wire one head). Fails (InvalidInput) only on malformed
/// wires (sizes, ids, an order that is not a permutation). O(V + E + Σ|support|).
Expected<WireLayering> layer_by_wires(const Graph& graph, const Wires& wires);

}  // namespace weft::core
