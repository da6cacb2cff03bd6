#include "weft/core/base/check.h"
#include "weft/core/graph/graph.h"

#include <algorithm>
#include <cstdint>
#include <queue>
#include <sstream>
#include <utility>

#include "weft/core/base/tensor_size.h"

namespace weft::core {

using detail::idx;

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::Float32: case DType::Int32: case DType::UInt32: return 4;
    case DType::UInt8: case DType::Int8: case DType::Bool: return 1;
    case DType::UInt16: case DType::Int16: case DType::Float16: case DType::BFloat16: return 2;
    case DType::Int64: case DType::Float64: case DType::UInt64: return 8;
    case DType::String: case DType::Undefined: return 0;
  }
  return 0;
}

std::optional<std::int64_t> checked_elements(std::span<const std::int64_t> dims, std::size_t element_size) {
  // Each factor is bounded before it multiplies, so no product leaves 64 bits. Zero dims count as
  // one in the bound: kernels form products of partial dims (strides) whatever the total.
  std::int64_t bound = 1;
  bool empty = false;
  for (std::int64_t d : dims) {
    if (d < 0 || d > kMaxTensorBytes) return std::nullopt;
    if (d == 0) empty = true;
    else if (bound > kMaxTensorBytes / d) return std::nullopt;
    else bound *= d;
  }
  const auto es = static_cast<std::int64_t>(element_size);
  if (es > 0 && bound > kMaxTensorBytes / es) return std::nullopt;
  return empty ? 0 : bound;
}

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::Undefined: return "undefined";
    case DType::Float32: return "float32";
    case DType::UInt8: return "uint8";
    case DType::Int8: return "int8";
    case DType::UInt16: return "uint16";
    case DType::Int16: return "int16";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::String: return "string";
    case DType::Bool: return "bool";
    case DType::Float16: return "float16";
    case DType::Float64: return "float64";
    case DType::UInt32: return "uint32";
    case DType::UInt64: return "uint64";
    case DType::BFloat16: return "bfloat16";
  }
  return "undefined";
}

std::string_view tensor_kind_name(TensorKind k) {
  switch (k) {
    case TensorKind::Input: return "input";
    case TensorKind::Weight: return "weight";
    case TensorKind::Intermediate: return "intermediate";
    case TensorKind::Output: return "output";
  }
  return "intermediate";
}

bool Tensor::shape_known() const {
  if (!rank_known) return false;
  return std::all_of(dims.begin(), dims.end(), [](const Dim& d) { return d.known(); });
}

std::vector<std::int64_t> Tensor::shape() const {
  WEFT_CHECK(shape_known());
  std::vector<std::int64_t> s;
  s.reserve(dims.size());
  for (const Dim& d : dims) s.push_back(d.value);
  return s;
}

std::int64_t Tensor::elements() const {
  if (!shape_known()) return -1;
  std::int64_t n = 1;
  for (const Dim& d : dims) n *= d.value;
  return n;
}

std::int64_t Tensor::bytes() const {
  const std::int64_t n = elements();
  const std::size_t es = dtype_size(dtype);
  if (n < 0 || es == 0) return -1;
  return n * static_cast<std::int64_t>(es);
}

const Attribute* Node::attribute(std::string_view attr_name) const {
  for (const Attribute& a : attributes)
    if (a.name == attr_name) return &a;
  return nullptr;
}

std::int64_t Node::attr_int(std::string_view attr_name, std::int64_t fallback) const {
  const Attribute* a = attribute(attr_name);
  return a && a->type == Attribute::Type::Int ? a->i : fallback;
}

float Node::attr_float(std::string_view attr_name, float fallback) const {
  const Attribute* a = attribute(attr_name);
  return a && a->type == Attribute::Type::Float ? a->f : fallback;
}

std::string Node::attr_string(std::string_view attr_name, std::string_view fallback) const {
  const Attribute* a = attribute(attr_name);
  return a && a->type == Attribute::Type::String ? a->s : std::string(fallback);
}

std::vector<std::int64_t> Node::attr_ints(std::string_view attr_name) const {
  const Attribute* a = attribute(attr_name);
  return a && a->type == Attribute::Type::Ints ? a->ints : std::vector<std::int64_t>{};
}

