#pragma once
// The immutable operator graph: dense node and tensor ids, built once by GraphBuilder.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/base/expected.h"

namespace weft::core {

using NodeId = std::int32_t;
using TensorId = std::int32_t;
inline constexpr NodeId kNoNode = -1;
inline constexpr TensorId kNoTensor = -1;

namespace detail {
/// A node id as an index into per-node vectors (passes bring it in with `using detail::idx;`).
constexpr std::size_t idx(NodeId v) { return static_cast<std::size_t>(v); }

/// Ids of named records (a graph's tensors, its nodes), found by name. Open addressing over
/// flat slots holding each name's hash and id; the names stay in the records, read through
/// `name_of(id)`, so an entry costs 8 bytes and no allocation (a node-based map allocated,
/// copied and later freed one key per name, which was a fifth of importing 100k operators).
class NameIndex {
 public:
  /// Room for `names` names without growing.
  void reserve(std::size_t names);
  /// The id stored under `name`, or nullopt.
  template <class NameOf>
  std::optional<std::int32_t> find(std::string_view name, const NameOf& name_of) const {
    if (m_slots.empty()) return std::nullopt;
    const std::uint32_t h = hash(name);
    for (std::size_t i = h & mask();; i = (i + 1) & mask()) {
      const Slot& s = m_slots[i];
      if (s.id < 0) return std::nullopt;
      if (s.hash == h && std::string_view(name_of(s.id)) == name) return s.id;
    }
  }
  /// Stores `id` under `name` unless some id is there; returns the id under `name` afterwards
  /// and whether `id` was stored. `name_of` is asked only about ids already stored.
  template <class NameOf>
  std::pair<std::int32_t, bool> insert(std::string_view name, std::int32_t id, const NameOf& name_of) {
    if (2 * (m_size + 1) > m_slots.size()) grow(m_size + 1);
    const std::uint32_t h = hash(name);
    for (std::size_t i = h & mask();; i = (i + 1) & mask()) {
      Slot& s = m_slots[i];
      if (s.id < 0) {
        s = Slot{h, id};
        ++m_size;
        return {id, true};
      }
      if (s.hash == h && std::string_view(name_of(s.id)) == name) return {s.id, false};
    }
  }

 private:
  struct Slot {
    std::uint32_t hash = 0;
    std::int32_t id = -1;  ///< -1: empty
  };
  static std::uint32_t hash(std::string_view name);
  std::size_t mask() const { return m_slots.size() - 1; }
  void grow(std::size_t names);  ///< at least 2 * names slots, a power of two; rehashes from the stored hashes
  std::vector<Slot> m_slots;
  std::size_t m_size = 0;
};
}  // namespace detail

/// Element types (values follow onnx::TensorProto::DataType so the importer can cast).
enum class DType : std::int32_t {
  Undefined = 0, Float32 = 1, UInt8 = 2, Int8 = 3, UInt16 = 4, Int16 = 5, Int32 = 6, Int64 = 7,
  String = 8, Bool = 9, Float16 = 10, Float64 = 11, UInt32 = 12, UInt64 = 13, BFloat16 = 16,
};
/// Bytes per element; 0 for Undefined and String.
std::size_t dtype_size(DType t);
std::string_view dtype_name(DType t);

enum class TensorKind : std::uint8_t { Input, Weight, Intermediate, Output };
std::string_view tensor_kind_name(TensorKind k);

/// Where a weight's bytes live. Analysis never reads them; executors do.
struct WeightData {
  /// Bytes held in memory (initializer raw_data / typed data, folded constants). Shared, never copied.
  std::shared_ptr<const std::vector<std::uint8_t>> inline_bytes;
  /// External data (ONNX external_data): file path (absolute, resolved against the model's folder),
  /// byte offset and length (-1: to end of file). Empty path: none.
  std::string external_path;
  std::int64_t external_offset = 0;
  std::int64_t external_length = -1;
  bool has_data() const { return inline_bytes != nullptr || !external_path.empty(); }
};

/// One dimension: a static value, or a symbol (dim_param) that --dim may bind, or unknown.
struct Dim {
  std::int64_t value = -1;  ///< >= 0 when known
  std::string symbol;       ///< ONNX dim_param, when any
  bool known() const { return value >= 0; }
};

struct Tensor {
  std::string name;
  DType dtype = DType::Undefined;
  std::vector<Dim> dims;       ///< empty + shape_known: a scalar
  bool rank_known = false;     ///< false: nothing is known of the shape
  TensorKind kind = TensorKind::Intermediate;
  NodeId producer = kNoNode;   ///< kNoNode for inputs and weights
  std::vector<NodeId> consumers;  ///< in node-id order, one entry per reading node (deduplicated)
  WeightData data;             ///< only for weights
  /// A view (micro-batch split): this tensor is bytes [view_offset, view_offset + bytes()) of
  /// tensor view_of, a graph input or output, and has no storage of its own. Executors and the
  /// memory plan place it inside its parent; liveness counts its readers and writer as the parent's.
  TensorId view_of = kNoTensor;
  std::int64_t view_offset = 0;
  std::vector<TensorId> views;  ///< the views of this tensor, ascending (empty for most tensors)

