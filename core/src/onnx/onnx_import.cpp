// ONNX import: parse (protobuf, up to 2 GB) → Constant nodes to initializers → bind --dim
// symbols → [shape inference ⇄ constant folding] to a fixed point → immutable Graph.
#include "weft/core/onnx/onnx_import.h"

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "attribute_guards.h"
#include "onnx_fold.h"
#include "weft/core/proto/onnx_proto_util.h"
#include "weft/core/base/file_io.h"
#include "weft/core/base/tensor_size.h"

namespace weft::core {
namespace {

// Inference and folding alternate; real models settle in a handful of rounds.
constexpr int kMaxFoldRounds = 64;

Error invalid(const std::string& path, const std::string& what) {
  return make_error(ErrorKind::InvalidInput, path + ": " + what);
}

// Operator sets newer than this build's ONNX have schemas it cannot know: inference and folding
// would guess. Custom domains carry no version range and pass.
Status check_opsets(const onnx::ModelProto& model, const std::string& path) {
  const auto& known = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  for (const auto& op : model.opset_import()) {
    const std::string domain = op.domain() == "ai.onnx" ? std::string() : op.domain();
    const std::string shown = domain.empty() ? std::string("ai.onnx") : domain;
    if (op.version() < 1) return invalid(path, "opset " + std::to_string(op.version()) + " of domain '" + shown + "' is not a version");
    auto it = known.find(domain);
    if (it != known.end() && op.version() > it->second.second)
      return invalid(path, "opset " + std::to_string(op.version()) + " of domain '" + shown +
                               "' is too new: this build's ONNX knows up to opset " + std::to_string(it->second.second));
  }
  return {};
}

std::int64_t default_opset(const onnx::ModelProto& model) {
  for (const auto& op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") return op.version();
  return 0;
}

onnx::TensorProto scalar_or_vector(const std::string& name, onnx::TensorProto::DataType type, bool vector,
                                   std::size_t count) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(type);
  if (vector) t.add_dims(static_cast<std::int64_t>(count));
  return t;
}

// Constant nodes become initializers (ONNX Runtime's convention): they are weights, not operators.
Status constants_to_initializers(onnx::GraphProto& g, const std::string& path, GraphInfo& info) {
  auto* nodes = g.mutable_node();
  int keep = 0;
  for (int k = 0; k < nodes->size(); ++k) {
    onnx::NodeProto& node = *nodes->Mutable(k);
    const bool is_constant = node.op_type() == "Constant" && (node.domain().empty() || node.domain() == "ai.onnx");
    if (!is_constant) {
      if (keep != k) nodes->SwapElements(keep, k);
      ++keep;
      continue;
    }
    const std::string where = "Constant node '" + node.name() + "'";
    if (node.output_size() < 1 || node.output(0).empty()) return invalid(path, where + " has no output");
    if (node.attribute_size() != 1) return invalid(path, where + " must have exactly one value attribute");
    const onnx::AttributeProto& a = node.attribute(0);
    const std::string& out = node.output(0);
    onnx::TensorProto t;
    if (a.name() == "value") {
      t = a.t();
    } else if (a.name() == "value_float") {
      t = scalar_or_vector(out, onnx::TensorProto::FLOAT, false, 1);
      t.add_float_data(a.f());
    } else if (a.name() == "value_floats") {
      t = scalar_or_vector(out, onnx::TensorProto::FLOAT, true, static_cast<std::size_t>(a.floats_size()));
      for (float f : a.floats()) t.add_float_data(f);
    } else if (a.name() == "value_int") {
      t = scalar_or_vector(out, onnx::TensorProto::INT64, false, 1);
      t.add_int64_data(a.i());
    } else if (a.name() == "value_ints") {
      t = scalar_or_vector(out, onnx::TensorProto::INT64, true, static_cast<std::size_t>(a.ints_size()));
      for (std::int64_t i : a.ints()) t.add_int64_data(i);
    } else if (a.name() == "value_string") {
      t = scalar_or_vector(out, onnx::TensorProto::STRING, false, 1);
      t.add_string_data(a.s());
    } else if (a.name() == "value_strings") {
      t = scalar_or_vector(out, onnx::TensorProto::STRING, true, static_cast<std::size_t>(a.strings_size()));
      for (const std::string& s : a.strings()) t.add_string_data(s);
    } else if (a.name() == "sparse_value") {
      // Kept as a dense weight of the right shape without data; nothing folds through it.
      t.set_data_type(a.sparse_tensor().values().data_type());
      for (std::int64_t d : a.sparse_tensor().dims()) t.add_dims(d);
      t.set_data_location(onnx::TensorProto::EXTERNAL);
      info.warnings.push_back(where + ": sparse constant kept without data");
    } else {
      return invalid(path, where + " has an unknown attribute '" + a.name() + "'");
    }
    t.set_name(out);
    *g.add_initializer() = std::move(t);
    ++info.constant_nodes;
  }
  while (nodes->size() > keep) nodes->RemoveLast();
  // Bodies' Constant nodes become the bodies' initializers the same way (so a body's constant
  // whose data is absent gets seeded values like any weight); info counts the main graph's only.
  for (auto& node : *g.mutable_node())
    for (auto& a : *node.mutable_attribute()) {
      GraphInfo body_info;
      if (a.has_g())
        WEFT_TRY(constants_to_initializers(*a.mutable_g(), path, body_info));
      for (auto& sg : *a.mutable_graphs())
        WEFT_TRY(constants_to_initializers(sg, path, body_info));
      for (std::string& w : body_info.warnings) info.warnings.push_back(std::move(w));
    }
  return {};
}

struct InputSymbols {
  std::string tensor;
  std::vector<std::string> symbols;  // per dim: the dim_param, "" when none
};

// Binds --dim NAME=VALUE on graph inputs (rewriting dim_param to dim_value so inference
// propagates the values) and lists what stays unresolved.
std::vector<InputSymbols> bind_dims(onnx::GraphProto& g, const ImportOptions& options,
                                    const std::unordered_set<std::string>& initializers, GraphInfo& info) {
  std::vector<InputSymbols> result;
  std::set<std::string> used;
  for (auto& in : *g.mutable_input()) {
    if (initializers.count(in.name()) || !in.type().has_tensor_type()) continue;
    InputSymbols s{in.name(), {}};
    if (!in.type().tensor_type().has_shape()) {
      result.push_back(std::move(s));
      continue;
    }
    auto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int d = 0; d < shape->dim_size(); ++d) {
      auto* dim = shape->mutable_dim(d);
      s.symbols.push_back(dim->has_dim_param() ? dim->dim_param() : std::string());
      if (dim->has_dim_value()) continue;
      // INPUT:AXIS=VALUE binds one dim of one input by position (the only way for unnamed dims).
      if (auto it = options.dims.find(in.name() + ":" + std::to_string(d)); it != options.dims.end()) {
        used.insert(it->first);
        dim->set_dim_value(it->second);
        continue;
      }
      const std::string where = in.name() + ": dim " + std::to_string(d);
      if (dim->has_dim_param()) {
        auto it = options.dims.find(dim->dim_param());
        if (it != options.dims.end()) {
          used.insert(it->first);
          dim->set_dim_value(it->second);  // clears dim_param (oneof)
          continue;
        }
        info.unresolved_dims.push_back(where + " '" + dim->dim_param() + "'");
      } else {
        info.unresolved_dims.push_back(where + " (unnamed)");
      }
    }
    result.push_back(std::move(s));
  }
  for (const auto& [name, value] : options.dims)
    if (!used.count(name)) info.warnings.push_back("--dim " + name + "=" + std::to_string(value) +
                                                   " matches no symbolic dimension of a graph input");
  return result;
}

// What --batch replaced: the static batch every input had at dim 0 (0 when they disagreed or
// none was static) and the outputs the file declared with that batch at dim 0.
struct Rebatched {
  std::int64_t batch = 0;
  std::int64_t old_batch = 0;
  std::vector<std::string> batched_outputs;
};

// --batch N: dim 0 of every graph input becomes N; the shapes the file declared downstream
// (outputs, value_info) are dropped, since they may hold the old batch, and inferred again.
Rebatched rebatch(onnx::GraphProto& g, std::int64_t batch, const std::unordered_set<std::string>& initializers, GraphInfo& info) {
  Rebatched r;
  r.batch = batch;
  int changed = 0;
  std::set<std::int64_t> old;
  bool symbolic = false;
  for (auto& in : *g.mutable_input()) {
    if (initializers.count(in.name()) || !in.type().has_tensor_type() || !in.type().tensor_type().has_shape()) continue;
    auto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (shape->dim_size() == 0) continue;
    if (shape->dim(0).has_dim_value()) old.insert(shape->dim(0).dim_value());
    else symbolic = true;
    shape->mutable_dim(0)->set_dim_value(batch);  // clears dim_param (oneof)
    ++changed;
  }
  if (old.size() == 1 && !symbolic && *old.begin() != batch) r.old_batch = *old.begin();
  for (auto& out : *g.mutable_output())
    if (out.type().has_tensor_type() && out.type().tensor_type().has_shape()) {
      auto* shape = out.mutable_type()->mutable_tensor_type()->mutable_shape();
      if (shape->dim_size() == 0) continue;
      if (r.old_batch > 0 && shape->dim(0).has_dim_value() && shape->dim(0).dim_value() == r.old_batch)
        r.batched_outputs.push_back(out.name());
      shape->mutable_dim(0)->Clear();
    }
  g.clear_value_info();
  if (changed == 0) info.warnings.push_back("--batch " + std::to_string(batch) + " matches no graph input of rank >= 1");
  return r;
}

// A static-batch export may fix its batch inside (a Reshape to a constant shape, a class token
// concatenated at batch 1): re-batched, an output the file declared with the old batch keeps it.
// The model then computes something else than `batch` samples: said (and listed in
// GraphInfo::rebatch_kept), not refused: the shapes are consistent, and some such models are still
// worth a look. Read off the outputs' inferred types.
void check_rebatched(const onnx::GraphProto& g, const Rebatched& r, GraphInfo& info) {
  for (const auto& out : g.output()) {
    if (std::find(r.batched_outputs.begin(), r.batched_outputs.end(), out.name()) == r.batched_outputs.end()) continue;
    if (!out.type().has_tensor_type() || !out.type().tensor_type().has_shape()) continue;
    const auto& shape = out.type().tensor_type().shape();
    if (shape.dim_size() == 0 || !shape.dim(0).has_dim_value()) continue;
    const std::int64_t kept = shape.dim(0).dim_value();
    const std::string& name = out.name();
    if (kept == r.batch) continue;
    info.rebatch_kept.push_back(name);
    info.warnings.push_back("--batch " + std::to_string(r.batch) + ": output '" + name + "' has " + std::to_string(kept) +
                              " at dim 0, not " + std::to_string(r.batch) + " (the file declared " + std::to_string(r.old_batch) +
                              "): the model fixes its batch somewhere (a Reshape to a constant shape?), so the re-batched model "
                              "does not compute " + std::to_string(r.batch) + " samples");
  }
}

void run_shape_inference(onnx::ModelProto& model, const std::vector<onnx::ValueInfoProto>& file_value_info,
                         const std::string& path, GraphInfo& info) {
  // Start from what the file declared, minus names that folding turned into initializers,
  // so stale unknown shapes from an earlier round never pin a tensor.
  onnx::GraphProto& g = *model.mutable_graph();
  std::unordered_set<std::string> inits;
  for (const auto& t : g.initializer()) inits.insert(t.name());
  g.clear_value_info();
  for (const auto& vi : file_value_info)
    if (!inits.count(vi.name())) *g.add_value_info() = vi;
  try {
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(false, 0, false));
  } catch (const std::exception& e) {
    info.warnings.push_back(path + ": shape inference stopped early: " + e.what());
  }
}

