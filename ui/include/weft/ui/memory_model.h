#pragma once
// The memory view's model (no Qt): the arena plan of the current schedule and of the sequential
// schedule, their growth over steps and over predicted time, the bounds and one block per tensor
// for the offset map. Adapted from the document's study (core::ScheduleStudy) after every edit;
// the view computes no memory report of its own.
#include <cstdint>
#include <string>
#include <vector>

#include "weft/core/cost/cost_model.h"
#include "weft/core/graph/graph.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/study/prediction.h"
#include "weft/core/study/schedule_study.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/schedule/timeline.h"
#include "weft/ui/study_job.h"

namespace weft::ui {

/// Above this many nodes the view does not re-plan on every edit (it says so instead): the
/// document's live-study size.
inline constexpr std::size_t kMemoryViewMaxNodes = kLiveStudyNodes;

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
  /// core::MemoryReport::price_of_concurrency(): concurrent arena / sequential arena, the memory
  /// price of the current concurrency (`weft plan`'s figure).
  double price_of_concurrency = 1;

  bool hasTime() const { return !current.live_over_time.empty() && !sequential.live_over_time.empty(); }
  /// The block under (step or time, byte offset), or -1. Later blocks win (drawn on top). O(blocks).
  int blockAt(double x, bool over_time, double offset) const;
};

/// Adapts a study for the view: its memory report (made with growth) and, when it has one, its
/// prediction (the time axis). A study without a memory report gives computed = false and a
/// note. O(T + E) (no planning).
MemoryModel memory_model_from_study(const core::Graph& graph, const core::ScheduleStudy& study,
                                    core::LaunchMode mode = core::LaunchMode::Eager);

/// The same from a memory report and the timelines of its schedule (`run`) and of the reference
/// schedule in the same launch mode (`seq_run`), either null without a prediction: what a worker
/// adapts while the document moves on (no study needed).
MemoryModel memory_model_from_report(const core::Graph& graph, const core::MemoryReport& report, const core::Timeline* run,
                                     const core::Timeline* seq_run);

/// The note shown instead of the view above the live size.
std::string memory_cutoff_note(std::size_t nodes, std::size_t max_nodes);

}  // namespace weft::ui
