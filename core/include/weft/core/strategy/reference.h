#pragma once
// The reference every study compares against, defined once: the sequential schedule (strategy
// "sequential": one stream in the memory-aware order) and the default memory planning (every
// planner, the smallest arena wins, with a deterministic search budget). `weft` and the studio
// both take their baselines, speedups and prices of concurrency from here.
#include <cstdint>
#include <string_view>

#include "weft/core/memory/allocation_problem.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"

namespace weft::core {

/// The reference schedule: one stream with every node in memory_aware_order(graph) (a
/// topological order whose peak live bytes is no higher than the file order's), no events,
/// strategy "sequential", options "memory-aware order". The "sequential" strategy returns it.
/// O(k · (V + E) log V).
Schedule reference_schedule(const Graph& graph);

/// The reference schedule with `schedule`'s hybrid teams (Schedule::node_threads): each node on
/// the team it has there, so that both run the same primitive per node and compare bit for bit,
/// and node times measured in the one stand for the other. O(k · (V + E) log V).
Schedule reference_schedule_with_teams(const Graph& graph, const Schedule& schedule);

/// The planner every study uses unless told otherwise: an empty name means "run every planner,
/// keep the smallest arena" (ties: the first in planner_names()).
inline constexpr std::string_view kReferencePlanner = "";

/// Plan options every study uses: the default alignment, no outputs in the arena, and a search
/// budget in steps (deterministic: the same figures in every process and on every machine). The
/// wall-clock cap is only a guard far above what the budget takes on the bundled models.
PlanOptions reference_plan_options();

/// The `best` planner's search budget in every study (`weft plan`, `weft schedule`, `weft
/// simulate`, `weft run` and the studio after each edit, where it runs in the study's worker
/// thread): 50,000 steps. A step costs about the same at any size (a decoded order counts
/// (blocks + conflicts) / 64 steps). 20,000 steps were tried to shorten the studio's study and
/// gave larger arenas on RandWire-WS (resource-aware, +3.6%) and a 2k mixture-of-experts model
/// (test_golden_results); `weft plan --search-steps N` searches longer.
inline constexpr std::int64_t kReferenceSearchSteps = 50'000;

}  // namespace weft::core
