// Thin forwards from the studio to weft_core's scheduling passes. Every pass has landed; the
// local stand-ins that kept the studio working while they were written are gone.
#include "weft/ui/core_bridge.h"

#include "weft/core/analysis.h"
#include "weft/core/schedule_edit.h"
#include "weft/core/schedule_json.h"
#include "weft/core/strategies.h"
#include "weft/core/sync.h"

namespace weft::ui::bridge {

using core::Event;
using core::Expected;
using core::Graph;
using core::NodeId;
using core::Schedule;

core::DeviceSpec default_device() { return device_or_default(std::string(core::default_device_name())); }

core::DeviceSpec device_or_default(const std::string& name) {
  if (!name.empty())
    if (auto d = core::load_device(name)) return *d;
  if (auto d = core::load_device(core::default_device_name())) return *d;
  core::DeviceSpec spec;
  spec.name = std::string(core::default_device_name());
  return spec;
}

core::AnalysisReport analyze(const Graph& graph, const core::CostTable& costs) { return core::analyze(graph, costs); }

std::vector<std::string> strategy_names() { return core::strategy_names(); }

Expected<Schedule> make_schedule(std::string_view strategy, const Graph& graph, const core::CostTable& costs,
                                 const core::DeviceSpec& device, const core::StrategyOptions& options) {
  return core::make_schedule(strategy, graph, costs, device, options);
}

std::vector<Event> compute_events(const Graph& graph, const Schedule& schedule) {
  return core::compute_events(graph, schedule);
}

core::Status validate_schedule(const Graph& graph, const Schedule& schedule) {
  return core::validate_schedule(graph, schedule);
}

double ideal_makespan_us(const Graph& graph, const Schedule& schedule, std::span<const double> node_time_us) {
  return core::ideal_makespan_us(graph, schedule, node_time_us);
}

Expected<Schedule> move_node(const Graph& graph, const Schedule& schedule, NodeId n, int stream, int position) {
  return core::move_node(graph, schedule, n, stream, position);
}

Expected<Schedule> move_nodes(const Graph& graph, const Schedule& schedule, std::span<const NodeId> nodes, int stream,
                              int position) {
  return core::move_nodes(graph, schedule, nodes, stream, position);
}

Expected<Schedule> add_stream(const Graph& graph, const Schedule& schedule) { return core::add_stream(graph, schedule); }

Expected<Schedule> remove_stream(const Graph& graph, const Schedule& schedule, int stream) {
  return core::remove_stream(graph, schedule, stream);
}

Expected<Schedule> merge_streams(const Graph& graph, const Schedule& schedule, int a, int b) {
  return core::merge_streams(graph, schedule, a, b);
}

std::string schedule_to_json(const Graph& graph, const Schedule& schedule, std::string_view device) {
  return core::schedule_to_json(graph, schedule, device);
}

Expected<Schedule> schedule_from_json(const Graph& graph, std::string_view json_text) {
  return core::schedule_from_json(graph, json_text);
}

}  // namespace weft::ui::bridge
