// Horizontal merging chained as one study: layering → merge groups → merged graph, schedules that
// carry their merges, and the gain against the unmerged sequential baselines.
#include "weft/core/study/merge_study.h"

#include "weft/core/base/file_io.h"
#include "weft/core/graph/merged_node.h"
#include "weft/core/transform/horizontal_merge.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/strategy/reference.h"
#include "weft/core/transform/wire_layering.h"

namespace weft::core {
namespace {

std::size_t launches(const CostTable& costs) {
  std::size_t n = 0;
  for (const NodeCost& c : costs.nodes) n += c.time_us > 0 ? 1 : 0;
  return n;
}

}  // namespace

Expected<MergedModel> merge_model(const Graph& graph, const CostTable& costs, const DeviceSpec& device) {
  const Wires wires = wires_from_graph(graph);
  WEFT_TRY_ASSIGN(auto layering, layer_by_wires(graph, wires));
  const MergePlan plan = find_merge_groups(graph, layering, costs, device);
  return merge_graph(graph, costs, plan);
}

Expected<MergedModel> merge_model(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                                  std::vector<std::vector<NodeId>> groups) {
  if (costs.nodes.size() != graph.node_count())
    return make_error(ErrorKind::InvalidInput, "merge_model: the cost table is for another graph");
  for (const auto& g : groups)
    for (NodeId v : g)
      if (v < 0 || static_cast<std::size_t>(v) >= graph.node_count())
        return make_error(ErrorKind::InvalidInput, "merge_model: node " + std::to_string(v) + " is not in the graph");
  return merge_graph(graph, costs, make_merge_plan(graph, costs, device, std::move(groups)));
}

Expected<LoadedSchedule> load_schedule_with_merges(const std::string& path, const Graph& graph, const CostTable& costs,
                                                   const DeviceSpec& device) {
  WEFT_TRY_ASSIGN(auto text, read_file(path, kMaxTextBytes));
  auto in_file = [&](const Error& e) { return make_error(e.kind, path + ": " + e.message); };
  auto groups = schedule_merges_from_json(graph, text);
  if (!groups) return in_file(groups.error());
  LoadedSchedule loaded;
  if (groups->empty()) {
    auto s = schedule_from_json(graph, text);
    if (!s) return in_file(s.error());
    loaded.schedule = std::move(*s);
    return loaded;
  }
  auto merged = merge_model(graph, costs, device, std::move(*groups));
  if (!merged) return in_file(merged.error());
  auto s = schedule_from_json(merged->graph, text);
  if (!s) return in_file(s.error());
  loaded.merged = std::move(*merged);
  loaded.schedule = std::move(*s);
  return loaded;
}

Expected<MergeGain> merge_gain(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                               const MergedModel& merged, const Prediction& merged_prediction) {
  PredictOptions options;
  options.counterfactuals = false;
  WEFT_TRY_ASSIGN(auto unmerged, predict(graph, reference_schedule(graph), costs, device, options));
  MergeGain g;
  g.groups = count_merged_nodes(merged.graph);
  g.launches_before = launches(costs);
  g.launches_after = launches(merged.costs);
  g.unmerged_eager_us = unmerged.sequential_eager_us;
  g.unmerged_graph_us = unmerged.sequential_graph_us;
  const double makespan = merged_prediction.makespan_us;
  g.speedup_vs_graph = makespan > 0 ? g.unmerged_graph_us / makespan : 0;
  g.speedup_vs_eager = makespan > 0 ? g.unmerged_eager_us / makespan : 0;
  return g;
}

}  // namespace weft::core
