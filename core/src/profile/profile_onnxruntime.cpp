// ONNX Runtime's profiler JSON (SessionOptions enable_profiling): an array of Chrome-trace events.
// Per node one "<name>_kernel_time" event (cat "Node") per run, inside that run's "model_run"
// event (cat "Session"); session loading and initialisation events are ignored. At optimisation
// level "basic" the names are the model's node names; at "extended" and "all" ONNX Runtime fuses
// (Conv+Relu into one Conv with an activation), converts layouts (NCHWc) and names the nodes it
// makes after their original output tensor plus a suffix ("/conv1/Relu_output_0_nchwc"), so the
// mapping goes name -> output tensor -> producer, and from a producer whose operator differs from
// the event's op_name back along the fused chain to the node that does (Conv <- Relu).
#include <algorithm>
#include <map>
#include <set>

#include "profile_detail.h"
#include "weft/core/cost_model.h"

namespace weft::core::detail {

namespace {

constexpr std::string_view kKernelSuffix = "_kernel_time";

struct Mapping {
  std::vector<NodeId> nodes;
  ProfileMatch match = ProfileMatch::None;
};

/// The first recorded output shape (args.output_type_shape: [{"float": [1, 64, 56, 56]}]).
std::optional<std::vector<std::int64_t>> recorded_output_shape(const nlohmann::json& args) {
  const auto it = args.find("output_type_shape");
  if (it == args.end() || !it->is_array() || it->empty() || !(*it)[0].is_object() || (*it)[0].empty()) return std::nullopt;
  const nlohmann::json& dims = (*it)[0].begin().value();
  if (!dims.is_array()) return std::nullopt;
  std::vector<std::int64_t> shape;
  for (const auto& d : dims) {
    if (!d.is_number_integer()) return std::nullopt;
    shape.push_back(d.get<std::int64_t>());
  }
  return shape;
}

/// The recorded shape agrees with the node's first output where both are known. ONNX Runtime's
/// NCHWc layout pads the channels (dim 1 of a 4-D tensor) up to its block of 8 or 16, and
/// records the padded shape.
bool shape_agrees(const Graph& graph, NodeId n, const nlohmann::json& args) {
  const auto recorded = recorded_output_shape(args);
  const Node& node = graph.node(n);
  if (!recorded || node.outputs.empty() || node.outputs.front() == kNoTensor) return true;
  const Tensor& t = graph.tensor(node.outputs.front());
  if (!t.shape_known()) return true;
  const std::vector<std::int64_t> ours = t.shape();
  if (ours.size() != recorded->size()) return false;
  for (std::size_t d = 0; d < ours.size(); ++d) {
    const std::int64_t r = (*recorded)[d];
    if (r == ours[d]) continue;
    if (d == 1 && ours.size() == 4 && r > ours[d] && r < ours[d] + 16) continue;
    return false;
  }
  return true;
}

/// From `last` back to the node whose operator is `op`: each step to the one predecessor that
/// produces a tensor only this chain reads. Empty when no such chain (of at most 4 nodes) exists.
std::vector<NodeId> fused_chain(const Graph& graph, NodeId last, const std::string& op) {
  std::vector<NodeId> chain{last};
  NodeId cur = last;
  for (int step = 0; step < 4 && graph.node(cur).op_type != op; ++step) {
    NodeId next = kNoNode;
    for (TensorId t : graph.reads(cur)) {
      const NodeId p = graph.tensor(t).producer;
      if (p == kNoNode || graph.consumers(t).size() != 1) continue;
      if (next != kNoNode) return {};  // two fused inputs: not a chain
      next = p;
    }
    if (next == kNoNode) return {};
    chain.push_back(next);
    cur = next;
  }
  if (graph.node(cur).op_type != op) return {};
  std::reverse(chain.begin(), chain.end());  // execution order: the head first
  return chain;
}

/// The tensor an event is named after: the name itself, or with up to three "_suffix" parts
/// (layout conversions such as "_nchwc") removed.
std::optional<TensorId> named_tensor(const Graph& graph, std::string name) {
  for (int strip = 0; strip <= 3; ++strip) {
    if (auto t = graph.find_tensor(name)) return t;
    const std::size_t cut = name.rfind('_');
    if (cut == std::string::npos || cut == 0) break;
    name.resize(cut);
  }
  return std::nullopt;
}

Mapping map_event(const Graph& graph, const std::string& name, const std::string& op, const nlohmann::json& args) {
  if (auto n = graph.find_node(name)) {
    if (shape_agrees(graph, *n, args)) return {{*n}, ProfileMatch::Exact};
  }
  const auto t = named_tensor(graph, name);
  if (!t) return {};
  const NodeId producer = graph.tensor(*t).producer;
  if (producer == kNoNode) return {};
  if (op.empty() || graph.node(producer).op_type == op)
    return shape_agrees(graph, producer, args) ? Mapping{{producer}, ProfileMatch::OutputTensor} : Mapping{};
  std::vector<NodeId> chain = fused_chain(graph, producer, op);
  if (chain.empty() || !shape_agrees(graph, producer, args)) return {};
  return {std::move(chain), ProfileMatch::FusedChain};
}

/// Elementwise nodes no event names, downstream of a mapped kernel, were fused into it (ONNX
/// Runtime folds an activation, e.g. HardSigmoid+Mul, or a residual Add into the convolution
/// before and keeps that one's name): each joins the chain whose last member feeds it (the
/// latest such, in topological order; a residual Add's other input comes from earlier), visiting
/// nodes in topological order so that a node joins at most one chain.
void extend_fused_forward(const Graph& graph, std::map<std::string, Mapping>& mapped) {
  std::vector<int> owner(graph.node_count(), -1);  // index into `chains`
  std::vector<int> rank(graph.node_count(), 0);
  int r = 0;
  for (NodeId v : graph.topo_order()) rank[idx(v)] = r++;
  std::vector<Mapping*> chains;
  for (auto& [name, m] : mapped) {
    if (m.nodes.empty()) continue;
    for (NodeId n : m.nodes) owner[idx(n)] = static_cast<int>(chains.size());
    chains.push_back(&m);
  }
  for (NodeId v : graph.topo_order()) {
    if (owner[idx(v)] >= 0 || op_family(graph.node(v).op_type) != "elementwise") continue;
    NodeId feeder = kNoNode;
    for (TensorId t : graph.reads(v)) {
      const NodeId p = graph.tensor(t).producer;
      if (p == kNoNode || owner[idx(p)] < 0 || chains[static_cast<std::size_t>(owner[idx(p)])]->nodes.back() != p) continue;
      if (feeder == kNoNode || rank[idx(p)] > rank[idx(feeder)]) feeder = p;
    }
    if (feeder == kNoNode) continue;
    const int chain = owner[idx(feeder)];
    chains[static_cast<std::size_t>(chain)]->nodes.push_back(v);
    chains[static_cast<std::size_t>(chain)]->match = ProfileMatch::FusedChain;
    owner[idx(v)] = chain;
  }
}

std::string provider_name(const std::string& provider) {
  const std::string suffix = "ExecutionProvider";
  if (provider.size() > suffix.size() && provider.ends_with(suffix)) return provider.substr(0, provider.size() - suffix.size());
  return provider.empty() ? std::string("unknown") : provider;
}

}  // namespace

Expected<ProfileRecords> onnxruntime_records(const Graph& graph, std::string_view text, const std::string& path) {
  WEFT_TRY_ASSIGN(const nlohmann::json events, parse_profile_json(text, path));
  if (!events.is_array()) return make_error(ErrorKind::InvalidInput, path + ": not an ONNX Runtime profile (expected an array of events)");
  // Each model_run is one iteration; without any, the whole profile is one.
  std::vector<std::pair<double, double>> runs;
  for (const auto& e : events) {
    if (json_string(e, "cat") != "Session" || json_string(e, "name") != "model_run") continue;
    const auto ts = json_number(e, "ts");
    const auto dur = json_number(e, "dur");
    if (ts && dur && *dur >= 0) runs.push_back({*ts, *dur});
  }
  std::sort(runs.begin(), runs.end());
  ProfileRecords out;
  std::map<std::string, Mapping> mapped;  // by event name: every run's event maps alike
  std::set<std::string> providers;
  double first_ts = -1, last_end = 0;
  for (const auto& e : events) {
    const std::string name = json_string(e, "name");
    if (json_string(e, "cat") != "Node" || !name.ends_with(kKernelSuffix)) continue;
    const auto ts = json_number(e, "ts");
    const auto dur = json_number(e, "dur");
    if (!ts || !dur || *dur < 0) return make_error(ErrorKind::InvalidInput, path + ": node event '" + name + "' without ts and dur");
    const nlohmann::json& args = e.contains("args") ? e["args"] : nlohmann::json::object();
    ProfileRecord r;
    r.name = name.substr(0, name.size() - kKernelSuffix.size());
    r.op = json_string(args, "op_name");
    r.stream = static_cast<int>(json_number(e, "tid").value_or(0));
    r.dur_us = *dur;
    if (!runs.empty()) {
      // The run whose interval holds the event (the last one starting at or before it).
      auto it = std::upper_bound(runs.begin(), runs.end(), std::make_pair(*ts, 1e300));
      if (it == runs.begin()) continue;  // before the first run: not part of any iteration
      --it;
      r.run = static_cast<int>(it - runs.begin());
      r.start_us = *ts - it->first;
    } else {
      r.start_us = *ts;
      first_ts = first_ts < 0 ? *ts : std::min(first_ts, *ts);
      last_end = std::max(last_end, *ts + *dur);
    }
    if (!mapped.count(r.name)) mapped.emplace(r.name, map_event(graph, r.name, r.op, args));
    providers.insert(provider_name(json_string(args, "provider")));
    out.records.push_back(std::move(r));
  }
  extend_fused_forward(graph, mapped);
  for (ProfileRecord& r : out.records) {
    const Mapping& m = mapped[r.name];
    r.nodes = m.nodes;
    r.match = m.match;
  }
  if (runs.empty()) {
    if (!out.records.empty()) out.iteration_us.push_back(last_end - first_ts);
    for (ProfileRecord& r : out.records) r.start_us -= first_ts;
  } else {
    for (const auto& [ts, dur] : runs) out.iteration_us.push_back(dur);
  }
  std::string eps;
  for (const std::string& p : providers) eps += (eps.empty() ? "" : "+") + p;
  const bool cpu_only = providers.size() == 1 && *providers.begin() == "CPU";
  out.device_kind = cpu_only || providers.empty() ? DeviceKind::Cpu : DeviceKind::Gpu;
  out.source = "ONNX Runtime " + eps + " EP, median of " + std::to_string(out.iteration_us.size()) + " run" +
               (out.iteration_us.size() == 1 ? "" : "s");
  std::size_t fused = 0, by_tensor = 0;
  for (const auto& [name, m] : mapped) {
    if (m.match == ProfileMatch::FusedChain) ++fused;
    if (m.match == ProfileMatch::OutputTensor) ++by_tensor;
  }
  if (by_tensor + fused > 0)
    out.notes.push_back(std::to_string(by_tensor + fused) + " of " + std::to_string(mapped.size()) +
                        " ONNX Runtime nodes named after an output tensor (an optimised graph); " + std::to_string(fused) +
                        " of them fused chains, their time spread over the members by predicted cost share");
  return out;
}

}  // namespace weft::core::detail