int known_score(const onnx::TypeProto& t) {
  if (!t.has_tensor_type()) return -1;
  if (!t.tensor_type().has_shape()) return 0;
  int s = 1;
  for (const auto& d : t.tensor_type().shape().dim()) s += d.has_dim_value() ? 2 : 0;
  return s;
}

void apply_type(Tensor& t, const onnx::TypeProto& type) {
  if (!type.has_tensor_type()) return;
  const auto& tt = type.tensor_type();
  if (tt.elem_type() != 0) t.dtype = detail::dtype_from_onnx(tt.elem_type());
  if (!tt.has_shape()) return;
  t.rank_known = true;
  t.dims.clear();
  for (const auto& d : tt.shape().dim()) {
    Dim dim;
    if (d.has_dim_value() && d.dim_value() >= 0) dim.value = d.dim_value();
    if (d.has_dim_param()) dim.symbol = d.dim_param();
    t.dims.push_back(std::move(dim));
  }
}

using SymbolsByInput = std::unordered_map<std::string, const InputSymbols*>;

// A graph input's tensor, fresh: its declared type, then the symbols --dim bound on it.
void type_input(Tensor& t, const onnx::ValueInfoProto& in, const SymbolsByInput& symbols_of) {
  t.dtype = DType::Undefined;
  t.dims.clear();
  t.rank_known = false;
  apply_type(t, in.type());
  auto s = symbols_of.find(in.name());
  if (s != symbols_of.end())
    for (std::size_t d = 0; d < t.dims.size() && d < s->second->symbols.size(); ++d)
      if (t.dims[d].symbol.empty()) t.dims[d].symbol = s->second->symbols[d];
}

