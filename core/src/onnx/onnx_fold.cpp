// Constant folding on the reference kernels: the driver finds nodes whose inputs are all known
// (in-memory or readable initializers, folded values, or for Shape/Size a static shape) and
// evaluates each with the CPU executor's own kernel (evaluate_node); weight-only subgraphs over
// weights without bytes fold by shape. Alternated with shape inference by the importer.
#include "onnx_fold.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "weft/core/exec/evaluate_node.h"
#include "weft/core/proto/onnx_proto_util.h"
#include "weft/core/graph/graph.h"
#include "weft/core/proto/tensor_pb.h"
#include "weft/core/base/tensor_size.h"

namespace weft::core::detail {
namespace {

/// A shape the folder evaluates: checked_elements (no dim negative, no product past 64 bits even
/// beside a zero dim) and at most kMaxFoldElements elements.
bool foldable_shape(const Shape& s) {
  const std::optional<std::int64_t> n = checked_elements(s);
  return n && *n <= kMaxFoldElements;
}

/// An in-memory initializer as a host tensor (nullopt: no data, too big, no fixed-size dtype).
std::optional<HostTensor> decode(const onnx::TensorProto& t) {
  const DType dtype = dtype_from_onnx(t.data_type());
  if (dtype_size(dtype) == 0 || !has_inline_data(t)) return std::nullopt;
  HostTensor h;
  h.dtype = dtype;
  h.shape.assign(t.dims().begin(), t.dims().end());
  if (!foldable_shape(h.shape)) return std::nullopt;
  std::string why;
  if (!tensor_bytes(t, h.bytes, why)) return std::nullopt;
  return h;
}

/// An external initializer read through read_weight_bytes (the one external-data reader).
std::optional<HostTensor> decode_external(const onnx::TensorProto& t, const std::string& model_dir) {
  Tensor w;
  w.name = t.name();
  w.dtype = dtype_from_onnx(t.data_type());
  w.rank_known = true;
  for (std::int64_t d : t.dims()) w.dims.push_back(Dim{d, {}});
  w.kind = TensorKind::Weight;
  auto data = external_weight(t, model_dir);
  if (!data) return std::nullopt;  // outside the folder: the importer has refused it with a message
  w.data = std::move(*data);
  const Shape shape(t.dims().begin(), t.dims().end());
  if (dtype_size(w.dtype) == 0 || !foldable_shape(shape) || w.data.external_path.empty()) return std::nullopt;
  auto bytes = read_weight_bytes(w);
  if (!bytes) return std::nullopt;
  return HostTensor{w.dtype, shape, std::move(*bytes)};
}

onnx::TensorProto encode(const HostTensor& v, const std::string& name) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(static_cast<std::int32_t>(v.dtype));
  for (std::int64_t d : v.shape) t.add_dims(d);
  t.set_raw_data(std::string(v.bytes.begin(), v.bytes.end()));
  return t;
}

/// A scalar's truth (If conditions): non-zero, for any numeric dtype.
bool truth(const HostTensor& v) {
  if (v.dtype == DType::Float32 && v.bytes.size() == 4) {
    float f;
    std::memcpy(&f, v.bytes.data(), 4);
    return f != 0;
  }
  if (v.dtype == DType::Float64 && v.bytes.size() == 8) {
    double f;
    std::memcpy(&f, v.bytes.data(), 8);
    return f != 0;
  }
  return std::any_of(v.bytes.begin(), v.bytes.end(), [](std::uint8_t b) { return b != 0; });
}

/// True when an integer tensor holds a zero (a divisor the folder leaves alone).
bool has_zero_integer(const HostTensor& v) {
  const std::size_t es = dtype_size(v.dtype);
  if (es == 0 || v.dtype == DType::Float32 || v.dtype == DType::Float64 || v.dtype == DType::Float16 || v.dtype == DType::BFloat16)
    return false;
  for (std::size_t i = 0; i + es <= v.bytes.size(); i += es)
    if (std::all_of(v.bytes.begin() + static_cast<std::ptrdiff_t>(i), v.bytes.begin() + static_cast<std::ptrdiff_t>(i + es),
                    [](std::uint8_t b) { return b == 0; }))
      return true;
  return false;
}

const onnx::AttributeProto* attr(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

/// The node as the kernels see it: attributes converted, omitted inputs/outputs marked.
Node node_from_proto(const onnx::NodeProto& p) {
  Node n;
  n.name = p.name();
  n.op_type = p.op_type();
  for (int i = 0; i < p.input_size(); ++i) n.inputs.push_back(p.input(i).empty() ? kNoTensor : i);
  for (int i = 0; i < p.output_size(); ++i) n.outputs.push_back(p.output(i).empty() ? kNoTensor : i);
  for (const auto& a : p.attribute()) n.attributes.push_back(attribute_from_onnx(a));
  return n;
}


void collect_outer(const onnx::GraphProto& g, std::set<std::string>& outer) {
  std::unordered_set<std::string> local;
  for (const auto& v : g.input()) local.insert(v.name());
  for (const auto& t : g.initializer()) local.insert(t.name());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) local.insert(o);
  for (const auto& n : g.node()) {
    for (const auto& i : n.input())
      if (!i.empty() && !local.count(i)) outer.insert(i);
    std::set<std::string> nested;
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_outer(a.g(), nested);
      for (const auto& sg : a.graphs()) collect_outer(sg, nested);
    }
    for (const auto& i : nested)
      if (!local.count(i)) outer.insert(i);
  }
  for (const auto& o : g.output())
    if (!local.count(o.name())) outer.insert(o.name());
}

