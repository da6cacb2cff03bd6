#pragma once
// The studio's single door into weft_core's scheduling passes. Each call forwards to the core
// function when it has landed (see kLive* in core_bridge.cpp) and otherwise to a small local
// stand-in with the same contract, so the studio builds and works at every step.
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

/// Which core passes are called for real (true) and which are bridged by local stand-ins.
struct Liveness {
  bool analysis = false;
  bool strategies = false;
  bool sync = false;
  bool edits = false;
  bool schedule_json = false;
};
Liveness liveness();
/// "analysis live, strategies bridged, ..." for the About box and the report.
std::string liveness_text();

/// Loads the default device preset (falls back to a named empty spec when the assets are missing).
core::DeviceSpec default_device();

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
