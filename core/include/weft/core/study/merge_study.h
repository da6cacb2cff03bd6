#pragma once
// Horizontal merging as a study: the merges of a model's layering applied as a graph
// transformation (merge_graph), schedules loaded with the merges they record, and the gain of a
// merged schedule against the UNMERGED model's sequential baselines. `weft simulate --merge`,
// `weft run --merge` and `weft schedule --merge` call these.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"
#include "weft/core/transform/merge_graph.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/study/prediction.h"

namespace weft::core {

/// The merges of `graph`'s default layering as a merged model: wires_from_graph → layer_by_wires
/// → find_merge_groups → merge_graph. A graph with nothing to merge gives a copy of itself.
/// Cost: those passes, O(V + E) plus the minimum chain cover.
Expected<MergedModel> merge_model(const Graph& graph, const CostTable& costs, const DeviceSpec& device);

/// The merged model of the given groups (node ids of `graph`), each priced by make_merge_group.
/// Errors (InvalidInput) as merge_graph: members that are not independent, a node in two groups.
Expected<MergedModel> merge_model(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                                  std::vector<std::vector<NodeId>> groups);

/// A schedule read from JSON, on the merged model its "merges" describe when it records any.
struct LoadedSchedule {
  std::optional<MergedModel> merged;  ///< set when the file records merges; the schedule is on merged->graph
  Schedule schedule;
};

/// Loads schedule JSON for `graph` (the unmerged model): the merges it records are applied first
/// (merge_model with those groups), then the streams and events are validated on the merged model.
/// Errors (InvalidInput) name the file and the problem.
Expected<LoadedSchedule> load_schedule_with_merges(const std::string& path, const Graph& graph, const CostTable& costs,
                                                   const DeviceSpec& device);

/// A merged schedule's prediction against the unmerged model's sequential baselines (the same
/// reference schedule and launch modes as Prediction's): the gain of merging and scheduling together.
struct MergeGain {
  std::size_t groups = 0;
  std::size_t launches_before = 0;    ///< nodes of the unmerged model that launch a kernel
  std::size_t launches_after = 0;     ///< the same for the merged model
  double unmerged_eager_us = 0;       ///< reference_schedule(unmerged), one launch per node
  double unmerged_graph_us = 0;       ///< the same as one CUDA Graph
  double speedup_vs_graph = 0;        ///< unmerged_graph_us / merged makespan
  double speedup_vs_eager = 0;        ///< unmerged_eager_us / merged makespan
};

/// The gain of `merged_prediction` (a schedule of `merged`, predicted with predict()) over the
/// sequential runs of `graph` (the model `merged` was made from, with its `costs`). Errors as
/// predict(). O(2 · simulate()).
Expected<MergeGain> merge_gain(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                               const MergedModel& merged, const Prediction& merged_prediction);

}  // namespace weft::core