std::span<const NodeId> Graph::successors(NodeId n) const {
  const auto i = static_cast<std::size_t>(n);
  return {m_succ.data() + m_succ_begin[i], m_succ_begin[i + 1] - m_succ_begin[i]};
}

std::span<const NodeId> Graph::predecessors(NodeId n) const {
  const auto i = static_cast<std::size_t>(n);
  return {m_pred.data() + m_pred_begin[i], m_pred_begin[i + 1] - m_pred_begin[i]};
}

namespace {
template <typename T>
std::span<const T> csr_row(const std::vector<std::uint32_t>& begin, const std::vector<T>& items, std::int32_t row) {
  const auto i = static_cast<std::size_t>(row);
  return {items.data() + begin[i], begin[i + 1] - begin[i]};
}
}  // namespace

std::span<const TensorId> Graph::reads(NodeId n) const { return csr_row(m_read_begin, m_reads, n); }
std::span<const NodeId> Graph::consumers(TensorId t) const { return csr_row(m_consumer_begin, m_consumers, t); }
std::span<const NodeId> Graph::readers(TensorId t) const { return csr_row(m_reader_begin, m_readers, t); }
std::span<const NodeId> Graph::writers(TensorId t) const { return csr_row(m_writer_begin, m_writers, t); }

namespace {

// NameIndex's view of a vector of named records (tensors, nodes): id -> name.
template <class Records>
auto names_of(const Records& records) {
  return [&records](std::int32_t id) -> const std::string& { return records[idx(id)].name; };
}

}  // namespace

namespace detail {

void NameIndex::reserve(std::size_t names) {
  if (2 * names > m_slots.size()) grow(names);
}

std::uint32_t NameIndex::hash(std::string_view name) {
  const std::uint64_t h = std::hash<std::string_view>{}(name);
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}

void NameIndex::grow(std::size_t names) {
  WEFT_CHECK_MSG(names < (std::size_t{1} << 30), "NameIndex: more than 2^30 names");
  std::size_t slots = 16;
  while (slots < 2 * names) slots *= 2;
  std::vector<Slot> old = std::exchange(m_slots, std::vector<Slot>(slots));
  for (const Slot& s : old) {
    if (s.id < 0) continue;
    std::size_t i = s.hash & mask();
    while (m_slots[i].id >= 0) i = (i + 1) & mask();
    m_slots[i] = s;
  }
}

}  // namespace detail

std::optional<NodeId> Graph::find_node(std::string_view name) const {
  return m_node_by_name.find(name, names_of(m_nodes));
}

std::optional<TensorId> Graph::find_tensor(std::string_view name) const {
  return m_tensor_by_name.find(name, names_of(m_tensors));
}

void GraphBuilder::reserve(std::size_t tensors, std::size_t nodes) {
  m_tensors.reserve(tensors);
  m_by_name.reserve(tensors);
  m_nodes.reserve(nodes);
}

TensorId GraphBuilder::tensor(std::string_view name) {
  // One hash per call, found or added.
  const auto [id, added] = m_by_name.insert(name, static_cast<TensorId>(m_tensors.size()), names_of(m_tensors));
  if (added) {
    Tensor t;
    t.name = std::string(name);
    m_tensors.push_back(std::move(t));
  }
  return id;
}

std::optional<TensorId> GraphBuilder::find_tensor(std::string_view name) const {
  return m_by_name.find(name, names_of(m_tensors));
}

TensorId GraphBuilder::add_input(std::string_view name, DType dtype, std::vector<Dim> dims) {
  const TensorId id = tensor(name);
  Tensor& t = tensor_ref(id);
  t.kind = TensorKind::Input;
  t.dtype = dtype;
  t.dims = std::move(dims);
  t.rank_known = true;
  m_inputs.push_back(id);
  return id;
}

TensorId GraphBuilder::add_weight(std::string_view name, DType dtype, std::vector<std::int64_t> shape,
                                  WeightData data) {
  const TensorId id = tensor(name);
  Tensor& t = tensor_ref(id);
  t.kind = TensorKind::Weight;
  t.dtype = dtype;
  t.dims.clear();
  for (std::int64_t d : shape) t.dims.push_back(Dim{d, {}});
  t.rank_known = true;
  t.data = std::move(data);
  return id;
}