  bool is_view() const { return view_of != kNoTensor; }

  /// True when the rank and every dimension are known.
  bool shape_known() const;
  /// Static shape; asserts shape_known().
  std::vector<std::int64_t> shape() const;
  /// Element count, or -1 when the shape is not static.
  std::int64_t elements() const;
  /// Size in bytes, or -1 when the shape or the dtype size is unknown.
  std::int64_t bytes() const;
};

class Graph;

/// An ONNX attribute, kept generic. Graph-valued attributes (If/Loop/Scan bodies) hold the body as
/// an immutable Graph of its own (`graph`, or `graphs` for a list; `i` is their count), so the
/// control-flow node stays one node of the enclosing graph and passes that do not look inside
/// see an ordinary node. A body's inputs() are its formal inputs, then the names it reads from
/// enclosing scopes (its GraphInfo::captures, in that order).
struct Attribute {
  enum class Type : std::uint8_t { Undefined, Float, Int, String, Tensor, Floats, Ints, Strings, Graph, Graphs };
  std::string name;
  Type type = Type::Undefined;
  float f = 0.0f;
  std::int64_t i = 0;
  std::string s;
  std::vector<float> floats;
  std::vector<std::int64_t> ints;
  std::vector<std::string> strings;
  /// Tensor-valued attributes (e.g. ConstantOfShape value): dtype, dims and raw little-endian bytes.
  DType tensor_dtype = DType::Undefined;
  std::vector<std::int64_t> tensor_dims;
  std::vector<std::uint8_t> tensor_bytes;
  std::shared_ptr<const Graph> graph;                ///< Type::Graph
  std::vector<std::shared_ptr<const Graph>> graphs;  ///< Type::Graphs
};

struct Node {
  std::string name;     ///< may be empty in the file; the builder gives unnamed nodes a stable key
  std::string op_type;
  std::string domain;   ///< "" for the default ONNX domain
  std::vector<TensorId> inputs;   ///< kNoTensor for an omitted optional input
  std::vector<TensorId> outputs;  ///< kNoTensor for an omitted optional output
  std::vector<Attribute> attributes;

  const Attribute* attribute(std::string_view attr_name) const;
  std::int64_t attr_int(std::string_view attr_name, std::int64_t fallback) const;
  float attr_float(std::string_view attr_name, float fallback) const;
  std::string attr_string(std::string_view attr_name, std::string_view fallback) const;
  std::vector<std::int64_t> attr_ints(std::string_view attr_name) const;  ///< empty when absent
};

/// Facts about where the graph came from and what the importer did.
struct GraphInfo {
  std::string model_path;
  std::string model_sha256;   ///< hex digest of the model file's bytes
  std::int64_t opset = 0;
  std::int64_t folded_nodes = 0;   ///< nodes removed by constant folding at import
  std::int64_t constant_nodes = 0; ///< Constant nodes turned into weights
  std::vector<std::string> unresolved_dims;  ///< symbolic dims left unbound, e.g. "x: dim 0 'batch'"
  /// For a subgraph (If/Loop/Scan body): the enclosing-scope names it reads, sorted; they are its
  /// last inputs(). Empty for a model's main graph.
  std::vector<std::string> captures;
  std::vector<std::string> warnings;
  /// Re-batched (ImportOptions::batch): the outputs the file declared with the exported batch at
  /// dim 0 that still have it (the model fixes its batch, e.g. a Reshape to a constant shape; a
  /// warning says so too). Empty when re-batching reached every such output, or without --batch.
  std::vector<std::string> rebatch_kept;
  /// Micro-batch split (split_batch): the number of copies (0: not a split graph), the full
  /// batch, and per node its copy (-1: a batch-independent node all copies share) and the
  /// original node's key.
  std::int32_t micro_batches = 0;
  std::int64_t split_batch = 0;
  std::vector<std::int32_t> micro_batch_of;
  std::vector<std::string> origin_key;
};

/// Immutable graph. Edges are distinct producer→consumer node pairs (CSR, sorted).
/// Not copyable (it can be large); move it or share it through std::shared_ptr<const Graph>.
class Graph {
 public:
  Graph(Graph&&) noexcept = default;
  Graph& operator=(Graph&&) noexcept = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  std::size_t node_count() const { return m_nodes.size(); }
  std::size_t tensor_count() const { return m_tensors.size(); }
  std::size_t edge_count() const { return m_succ.size(); }

