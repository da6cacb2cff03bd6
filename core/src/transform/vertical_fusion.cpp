// Vertical fusion: chains of a Conv and the elementwise operators on its result alone, found,
// checked and contracted to one weft.Fused node each.
#include "weft/core/transform/vertical_fusion.h"

#include <algorithm>
#include <memory>
#include <string>

#include "contract_graph.h"

namespace weft::core {
namespace {

bool default_domain(const Node& node) { return node.domain.empty() || node.domain == "ai.onnx"; }

bool static_f32(const Graph& graph, TensorId t) {
  return t != kNoTensor && graph.tensor(t).dtype == DType::Float32 && graph.tensor(t).shape_known();
}

/// A weight no node writes: a bound the kernel can read once, when it is prepared.
bool constant(const Graph& graph, TensorId t) {
  return t != kNoTensor && graph.tensor(t).kind == TensorKind::Weight && graph.tensor(t).producer == kNoNode;
}

Error refused(const Graph& graph, NodeId v, const std::string& why) {
  return make_error(ErrorKind::InvalidInput, "fusion at '" + graph.key(v) + "': " + why);
}

/// Whether `v` can follow a chain whose result so far is `prev` (`added`: the chain already adds a
/// residual). Empty: yes; else why not.
std::string follower_refusal(const Graph& graph, NodeId v, TensorId prev, bool added) {
  const Node& node = graph.node(v);
  if (!default_domain(node)) return "'" + node.op_type + "' is not an ONNX operator";
  if (node.outputs.size() != 1 || !static_f32(graph, node.outputs[0]) || graph.tensor(node.outputs[0]).shape() != graph.tensor(prev).shape())
    return "its output is not a float32 tensor of its input's shape";
  const std::string& op = node.op_type;
  if (op == "Relu" || op == "LeakyRelu") return node.inputs.size() == 1 && node.inputs[0] == prev ? "" : "it does not read the chain's result";
  if (op == "Clip") {
    if (node.inputs.empty() || node.inputs[0] != prev) return "it does not read the chain's result";
    for (std::size_t i = 1; i < node.inputs.size(); ++i)
      if (node.inputs[i] != kNoTensor && (!constant(graph, node.inputs[i]) || graph.tensor(node.inputs[i]).elements() != 1 ||
                                          graph.tensor(node.inputs[i]).dtype != DType::Float32))
        return "its bounds are not constant float32 scalars";
    return "";
  }
  if (op == "Add") {
    if (added) return "the chain adds a residual already";
    if (node.inputs.size() != 2 || (node.inputs[0] == prev) == (node.inputs[1] == prev)) return "it does not add the chain's result to another tensor";
    const TensorId other = node.inputs[0] == prev ? node.inputs[1] : node.inputs[0];
    if (!static_f32(graph, other) || graph.tensor(other).shape() != graph.tensor(prev).shape())
      return "the tensor it adds is not float32 of the chain's shape";
    return "";
  }
  return "'" + op + "' has no post-op form";
}

/// Why `v` cannot lead a chain (empty: it can).
std::string producer_refusal(const Graph& graph, NodeId v) {
  const Node& node = graph.node(v);
  if (!default_domain(node) || node.op_type != "Conv") return "only a Conv leads a fused chain";
  if (node.outputs.size() != 1 || !static_f32(graph, node.outputs[0])) return "its output is not a float32 tensor of static shape";
  for (TensorId t : node.inputs)
    if (t != kNoTensor && !static_f32(graph, t)) return "an input is not a float32 tensor of static shape";
  return "";
}

/// Whether the result `t` may stay inside a chain: read by exactly one node and no graph output.
bool private_result(const Graph& graph, TensorId t) {
  if (graph.consumers(t).size() != 1) return false;
  const auto& outs = graph.outputs();
  return std::find(outs.begin(), outs.end(), t) == outs.end() && graph.tensor(t).views.empty() && !graph.tensor(t).is_view();
}

/// The fused node of `chain` in `b`, with its cost.
Expected<NodeCost> add_fused_node(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                                  const std::vector<NodeId>& chain, GraphBuilder& b) {
  const std::vector<TensorId> outputs = graph.node(chain.back()).outputs;
  std::vector<TensorId> inputs;
  WEFT_TRY_ASSIGN(Graph body, detail::body_graph(graph, chain, outputs, inputs));
  NodeCost c;
  c.known = true;
  std::string label;
  for (NodeId m : chain) {
    c.flops += costs[m].flops;
    c.known = c.known && costs[m].known;
    label += (label.empty() ? "" : "+") + graph.node(m).op_type;
  }
  // The intermediates are never written: the launch reads the chain's inputs and writes its output.
  for (TensorId t : inputs) c.bytes += static_cast<double>(std::max<std::int64_t>(0, graph.tensor(t).bytes()));
  for (TensorId t : outputs) c.bytes += static_cast<double>(std::max<std::int64_t>(0, graph.tensor(t).bytes()));
  // Its time: the producer's (predicted at its family's efficiency, or measured), plus reading the
  // residual; the activations act on values in registers. So a calibrated or measured convolution
  // keeps its time, and the chain is priced at what it adds to it.
  const NodeCost& producer = costs[chain.front()];
  double residual_bytes = 0;
  for (NodeId m : chain)
    if (graph.node(m).op_type == "Add")
      for (TensorId t : graph.node(m).inputs)
        if (t != graph.node(chain.front()).outputs[0] && std::find(chain.begin(), chain.end(), graph.tensor(t).producer) == chain.end())
          residual_bytes += static_cast<double>(std::max<std::int64_t>(0, graph.tensor(t).bytes()));
  c.time_us = producer.time_us + (device.memory_bandwidth > 0 ? residual_bytes / device.memory_bandwidth * 1e6 : 0);
  c.intensity = c.bytes > 0 ? c.flops / c.bytes : 0;
  c.bound = producer.bound;
  Attribute body_attr;
  body_attr.name = "body";
  body_attr.type = Attribute::Type::Graph;
  body_attr.i = 1;
  body_attr.graph = std::make_shared<const Graph>(std::move(body));
  Attribute op_attr;
  op_attr.name = "op";
  op_attr.type = Attribute::Type::String;
  op_attr.s = label;
  Attribute count_attr;
  count_attr.name = "members";
  count_attr.type = Attribute::Type::Int;
  count_attr.i = static_cast<std::int64_t>(chain.size());
  b.add_node("fused:" + graph.key(chain.front()), kFusedOp, detail::tensor_names(graph, inputs), detail::tensor_names(graph, outputs),
             {std::move(body_attr), std::move(op_attr), std::move(count_attr)}, kMergedDomain);
  return c;
}

}  // namespace

Status check_fusion_chain(const Graph& graph, std::span<const NodeId> chain) {
  for (NodeId v : chain)
    if (v < 0 || static_cast<std::size_t>(v) >= graph.node_count())
      return make_error(ErrorKind::InvalidInput, "fusion: node " + std::to_string(v) + " is not in the graph");
  if (chain.size() < 2) return make_error(ErrorKind::InvalidInput, "fusion: a chain needs two or more nodes");
  if (auto why = producer_refusal(graph, chain.front()); !why.empty()) return refused(graph, chain.front(), why);
  bool added = false;
  for (std::size_t i = 1; i < chain.size(); ++i) {
    const TensorId prev = graph.node(chain[i - 1]).outputs[0];
    if (!private_result(graph, prev) || graph.consumers(prev)[0] != chain[i])
      return refused(graph, chain[i], "the output of '" + graph.key(chain[i - 1]) +
                                          "' is read by another node or is a graph output: it cannot stay inside the chain");
    if (auto why = follower_refusal(graph, chain[i], prev, added); !why.empty()) return refused(graph, chain[i], why);
    added = added || graph.node(chain[i]).op_type == "Add";
  }
  return {};
}

std::vector<std::vector<NodeId>> find_fusion_chains(const Graph& graph) {
  // An Add of two convolutions' results (a residual block with a projection) could end either
  // chain: the later producer takes it, so that the other result is ready when the chain runs.
  std::vector<std::vector<NodeId>> chains;
  std::vector<char> taken(graph.node_count(), 0);
  for (std::size_t i = graph.node_count(); i-- > 0;) {
    const NodeId v = static_cast<NodeId>(i);
    if (!producer_refusal(graph, v).empty()) continue;
    std::vector<NodeId> chain{v};
    bool added = false;
    for (;;) {
      const TensorId prev = graph.node(chain.back()).outputs[0];
      if (!private_result(graph, prev)) break;
      const NodeId next = graph.consumers(prev)[0];
      if (taken[static_cast<std::size_t>(next)] || !follower_refusal(graph, next, prev, added).empty()) break;
      added = added || graph.node(next).op_type == "Add";
      chain.push_back(next);
    }
    if (chain.size() < 2) continue;
    for (NodeId m : chain) taken[static_cast<std::size_t>(m)] = 1;
    chains.push_back(std::move(chain));
  }
  std::reverse(chains.begin(), chains.end());
  return chains;
}

Expected<MergedModel> fuse_graph(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                                 const std::vector<std::vector<NodeId>>& chains) {
  if (costs.nodes.size() != graph.node_count()) return make_error(ErrorKind::InvalidInput, "fuse_graph: the cost table is for another graph");
  std::vector<int> group_of(graph.node_count(), -1);
  std::vector<char> hidden(graph.tensor_count(), 0);
  std::vector<NodeId> at;
  for (std::size_t c = 0; c < chains.size(); ++c) {
    WEFT_TRY(check_fusion_chain(graph, chains[c]));
    for (NodeId v : chains[c]) {
      if (group_of[static_cast<std::size_t>(v)] >= 0)
        return make_error(ErrorKind::InvalidInput, "fusion: node '" + graph.key(v) + "' is in two chains");
      group_of[static_cast<std::size_t>(v)] = static_cast<int>(c);
    }
    for (std::size_t i = 0; i + 1 < chains[c].size(); ++i) hidden[static_cast<std::size_t>(graph.node(chains[c][i]).outputs[0])] = 1;
    // The last member comes after every tensor the chain reads in a topological order (the residual's producer too).
    at.push_back(*std::max_element(chains[c].begin(), chains[c].end()));
  }
  return detail::contract_graph(
      graph, costs, group_of, chains, at, hidden,
      [&](std::size_t c, GraphBuilder& b) { return add_fused_node(graph, costs, device, chains[c], b); }, "fuse_graph");
}

FusionSummary summarize_fusion(const Graph& graph) {
  FusionSummary s;
  for (const Node& node : graph.nodes()) {
    if (!is_fused_node(node)) continue;
    ++s.chains;
    s.operators += static_cast<std::size_t>(node.attr_int("members", 0));
    const std::string label = node_label(node);
    auto it = std::find_if(s.labels.begin(), s.labels.end(), [&](const auto& l) { return l.first == label; });
    if (it == s.labels.end()) s.labels.emplace_back(label, 1);
    else ++it->second;
  }
  std::stable_sort(s.labels.begin(), s.labels.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return s;
}

std::string FusionSummary::text() const {
  if (chains == 0) return "no chain fused";
  std::string out = std::to_string(chains) + " chain" + (chains == 1 ? "" : "s") + " of " + std::to_string(operators) + " operators (";
  for (std::size_t i = 0; i < labels.size(); ++i) out += (i ? ", " : "") + labels[i].first + " " + std::to_string(labels[i].second);
  return out + ")";
}

MergedModel compose_transforms(const MergedModel& fused, MergedModel merged) {
  for (auto& members : merged.members) {
    std::vector<NodeId> original;
    for (NodeId m : members) {
      const auto& from = fused.members[static_cast<std::size_t>(m)];
      original.insert(original.end(), from.begin(), from.end());
    }
    members = std::move(original);
  }
  return merged;
}

}  // namespace weft::core