void GraphBuilder::mark_output(std::string_view name) { m_output_names.emplace_back(name); }

NodeId GraphBuilder::add_node(std::string_view name, std::string_view op_type, std::span<const std::string> inputs,
                              std::span<const std::string> outputs, std::vector<Attribute> attributes,
                              std::string_view domain) {
  const auto id = static_cast<NodeId>(m_nodes.size());
  PendingNode p;
  p.node.name = std::string(name);
  p.node.op_type = std::string(op_type);
  p.node.domain = std::string(domain);
  p.node.attributes = std::move(attributes);
  for (const std::string& in : inputs) p.node.inputs.push_back(in.empty() ? kNoTensor : tensor(in));
  for (const std::string& out : outputs) p.node.outputs.push_back(out.empty() ? kNoTensor : tensor(out));
  m_nodes.push_back(std::move(p));
  return id;
}

NodeId GraphBuilder::add_node(std::string_view name, std::string_view op_type, std::initializer_list<std::string> inputs,
                              std::initializer_list<std::string> outputs) {
  return add_node(name, op_type, std::span<const std::string>(inputs.begin(), inputs.size()),
                  std::span<const std::string>(outputs.begin(), outputs.size()));
}

void GraphBuilder::set_view(std::string_view name, std::string_view parent, std::int64_t byte_offset) {
  m_views.push_back({tensor(name), tensor(parent), byte_offset});
}

void GraphBuilder::set_shape(std::string_view tensor_name, DType dtype, std::vector<std::int64_t> shape) {
  Tensor& t = tensor_ref(tensor(tensor_name));
  t.dtype = dtype;
  t.dims.clear();
  for (std::int64_t d : shape) t.dims.push_back(Dim{d, {}});
  t.rank_known = true;
}

namespace {

// Sizes are checked when a graph is built (or typed), so no pass (analysis, planning, executors)
// multiplies its way out of 64 bits or allocates for a tensor no machine holds.
Status check_sizes(const std::vector<Tensor>& tensors) {
  std::vector<std::int64_t> shape;
  for (const Tensor& t : tensors) {
    if (!t.shape_known()) continue;
    shape.clear();
    for (const Dim& d : t.dims) shape.push_back(d.value);
    if (!checked_elements(shape, dtype_size(t.dtype)))
      return make_error(ErrorKind::InvalidInput, "tensor '" + t.name + "' of shape " + format_shape(t) +
                                                     ": its size overflows (a tensor may hold at most 2^48 bytes)");
  }
  return {};
}

}  // namespace

Expected<Graph> GraphBuilder::retype(Graph&& graph, const std::function<Status(TensorId, Tensor&)>& type, GraphInfo info) {
  Graph g = std::move(graph);
  for (const Tensor& t : g.m_tensors) WEFT_CHECK_MSG(t.views.empty(), "retype: a graph with views keeps its types");
  for (std::size_t t = 0; t < g.m_tensors.size(); ++t) {
    Tensor& tensor = g.m_tensors[t];
    // Only the type may change: the links build() derived stay as they are.
    const NodeId producer = tensor.producer;
    const TensorKind kind = tensor.kind;
    const std::size_t consumers = tensor.consumers.size();
    WEFT_TRY(type(static_cast<TensorId>(t), tensor));
    WEFT_CHECK(tensor.producer == producer && tensor.kind == kind && tensor.consumers.size() == consumers &&
               tensor.views.empty() && !tensor.is_view());
  }
  WEFT_TRY(check_sizes(g.m_tensors));
  for (std::size_t t = 0; t < g.m_tensors.size(); ++t) g.m_bytes[t] = g.m_tensors[t].bytes();
  g.m_info = std::move(info);
  return g;
}

Status GraphBuilder::name_nodes(Graph& g) {
  const std::size_t n = g.m_nodes.size();
  // Stable keys: unnamed nodes get "#<index>:<op>"; duplicate names are an error.
  for (std::size_t i = 0; i < n; ++i) {
    Node& node = g.m_nodes[i];
    if (node.name.empty()) node.name = "#" + std::to_string(i) + ":" + node.op_type;
    if (!g.m_node_by_name.insert(node.name, static_cast<NodeId>(i), names_of(g.m_nodes)).second)
      return make_error(ErrorKind::InvalidInput, "duplicate node name '" + node.name + "'");
  }
  return {};
}

