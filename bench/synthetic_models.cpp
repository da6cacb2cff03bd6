#include "synthetic_models.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <random>
#include <set>
#include <utility>

namespace weft::bench {
namespace {

constexpr int kOpset = 17;

// Builds one GraphProto: nodes, structure-only weights laid out in an absent external file.
class ModelWriter {
 public:
  ModelWriter() { m_graph = m_model.mutable_graph(); }

  void input(const std::string& name, std::vector<std::int64_t> shape) { value_info(m_graph->add_input(), name, shape); }
  void output(const std::string& name, std::vector<std::int64_t> shape) { value_info(m_graph->add_output(), name, shape); }

  // A float32 initializer whose bytes are external (never written: nothing reads them).
  const std::string& weight(const std::string& name, std::vector<std::int64_t> shape) {
    onnx::TensorProto* t = m_graph->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    std::int64_t elems = 1;
    for (std::int64_t d : shape) {
      t->add_dims(d);
      elems *= d;
    }
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    const std::pair<const char*, std::string> entries[] = {
        {"location", "synthetic.weights.bin"}, {"offset", std::to_string(m_offset)}, {"length", std::to_string(4 * elems)}};
    for (const auto& [key, value] : entries) {
      auto* e = t->add_external_data();
      e->set_key(key);
      e->set_value(value);
    }
    m_offset += 4 * elems;
    return t->name();
  }

  // A float32 scalar held inline.
  void scalar(const std::string& name, float value) {
    onnx::TensorProto* t = m_graph->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_float_data(value);
  }

  onnx::NodeProto& node(const std::string& name, const char* op, std::initializer_list<std::string> inputs, std::string output) {
    return node(name, op, std::vector<std::string>(inputs), std::move(output));
  }
  onnx::NodeProto& node(const std::string& name, const char* op, const std::vector<std::string>& inputs, std::string output) {
    onnx::NodeProto* n = m_graph->add_node();
    n->set_name(name);
    n->set_op_type(op);
    for (const std::string& in : inputs) n->add_input(in);
    n->add_output(std::move(output));
    return *n;
  }
  static void attr_int(onnx::NodeProto& n, const char* name, std::int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void attr_ints(onnx::NodeProto& n, const char* name, std::initializer_list<std::int64_t> v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (std::int64_t x : v) a->add_ints(x);
  }

  int operators() const { return m_graph->node_size(); }

  SyntheticModel finish(std::string_view graph_name) {
    m_graph->set_name(std::string(graph_name));
    m_model.set_ir_version(8);
    m_model.set_producer_name("weft-synth");
    auto* opset = m_model.add_opset_import();
    opset->set_domain("");
    opset->set_version(kOpset);
    SyntheticModel out;
    out.operators = operators();
    m_model.SerializeToString(&out.bytes);
    return out;
  }

 private:
  static void value_info(onnx::ValueInfoProto* v, const std::string& name, const std::vector<std::int64_t>& shape) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (std::int64_t d : shape) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }

