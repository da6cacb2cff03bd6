#pragma once
// The studio's single door into weft_core's scheduling passes: thin forwards, so the studio's
// calls into core stay in one place.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/analysis.h"
#include "weft/core/cost_model.h"
#include "weft/core/graph.h"
#include "weft/core/schedule.h"
#include "weft/core/strategies.h"

namespace weft::ui::bridge {

/// Loads the default device preset (falls back to a named empty spec when the assets are missing).
core::DeviceSpec default_device();
/// Loads the preset `name`; an empty or unknown name gives default_device().
core::DeviceSpec device_or_default(const std::string& name);

core::AnalysisReport analyze(const core::Graph& graph, const core::CostTable& costs);
std::vector<std::string> strategy_names();
core::Expected<core::Schedule> make_schedule(std::string_view strategy, const core::Graph& graph,
                                             const core::CostTable& costs, const core::DeviceSpec& device,
                                             const core::StrategyOptions& options);
std::vector<core::Event> compute_events(const core::Graph& graph, const core::Schedule& schedule);
core::Status validate_schedule(const core::Graph& graph, const core::Schedule& schedule);
double ideal_makespan_us(const core::Graph& graph, const core::Schedule& schedule,
                         std::span<const double> node_time_us);

core::Expected<core::Schedule> move_node(const core::Graph& graph, const core::Schedule& schedule, core::NodeId n,
                                         int stream, int position);
core::Expected<core::Schedule> move_nodes(const core::Graph& graph, const core::Schedule& schedule,
                                          std::span<const core::NodeId> nodes, int stream, int position);
core::Expected<core::Schedule> add_stream(const core::Graph& graph, const core::Schedule& schedule);
core::Expected<core::Schedule> remove_stream(const core::Graph& graph, const core::Schedule& schedule, int stream);
core::Expected<core::Schedule> merge_streams(const core::Graph& graph, const core::Schedule& schedule, int a, int b);

std::string schedule_to_json(const core::Graph& graph, const core::Schedule& schedule, std::string_view device);
core::Expected<core::Schedule> schedule_from_json(const core::Graph& graph, std::string_view json_text);

}  // namespace weft::ui::bridge