  const Node& node(NodeId n) const { return m_nodes[static_cast<std::size_t>(n)]; }
  const Tensor& tensor(TensorId t) const { return m_tensors[static_cast<std::size_t>(t)]; }
  std::span<const Node> nodes() const { return m_nodes; }
  std::span<const Tensor> tensors() const { return m_tensors; }

  /// Distinct successor / predecessor nodes, sorted ascending. O(1).
  std::span<const NodeId> successors(NodeId n) const;
  std::span<const NodeId> predecessors(NodeId n) const;

  /// A topological order (Kahn, smallest file index first: stable, equals file order when the file is sorted).
  std::span<const NodeId> topo_order() const { return m_topo; }

  // Flat access lists, built once with the graph. Passes that visit nodes or tensors out of
  // memory order (heaps, sweeps, clocks) read these instead of chasing Node and Tensor records,
  // whose vectors spill the cache at 100k operators. O(1) each.
  /// A node's distinct input tensors, in first-read order, omitted optionals dropped.
  std::span<const TensorId> reads(NodeId n) const;
  /// Tensor::consumers, flat.
  std::span<const NodeId> consumers(TensorId t) const;
  /// The nodes that read a tensor's bytes: its consumers and its views' consumers; ascending, distinct.
  std::span<const NodeId> readers(TensorId t) const;
  /// The nodes that write a tensor's bytes: its producer, or, for the parent of views, also every
  /// view's producer; ascending.
  std::span<const NodeId> writers(TensorId t) const;
  /// Tensor::bytes() of tensor t (-1 where the shape or the dtype size is unknown).
  std::int64_t bytes(TensorId t) const { return m_bytes[static_cast<std::size_t>(t)]; }

  std::span<const TensorId> inputs() const { return m_inputs; }   ///< graph inputs (not weights)
  std::span<const TensorId> outputs() const { return m_outputs; }

  std::optional<NodeId> find_node(std::string_view name) const;
  std::optional<TensorId> find_tensor(std::string_view name) const;

  /// Stable key of a node: its name, or "#<index>:<op>" for unnamed nodes (unique either way).
  const std::string& key(NodeId n) const { return m_nodes[static_cast<std::size_t>(n)].name; }

  const GraphInfo& info() const { return m_info; }

 private:
  friend class GraphBuilder;
  Graph() = default;
  std::vector<Node> m_nodes;
  std::vector<Tensor> m_tensors;
  std::vector<std::uint32_t> m_succ_begin, m_pred_begin;
  std::vector<NodeId> m_succ, m_pred, m_topo;
  std::vector<std::uint32_t> m_read_begin, m_consumer_begin, m_reader_begin, m_writer_begin;
  std::vector<TensorId> m_reads;
  std::vector<NodeId> m_consumers, m_readers, m_writers;
  std::vector<std::int64_t> m_bytes;
  std::vector<TensorId> m_inputs, m_outputs;
  detail::NameIndex m_node_by_name, m_tensor_by_name;
  GraphInfo m_info;
};

/// Builds a Graph. Tensors are created by name; build() validates: every node input is
/// defined (graph input, weight or some node's output), no tensor has two producers,
/// the graph is acyclic (the error names a node on the cycle), node names are unique.
class GraphBuilder {
 public:
  /// Room for about `tensors` tensors and `nodes` nodes (a hint: more may be added).
  void reserve(std::size_t tensors, std::size_t nodes);
  /// Adds (or returns) the tensor named `name`.
  TensorId tensor(std::string_view name);
  Tensor& tensor_ref(TensorId t) { return m_tensors[static_cast<std::size_t>(t)]; }
  std::optional<TensorId> find_tensor(std::string_view name) const;
  std::size_t tensor_count() const { return m_tensors.size(); }
  /// A node added so far (its inputs and outputs as tensor ids).
  const Node& node(NodeId n) const { return m_nodes[static_cast<std::size_t>(n)].node; }