  onnx::ModelProto m_model;
  onnx::GraphProto* m_graph = nullptr;
  std::int64_t m_offset = 0;
};

std::string id(const char* prefix, std::size_t a) { return prefix + std::to_string(a); }

// Tensor t<i> is a graph output where nobody read it (read[i] == 0).
void unread_outputs(ModelWriter& w, const std::vector<char>& read, const std::vector<std::int64_t>& shape) {
  for (std::size_t t = 0; t < read.size(); ++t)
    if (!read[t]) w.output(id("t", t), shape);
}

// Layers of 8–56 elementwise operators; each operator reads 1–2 of the previous layer, every
// operator of the previous layer is read by someone (left-overs become extra inputs of Adds, or
// outputs), and one in five two-input operators reads up to 4 layers back (a skip connection).
SyntheticModel layered(int operators, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  ModelWriter w;
  const std::vector<std::int64_t> shape = {1, 256};
  w.input("x", shape);
  std::vector<std::vector<std::string>> layers;  // tensor names per layer
  std::uniform_int_distribution<int> width_pick(8, 56);
  std::uniform_real_distribution<double> u01(0, 1);
  int made = 0;
  std::vector<std::string> outputs;
  while (made < operators) {
    const int width = std::min(width_pick(rng), operators - made);
    std::vector<std::string> cur;
    const std::size_t l = layers.size();
    if (layers.empty()) {
      for (int j = 0; j < width; ++j) {
        cur.push_back(id("t", static_cast<std::size_t>(made)));
        w.node(id("n", static_cast<std::size_t>(made)), "Relu", {"x"}, cur.back());
        ++made;
      }
    } else {
      const std::vector<std::string>& prev = layers.back();
      std::vector<std::size_t> perm(prev.size());
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng);
      std::vector<std::vector<std::string>> ins(static_cast<std::size_t>(width));
      for (std::size_t j = 0; j < perm.size(); ++j) {
        const std::size_t target = j % static_cast<std::size_t>(width);
        if (ins[target].size() < 2) ins[target].push_back(prev[perm[j]]);
        else outputs.push_back(prev[perm[j]]);  // read by nobody else: a graph output
      }
      std::uniform_int_distribution<std::size_t> any_prev(0, prev.size() - 1);
      for (int j = 0; j < width; ++j) {
        auto& in = ins[static_cast<std::size_t>(j)];
        if (in.empty()) in.push_back(prev[any_prev(rng)]);
        const double r = u01(rng);
        const bool binary = in.size() == 2 || r < 0.7;
        if (binary && in.size() == 1) {
          if (l >= 2 && u01(rng) < 0.2) {
            std::uniform_int_distribution<std::size_t> back(2, std::min<std::size_t>(4, l));
            const auto& older = layers[l - back(rng)];
            std::uniform_int_distribution<std::size_t> pick(0, older.size() - 1);
            in.push_back(older[pick(rng)]);
          } else {
            std::string other = prev[any_prev(rng)];
            if (other == in[0] && prev.size() > 1) other = prev[(static_cast<std::size_t>(std::find(prev.begin(), prev.end(), other) - prev.begin()) + 1) % prev.size()];
            in.push_back(other);
          }
        }
        // 40% Add, 30% Mul, 30% Relu; an operator given two inputs by the cover is an Add.
        const char* op = !binary ? "Relu" : (r >= 0.4 && r < 0.7 ? "Mul" : "Add");
        cur.push_back(id("t", static_cast<std::size_t>(made)));
        w.node(id("n", static_cast<std::size_t>(made)), op, in, cur.back());
        ++made;
      }
    }
    layers.push_back(std::move(cur));
  }
  for (const std::string& t : layers.back()) outputs.push_back(t);
  for (const std::string& t : outputs) w.output(t, shape);
  return w.finish("synthetic_layered");
}

// Transformer blocks on [64, 256]: 8 heads of 32, Q/K/V of every head read the block input.
SyntheticModel transformer(int operators, std::uint64_t /*seed: the structure is regular*/) {
  constexpr std::int64_t kSeq = 64, kModel = 256, kHeads = 8, kHead = kModel / kHeads, kFF = 1024;
  ModelWriter w;
  w.input("x", {kSeq, kModel});
  w.scalar("scale", 1.0f / 5.656854f);
  std::string h = "x";
  for (std::size_t b = 0; w.operators() < operators; ++b) {
    const std::string p = id("b", b) + "_";
    std::vector<std::string> contexts;
    for (std::size_t k = 0; k < static_cast<std::size_t>(kHeads); ++k) {
      const std::string q = p + id("h", k);
      w.node(q + "_q", "MatMul", {h, w.weight(q + "_wq", {kModel, kHead})}, q + "_q");
      w.node(q + "_k", "MatMul", {h, w.weight(q + "_wk", {kModel, kHead})}, q + "_k");
      w.node(q + "_v", "MatMul", {h, w.weight(q + "_wv", {kModel, kHead})}, q + "_v");
      ModelWriter::attr_ints(w.node(q + "_kt", "Transpose", {q + "_k"}, q + "_kt"), "perm", {1, 0});
      w.node(q + "_s", "MatMul", {q + "_q", q + "_kt"}, q + "_s");
      w.node(q + "_ss", "Mul", {q + "_s", "scale"}, q + "_ss");
      ModelWriter::attr_int(w.node(q + "_p", "Softmax", {q + "_ss"}, q + "_p"), "axis", -1);
      w.node(q + "_c", "MatMul", {q + "_p", q + "_v"}, q + "_c");
      contexts.push_back(q + "_c");
    }
    ModelWriter::attr_int(w.node(p + "cat", "Concat", contexts, p + "cat"), "axis", 1);
    w.node(p + "o", "MatMul", {p + "cat", w.weight(p + "wo", {kModel, kModel})}, p + "o");
    w.node(p + "r", "Add", {h, p + "o"}, p + "r");
    w.node(p + "f1", "MatMul", {p + "r", w.weight(p + "w1", {kModel, kFF})}, p + "f1");
    w.node(p + "a", "Relu", {p + "f1"}, p + "a");
    w.node(p + "f2", "MatMul", {p + "a", w.weight(p + "w2", {kFF, kModel})}, p + "f2");
    w.node(p + "out", "Add", {p + "r", p + "f2"}, p + "out");
    h = p + "out";
  }
  w.output(h, {kSeq, kModel});
  return w.finish("synthetic_transformer");
}

// Mixture-of-experts blocks on [64, 256]: 64 gated experts read the block input.
SyntheticModel moe(int operators, std::uint64_t /*seed: the structure is regular*/) {
  constexpr std::int64_t kSeq = 64, kModel = 256, kExperts = 64, kHidden = 512;
  ModelWriter w;
  w.input("x", {kSeq, kModel});
  std::string h = "x";
  for (std::size_t b = 0; w.operators() < operators; ++b) {
    const std::string p = id("b", b) + "_";
    std::vector<std::string> gated;
    for (std::size_t e = 0; e < static_cast<std::size_t>(kExperts); ++e) {
      const std::string q = p + id("e", e);
      w.node(q + "_g", "MatMul", {h, w.weight(q + "_wg", {kModel, 1})}, q + "_g");
      w.node(q + "_gs", "Sigmoid", {q + "_g"}, q + "_gs");
      w.node(q + "_u", "MatMul", {h, w.weight(q + "_w1", {kModel, kHidden})}, q + "_u");
      w.node(q + "_a", "Relu", {q + "_u"}, q + "_a");
      w.node(q + "_d", "MatMul", {q + "_a", w.weight(q + "_w2", {kHidden, kModel})}, q + "_d");
      w.node(q + "_y", "Mul", {q + "_d", q + "_gs"}, q + "_y");
      gated.push_back(q + "_y");
    }
    w.node(p + "sum", "Sum", gated, p + "sum");
    w.node(p + "out", "Add", {h, p + "sum"}, p + "out");
    h = p + "out";
  }
  w.output(h, {kSeq, kModel});
  return w.finish("synthetic_moe");
}

// RandWire stages on [32, 256]: a Watts–Strogatz graph WS(64, 4, 0.75) per stage (ring lattice,
// each edge rewired with probability 0.75), edges oriented from lower to higher node index.
SyntheticModel randwire(int operators, std::uint64_t seed) {
  constexpr int kNodes = 64, kNeighbours = 4;
  constexpr double kRewire = 0.75;
  constexpr std::int64_t kRows = 32, kModel = 256;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u01(0, 1);
  std::uniform_int_distribution<int> any(0, kNodes - 1);
  ModelWriter w;
  w.input("x", {kRows, kModel});
  std::string h = "x";
  for (std::size_t s = 0; w.operators() < operators; ++s) {
    std::set<std::pair<int, int>> edges;  // undirected, (min, max)
    for (int i = 0; i < kNodes; ++i)
      for (int j = 1; j <= kNeighbours / 2; ++j) edges.emplace(std::min(i, (i + j) % kNodes), std::max(i, (i + j) % kNodes));
    std::vector<std::pair<int, int>> lattice(edges.begin(), edges.end());
    for (auto [a, b] : lattice) {
      if (u01(rng) >= kRewire) continue;
      int c = any(rng);
      for (int tries = 0; tries < 16 && (c == a || edges.count({std::min(a, c), std::max(a, c)})); ++tries) c = any(rng);
      if (c == a || edges.count({std::min(a, c), std::max(a, c)})) continue;
      edges.erase({a, b});
      edges.emplace(std::min(a, c), std::max(a, c));
    }
    std::vector<std::vector<int>> preds(kNodes);
    std::vector<bool> has_succ(kNodes, false);
    for (auto [a, b] : edges) {
      preds[static_cast<std::size_t>(b)].push_back(a);
      has_succ[static_cast<std::size_t>(a)] = true;
    }
    const std::string p = id("s", s) + "_";
    std::vector<std::string> sinks;
    for (std::size_t v = 0; v < static_cast<std::size_t>(kNodes); ++v) {
      const std::string q = p + id("v", v);
      std::vector<std::string> ins;
      for (int u : preds[v]) ins.push_back(p + id("v", static_cast<std::size_t>(u)) + "_out");
      std::string agg = ins.empty() ? h : ins[0];
      if (ins.size() > 1) {
        w.node(q + "_sum", "Sum", ins, q + "_sum");
        agg = q + "_sum";
      }
      w.node(q + "_relu", "Relu", {agg}, q + "_relu");
      w.node(q + "_mm", "MatMul", {q + "_relu", w.weight(q + "_w", {kModel, kModel})}, q + "_out");
      if (!has_succ[v]) sinks.push_back(q + "_out");
    }
    if (sinks.size() > 1) {
      w.node(p + "out", "Sum", sinks, p + "out");
      h = p + "out";
    } else {
      h = sinks.front();
    }
  }
  w.output(h, {kRows, kModel});
  return w.finish("synthetic_randwire");
}


// The issue-45 wide family: layers of about √n/4 operators (±25%), each operator reading one or
// two tensors drawn from the last three layers (Add, Mul, Relu on [1, 256]); a tensor nobody reads
// is a graph output. About 80 operators per layer at 100k, so the width grows with the model.
SyntheticModel wide(int operators, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  ModelWriter w;
  const std::vector<std::int64_t> shape = {1, 256};
  w.input("x", shape);
  const int mean_width = std::max(4, static_cast<int>(std::lround(std::sqrt(static_cast<double>(operators)) / 4)));
  std::uniform_int_distribution<int> width_pick(std::max(1, mean_width - mean_width / 4), mean_width + mean_width / 4);
  std::uniform_real_distribution<double> u01(0, 1);
  std::vector<std::vector<std::size_t>> layers;  // tensor ids (t<id>) per layer
  std::vector<char> read;
  int made = 0;
  while (made < operators) {
    const int width = std::min(width_pick(rng), operators - made);
    std::vector<std::size_t> window;  // the last three layers' tensors
    for (std::size_t back = 1; back <= 3 && back <= layers.size(); ++back)
      window.insert(window.end(), layers[layers.size() - back].begin(), layers[layers.size() - back].end());
    std::vector<std::size_t> cur;
    for (int j = 0; j < width; ++j) {
      const auto t = static_cast<std::size_t>(made);
      const double r = u01(rng);
      const bool binary = window.size() > 1 && r < 0.7;
      std::vector<std::string> in;
      if (window.empty()) {
        in.push_back("x");
      } else {
        std::uniform_int_distribution<std::size_t> pick(0, window.size() - 1);
        const std::size_t a = window[pick(rng)];
        in.push_back(id("t", a));
        read[a] = 1;
        if (binary) {
          std::size_t b = window[pick(rng)];
          while (b == a) b = window[pick(rng)];
          in.push_back(id("t", b));
          read[b] = 1;
        }
      }
      // 40% Add, 30% Mul, 30% Relu.
      const char* op = !binary ? "Relu" : (r >= 0.4 ? "Mul" : "Add");
      w.node(id("n", t), op, in, id("t", t));
      read.push_back(0);
      cur.push_back(t);
      ++made;
    }
    layers.push_back(std::move(cur));
  }
  unread_outputs(w, read, shape);
  return w.finish("synthetic_wide");
}

// A random DAG with long edges: each operator reads 1–4 earlier tensors (fan-in uniform), each
// from the last 64 operators (three in four) or from any earlier one (one in four: an edge that
// can reach back across the whole graph). One input: Relu; two: Add or Mul; three or four: Sum
// ([1, 256]). A tensor nobody reads is a graph output.
SyntheticModel longrange(int operators, std::uint64_t seed) {
  constexpr std::size_t kRecent = 64;
  std::mt19937_64 rng(seed);
  ModelWriter w;
  const std::vector<std::int64_t> shape = {1, 256};
  w.input("x", shape);
  std::uniform_int_distribution<int> fan_in(1, 4);
  std::uniform_real_distribution<double> u01(0, 1);
  std::vector<char> read;
  for (std::size_t t = 0; t < static_cast<std::size_t>(operators); ++t) {
    std::vector<std::string> in;
    if (t == 0) {
      in.push_back("x");
    } else {
      const int k = std::min<int>(fan_in(rng), static_cast<int>(t));
      std::vector<std::size_t> picked;
      while (static_cast<int>(picked.size()) < k) {
        const std::size_t lo = u01(rng) < 0.75 && t > kRecent ? t - kRecent : 0;
        std::uniform_int_distribution<std::size_t> pick(lo, t - 1);
        const std::size_t a = pick(rng);
        if (std::find(picked.begin(), picked.end(), a) == picked.end()) picked.push_back(a);
      }
      for (std::size_t a : picked) {
        in.push_back(id("t", a));
        read[a] = 1;
      }
    }
    const char* op = in.size() == 1 ? "Relu" : in.size() == 2 ? (u01(rng) < 0.5 ? "Add" : "Mul") : "Sum";
    w.node(id("n", t), op, in, id("t", t));
    read.push_back(0);
  }
  unread_outputs(w, read, shape);
  return w.finish("synthetic_longrange");
}

// Deep narrow chains with rare wide bursts: three chains of elementwise operators advance in
// turn, one in ten steps adding in another chain's head; after every 500–2500 chain operators a
// burst fans one chain's head out to 128–512 parallel operators (Relu or Mul by itself), reduced
// back into the chain by a balanced tree of Adds. [1, 256] throughout.
SyntheticModel bursty(int operators, std::uint64_t seed) {
  constexpr std::size_t kChains = 3;
  std::mt19937_64 rng(seed);
  ModelWriter w;
  const std::vector<std::int64_t> shape = {1, 256};
  w.input("x", shape);
  std::uniform_real_distribution<double> u01(0, 1);
  std::uniform_int_distribution<int> burst_width(128, 512);
  std::uniform_int_distribution<std::size_t> any_chain(0, kChains - 1);
  std::uniform_int_distribution<int> gap(500, 2500);
  std::vector<std::string> head(kChains, "x");
  int until_burst = gap(rng);
  std::size_t made = 0;
  auto add = [&](const char* op, std::vector<std::string> in) {
    const std::string out = id("t", made);
    w.node(id("n", made), op, in, out);
    ++made;
    return out;
  };
  for (std::size_t step = 0; made < static_cast<std::size_t>(operators); ++step) {
    const std::size_t c = step % kChains;
    if (--until_burst <= 0) {
      until_burst = gap(rng);
      const auto width = static_cast<std::size_t>(burst_width(rng));
      std::vector<std::string> level;
      for (std::size_t j = 0; j < width; ++j)
        level.push_back(u01(rng) < 0.5 ? add("Relu", {head[c]}) : add("Mul", {head[c], head[c]}));
      while (level.size() > 1) {
        std::vector<std::string> up;
        for (std::size_t j = 0; j + 1 < level.size(); j += 2) up.push_back(add("Add", {level[j], level[j + 1]}));
        if (level.size() % 2) up.push_back(level.back());
        level = std::move(up);
      }
      head[c] = level.front();
      continue;
    }
    if (u01(rng) < 0.1) {
      const std::size_t other = any_chain(rng);
      head[c] = other != c ? add("Add", {head[c], head[other]}) : add("Relu", {head[c]});
    } else {
      head[c] = add(u01(rng) < 0.5 ? "Relu" : "Sigmoid", {head[c]});
    }
  }
  // Every chain's head is an output (a chain that never advanced still holds the input: skipped).
  std::set<std::string> outs;
  for (const std::string& h : head)
    if (h != "x" && outs.insert(h).second) w.output(h, shape);
  return w.finish("synthetic_bursty");
}

}  // namespace

