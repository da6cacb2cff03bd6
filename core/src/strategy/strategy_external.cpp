// External strategies: the input JSON, running the program, importing its schedule.
#include "weft/core/strategy/strategy_external.h"

#include <nlohmann/json.hpp>

#include "weft/core/schedule/schedule_json.h"
#include "weft/core/base/subprocess.h"

namespace weft::core {
namespace {

std::string tail(const std::string& text, std::size_t max_chars) {
  std::string t = text.size() > max_chars ? "..." + text.substr(text.size() - max_chars) : text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  return t;
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace

std::string strategy_input_json(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                                const StrategyOptions& options) {
  nlohmann::ordered_json j;
  j["format"] = "weft-strategy-input";
  j["version"] = 1;
  j["model"] = {{"path", graph.info().model_path}, {"sha256", graph.info().model_sha256}};
  j["device"] = {{"name", device.name},
                 {"display_name", device.display_name},
                 {"peak_fp32_flops", device.peak_fp32_flops},
                 {"peak_tf32_flops", device.peak_tf32_flops},
                 {"peak_fp16_flops", device.peak_fp16_flops},
                 {"memory_bandwidth", device.memory_bandwidth},
                 {"sm_count", device.sm_count},
                 {"launch_us", device.launch_us},
                 {"graph_launch_per_node_us", device.graph_launch_per_node_us},
                 {"event_record_us", device.event_record_us},
                 {"event_wait_us", device.event_wait_us},
                 {"kernel_min_us", device.kernel_min_us},
                 {"hardware_queues", device.hardware_queues}};
  j["options"] = {{"max_streams", options.max_streams},
                  {"granularity_us", resolved_granularity_us(options, device)},
                  {"cuda_graph", options.cuda_graph}};
  auto nodes = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < graph.node_count(); ++i) {
    const Node& n = graph.node(static_cast<NodeId>(i));
    const NodeCost& c = costs.nodes[i];
    auto ins = nlohmann::ordered_json::array(), outs = nlohmann::ordered_json::array();
    for (TensorId t : n.inputs) ins.push_back(t);
    for (TensorId t : n.outputs) outs.push_back(t);
    nodes.push_back({{"key", graph.key(static_cast<NodeId>(i))},
                     {"op", n.op_type},
                     {"time_us", c.time_us},
                     {"flops", c.flops},
                     {"bytes", c.bytes},
                     {"bound", bound_name(c.bound)},
                     {"known", c.known},
                     {"inputs", std::move(ins)},
                     {"outputs", std::move(outs)}});
  }
  j["nodes"] = std::move(nodes);
  auto tensors = nlohmann::ordered_json::array();
  for (const Tensor& t : graph.tensors()) {
    auto shape = nlohmann::ordered_json::array();
    for (const Dim& d : t.dims) shape.push_back(d.known() ? nlohmann::ordered_json(d.value) : nlohmann::ordered_json(nullptr));
    tensors.push_back({{"name", t.name},
                       {"dtype", std::string(dtype_name(t.dtype))},
                       {"shape", std::move(shape)},
                       {"bytes", t.bytes()},
                       {"kind", std::string(tensor_kind_name(t.kind))},
                       {"producer", t.producer}});
  }
  j["tensors"] = std::move(tensors);
  auto edges = nlohmann::ordered_json::array();
  for (std::size_t u = 0; u < graph.node_count(); ++u)
    for (NodeId v : graph.successors(static_cast<NodeId>(u))) edges.push_back({u, v});
  j["edges"] = std::move(edges);
  j["topo_order"] = std::vector<NodeId>(graph.topo_order().begin(), graph.topo_order().end());
  return j.dump() + "\n";
}

Expected<Schedule> run_external_strategy(const ExternalStrategy& program, const Graph& graph, const CostTable& costs,
                                         const DeviceSpec& device, const StrategyOptions& options) {
  if (program.argv.empty() || program.argv.front().empty())
    return make_error(ErrorKind::InvalidInput, "no external strategy program given");
  const std::string who = "external strategy '" + command_line(program.argv) + "'";
  auto ran = run_process(program.argv, strategy_input_json(graph, costs, device, options), program.timeout_s);
  if (!ran) return make_error(ErrorKind::Runtime, who + ": " + ran.error().message);
  const ProcessResult& r = *ran;
  const std::string err = r.err.empty() ? "" : "; its stderr: " + tail(r.err, 2000);
  if (r.timed_out)
    return make_error(ErrorKind::Runtime, who + " timed out after " + std::to_string(program.timeout_s) + " s" + err);
  if (r.signal != 0)
    return make_error(ErrorKind::Runtime, who + " was killed by signal " + std::to_string(r.signal) + err);
  if (r.exit_code != 0)
    return make_error(ErrorKind::Runtime, who + " exited with status " + std::to_string(r.exit_code) + err);
  auto s = schedule_from_json(graph, r.out, ScheduleImport{.compute_missing_events = true});
  if (!s) return make_error(s.error().kind, who + " returned an invalid schedule: " + s.error().message + err);
  s->strategy = s->strategy.empty() || s->strategy == "external" ? "external" : "external " + s->strategy;
  s->options = "program=" + command_line(program.argv);
  return s;
}

}  // namespace weft::core