std::optional<Shape> static_shape_of(const onnx::TypeProto& t) {
  if (!t.has_tensor_type() || !t.tensor_type().has_shape()) return std::nullopt;
  Shape s;
  for (const auto& d : t.tensor_type().shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) return std::nullopt;
    s.push_back(d.dim_value());
  }
  return s;
}

}  // namespace

std::vector<std::string> subgraph_captures(const onnx::GraphProto& body) {
  std::set<std::string> outer;
  collect_outer(body, outer);
  return {outer.begin(), outer.end()};
}

std::vector<std::string> outer_scope_inputs(const onnx::NodeProto& node) {
  std::set<std::string> outer;
  for (const auto& a : node.attribute()) {
    if (a.has_g()) collect_outer(a.g(), outer);
    for (const auto& sg : a.graphs()) collect_outer(sg, outer);
  }
  return {outer.begin(), outer.end()};
}

namespace {

// Inlines If nodes whose condition is an in-memory initializer: the chosen branch's nodes and
// initializers take the If's place (branch outputs renamed to the If's outputs). Skipped when a
// branch name would clash with an outer one. Returns the number of If nodes inlined.
std::int64_t inline_constant_ifs(onnx::GraphProto& graph, std::vector<std::string>& warnings) {
  std::int64_t count = 0;
  for (int k = 0; k < graph.node_size(); ++k) {
    const onnx::NodeProto& node = graph.node(k);
    if (node.op_type() != "If" || !(node.domain().empty() || node.domain() == "ai.onnx") || node.input_size() < 1)
      continue;
    const onnx::TensorProto* cond_t = nullptr;
    for (const auto& t : graph.initializer())
      if (t.name() == node.input(0)) cond_t = &t;
    if (!cond_t) continue;
    auto cond = decode(*cond_t);
    if (!cond || shape_elements(cond->shape) != 1) continue;
    const bool taken = truth(*cond);
    const onnx::AttributeProto* a = attr(node, taken ? "then_branch" : "else_branch");
    if (!a || !a->has_g() || a->g().output_size() != node.output_size()) continue;
    onnx::GraphProto body = a->g();

    std::unordered_set<std::string> outer;
    for (const auto& v : graph.input()) outer.insert(v.name());
    for (const auto& t : graph.initializer()) outer.insert(t.name());
    for (const auto& n : graph.node())
      for (const auto& o : n.output()) outer.insert(o);
    std::unordered_set<std::string> produced;
    bool clash = false;
    for (const auto& t : body.initializer()) clash |= outer.count(t.name()) > 0;
    for (const auto& n : body.node())
      for (const auto& o : n.output()) {
        if (o.empty()) continue;
        clash |= outer.count(o) > 0;
        produced.insert(o);
      }
    if (clash) continue;

    std::unordered_map<std::string, std::string> rename;
    std::vector<onnx::NodeProto> copies;
    for (int j = 0; j < body.output_size(); ++j) {
      const std::string& from = body.output(j).name();
      const std::string& to = node.output(j);
      if (to.empty()) continue;
      if (produced.count(from) && !rename.count(from)) {
        rename.emplace(from, to);
        continue;
      }
      onnx::NodeProto id;  // an outer tensor, initializer or repeated output: copy it
      id.set_op_type("Identity");
      id.set_name(node.name() + "/output_" + std::to_string(j));
      id.add_input(rename.count(from) ? rename.at(from) : from);
      id.add_output(to);
      copies.push_back(std::move(id));
    }
    bool nested_reads_renamed = false;
    for (const auto& n : body.node())
      for (const auto& name : outer_scope_inputs(n)) nested_reads_renamed |= rename.count(name) > 0;
    if (nested_reads_renamed) continue;
    for (auto& n : *body.mutable_node()) {
      for (auto& i : *n.mutable_input())
        if (auto r = rename.find(i); r != rename.end()) i = r->second;
      for (auto& o : *n.mutable_output())
        if (auto r = rename.find(o); r != rename.end()) o = r->second;
    }

    warnings.push_back("If node '" + node.name() + "' inlined: its condition is constant (" +
                       (taken ? "then_branch" : "else_branch") + ")");
    for (auto& t : *body.mutable_initializer()) *graph.add_initializer() = std::move(t);
    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    for (int j = 0; j < k; ++j) *nodes.Add() = graph.node(j);
    for (auto& n : *body.mutable_node()) *nodes.Add() = std::move(n);
    for (auto& n : copies) *nodes.Add() = std::move(n);
    for (int j = k + 1; j < graph.node_size(); ++j) *nodes.Add() = graph.node(j);
    graph.mutable_node()->Swap(&nodes);
    ++count;
    --k;  // look at what now sits at k (the inlined nodes may hold another If)
  }
  return count;
}

FoldResult fold_values(onnx::GraphProto& graph, std::int64_t opset, const std::string& model_dir);

}  // namespace