std::string_view family_name(SyntheticFamily family) {
  switch (family) {
    case SyntheticFamily::Layered: return "layered";
    case SyntheticFamily::Transformer: return "transformer";
    case SyntheticFamily::MoE: return "moe";
    case SyntheticFamily::RandWire: return "randwire";
    case SyntheticFamily::Wide: return "wide";
    case SyntheticFamily::LongRange: return "longrange";
    case SyntheticFamily::Bursty: return "bursty";
  }
  return "?";
}

std::vector<SyntheticFamily> synthetic_families() {
  return {SyntheticFamily::Layered, SyntheticFamily::Transformer, SyntheticFamily::MoE, SyntheticFamily::RandWire,
          SyntheticFamily::Wide,    SyntheticFamily::LongRange,   SyntheticFamily::Bursty};
}

bool parse_family(std::string_view name, SyntheticFamily& family) {
  for (SyntheticFamily f : synthetic_families())
    if (family_name(f) == name) {
      family = f;
      return true;
    }
  return false;
}

SyntheticModel make_synthetic_model(SyntheticFamily family, int operators, std::uint64_t seed) {
  switch (family) {
    case SyntheticFamily::Layered: return layered(operators, seed);
    case SyntheticFamily::Transformer: return transformer(operators, seed);
    case SyntheticFamily::MoE: return moe(operators, seed);
    case SyntheticFamily::RandWire: return randwire(operators, seed);
    case SyntheticFamily::Wide: return wide(operators, seed);
    case SyntheticFamily::LongRange: return longrange(operators, seed);
    case SyntheticFamily::Bursty: return bursty(operators, seed);
  }
  return {};
}

int write_synthetic_model(const std::string& path, SyntheticFamily family, int operators, std::uint64_t seed,
                          std::string& error) {
  const SyntheticModel m = make_synthetic_model(family, operators, seed);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(m.bytes.data(), static_cast<std::streamsize>(m.bytes.size()));
  f.close();
  if (!f) {
    error = "cannot write " + path;
    return -1;
  }
  return m.operators;
}

}  // namespace weft::bench
