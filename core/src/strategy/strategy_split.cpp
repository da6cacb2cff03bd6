// split-overlap: the k copies of a micro-batch split graph (split_batch) on k streams, staggered so
// that one copy's compute-bound operators run beside another's memory-bound ones (dual-batch
// overlap, as in DeepSeek-V3's and NanoFlow's overlapping of micro-batches). On a graph that is
// not split it is the sequential schedule.
#include <algorithm>
#include <limits>

#include "strategy_detail.h"
#include "weft/core/base/check.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/strategy/registry.h"
#include "weft/core/strategy/reference.h"
#include "weft/core/schedule/sync.h"

namespace weft::core::detail {
namespace {

// The largest stagger tried: copy c starts after copy c-1's first kMaxLead nodes at most.
constexpr int kMaxLead = 12;

// Streams for a stagger of `lead` nodes: copy c on stream c (mod the cap), in the reference order;
// the batch-independent nodes first on stream 0; copy c's first node placed on copy c-1's stream
// right after copy c-1's node number `lead`, so copy c trails copy c-1 by that prefix (the
// schedule's events come from data edges only, so stream order is how a stagger is expressed).
Schedule staggered(const StrategyInput& in, const std::vector<NodeId>& order, int lead) {
  const GraphInfo& info = in.graph.info();
  const int k = info.micro_batches;
  const int streams = std::max(1, std::min(k, in.options.max_streams));
  std::vector<std::vector<NodeId>> copies(static_cast<std::size_t>(k));
  std::vector<NodeId> shared;
  for (NodeId v : order) {
    const std::int32_t c = info.micro_batch_of[static_cast<std::size_t>(v)];
    (c < 0 ? shared : copies[static_cast<std::size_t>(c)]).push_back(v);
  }
  Schedule s;
  s.streams.resize(static_cast<std::size_t>(streams));
  s.streams[0] = shared;
  // Copy c's first node, when staggered, joins the stream of copy c-1 after its lead prefix.
  std::vector<std::vector<std::pair<std::size_t, NodeId>>> inserts(static_cast<std::size_t>(k));
  for (int c = 1; c < k && lead > 0; ++c) {
    const auto& prev = copies[static_cast<std::size_t>(c - 1)];
    if (prev.empty() || copies[static_cast<std::size_t>(c)].empty()) continue;
    const std::size_t after = std::min<std::size_t>(static_cast<std::size_t>(lead), prev.size());
    inserts[static_cast<std::size_t>(c - 1)].push_back({after, copies[static_cast<std::size_t>(c)].front()});
  }
  for (int c = 0; c < k; ++c) {
    auto& stream = s.streams[static_cast<std::size_t>(c % streams)];
    const auto& copy = copies[static_cast<std::size_t>(c)];
    const bool moved = c > 0 && lead > 0 && !copies[static_cast<std::size_t>(c - 1)].empty() && !copy.empty();
    for (std::size_t i = moved ? 1 : 0; i <= copy.size(); ++i) {
      for (const auto& [after, v] : inserts[static_cast<std::size_t>(c)])
        if (after == i) stream.push_back(v);
      if (i < copy.size()) stream.push_back(copy[i]);
    }
  }
  s.streams.erase(std::remove_if(s.streams.begin(), s.streams.end(), [](const auto& st) { return st.empty(); }), s.streams.end());
  return s;
}

Expected<Schedule> split_overlap(const StrategyInput& in) {
  const GraphInfo& info = in.graph.info();
  if (info.micro_batches <= 1 || info.micro_batch_of.size() != in.graph.node_count()) {
    Schedule s = reference_schedule(in.graph);
    s.options = "k=1";
    return s;
  }
  const std::vector<NodeId> order = reference_schedule(in.graph).streams[0];
  // The stagger is chosen by the simulator in the options' launch mode: its fluid model shares
  // compute and bandwidth by each node's flops and bytes, so the lead that pairs one copy's
  // compute-bound convolutions with another's memory-bound activations predicts fastest.
  SimOptions sim;
  sim.cuda_graph = in.options.cuda_graph;
  Schedule best;
  double best_us = std::numeric_limits<double>::infinity();
  int best_lead = 0;
  for (int lead = 0; lead <= kMaxLead; ++lead) {
    Schedule s = staggered(in, order, lead);
    s.events = compute_events(in.graph, s);
    if (!validate_schedule(in.graph, s)) continue;
    const double us = simulate(in.graph, s, in.costs, in.device, sim).makespan_us();
    if (us < best_us) {
      best_us = us;
      best = std::move(s);
      best_lead = lead;
    }
  }
  WEFT_CHECK(best_us < std::numeric_limits<double>::infinity());
  best.events.clear();
  best.options = "k=" + std::to_string(info.micro_batches) + " lead=" + std::to_string(best_lead);
  return best;
}

}  // namespace
}  // namespace weft::core::detail

WEFT_STRATEGY_FILE(split) {
  using namespace weft::core;
  WEFT_CHECK(register_strategy(make_strategy(
      "split-overlap",
      "micro-batch split (--split K|auto): the k copies on k streams, staggered so compute- and memory-bound "
      "operators overlap; one stream on an unsplit graph",
      70, detail::split_overlap)));
}