Status GraphBuilder::attach_views(Graph& g, const std::vector<PendingView>& views) {
  // Views of inputs are inputs (nodes read them like one); views of outputs are resolved below.
  for (const PendingView& v : views) {
    Tensor& view = g.m_tensors[static_cast<std::size_t>(v.view)];
    const Tensor& parent = g.m_tensors[static_cast<std::size_t>(v.parent)];
    if (v.view == v.parent || view.view_of != kNoTensor || parent.view_of != kNoTensor)
      return make_error(ErrorKind::InvalidInput, "tensor '" + view.name + "' is made a view twice or of a view");
    if (view.kind == TensorKind::Input || view.kind == TensorKind::Weight)
      return make_error(ErrorKind::InvalidInput, "view '" + view.name + "' is declared as a graph " +
                                                     std::string(tensor_kind_name(view.kind)));
    view.view_of = v.parent;
    view.view_offset = v.offset;
    if (parent.kind == TensorKind::Input) view.kind = TensorKind::Input;
  }
  return {};
}

Status GraphBuilder::find_producers(const Graph& g, std::vector<NodeId>& producer, std::vector<char>& defined_outside) {
  const std::size_t n = g.m_nodes.size();
  // Producers: one per tensor; graph inputs and weights have none. Nodes name tensors in no
  // memory order, so producers, kinds and readers are gathered in flat arrays (counting sorts)
  // and written to the Tensor records in one pass.
  const std::size_t t_count = g.m_tensors.size();
  producer.assign(t_count, kNoNode);
  defined_outside.assign(t_count, 0);  // graph inputs and weights
  for (std::size_t t = 0; t < t_count; ++t) {
    const TensorKind kind = g.m_tensors[t].kind;
    defined_outside[t] = kind == TensorKind::Input || kind == TensorKind::Weight;
    producer[t] = g.m_tensors[t].producer;
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (TensorId t : g.m_nodes[i].outputs) {
      if (t == kNoTensor) continue;
      const auto ut = static_cast<std::size_t>(t);
      const Tensor& tensor = g.m_tensors[ut];
      if (producer[ut] != kNoNode)
        return make_error(ErrorKind::InvalidInput, "tensor '" + tensor.name + "' is produced by two nodes: '" +
                                                       g.m_nodes[static_cast<std::size_t>(producer[ut])].name +
                                                       "' and '" + g.m_nodes[i].name + "'");
      if (defined_outside[ut])
        return make_error(ErrorKind::InvalidInput, "node '" + g.m_nodes[i].name + "' writes tensor '" + tensor.name +
                                                       "', which is a graph " +
                                                       std::string(tensor_kind_name(tensor.kind)));
      producer[ut] = static_cast<NodeId>(i);
    }
  }
  return {};
}