// An initializer's bytes held in the file itself (the typed build reads them; strings may have none).
Status read_inline_weight(const onnx::TensorProto& init, WeightData& data) {
  if (detail::is_external(init) || !detail::has_inline_data(init)) return {};
  auto bytes = std::make_shared<std::vector<std::uint8_t>>();
  std::string why;
  if (detail::tensor_bytes(init, *bytes, why)) {
    data.inline_bytes = std::move(bytes);
  } else if (detail::dtype_from_onnx(init.data_type()) != DType::String) {
    return make_error(ErrorKind::InvalidInput, "initializer '" + init.name() + "': " + why);
  }
  return {};
}

// Declared types by tensor: the best known of the inputs', outputs' and value_info's entries of
// its name (the first on a tie). `find` maps a name to its tensor.
template <class Find>
std::vector<const onnx::TypeProto*> declared_types(const onnx::GraphProto& g, std::size_t tensors, Find&& find) {
  std::vector<const onnx::TypeProto*> declared(tensors, nullptr);
  const auto offer = [&](const onnx::ValueInfoProto& vi) {
    const std::optional<TensorId> id = find(vi.name());
    if (!id) return;
    const onnx::TypeProto*& best = declared[static_cast<std::size_t>(*id)];
    if (!best || known_score(vi.type()) > known_score(*best)) best = &vi.type();
  };
  for (const auto& vi : g.input()) offer(vi);
  for (const auto& vi : g.output()) offer(vi);
  for (const auto& vi : g.value_info()) offer(vi);
  return declared;
}

