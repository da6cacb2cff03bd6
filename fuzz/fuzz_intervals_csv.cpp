// libFuzzer target: the MiniMalloc CSV reader (weft plan --intervals) and, on small instances
// (up to 24 blocks, so the reader gets most of the executions), every planner and the placement
// checker over what it accepts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "weft/core/memory/allocation_problem.h"
#include "weft/core/memory/bounds.h"
#include "weft/core/memory/intervals.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/memory/plan_checker.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace weft::core;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto instance = parse_minimalloc_csv(text, "fuzz.csv");
  if (!instance || instance->ids.size() > 24) return 0;
  const AllocationProblem problem = interval_problem(*instance);
  const std::int64_t bound = interval_lower_bound(problem);
  PlanOptions options;
  options.search_steps = 100;  // the search's inner loops, a few rounds each
  options.search_ms = 20;
  for (const char* planner : {"greedy-by-size", "greedy-by-breadth", "best-fit", "best"}) {
    auto placement = place_blocks(problem, planner, options, bound);
    // A planner's placement always passes the checker; anything else is a bug worth a crash.
    if (!placement || !check_placement(problem, *placement) || placement->arena_bytes < bound) std::abort();
  }
  return 0;
}