Status GraphBuilder::list_readers(Graph& g, const std::vector<NodeId>& producer, const std::vector<char>& defined_outside) {
  const std::size_t n = g.m_nodes.size();
  const std::size_t t_count = g.m_tensors.size();
  // Readers, one entry per reading node, in node order.
  std::vector<std::uint32_t> reader_count(t_count + 1, 0);
  std::vector<NodeId> last_reader(t_count, kNoNode);
  for (std::size_t i = 0; i < n; ++i) {
    for (TensorId t : g.m_nodes[i].inputs) {
      if (t == kNoTensor) continue;
      const auto ut = static_cast<std::size_t>(t);
      if (producer[ut] == kNoNode && !defined_outside[ut])
        return make_error(ErrorKind::InvalidInput, "node '" + g.m_nodes[i].name + "' (" + g.m_nodes[i].op_type +
                                                       ") reads tensor '" + g.m_tensors[ut].name +
                                                       "', which no node, input or initializer defines");
      if (last_reader[ut] != static_cast<NodeId>(i)) {
        last_reader[ut] = static_cast<NodeId>(i);
        ++reader_count[ut + 1];
      }
    }
  }
  for (std::size_t t = 0; t < t_count; ++t) reader_count[t + 1] += reader_count[t];
  // The same pass lists each node's distinct reads (Graph::reads), in first-read order.
  std::vector<NodeId> reader_list(reader_count[t_count]);
  g.m_read_begin.assign(n + 1, 0);
  g.m_reads.reserve(reader_list.size());
  {
    std::vector<std::uint32_t> at(reader_count.begin(), reader_count.end() - 1);
    std::fill(last_reader.begin(), last_reader.end(), kNoNode);
    for (std::size_t i = 0; i < n; ++i) {
      for (TensorId t : g.m_nodes[i].inputs) {
        if (t == kNoTensor) continue;
        const auto ut = static_cast<std::size_t>(t);
        if (last_reader[ut] == static_cast<NodeId>(i)) continue;
        last_reader[ut] = static_cast<NodeId>(i);
        reader_list[at[ut]++] = static_cast<NodeId>(i);
        g.m_reads.push_back(t);
      }
      WEFT_CHECK(g.m_reads.size() <= UINT32_MAX);
      g.m_read_begin[i + 1] = static_cast<std::uint32_t>(g.m_reads.size());
    }
  }
  for (std::size_t t = 0; t < t_count; ++t) {
    Tensor& tensor = g.m_tensors[t];
    tensor.producer = producer[t];
    tensor.consumers.assign(reader_list.begin() + reader_count[t], reader_list.begin() + reader_count[t + 1]);
  }
  g.m_consumers = std::move(reader_list);  // Graph::consumers: the same lists, flat
  g.m_consumer_begin = std::move(reader_count);
  return {};
}

Status GraphBuilder::mark_outputs(Graph& g, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    const std::optional<TensorId> id = g.find_tensor(name);
    if (!id) return make_error(ErrorKind::InvalidInput, "graph output '" + name + "' is not defined by any node");
    Tensor& t = g.m_tensors[idx(*id)];
    if (t.kind == TensorKind::Intermediate) t.kind = TensorKind::Output;
    g.m_outputs.push_back(*id);
  }
  return {};
}

Status GraphBuilder::check_views(Graph& g, const std::vector<PendingView>& views) {
  for (const PendingView& v : views) {
    Tensor& view = g.m_tensors[static_cast<std::size_t>(v.view)];
    Tensor& parent = g.m_tensors[static_cast<std::size_t>(v.parent)];
    const std::string what = "view '" + view.name + "' of '" + parent.name + "'";
    if (parent.kind == TensorKind::Output && parent.producer == kNoNode) {
      if (view.producer == kNoNode) return make_error(ErrorKind::InvalidInput, what + ": no node writes it");
      view.kind = TensorKind::Output;
    } else if (parent.kind == TensorKind::Intermediate && parent.producer == kNoNode) {
      // One block for tensors written side by side (a merged node's outputs): only the views are
      // written and read (a node reading the block itself was refused above: nothing defines
      // it), so data edges stay those of the views.
      if (view.producer == kNoNode) return make_error(ErrorKind::InvalidInput, what + ": no node writes it");
    } else if (parent.kind != TensorKind::Input) {
      return make_error(ErrorKind::InvalidInput,
                        what + ": the parent must be a graph input, or a graph output or intermediate no node writes");
    }
    if (view.dtype != parent.dtype || !view.shape_known() || !parent.shape_known())
      return make_error(ErrorKind::InvalidInput, what + ": both need the same dtype and static shapes");
    if (v.offset < 0 || v.offset + view.bytes() > parent.bytes())
      return make_error(ErrorKind::InvalidInput, what + ": bytes [" + std::to_string(v.offset) + ", " +
                                                     std::to_string(v.offset + view.bytes()) + ") lie outside the parent's " +
                                                     std::to_string(parent.bytes()));
    parent.views.push_back(v.view);
  }
  for (Tensor& t : g.m_tensors) std::sort(t.views.begin(), t.views.end());

  return {};
}