struct BuildContext {
  const std::string& path;
  std::string dir;
  bool types = true;
  std::int64_t opset = 0;
};

Expected<Graph> build_graph_proto(const onnx::GraphProto& g, const BuildContext& bc, const std::vector<InputSymbols>& symbols,
                                  GraphInfo info);

/// A body (If/Loop/Scan) as a Graph of its own: its formal inputs, then what it reads from
/// enclosing scopes as further inputs.
Expected<std::shared_ptr<const Graph>> build_subgraph(const onnx::GraphProto& body, const BuildContext& bc) {
  GraphInfo info;
  info.model_path = bc.path;
  info.opset = bc.opset;
  info.captures = detail::subgraph_captures(body);
  WEFT_TRY_ASSIGN(auto graph, build_graph_proto(body, bc, {}, std::move(info)));
  return std::make_shared<const Graph>(std::move(graph));
}

Expected<Attribute> convert_attribute(const onnx::AttributeProto& a, const BuildContext& bc) {
  Attribute r = detail::attribute_from_onnx(a);
  switch (r.type) {
    case Attribute::Type::Graph: {
      WEFT_TRY_ASSIGN(auto body, build_subgraph(a.g(), bc));
      r.graph = std::move(body);
      break;
    }
    case Attribute::Type::Graphs:
      for (const auto& sg : a.graphs()) {
        WEFT_TRY_ASSIGN(auto body, build_subgraph(sg, bc));
        r.graphs.push_back(std::move(body));
      }
      break;
    default: break;
  }
  return r;
}

