// PyTorch profiler Chrome traces (torch.profiler ... export_chrome_trace): "X" events of CPU
// operators (aten::conv2d, with their own children nested inside), record_function annotations
// (a step "ProfilerStep#N", module paths such as "inception3a.branch1.conv" where the profiling
// code annotates modules), and on a GPU the CUDA runtime calls and kernels, joined through their
// "correlation" ids. Both Kineto's format ({"traceEvents": [...]} with "cat") and the legacy
// profiler's (a bare array, pid "CPU functions") are read.
//
// Mapping to ONNX nodes: the exporter names a node after its module scope
// ("/inception3a/branch2/branch2.0/conv/Conv" for module "inception3a.branch2.0.conv"); each
// top-level operator, in time order, takes the earliest unclaimed node (topological order) of a
// matching operator type in its annotated scope, or anywhere where the trace has no scopes (the
// operator sequence alone). Operators with no node (a batch_norm the export folded into its
// convolution) match none and are absorbed by the common step (profile.cpp).
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "profile_detail.h"

namespace weft::core::detail {

namespace {

struct TraceEvent {
  std::string name;
  std::string cat;
  int thread = 0;  ///< (pid, tid) renumbered
  double ts = 0, dur = 0;
  std::optional<std::int64_t> correlation;
};

enum class EventKind : std::uint8_t { Step, Operator, Annotation, Kernel, Runtime, Other };

EventKind kind_of(const TraceEvent& e) {
  if (e.name.starts_with("ProfilerStep#")) return EventKind::Step;
  if (e.cat == "kernel" || e.cat == "gpu_memcpy" || e.cat == "gpu_memset" || e.cat == "Kernel") return EventKind::Kernel;
  if (e.cat == "cuda_runtime" || e.cat == "cuda_driver" || e.cat == "Runtime") return EventKind::Runtime;
  if (e.cat == "cpu_op" || e.cat == "Operator" || (e.cat.empty() && e.name.find("::") != std::string::npos)) return EventKind::Operator;
  if (e.cat == "user_annotation" || e.cat == "gpu_user_annotation" || e.cat.empty()) return EventKind::Annotation;
  return EventKind::Other;
}

/// ONNX operator types an aten operator (namespace and in-place '_' dropped) exports to.
const std::vector<std::string>& onnx_ops_of(const std::string& base) {
  static const std::unordered_map<std::string, std::vector<std::string>> table = {
      {"conv1d", {"Conv"}}, {"conv2d", {"Conv"}}, {"conv3d", {"Conv"}}, {"convolution", {"Conv", "ConvTranspose"}},
      {"_convolution", {"Conv", "ConvTranspose"}}, {"conv_transpose1d", {"ConvTranspose"}},
      {"conv_transpose2d", {"ConvTranspose"}}, {"conv_transpose3d", {"ConvTranspose"}}, {"relu", {"Relu"}},
      {"relu6", {"Clip", "Relu"}}, {"hardtanh", {"Clip"}}, {"sigmoid", {"Sigmoid"}}, {"tanh", {"Tanh"}},
      {"hardswish", {"HardSwish"}}, {"hardsigmoid", {"HardSigmoid"}}, {"leaky_relu", {"LeakyRelu"}},
      {"max_pool1d", {"MaxPool"}}, {"max_pool2d", {"MaxPool"}}, {"max_pool3d", {"MaxPool"}},
      {"max_pool2d_with_indices", {"MaxPool"}}, {"avg_pool1d", {"AveragePool"}}, {"avg_pool2d", {"AveragePool"}},
      {"avg_pool3d", {"AveragePool"}}, {"adaptive_avg_pool1d", {"GlobalAveragePool", "AveragePool", "ReduceMean"}},
      {"adaptive_avg_pool2d", {"GlobalAveragePool", "AveragePool", "ReduceMean"}},
      {"adaptive_max_pool2d", {"GlobalMaxPool", "MaxPool"}}, {"batch_norm", {"BatchNormalization"}},
      {"layer_norm", {"LayerNormalization"}}, {"group_norm", {"GroupNormalization", "InstanceNormalization"}},
      {"instance_norm", {"InstanceNormalization"}}, {"linear", {"Gemm", "MatMul"}}, {"addmm", {"Gemm"}},
      {"mm", {"MatMul", "Gemm"}}, {"matmul", {"MatMul", "Gemm"}}, {"bmm", {"MatMul"}}, {"cat", {"Concat"}},
      {"concat", {"Concat"}}, {"flatten", {"Flatten", "Reshape"}}, {"view", {"Reshape", "Flatten"}},
      {"reshape", {"Reshape", "Flatten"}}, {"permute", {"Transpose"}}, {"transpose", {"Transpose"}},
      {"softmax", {"Softmax"}}, {"_softmax", {"Softmax"}}, {"log_softmax", {"LogSoftmax"}}, {"add", {"Add", "Sum"}},
      {"sub", {"Sub"}}, {"mul", {"Mul"}}, {"div", {"Div"}}, {"mean", {"ReduceMean", "GlobalAveragePool"}},
      {"sum", {"ReduceSum"}}, {"dropout", {"Dropout"}}, {"feature_dropout", {"Dropout"}},
      {"constant_pad_nd", {"Pad"}}, {"pad", {"Pad"}}, {"upsample_nearest2d", {"Resize"}},
      {"upsample_bilinear2d", {"Resize"}}, {"slice", {"Slice"}}, {"split", {"Split"}}, {"chunk", {"Split"}},
      {"channel_shuffle", {"Transpose"}}, {"gelu", {"Gelu"}}, {"erf", {"Erf"}}, {"exp", {"Exp"}}, {"sqrt", {"Sqrt"}},
  };
  static const std::vector<std::string> none;
  const auto it = table.find(base);
  return it == table.end() ? none : it->second;
}

std::string lower_alnum(std::string_view s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

/// "aten::relu_" -> "relu".
std::string aten_base(const std::string& name) {
  std::string base = name.substr(name.rfind("::") == std::string::npos ? 0 : name.rfind("::") + 2);
  if (base.size() > 1 && base.back() == '_' && base != "_convolution") base.pop_back();
  return base;
}

bool op_compatible(const std::string& aten, const std::string& onnx_op) {
  const std::string base = aten_base(aten);
  const auto& ops = onnx_ops_of(base);
  if (!ops.empty()) return std::find(ops.begin(), ops.end(), onnx_op) != ops.end();
  return lower_alnum(base) == lower_alnum(onnx_op);
}

/// A module scope as tokens: "inception3a.branch2.0.conv" -> inception3a/branch2/0/conv; an ONNX
/// node name "/inception3a/branch2/branch2.0/conv/Conv" -> the same (each folder's last dotted part).
std::string scope_of_annotation(const std::string& path) {
  std::string out = path;
  std::replace(out.begin(), out.end(), '.', '/');
  return out;
}
std::string scope_of_node(const std::string& name) {
  if (!name.starts_with('/')) return {};
  std::string out;
  std::size_t start = 1;
  for (std::size_t slash = name.find('/', start); slash != std::string::npos; slash = name.find('/', start)) {
    const std::string_view dir(name.data() + start, slash - start);
    const std::size_t dot = dir.rfind('.');
    out += (out.empty() ? "" : "/") + std::string(dot == std::string_view::npos ? dir : dir.substr(dot + 1));
    start = slash + 1;
  }
  return out;
}

/// Nodes by scope and the topological rank of each, for the greedy match.
struct NodeIndex {
  std::vector<int> rank;
  std::map<std::string, std::vector<NodeId>> by_scope;  ///< each in topological order
  std::vector<NodeId> topo;
  bool any_scope = false;
};

NodeIndex index_nodes(const Graph& graph) {
  NodeIndex ix;
  ix.rank.assign(graph.node_count(), 0);
  int r = 0;
  for (NodeId v : graph.topo_order()) {
    ix.rank[idx(v)] = r++;
    ix.topo.push_back(v);
    const std::string scope = scope_of_node(graph.key(v));
    if (!scope.empty()) ix.any_scope = true;
    ix.by_scope[scope].push_back(v);
  }
  return ix;
}

/// The earliest unclaimed node of a compatible type: in `scope` exactly, then under it, then
/// (unscoped traces only) anywhere.
NodeId claim(const Graph& graph, const NodeIndex& ix, std::vector<bool>& claimed, const std::string& aten, const std::string& scope) {
  const auto pick = [&](const std::vector<NodeId>& nodes) {
    for (NodeId v : nodes)
      if (!claimed[idx(v)] && op_compatible(aten, graph.node(v).op_type)) return v;
    return kNoNode;
  };
  if (!scope.empty()) {
    if (auto it = ix.by_scope.find(scope); it != ix.by_scope.end())
      if (NodeId v = pick(it->second); v != kNoNode) return claimed[idx(v)] = true, v;
    NodeId best = kNoNode;
    for (auto it = ix.by_scope.lower_bound(scope + "/"); it != ix.by_scope.end() && it->first.starts_with(scope + "/"); ++it)
      if (NodeId v = pick(it->second); v != kNoNode && (best == kNoNode || ix.rank[idx(v)] < ix.rank[idx(best)])) best = v;
    if (best != kNoNode) claimed[idx(best)] = true;
    return best;
  }
  NodeId v = pick(ix.topo);
  if (v != kNoNode) claimed[idx(v)] = true;
  return v;
}

Expected<std::vector<TraceEvent>> read_events(std::string_view text, const std::string& path) {
  WEFT_TRY_ASSIGN(const nlohmann::json doc, parse_profile_json(text, path));
  const nlohmann::json* list = &doc;
  if (doc.is_object()) {
    const auto it = doc.find("traceEvents");
    if (it == doc.end() || !it->is_array()) return make_error(ErrorKind::InvalidInput, path + ": a Chrome trace without \"traceEvents\"");
    list = &*it;
  }
  if (!list->is_array()) return make_error(ErrorKind::InvalidInput, path + ": not a Chrome trace");
  std::map<std::string, int> threads;
  std::vector<TraceEvent> out;
  for (const auto& e : *list) {
    if (json_string(e, "ph") != "X") continue;
    const auto ts = json_number(e, "ts");
    const auto dur = json_number(e, "dur");
    if (!ts || !dur || *dur < 0) continue;
    TraceEvent t;
    t.name = json_string(e, "name");
    t.cat = json_string(e, "cat");
    const std::string thread = (e.contains("pid") ? e["pid"].dump() : "") + "/" + (e.contains("tid") ? e["tid"].dump() : "");
    t.thread = threads.emplace(thread, static_cast<int>(threads.size())).first->second;
    t.ts = *ts;
    t.dur = *dur;
    if (e.contains("args")) {
      if (auto c = json_number(e["args"], "correlation")) t.correlation = static_cast<std::int64_t>(*c);
    }
    out.push_back(std::move(t));
  }
  return out;
}

/// For each CPU-side event: its innermost enclosing operator and annotation on its thread, and
/// its outermost enclosing operator (the top-level operator a runtime call belongs to).
struct Nesting {
  std::vector<int> outer_op;    ///< -1: none (the event is top level when it is an operator)
  std::vector<int> annotation;  ///< innermost annotation, -1: none
};

Nesting nest(const std::vector<TraceEvent>& ev, const std::vector<EventKind>& kind) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < ev.size(); ++i)
    if (kind[i] != EventKind::Kernel) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (ev[a].thread != ev[b].thread) return ev[a].thread < ev[b].thread;
    if (ev[a].ts != ev[b].ts) return ev[a].ts < ev[b].ts;
    return ev[a].dur > ev[b].dur;  // the enclosing event first
  });
  Nesting n{std::vector<int>(ev.size(), -1), std::vector<int>(ev.size(), -1)};
  std::vector<std::size_t> stack;
  int thread = -1;
  for (std::size_t i : order) {
    if (ev[i].thread != thread) stack.clear(), thread = ev[i].thread;
    // One thread's events form a call stack: sorted by start, an earlier event still running when
    // this one starts encloses it (a child ending a microsecond after its parent is rounding).
    while (!stack.empty() && ev[stack.back()].ts + ev[stack.back()].dur <= ev[i].ts) stack.pop_back();
    for (std::size_t s : stack) {
      if (kind[s] == EventKind::Operator && n.outer_op[i] < 0) n.outer_op[i] = static_cast<int>(s);
      if (kind[s] == EventKind::Annotation) n.annotation[i] = static_cast<int>(s);
    }
    stack.push_back(i);
  }
  return n;
}

}  // namespace