void GraphBuilder::flat_access_lists(Graph& g) {
  const std::size_t t_count = g.m_tensors.size();
  // Flat access lists (Graph::readers, writers, bytes; consumers and reads above).
  g.m_reader_begin.assign(t_count + 1, 0);
  g.m_writer_begin.assign(t_count + 1, 0);
  g.m_bytes.resize(t_count);
  for (std::size_t ti = 0; ti < t_count; ++ti) {
    const Tensor& t = g.m_tensors[ti];
    g.m_bytes[ti] = t.bytes();
    const auto readers_from = static_cast<std::ptrdiff_t>(g.m_readers.size());
    g.m_readers.insert(g.m_readers.end(), t.consumers.begin(), t.consumers.end());
    const auto writers_from = static_cast<std::ptrdiff_t>(g.m_writers.size());
    if (t.producer != kNoNode) g.m_writers.push_back(t.producer);
    if (!t.views.empty()) {
      for (TensorId v : t.views) {
        const Tensor& view = g.m_tensors[static_cast<std::size_t>(v)];
        g.m_readers.insert(g.m_readers.end(), view.consumers.begin(), view.consumers.end());
        if (view.producer != kNoNode) g.m_writers.push_back(view.producer);
      }
      std::sort(g.m_readers.begin() + readers_from, g.m_readers.end());
      g.m_readers.erase(std::unique(g.m_readers.begin() + readers_from, g.m_readers.end()), g.m_readers.end());
      std::sort(g.m_writers.begin() + writers_from, g.m_writers.end());
      // A merged node writes every view of its outputs' block: one writer, listed once.
      g.m_writers.erase(std::unique(g.m_writers.begin() + writers_from, g.m_writers.end()), g.m_writers.end());
    }
    WEFT_CHECK(g.m_readers.size() <= UINT32_MAX && g.m_writers.size() <= UINT32_MAX);
    g.m_reader_begin[ti + 1] = static_cast<std::uint32_t>(g.m_readers.size());
    g.m_writer_begin[ti + 1] = static_cast<std::uint32_t>(g.m_writers.size());
  }

}

