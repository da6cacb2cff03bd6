#pragma once
// The memory view's model (no Qt): the arena plan of the current schedule and of the sequential
// schedule, their growth over steps and over predicted time, the bounds and one block per tensor
// for the offset map. Recomputed by the view after every schedule edit.
#include <cstdint>
#include <string>
#include <vector>

#include "weft/core/cost_model.h"
#include "weft/core/graph.h"
#include "weft/core/memory_planner.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/study/prediction.h"
#include "weft/core/schedule.h"
#include "weft/core/timeline.h"

namespace weft::ui {

/// Above this many nodes the view does not re-plan on every edit (it says so instead).
inline constexpr std::size_t kMemoryViewMaxNodes = 4000;

/// One planned tensor as drawn in the offset map: bytes [offset, offset + size) from its
/// producer's step through its last reader's step (and the same over predicted time).
struct MemoryBlock {
  core::TensorId tensor = core::kNoTensor;
  core::NodeId producer = core::kNoNode;
  std::int64_t offset = 0;
  std::int64_t size = 0;  ///< padded to the plan's alignment
  int first_step = 0;     ///< producer's step
  int last_step = 0;      ///< last reader's step (inclusive)
  double start_us = 0;    ///< producer's start (0 without a timeline)
  double end_us = 0;      ///< last reader's end
};

/// Growth of one schedule's plan: per step (the schedule's linearisation) and over predicted time.
struct MemoryCurve {
  std::vector<std::int64_t> live_bytes;  ///< per step
  std::vector<std::int64_t> high_water;  ///< per step, non-decreasing
  std::vector<core::CounterSample> live_over_time;        ///< step-function samples (empty without rates)
  std::vector<core::CounterSample> high_water_over_time;  ///< idem
  double makespan_us = 0;
};

struct MemoryModel {
  bool computed = false;
  std::string note;  ///< why nothing was computed (too large, invalid schedule), else empty
  std::string planner;
  MemoryCurve current, sequential;
  std::vector<core::NodeId> steps;   ///< node run at each step of the current schedule
  std::vector<MemoryBlock> blocks;   ///< the current schedule's plan, one per planned tensor
  std::int64_t arena_bytes = 0;            ///< current schedule
  std::int64_t sequential_arena_bytes = 0; ///< the reference schedule (core::reference_schedule)
  std::int64_t linear_bound_bytes = 0;     ///< linear lower bound of the reference order
  std::int64_t concurrent_bound_bytes = 0; ///< concurrent lower bound of the current schedule
  std::int64_t no_reuse_bytes = 0;         ///< every planned tensor in its own bytes

  bool hasTime() const { return !current.live_over_time.empty() && !sequential.live_over_time.empty(); }
  /// Concurrent arena / sequential arena: the memory price of the current concurrency.
  double price() const {
    return sequential_arena_bytes > 0 ? static_cast<double>(arena_bytes) / static_cast<double>(sequential_arena_bytes) : 1.0;
  }
  /// The block under (step or time, byte offset), or -1. Later blocks win (drawn on top). O(blocks).
  int blockAt(double x, bool over_time, double offset) const;
};

struct MemoryModelOptions {
  std::size_t max_nodes = kMemoryViewMaxNodes;
  /// The studies' planning (every planner, smallest arena), as the document's figures use.
  std::string planner{core::kReferencePlanner};
  core::PlanOptions plan = core::reference_plan_options();
  core::LaunchMode mode = core::LaunchMode::Eager;  ///< launch mode of the timelines over time
};

/// Adapts core::memory_report() for the view: the arena plan of `schedule` and of the reference
/// schedule, their growth, the bounds and one block per planned tensor. With `costs` and
/// `device` rates, also over predicted time (core::predict in options.mode).
/// O(memory_report + predict).
MemoryModel compute_memory_model(const core::Graph& graph, const core::Schedule& schedule,
                                 const core::CostTable* costs = nullptr, const core::DeviceSpec* device = nullptr,
                                 const MemoryModelOptions& options = {});

}  // namespace weft::ui