std::string model_dir_of(const std::string& path) {
  std::filesystem::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

// Builds the Graph from the (rewritten) ModelProto. With types=false only the structure is
// built: used to validate the file before anything is folded.
Expected<Graph> build_graph(const onnx::ModelProto& model, const std::string& path,
                            const std::vector<InputSymbols>& symbols, GraphInfo info, bool types) {
  const BuildContext bc{path, model_dir_of(path), types, info.opset};
  return build_graph_proto(model.graph(), bc, symbols, std::move(info));
}

// One graph (the model's, or a body): initializers, inputs (then info.captures as inputs),
// nodes (with their bodies), outputs, types from value_info.
Expected<Graph> build_graph_proto(const onnx::GraphProto& g, const BuildContext& bc, const std::vector<InputSymbols>& symbols,
                                  GraphInfo info) {
  const std::string& path = bc.path;
  const std::string& dir = bc.dir;
  const bool types = bc.types;
  GraphBuilder b;
  // Tensors: initializers, inputs and (about) one output per node.
  b.reserve(static_cast<std::size_t>(g.initializer_size() + g.input_size() + g.node_size()),
            static_cast<std::size_t>(g.node_size()));

  std::unordered_set<std::string> init_names;
  init_names.reserve(static_cast<std::size_t>(g.initializer_size()));
  for (const auto& init : g.initializer()) {
    if (init.name().empty()) return invalid(path, "an initializer has no name");
    if (!init_names.insert(init.name()).second) return invalid(path, "initializer '" + init.name() + "' is defined twice");
    std::vector<std::int64_t> shape(init.dims().begin(), init.dims().end());
    for (std::int64_t d : shape)
      if (d < 0) return invalid(path, "initializer '" + init.name() + "' has a negative dimension");
    // Sizes before anything is read or allocated: a short file never claims a huge tensor.
    if (!checked_elements(shape, dtype_size(detail::dtype_from_onnx(init.data_type()))))
      return invalid(path, "initializer '" + init.name() + "': its size overflows (a tensor may hold at most 2^48 bytes)");
    WeightData data;
    if (detail::is_external(init)) {
      auto external = detail::external_weight(init, dir);
      if (!external) return invalid(path, external.error().message);
      data = std::move(*external);
    } else if (types) {
      if (auto read = read_inline_weight(init, data); !read) return invalid(path, read.error().message);
    }
    b.add_weight(init.name(), detail::dtype_from_onnx(init.data_type()), std::move(shape), std::move(data));
  }

  SymbolsByInput symbols_of;
  for (const auto& s : symbols) symbols_of.emplace(s.tensor, &s);
  std::unordered_set<std::string> input_names;
  for (const auto& in : g.input()) {
    if (init_names.count(in.name())) continue;  // old exporters list initializers as inputs too
    if (in.name().empty()) return invalid(path, "a graph input has no name");
    if (!input_names.insert(in.name()).second) return invalid(path, "graph input '" + in.name() + "' is listed twice");
    type_input(b.tensor_ref(b.add_input(in.name(), DType::Undefined, {})), in, symbols_of);
  }

  for (const std::string& name : info.captures) {
    if (input_names.count(name) || init_names.count(name)) continue;
    const TensorId id = b.add_input(name, DType::Undefined, {});
    b.tensor_ref(id).rank_known = false;
  }

  std::vector<TensorId> produced;
  for (const auto& node : g.node()) {
    std::vector<std::string> inputs(node.input().begin(), node.input().end());
    // Subgraph bodies read outer tensors implicitly; those are real dependencies of the opaque node.
    for (std::string& outer : detail::outer_scope_inputs(node))
      if (std::find(inputs.begin(), inputs.end(), outer) == inputs.end()) inputs.push_back(std::move(outer));
    std::vector<std::string> outputs(node.output().begin(), node.output().end());
    std::vector<Attribute> attrs;
    attrs.reserve(static_cast<std::size_t>(node.attribute_size()));
    for (const auto& a : node.attribute()) {
      WEFT_TRY_ASSIGN(auto attr, convert_attribute(a, bc));
      attrs.push_back(std::move(attr));
    }
    const std::string domain = node.domain() == "ai.onnx" ? std::string() : node.domain();
    const NodeId added = b.add_node(node.name(), node.op_type(), inputs, outputs, std::move(attrs), domain);
    for (TensorId t : b.node(added).outputs)
      if (t != kNoTensor) produced.push_back(t);
  }
  for (const auto& out : g.output()) {
    if (out.name().empty()) return invalid(path, "a graph output has no name");
    b.mark_output(out.name());
  }

  if (types) {
    const std::vector<const onnx::TypeProto*> declared =
        declared_types(g, b.tensor_count(), [&](const std::string& name) { return b.find_tensor(name); });
    for (TensorId id : produced) {
      const onnx::TypeProto* type = declared[static_cast<std::size_t>(id)];
      Tensor& t = b.tensor_ref(id);
      if (!type || t.kind == TensorKind::Input || t.kind == TensorKind::Weight) continue;  // the builder reports it
      apply_type(t, *type);
    }
  }

  b.info() = std::move(info);
  auto graph = std::move(b).build();
  if (!graph) return invalid(path, graph.error().message);
  return graph;
}

// The typed graph from the structure checked before inference, when folding left the model's
// nodes and initializers as they were and no node holds a body: what the typed build would add
// (inline weights' bytes, declared types of produced tensors, inputs' types) is added to it, in
// place of building it again. The same graph as build_graph(..., types=true).
Expected<Graph> type_structure(Graph&& structure, const onnx::ModelProto& model, const std::string& path,
                               const std::vector<InputSymbols>& symbols, GraphInfo info) {
  const onnx::GraphProto& g = model.graph();
  const std::size_t count = structure.tensor_count();
  std::vector<const onnx::TensorProto*> init_of(count, nullptr);
  for (const auto& init : g.initializer())
    if (const auto id = structure.find_tensor(init.name())) init_of[static_cast<std::size_t>(*id)] = &init;
  std::vector<const onnx::ValueInfoProto*> input_of(count, nullptr);
  for (const auto& in : g.input())
    if (const auto id = structure.find_tensor(in.name()); id && !init_of[static_cast<std::size_t>(*id)])
      input_of[static_cast<std::size_t>(*id)] = &in;
  const std::vector<const onnx::TypeProto*> declared =
      declared_types(g, count, [&](const std::string& name) { return structure.find_tensor(name); });
  SymbolsByInput symbols_of;
  for (const auto& s : symbols) symbols_of.emplace(s.tensor, &s);
  auto typed = GraphBuilder::retype(
      std::move(structure),
      [&](TensorId id, Tensor& t) -> Status {
        const auto i = static_cast<std::size_t>(id);
        if (init_of[i]) return read_inline_weight(*init_of[i], t.data);
        if (input_of[i]) type_input(t, *input_of[i], symbols_of);
        else if (declared[i] && t.producer != kNoNode) apply_type(t, *declared[i]);
        return {};
      },
      std::move(info));
  if (!typed) return invalid(path, typed.error().message);
  return typed;
}

/// A constant scalar's value from an initializer (float, double or bool), if it holds one.
std::optional<double> scalar_initializer(const std::unordered_map<std::string, const onnx::TensorProto*>& inits, const std::string& name) {
  const auto it = inits.find(name);
  if (it == inits.end()) return std::nullopt;
  std::vector<std::uint8_t> bytes;
  std::string why;
  if (!detail::tensor_bytes(*it->second, bytes, why)) return std::nullopt;
  switch (it->second->data_type()) {
    case onnx::TensorProto::FLOAT:
      if (bytes.size() == sizeof(float)) {
        float v;
        std::memcpy(&v, bytes.data(), sizeof v);
        return v;
      }
      break;
    case onnx::TensorProto::DOUBLE:
      if (bytes.size() == sizeof(double)) {
        double v;
        std::memcpy(&v, bytes.data(), sizeof v);
        return v;
      }
      break;
    case onnx::TensorProto::BOOL:
      if (bytes.size() == 1) return bytes[0] != 0 ? 1.0 : 0.0;
      break;
    default: break;
  }
  return std::nullopt;
}

/// Dropout nodes whose training_mode is a constant true with a ratio above 0 (0.5 when omitted):
/// their outputs are random, so the analyses say so and a run refuses them (the CPU kernel names
/// the node). A ratio of 0 is the identity (torchvision's Swin-T exports that) and says nothing.
void warn_random_dropouts(const onnx::GraphProto& g, GraphInfo& info) {
  std::unordered_map<std::string, const onnx::TensorProto*> inits;
  for (const auto& t : g.initializer()) inits.emplace(t.name(), &t);
  for (const onnx::NodeProto& node : g.node()) {
    if (node.op_type() != "Dropout" || !(node.domain().empty() || node.domain() == "ai.onnx") || node.input_size() < 3) continue;
    const auto training = scalar_initializer(inits, node.input(2));
    if (!training || *training == 0) continue;
    const std::optional<double> ratio = node.input(1).empty() ? std::optional<double>(0.5) : scalar_initializer(inits, node.input(1));
    if (ratio && *ratio == 0) continue;
    std::ostringstream text;
    text << "node '" << node.name() << "' (Dropout): training_mode=true with ratio ";
    if (ratio) text << *ratio;
    else text << "'" << node.input(1) << "' (computed)";
    text << ": its outputs are random, so a run refuses it (weft runs models for inference)";
    info.warnings.push_back(text.str());
  }
}

bool holds_bodies(const Graph& graph) {
  for (const Node& node : graph.nodes())
    if (!node_subgraphs(node).empty()) return true;
  return false;
}

// What import knows of a model once its proto is ready to build from.
struct Prepared {
  GraphInfo info;
  std::vector<InputSymbols> symbols;
  Graph structure;  ///< the graph as the file wrote it, before inference and folding
};

// Parse → Constant nodes to initializers → re-batch → bind --dim symbols → [shape inference ⇄
// constant folding] to a fixed point, on `model` (an arena's): the proto the Graph is built from.
Expected<Prepared> prepare_model(std::string_view bytes, const std::string& model_path, const ImportOptions& options,
                                 onnx::ModelProto& model) {
  WEFT_TRY(detail::parse_model(bytes, model_path, model));
  WEFT_TRY(check_opsets(model, model_path));
  if (auto st = detail::check_declared_dims(model.graph()); !st) return invalid(model_path, st.error().message);

  GraphInfo info;
  info.model_path = model_path;
  info.model_sha256 = sha256_hex(bytes);
  info.opset = default_opset(model);

  onnx::GraphProto& g = *model.mutable_graph();
  WEFT_TRY(constants_to_initializers(g, model_path, info));
  std::unordered_set<std::string> inits;
  for (const auto& t : g.initializer()) inits.insert(t.name());
  Rebatched rebatched;
  if (options.batch > 0) rebatched = rebatch(g, options.batch, inits, info);
  std::vector<InputSymbols> symbols = bind_dims(g, options, inits, info);

  // Refuse broken structure (cycles, undefined or doubly produced tensors) before any folding.
  WEFT_TRY_ASSIGN(Graph structure, build_graph(model, model_path, symbols, GraphInfo{}, false));

  // libonnx's inference divides by some attributes: a zero there would be a SIGFPE.
  if (auto st = detail::check_inference_attributes(g); !st) return invalid(model_path, st.error().message);
  const std::vector<onnx::ValueInfoProto> file_value_info(g.value_info().begin(), g.value_info().end());
  for (int round = 0;; ++round) {
    run_shape_inference(model, file_value_info, model_path, info);
    if (!options.fold || round >= kMaxFoldRounds) break;
    detail::FoldResult r = detail::fold_round(*model.mutable_graph(), info.opset, model_dir_of(model_path));
    for (std::string& w : r.warnings) info.warnings.push_back(model_path + ": " + std::move(w));
    if (r.folded == 0) break;
    info.folded_nodes += r.folded;
  }
  if (!rebatched.batched_outputs.empty()) check_rebatched(model.graph(), rebatched, info);
  warn_random_dropouts(model.graph(), info);
  return Prepared{std::move(info), std::move(symbols), std::move(structure)};
}

// The model lives in an arena: parsing, inference's value_info and folding allocate from a few
// large blocks, and the whole proto is freed at once (at 100k operators, freeing message by
// message cost a tenth of the import).
google::protobuf::ArenaOptions arena_options_for(std::string_view bytes) {
  google::protobuf::ArenaOptions arena_options;
  arena_options.start_block_size = std::clamp<std::size_t>(bytes.size(), 4096, std::size_t{64} << 20);
  arena_options.max_block_size = std::size_t{64} << 20;
  return arena_options;
}

}  // namespace

