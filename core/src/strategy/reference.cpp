// The one reference schedule and planning setup of every study.
#include "weft/core/strategy/reference.h"

#include "weft/core/memory/memory_aware_order.h"

namespace weft::core {

Schedule reference_schedule(const Graph& graph) {
  Schedule s;
  s.streams.push_back(memory_aware_order(graph));
  if (s.streams.front().empty()) s.streams.clear();
  s.strategy = "sequential";
  s.options = "memory-aware order";
  return s;
}

Schedule reference_schedule_with_teams(const Graph& graph, const Schedule& schedule) {
  Schedule s = reference_schedule(graph);
  s.node_threads = schedule.node_threads;
  return s;
}

PlanOptions reference_plan_options() {
  PlanOptions o;
  // A step budget ends the search, not the clock: figures must not depend on machine load.
  o.search_steps = kReferenceSearchSteps;
  o.search_ms = 60'000;
  return o;
}

}  // namespace weft::core