Expected<ProfileRecords> pytorch_records(const Graph& graph, std::string_view text, const std::string& path) {
  WEFT_TRY_ASSIGN(std::vector<TraceEvent> ev, read_events(text, path));
  std::vector<EventKind> kind(ev.size());
  for (std::size_t i = 0; i < ev.size(); ++i) kind[i] = kind_of(ev[i]);
  const Nesting nesting = nest(ev, kind);
  // Steps are the iterations; a trace without them is one.
  std::vector<std::pair<double, double>> steps;
  for (std::size_t i = 0; i < ev.size(); ++i)
    if (kind[i] == EventKind::Step) steps.push_back({ev[i].ts, ev[i].dur});
  std::sort(steps.begin(), steps.end());
  const auto step_of = [&](double ts) -> int {
    if (steps.empty()) return 0;
    auto it = std::upper_bound(steps.begin(), steps.end(), std::make_pair(ts, 1e300));
    if (it == steps.begin()) return -1;
    --it;
    return ts <= it->first + it->second + 1e-9 ? static_cast<int>(it - steps.begin()) : -1;
  };
  // Top-level operators per step, in time order: what the greedy sequence match walks.
  std::vector<std::size_t> ops;
  for (std::size_t i = 0; i < ev.size(); ++i)
    if (kind[i] == EventKind::Operator && nesting.outer_op[i] < 0 && step_of(ev[i].ts) >= 0) ops.push_back(i);
  std::sort(ops.begin(), ops.end(), [&](std::size_t a, std::size_t b) { return ev[a].ts < ev[b].ts; });
  const NodeIndex ix = index_nodes(graph);
  const int run_count = steps.empty() ? 1 : static_cast<int>(steps.size());
  std::vector<std::vector<bool>> claimed(static_cast<std::size_t>(run_count), std::vector<bool>(graph.node_count(), false));
  std::map<std::size_t, NodeId> node_of_op;
  bool scoped = false;
  for (std::size_t i : ops) {
    const int run = step_of(ev[i].ts);
    const int a = nesting.annotation[i];
    std::string scope = a >= 0 && kind[static_cast<std::size_t>(a)] == EventKind::Annotation ? scope_of_annotation(ev[static_cast<std::size_t>(a)].name) : "";
    if (!ix.any_scope) scope.clear();
    scoped = scoped || !scope.empty();
    node_of_op[i] = claim(graph, ix, claimed[static_cast<std::size_t>(run)], ev[i].name, scope);
  }
  // CUDA kernels, where the trace has any: each belongs to the top-level operator whose runtime
  // call launched it (same correlation id).
  std::unordered_map<std::int64_t, std::size_t> launcher;
  bool gpu = false;
  for (std::size_t i = 0; i < ev.size(); ++i) {
    if (kind[i] == EventKind::Kernel) gpu = true;
    if (kind[i] == EventKind::Runtime && ev[i].correlation && nesting.outer_op[i] >= 0)
      launcher[*ev[i].correlation] = static_cast<std::size_t>(nesting.outer_op[i]);
  }
  ProfileRecords out;
  const auto add = [&](std::size_t op, const TraceEvent& timed, int run, int stream) {
    ProfileRecord r;
    r.run = run;
    r.stream = stream;
    r.start_us = timed.ts - (steps.empty() ? 0 : steps[static_cast<std::size_t>(run)].first);
    r.dur_us = timed.dur;
    r.name = timed.name;
    r.op = op == SIZE_MAX ? std::string() : ev[op].name;
    const auto found = op == SIZE_MAX ? node_of_op.end() : node_of_op.find(op);
    const NodeId n = found == node_of_op.end() ? kNoNode : found->second;
    if (n != kNoNode) r.nodes = {n}, r.match = ProfileMatch::Scope;
    out.records.push_back(std::move(r));
  };
  std::vector<double> last_end(static_cast<std::size_t>(run_count), 0);
  if (gpu) {
    for (std::size_t i = 0; i < ev.size(); ++i) {
      if (kind[i] != EventKind::Kernel) continue;
      const auto l = ev[i].correlation ? launcher.find(*ev[i].correlation) : launcher.end();
      const std::size_t op = l == launcher.end() ? SIZE_MAX : l->second;
      const int run = op == SIZE_MAX ? step_of(ev[i].ts) : step_of(ev[op].ts);
      if (run < 0) continue;
      add(op, ev[i], run, ev[i].thread);
      last_end[static_cast<std::size_t>(run)] = std::max(last_end[static_cast<std::size_t>(run)], out.records.back().start_us + ev[i].dur);
    }
  } else {
    for (std::size_t i : ops) {
      const int run = step_of(ev[i].ts);
      add(i, ev[i], run, ev[i].thread);
      last_end[static_cast<std::size_t>(run)] = std::max(last_end[static_cast<std::size_t>(run)], out.records.back().start_us + ev[i].dur);
    }
  }
  if (out.records.empty()) return out;
  if (steps.empty()) {
    double first = 1e300;
    for (const ProfileRecord& r : out.records) first = std::min(first, r.start_us);
    for (ProfileRecord& r : out.records) r.start_us -= first;
    out.iteration_us.push_back(last_end[0] - first);
  } else {
    // A step lasts until its host side returns or its last kernel ends, whichever is later.
    for (std::size_t s = 0; s < steps.size(); ++s) out.iteration_us.push_back(std::max(steps[s].second, last_end[s]));
  }
  out.device_kind = gpu ? DeviceKind::Gpu : DeviceKind::Cpu;
  out.source = std::string("PyTorch ") + (gpu ? "CUDA" : "CPU") + " trace, median of " + std::to_string(out.iteration_us.size()) +
               (steps.empty() ? " iteration" : " steps");
  out.notes.push_back(scoped ? "operators matched to nodes through their module scopes and the operator sequence"
                             : "operators matched to nodes through the operator sequence (the trace records no module scopes)");
  return out;
}

}  // namespace weft::core::detail