Expected<Graph> import_onnx_bytes(std::string_view bytes, const std::string& model_path, const ImportOptions& options) {
  try {
    google::protobuf::Arena arena(arena_options_for(bytes));
    onnx::ModelProto& model = *google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
    WEFT_TRY_ASSIGN(Prepared p, prepare_model(bytes, model_path, options, model));
    if (p.info.folded_nodes == 0 && !holds_bodies(p.structure))
      return type_structure(std::move(p.structure), model, model_path, p.symbols, std::move(p.info));
    return build_graph(model, model_path, p.symbols, std::move(p.info), true);
  } catch (const std::exception& e) {
    // libonnx and protobuf may throw on hostile input; nothing escapes the importer.
    return invalid(model_path, std::string("import failed: ") + e.what());
  }
}

Expected<std::string> imported_model_bytes(std::string_view bytes, const std::string& model_path, const ImportOptions& options) {
  try {
    google::protobuf::Arena arena(arena_options_for(bytes));
    onnx::ModelProto& model = *google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
    WEFT_TRY(prepare_model(bytes, model_path, options, model));
    std::string out;
    if (!model.SerializeToString(&out)) return invalid(model_path, "the imported model does not serialise (over 2 GB?)");
    return out;
  } catch (const std::exception& e) {
    return invalid(model_path, std::string("import failed: ") + e.what());
  }
}

Expected<Graph> import_onnx(const std::string& path, const ImportOptions& options) {
  WEFT_TRY_ASSIGN(auto bytes, read_file(path));
  return import_onnx_bytes(bytes, path, options);
}

}  // namespace weft::core
