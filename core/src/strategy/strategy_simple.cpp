// The three structural strategies: sequential, seed-greedy (the seed's assign_queues, a
// baseline of what not to do) and level-rr (Taskflow's default: index within level mod N).
#include <algorithm>

#include "strategy_detail.h"
#include "weft/core/base/check.h"
#include "weft/core/analysis/levels.h"
#include "weft/core/strategy/registry.h"
#include "weft/core/strategy/reference.h"

namespace weft::core::detail {
namespace {

Schedule sequential(const StrategyInput& in) {
  // The studies' reference, defined once: one stream in the memory-aware order.
  Schedule s = reference_schedule(in.graph);
  s.options.clear();
  return s;
}

Schedule seed_greedy(const StrategyInput& in) {
  // assign_queues from the seed, exactly as written: a node joins the first queue on which
  // none of its producers sits, else opens the next queue. It ignores the stream cap and, by
  // construction, puts every edge across queues.
  const std::vector<NodeId> order(in.graph.topo_order().begin(), in.graph.topo_order().end());
  std::vector<int> queue_of(in.graph.node_count(), -1);
  int n_queues = 0;
  for (NodeId i : order) {
    const auto producers = in.graph.predecessors(i);
    int placed = -1;
    for (int q = 0; q < n_queues && placed < 0; ++q)
      if (std::all_of(producers.begin(), producers.end(), [&](NodeId p) { return queue_of[static_cast<std::size_t>(p)] != q; }))
        placed = q;
    queue_of[static_cast<std::size_t>(i)] = placed >= 0 ? placed : n_queues++;
  }
  Schedule s;
  s.streams.resize(static_cast<std::size_t>(n_queues));
  for (NodeId i : order) s.streams[static_cast<std::size_t>(queue_of[static_cast<std::size_t>(i)])].push_back(i);
  return s;
}

Schedule level_rr(const StrategyInput& in) {
  const Levels levels = compute_levels(in.graph);
  std::vector<double> level(levels.asap.begin(), levels.asap.end());
  // By level, file order within a level: topological, since levels rise along every edge.
  const std::vector<NodeId> order = order_by(in.graph, level, /*descending=*/false);
  std::vector<int> stream_of(in.graph.node_count(), 0);
  std::vector<int> index_in_level(static_cast<std::size_t>(levels.depth), 0);
  for (NodeId v : order) {
    const auto l = static_cast<std::size_t>(levels.asap[static_cast<std::size_t>(v)]);
    stream_of[static_cast<std::size_t>(v)] = index_in_level[l]++ % in.options.max_streams;
  }
  keep_small_on_producer_stream(in, stream_of);
  return from_assignment(std::move(stream_of), order);
}

}  // namespace
}  // namespace weft::core::detail

WEFT_STRATEGY_FILE(simple) {
  using namespace weft::core;
  auto wrap = [](Schedule (*f)(const StrategyInput&)) {
    return [f](const StrategyInput& in) -> Expected<Schedule> { return f(in); };
  };
  WEFT_CHECK(register_strategy(make_strategy("sequential", "one stream in the memory-aware order (the reference)", 10,
                                  wrap(detail::sequential))));
  WEFT_CHECK(register_strategy(make_strategy("seed-greedy", "the design notes' naive greedy: a node joins the first queue holding none of its producers (a baseline)", 20,
                                  wrap(detail::seed_greedy))));
  WEFT_CHECK(register_strategy(make_strategy("level-rr", "level round-robin: the i-th node of each ASAP level on stream i mod N (Taskflow's default)", 30,
                                  wrap(detail::level_rr))));
}