FoldResult fold_round(onnx::GraphProto& graph, std::int64_t opset, const std::string& model_dir) {
  FoldResult result = fold_values(graph, opset, model_dir);
  result.folded += inline_constant_ifs(graph, result.warnings);
  return result;
}

namespace {

/// One round of value folding over a graph: every node whose inputs are all constants (decoded
/// initializers, or outputs folded before it) computed by the executor's kernels, in file order
/// until nothing changes; then the graph rewritten with the folded outputs as initializers.
class ValueFolder {
 public:
  ValueFolder(onnx::GraphProto& graph, std::int64_t opset, const std::string& model_dir)
      : m_graph(graph), m_opset(opset), m_model_dir(model_dir), m_folded(static_cast<std::size_t>(graph.node_size()), false) {
    m_inits.reserve(static_cast<std::size_t>(graph.initializer_size()));
    for (const auto& t : graph.initializer()) m_inits.emplace(t.name(), &t);
    for (const auto& o : graph.output()) m_graph_outputs.insert(o.name());
  }

  FoldResult run() {
    // Sweep in file order until nothing changes, so folds chain within one round even in an
    // unsorted file; shape inference between rounds exposes new static shapes.
    for (bool changed = true; changed;) {
      changed = false;
      for (int k = 0; k < m_graph.node_size(); ++k)
        if (!m_folded[static_cast<std::size_t>(k)] && try_fold(k)) {
          m_folded[static_cast<std::size_t>(k)] = true;
          ++m_result.folded;
          changed = true;
        }
    }
    if (m_result.folded > 0) rewrite();
    return std::move(m_result);
  }

 private:
  enum class Kind { NotConstant, Value, Dataless };

  // Static shapes and element types by tensor name, built on first use: only Shape and Size
  // nodes and folds over data-less weights read them, and most rounds of a large model have none
  // (a map of every value_info would cost more than the round).
  const std::unordered_map<std::string, Shape>& known_shapes() {
    if (m_have_shapes) return m_shapes;
    m_have_shapes = true;
    auto offer = [&](const onnx::ValueInfoProto& vi) {
      if (auto s = static_shape_of(vi.type())) m_shapes.emplace(vi.name(), std::move(*s));
      if (vi.type().has_tensor_type() && vi.type().tensor_type().elem_type() != 0)
        m_elem_types.emplace(vi.name(), vi.type().tensor_type().elem_type());
    };
    for (const auto& vi : m_graph.input()) offer(vi);
    for (const auto& vi : m_graph.value_info()) offer(vi);
    for (const auto& vi : m_graph.output()) offer(vi);
    for (const auto& t : m_graph.initializer()) m_shapes[t.name()] = Shape(t.dims().begin(), t.dims().end());
    return m_shapes;
  }