  TensorId add_input(std::string_view name, DType dtype, std::vector<Dim> dims);
  TensorId add_weight(std::string_view name, DType dtype, std::vector<std::int64_t> shape, WeightData data = {});
  void mark_output(std::string_view name);

  /// Adds a node reading `inputs` and writing `outputs` (tensor names; "" = omitted optional).
  NodeId add_node(std::string_view name, std::string_view op_type, std::span<const std::string> inputs,
                  std::span<const std::string> outputs, std::vector<Attribute> attributes = {},
                  std::string_view domain = "");
  /// Convenience for tests: initializer lists of names.
  NodeId add_node(std::string_view name, std::string_view op_type, std::initializer_list<std::string> inputs,
                  std::initializer_list<std::string> outputs);

  /// Makes tensor `name` a view of `parent` at `byte_offset` (see Tensor::view_of). build()
  /// checks it: the parent is a graph input or a graph output no node writes, not itself a view,
  /// of the same dtype; the view has a static shape and lies inside the parent. An input's view is
  /// an input (not listed in inputs()); an output's view is an output (not listed in outputs()).
  void set_view(std::string_view name, std::string_view parent, std::int64_t byte_offset);

  /// Sets dtype and static shape of a tensor.
  void set_shape(std::string_view tensor_name, DType dtype, std::vector<std::int64_t> shape);

  GraphInfo& info() { return m_info; }

  /// Validates and freezes. Errors are ErrorKind::InvalidInput and name the node or tensor.
  Expected<Graph> build() &&;

  /// Types a built graph in place of building it again (the importer checks a model's structure
  /// untyped before inference, and a model that folds nothing keeps that structure): `type` may
  /// set each tensor's dtype, dims, rank_known and data, nothing else; sizes are then checked as
  /// build() checks them. `info` replaces the graph's. Errors: `type`'s, or a size overflow. Not
  /// for graphs with views (a micro-batch split), whose views must match their parents' types.
  static Expected<Graph> retype(Graph&& graph, const std::function<Status(TensorId, Tensor&)>& type, GraphInfo info);

 private:
  struct PendingNode {
    Node node;
  };
  std::vector<Tensor> m_tensors;
  detail::NameIndex m_by_name;
  std::vector<PendingNode> m_nodes;
  std::vector<TensorId> m_inputs;
  std::vector<std::string> m_output_names;
  std::vector<std::string> m_errors;
  struct PendingView {
    TensorId view = kNoTensor, parent = kNoTensor;
    std::int64_t offset = 0;
  };
  std::vector<PendingView> m_views;
  GraphInfo m_info;

  // build()'s steps (graph.cpp), in the order it takes them.
  static Status name_nodes(Graph& g);
  static Status attach_views(Graph& g, const std::vector<PendingView>& views);
  static Status find_producers(const Graph& g, std::vector<NodeId>& producer, std::vector<char>& defined_outside);
  static Status list_readers(Graph& g, const std::vector<NodeId>& producer, const std::vector<char>& defined_outside);
  static Status mark_outputs(Graph& g, const std::vector<std::string>& names);
  static Status check_views(Graph& g, const std::vector<PendingView>& views);
  static void flat_access_lists(Graph& g);
  static Status node_edges(Graph& g, const std::vector<NodeId>& producer);
  static Status topological_order(Graph& g);
};

/// The subgraphs a node holds (If's branches, Loop's and Scan's body), by attribute name, in
/// attribute order. Empty for ordinary nodes. O(attributes).
std::vector<std::pair<std::string, std::shared_ptr<const Graph>>> node_subgraphs(const Node& node);

/// Formats a shape for people: "1x3x224x224", "?x3x224x224" (unknown dims) or "batchx3" (symbols).
std::string format_shape(const Tensor& t);

}  // namespace weft::core
