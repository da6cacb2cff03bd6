// cp-list: critical-path-first list scheduling with streams as processors (HEFT, Topcuoglu,
// Hariri and Wu 2002, without insertion): nodes by decreasing upward rank, each onto the stream
// that finishes it earliest, a cross-stream dependency charged one event (record + wait).
#include <algorithm>
#include <limits>

#include "strategy_detail.h"
#include "weft/core/base/check.h"
#include "weft/core/strategy/registry.h"

namespace weft::core::detail {
namespace {

Schedule cp_list(const StrategyInput& in) {
  const std::size_t n = in.graph.node_count();
  // rank(u) ≥ rank(v) + time(u) along u→v, so decreasing rank (ties in file order) is topological.
  const std::vector<NodeId> order = order_by(in.graph, upward_rank(in, in.event_us), /*descending=*/true);
  std::vector<int> stream_of(n, -1);
  std::vector<double> finish(n, 0);
  std::vector<double> avail;  // per open stream: when its last node finishes
  const auto cap = static_cast<std::size_t>(in.options.max_streams);
  std::vector<int> candidates;
  for (NodeId v : order) {
    const auto vi = static_cast<std::size_t>(v);
    const auto preds = in.graph.predecessors(v);
    candidates.clear();
    if (!preds.empty() && in.time_us[vi] < in.options.granularity_us) {
      // Too short to pay for an event: only a producer's stream.
      for (NodeId u : preds) candidates.push_back(stream_of[static_cast<std::size_t>(u)]);
    } else {
      for (std::size_t s = 0; s < avail.size(); ++s) candidates.push_back(static_cast<int>(s));
      if (avail.size() < cap) candidates.push_back(static_cast<int>(avail.size()));
    }
    int best = -1;
    double best_eft = std::numeric_limits<double>::infinity();
    bool best_holds_producer = false;
    for (int s : candidates) {
      double ready = static_cast<std::size_t>(s) < avail.size() ? avail[static_cast<std::size_t>(s)] : 0.0;
      bool holds_producer = false;
      for (NodeId u : preds) {
        const bool same = stream_of[static_cast<std::size_t>(u)] == s;
        holds_producer = holds_producer || same;
        ready = std::max(ready, finish[static_cast<std::size_t>(u)] + (same ? 0.0 : in.event_us));
      }
      const double eft = ready + in.time_us[vi];
      // Ties go to a stream holding a producer (one event fewer), then to the lowest index.
      if (eft < best_eft || (eft == best_eft && holds_producer && !best_holds_producer)) {
        best = s;
        best_eft = eft;
        best_holds_producer = holds_producer;
      }
    }
    if (static_cast<std::size_t>(best) == avail.size()) avail.push_back(0);
    stream_of[vi] = best;
    finish[vi] = best_eft;
    avail[static_cast<std::size_t>(best)] = best_eft;
  }
  return from_assignment(std::move(stream_of), order);
}

}  // namespace
}  // namespace weft::core::detail

WEFT_STRATEGY_FILE(cp_list) {
  using namespace weft::core;
  WEFT_CHECK(register_strategy(make_strategy("cp-list", "critical-path-first list scheduling with streams as processors (HEFT), events charged", 50,
                                  [](const StrategyInput& in) -> Expected<Schedule> { return detail::cp_list(in); })));
}