  Kind classify(const std::string& name) {
    if (m_values.count(name)) return Kind::Value;
    if (m_dataless.count(name)) return Kind::Dataless;
    if (m_not_constant.count(name)) return Kind::NotConstant;
    auto it = m_inits.find(name);
    if (it == m_inits.end()) return Kind::NotConstant;
    const onnx::TensorProto& t = *it->second;
    if (!is_external(t) && !has_inline_data(t)) {
      m_dataless.emplace(name, t.data_type());
      return Kind::Dataless;
    }
    if (is_external(t)) {
      const auto w = external_weight(t, m_model_dir);
      std::error_code ec;
      if (!w || w->external_path.empty() || !std::filesystem::is_regular_file(w->external_path, ec)) {
        m_dataless.emplace(name, t.data_type());
        return Kind::Dataless;
      }
    }
    return foldable_shape(Shape(t.dims().begin(), t.dims().end())) && dtype_size(dtype_from_onnx(t.data_type())) > 0 ? Kind::Value
                                                                                                                      : Kind::NotConstant;
  }

  const HostTensor* value_of(const std::string& name) {
    if (auto it = m_values.find(name); it != m_values.end()) return &it->second;
    if (m_not_constant.count(name) || m_dataless.count(name)) return nullptr;
    auto it = m_inits.find(name);
    if (it == m_inits.end()) return nullptr;
    // External data is read only here, for a weight-only subgraph small enough to evaluate,
    // through the executors' one reader (read_weight_bytes).
    std::optional<HostTensor> v = is_external(*it->second) ? decode_external(*it->second, m_model_dir) : decode(*it->second);
    if (!v) {
      m_not_constant.insert(name);
      return nullptr;
    }
    return &m_values.emplace(name, std::move(*v)).first->second;
  }

  /// A default-domain node with a CPU kernel, outputs nobody folded yet, no graph outputs and no bodies.
  bool eligible(const onnx::NodeProto& node) const {
    if (!(node.domain().empty() || node.domain() == "ai.onnx")) return false;
    if (!has_cpu_kernel(node.op_type()) || node.output_size() == 0) return false;
    for (const auto& o : node.output())
      if (o.empty() || m_graph_outputs.count(o) || m_values.count(o) || m_dataless.count(o)) return false;
    for (const auto& a : node.attribute())
      if (a.has_g() || a.graphs_size() > 0) return false;
    return true;
  }

  /// Shape or Size of a tensor whose shape is fully known: the kernel reads only the shape.
  bool shape_probe(const onnx::NodeProto& node, std::vector<HostTensor>& in, std::vector<bool>& has_data) {
    if (node.input_size() < 1) return false;
    HostTensor probe;
    probe.dtype = DType::Float32;
    if (auto it = m_values.find(node.input(0)); it != m_values.end()) probe.shape = it->second.shape;
    else if (auto st = known_shapes().find(node.input(0)); st != m_shapes.end()) probe.shape = st->second;
    else return false;
    in.push_back(std::move(probe));
    has_data.push_back(false);
    return true;
  }

  /// A weight-only node over weights without bytes: folded by shape, as a runtime would fold it
  /// by value, so the graph does not depend on whether weights are present.
  bool fold_dataless(const onnx::NodeProto& node) {
    known_shapes();
    for (const auto& o : node.output())
      if (!m_shapes.count(o) || !m_elem_types.count(o) || !foldable_shape(m_shapes.at(o))) return false;
    for (const auto& o : node.output()) m_dataless.emplace(o, m_elem_types.at(o));
    m_result.warnings.push_back("node '" + node.name() + "' (" + node.op_type() + ") folded over weights without data; its output has no bytes");
    return true;
  }

  /// Every input's value (an omitted optional input as an undefined tensor); false when one has none.
  bool input_values(const onnx::NodeProto& node, std::vector<HostTensor>& in, std::vector<bool>& has_data) {
    for (const auto& name : node.input()) {
      if (name.empty()) {
        in.push_back(HostTensor{DType::Undefined, {}, {}});
        has_data.push_back(false);
        continue;
      }
      const HostTensor* v = value_of(name);
      if (!v) return false;
      in.push_back(*v);
      has_data.push_back(true);
    }
    return true;
  }

