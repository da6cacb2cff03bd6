#pragma once
// Hybrid parallelism on a CPU: a team size per node. Streams give inter-operator parallelism
// where the graph branches; where it does not (a stem, the join of a block), a node runs with
// nothing beside it and its stream's single thread leaves the other cores idle. Such a node
// gets a library team of every core the schedule holds instead.
#include <span>
#include <string>
#include <vector>

#include "weft/core/base/expected.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"

namespace weft::core {

class ExecutionOrder;

/// Per node (by NodeId), 1 when the node runs alone: every other node happens before it or
/// after it in H (data edges ∪ stream order ∪ events), so no interleaving runs anything beside
/// it. With the order's vector clocks and FirstAfter: v is alone iff on every other stream the
/// first node after v directly follows the last node before v. Every node of a one-stream
/// schedule is alone. `order` must have clocks (build or validate). O((V + E)·S) time, V·S ints.
std::vector<char> alone_nodes(const ExecutionOrder& order);

/// The shortest node a hybrid run gives a wide team, µs on its stream's team: a team's start and
/// join, and the other streams' hand-over around it, cost more than it gains on shorter ones
/// (Inception-v3's Concats, 40-50 µs alone, took 110-140 µs on a team of 2 between streams).
inline constexpr double kHybridMinNodeUs = 100;

/// The hybrid teams: every node that runs alone (alone_nodes) on a team of `wide_threads`
/// threads, every other node on its stream's threads_per_stream; sets schedule.node_threads
/// (cleared when wide_threads is not above threads_per_stream or the schedule has one stream).
/// With `node_us` (per node, µs on the stream's team; empty: not known), an alone node shorter
/// than `min_us` stays on its stream's team. Errors (InvalidInput): wide_threads below 1, and
/// ExecutionOrder::build's (a schedule that misplaces nodes or deadlocks). O((V + E)·S).
Status assign_alone_teams(const Graph& graph, Schedule& schedule, int wide_threads, std::span<const double> node_us = {},
                          double min_us = kHybridMinNodeUs);

/// After an edit: the nodes on a wide team that no longer run alone back on their stream's team
/// (a node alone by the data edges stays alone whatever the streams; one alone by stream order
/// may not). Errors: ExecutionOrder::build's. O((V + E)·S).
Status narrow_unalone_teams(const Graph& graph, Schedule& schedule);

/// The threads a hybrid run's wide nodes get: every core the schedule's streams hold at once
/// on `cores` cores (min(streams, cores / threads_per_stream) × threads_per_stream; `cores` ≤ 0:
/// streams × threads_per_stream). O(1).
int hybrid_wide_threads(const Schedule& schedule, int cores = 0);

/// Hybrid parallelism for a run on `cores` cores with `threads_per_stream` threads per stream:
/// sets schedule.threads_per_stream, then assign_alone_teams with hybrid_wide_threads and
/// `node_us`. What `weft run --hybrid` and `weft schedule --hybrid` do. Errors:
/// assign_alone_teams'. O((V + E)·S).
Status make_hybrid(const Graph& graph, Schedule& schedule, int threads_per_stream, int cores, std::span<const double> node_us = {});

/// How many nodes run on a team other than their stream's, and the largest such team (0, 0:
/// none). O(V).
struct NodeTeamCount {
  std::size_t nodes = 0;
  int threads = 0;
};
NodeTeamCount count_node_teams(const Schedule& schedule);

/// The teams as reports say them: "hybrid: 23 of 313 nodes run alone on teams of 2 threads, the
/// others on 1 thread per stream"; empty when every node runs on its stream's team. O(V).
std::string node_teams_text(const Schedule& schedule, std::size_t node_count);

}  // namespace weft::core