Status GraphBuilder::node_edges(Graph& g, const std::vector<NodeId>& producer) {
  const std::size_t n = g.m_nodes.size();
  // Distinct node edges in CSR form, built in place: each node's predecessors sorted and
  // deduplicated, successors in increasing node order.
  g.m_pred_begin.assign(n + 1, 0);
  g.m_pred.reserve(n);
  std::vector<NodeId> preds;
  for (std::size_t i = 0; i < n; ++i) {
    preds.clear();
    for (std::uint32_t k = g.m_read_begin[i]; k < g.m_read_begin[i + 1]; ++k) {
      const TensorId t = g.m_reads[k];
      const NodeId p = producer[static_cast<std::size_t>(t)];
      if (p == kNoNode) continue;
      if (p == static_cast<NodeId>(i))
        return make_error(ErrorKind::InvalidInput, "cycle: node '" + g.m_nodes[i].name + "' reads its own output '" +
                                                       g.m_tensors[static_cast<std::size_t>(t)].name + "'");
      preds.push_back(p);
    }
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    g.m_pred.insert(g.m_pred.end(), preds.begin(), preds.end());
    g.m_pred_begin[i + 1] = static_cast<std::uint32_t>(g.m_pred.size());
  }
  g.m_succ_begin.assign(n + 1, 0);
  for (NodeId q : g.m_pred) ++g.m_succ_begin[static_cast<std::size_t>(q) + 1];
  for (std::size_t i = 0; i < n; ++i) g.m_succ_begin[i + 1] += g.m_succ_begin[i];
  g.m_succ.resize(g.m_pred.size());
  {
    std::vector<std::uint32_t> at(g.m_succ_begin.begin(), g.m_succ_begin.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
      for (std::uint32_t k = g.m_pred_begin[i]; k < g.m_pred_begin[i + 1]; ++k)
        g.m_succ[at[static_cast<std::size_t>(g.m_pred[k])]++] = static_cast<NodeId>(i);
  }
  return {};
}

Status GraphBuilder::topological_order(Graph& g) {
  const std::size_t n = g.m_nodes.size();
  const auto pred = [&](std::size_t i) {
    return std::span<const NodeId>(g.m_pred.data() + g.m_pred_begin[i], g.m_pred_begin[i + 1] - g.m_pred_begin[i]);
  };
  const auto succ = [&](std::size_t i) {
    return std::span<const NodeId>(g.m_succ.data() + g.m_succ_begin[i], g.m_succ_begin[i + 1] - g.m_succ_begin[i]);
  };
  // Kahn's algorithm, smallest index first, so a sorted file keeps its order.
  std::vector<std::uint32_t> indeg(n);
  for (std::size_t i = 0; i < n; ++i) indeg[i] = g.m_pred_begin[i + 1] - g.m_pred_begin[i];
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<>> ready;
  for (std::size_t i = 0; i < n; ++i)
    if (indeg[i] == 0) ready.push(static_cast<NodeId>(i));
  g.m_topo.reserve(n);
  while (!ready.empty()) {
    const NodeId u = ready.top();
    ready.pop();
    g.m_topo.push_back(u);
    for (NodeId v : succ(static_cast<std::size_t>(u)))
      if (--indeg[static_cast<std::size_t>(v)] == 0) ready.push(v);
  }
  if (g.m_topo.size() != n) {
    // Walk predecessors among the unsorted nodes until one repeats: that loop is a cycle.
    NodeId start = kNoNode;
    for (std::size_t i = 0; i < n; ++i)
      if (indeg[i] > 0) { start = static_cast<NodeId>(i); break; }
    std::vector<int> seen(n, -1);
    std::vector<NodeId> walk;
    NodeId cur = start;
    while (seen[static_cast<std::size_t>(cur)] < 0) {
      seen[static_cast<std::size_t>(cur)] = static_cast<int>(walk.size());
      walk.push_back(cur);
      for (NodeId p : pred(static_cast<std::size_t>(cur)))
        if (indeg[static_cast<std::size_t>(p)] > 0) { cur = p; break; }
    }
    std::ostringstream os;
    os << "cycle: ";
    const auto first = static_cast<std::size_t>(seen[static_cast<std::size_t>(cur)]);
    for (std::size_t k = walk.size(); k-- > first;) os << "'" << g.m_nodes[static_cast<std::size_t>(walk[k])].name << "' -> ";
    // walk runs against the edges, so printed backwards it follows them; close the loop at its start.
    os << "'" << g.m_nodes[static_cast<std::size_t>(walk.back())].name << "'";
    return make_error(ErrorKind::InvalidInput, os.str());
  }
  return {};
}

Expected<Graph> GraphBuilder::build() && {
  Graph g;
  g.m_info = std::move(m_info);
  g.m_tensors = std::move(m_tensors);
  g.m_tensor_by_name = std::move(m_by_name);
  g.m_inputs = std::move(m_inputs);
  g.m_nodes.reserve(m_nodes.size());
  g.m_node_by_name.reserve(m_nodes.size());
  for (PendingNode& p : m_nodes) g.m_nodes.push_back(std::move(p.node));
  WEFT_TRY(check_sizes(g.m_tensors));
  WEFT_TRY(name_nodes(g));
  WEFT_TRY(attach_views(g, m_views));
  // Nodes name tensors in no memory order, so producers, kinds and readers are gathered in flat
  // arrays (counting sorts) and written to the Tensor records in one pass.
  std::vector<NodeId> producer;
  std::vector<char> defined_outside;
  WEFT_TRY(find_producers(g, producer, defined_outside));
  WEFT_TRY(list_readers(g, producer, defined_outside));
  WEFT_TRY(mark_outputs(g, m_output_names));
  WEFT_TRY(check_views(g, m_views));
  flat_access_lists(g);
  WEFT_TRY(node_edges(g, producer));
  WEFT_TRY(topological_order(g));
  return g;
}

std::vector<std::pair<std::string, std::shared_ptr<const Graph>>> node_subgraphs(const Node& node) {
  std::vector<std::pair<std::string, std::shared_ptr<const Graph>>> out;
  for (const Attribute& a : node.attributes) {
    if (a.graph) out.emplace_back(a.name, a.graph);
    for (const auto& g : a.graphs)
      if (g) out.emplace_back(a.name, g);
  }
  return out;
}

std::string format_shape(const Tensor& t) {
  if (!t.rank_known) return "?";
  if (t.dims.empty()) return "scalar";
  std::string s;
  for (std::size_t i = 0; i < t.dims.size(); ++i) {
    if (i) s += 'x';
    const Dim& d = t.dims[i];
    s += d.known() ? std::to_string(d.value) : (d.symbol.empty() ? std::string("?") : d.symbol);
  }
  return s;
}

}  // namespace weft::core