  /// Folds node k when it can: true when it was folded (by value or, over data-less weights, by shape).
  bool try_fold(int k) {
    const onnx::NodeProto& node = m_graph.node(k);
    if (!eligible(node)) return false;
    std::vector<HostTensor> in;
    std::vector<bool> has_data;
    if (node.op_type() == "Shape" || node.op_type() == "Size") {
      if (!shape_probe(node, in, has_data)) return false;
    } else {
      if (node.input_size() == 0) return false;
      Kind worst = Kind::Value;
      for (const auto& name : node.input()) {
        if (name.empty()) continue;
        const Kind c = classify(name);
        if (c == Kind::NotConstant) return false;
        if (c == Kind::Dataless) worst = Kind::Dataless;
      }
      if (worst == Kind::Dataless) return fold_dataless(node);
      if (!input_values(node, in, has_data)) return false;
    }
    // An integer division by zero stays in the graph (the runtime defines it as 0; folding
    // would hide a likely broken model).
    if ((node.op_type() == "Div" || node.op_type() == "Mod") && in.size() == 2 && has_zero_integer(in[1])) return false;
    // The executor's own kernel computes the value (every operator it supports folds).
    std::vector<HostTensor> outs;
    if (!evaluate_node(node_from_proto(node), in, has_data, m_opset, kMaxFoldElements, outs)) return false;
    if (outs.size() != static_cast<std::size_t>(node.output_size())) return false;
    for (std::size_t j = 0; j < outs.size(); ++j) m_values.emplace(node.output(static_cast<int>(j)), std::move(outs[j]));
    return true;
  }

  /// The graph without its folded nodes: what the rest still reads of their outputs becomes
  /// initializers, and initializers only the folded nodes read are dropped.
  void rewrite() {
    const int n = m_graph.node_size();
    // What the remaining graph still reads: node inputs, subgraph reads, graph outputs.
    std::unordered_set<std::string> read;
    for (int k = 0; k < n; ++k) {
      if (m_folded[static_cast<std::size_t>(k)]) continue;
      for (const auto& i : m_graph.node(k).input()) read.insert(i);
      for (auto& i : outer_scope_inputs(m_graph.node(k))) read.insert(std::move(i));
    }
    for (const auto& o : m_graph.output()) read.insert(o.name());

    // Drop initializers only the folded nodes read; keep ones the file left unused.
    std::unordered_set<std::string> read_by_folded;
    for (int k = 0; k < n; ++k)
      if (m_folded[static_cast<std::size_t>(k)])
        for (const auto& i : m_graph.node(k).input()) read_by_folded.insert(i);
    auto* initializers = m_graph.mutable_initializer();
    int keep = 0;
    for (int k = 0; k < initializers->size(); ++k) {
      const std::string& name = initializers->Get(k).name();
      if (read_by_folded.count(name) && !read.count(name)) continue;
      if (keep != k) initializers->SwapElements(keep, k);
      ++keep;
    }
    while (initializers->size() > keep) initializers->RemoveLast();

    std::vector<onnx::TensorProto> produced;
    for (int k = 0; k < n; ++k) {
      if (!m_folded[static_cast<std::size_t>(k)]) continue;
      for (const auto& o : m_graph.node(k).output()) {
        if (!read.count(o)) continue;
        if (auto v = m_values.find(o); v != m_values.end()) {
          produced.push_back(encode(v->second, o));
          continue;
        }
        // A data-less folded weight: external, with no location, like the weights it came from.
        onnx::TensorProto t;
        t.set_name(o);
        t.set_data_type(m_dataless.at(o));
        for (std::int64_t d : known_shapes().at(o)) t.add_dims(d);
        t.set_data_location(onnx::TensorProto::EXTERNAL);
        produced.push_back(std::move(t));
      }
    }
    for (auto& t : produced) *m_graph.add_initializer() = std::move(t);

    auto* nodes = m_graph.mutable_node();
    keep = 0;
    for (int k = 0; k < n; ++k) {
      if (m_folded[static_cast<std::size_t>(k)]) continue;
      if (keep != k) nodes->SwapElements(keep, k);
      ++keep;
    }
    while (nodes->size() > keep) nodes->RemoveLast();
  }

  onnx::GraphProto& m_graph;
  const std::int64_t m_opset;
  const std::string& m_model_dir;
  FoldResult m_result;
  std::unordered_map<std::string, Shape> m_shapes;
  std::unordered_map<std::string, std::int32_t> m_elem_types;
  bool m_have_shapes = false;
  std::unordered_map<std::string, const onnx::TensorProto*> m_inits;
  std::unordered_set<std::string> m_graph_outputs;
  std::unordered_map<std::string, HostTensor> m_values;  ///< decoded initializers and folded outputs
  std::unordered_set<std::string> m_not_constant;        ///< initializers that cannot be decoded
  /// Weights whose bytes are nowhere (external file absent, or no data at all): their shape is
  /// known, their values are not. Folded outputs over them stay data-less weights too.
  std::unordered_map<std::string, std::int32_t> m_dataless;
  std::vector<bool> m_folded;
};

FoldResult fold_values(onnx::GraphProto& graph, std::int64_t opset, const std::string& model_dir) {
  return ValueFolder(graph, opset, model_dir).run();
}

}  // namespace
}  // namespace weft::core::detail
