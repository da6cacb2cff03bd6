// Placeholder until the cost model lands (issue 2).
#include "weft/core/cost_model.h"

namespace weft::core {

double CostTable::total_us() const {
  double t = 0;
  for (const NodeCost& c : nodes) t += c.time_us;
  return t;
}

Expected<DeviceSpec> load_device(std::string_view name) {
  DeviceSpec d;
  d.name = std::string(name);
  return d;
}
Expected<DeviceSpec> parse_device(std::string_view, std::string_view origin) {
  return make_error(ErrorKind::Internal, std::string(origin) + ": not built yet");
}
std::vector<std::string> device_names() { return {}; }
std::string_view default_device_name() { return "h100-sxm"; }
std::string assets_dir() { return WEFT_SOURCE_ASSETS_DIR; }
CostTable estimate_costs(const Graph& graph, const DeviceSpec& device) {
  CostTable t;
  t.device = device.name;
  t.nodes.assign(graph.node_count(), NodeCost{0, 0, 1.0, 0, Bound::Unknown, false, false});
  return t;
}
std::vector<double> node_times(const CostTable& costs) {
  std::vector<double> v;
  for (const NodeCost& c : costs.nodes) v.push_back(c.time_us);
  return v;
}

}  // namespace weft::core
