#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "model_dims.h"
#include "weft/core/onnx/dim_binding.h"
#include "weft/core/base/file_io.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/proto/tensor_pb.h"

using namespace weft;

namespace {

std::string model(const std::string& name) { return std::string(WEFT_TEST_DATA_DIR) + "/models/" + name + ".onnx"; }

core::ImportOptions ppocr_dims() {
  core::ImportOptions o;
  o.dims = {{"p2o.DynamicDimension.0", 1}, {"p2o.DynamicDimension.1", 640}, {"p2o.DynamicDimension.2", 640}};
  return o;
}

std::size_t unknown_shapes(const core::Graph& g) {
  return static_cast<std::size_t>(
      std::count_if(g.tensors().begin(), g.tensors().end(), [](const core::Tensor& t) { return !t.shape_known(); }));
}

std::size_t count_op(const core::Graph& g, std::string_view op) {
  return static_cast<std::size_t>(
      std::count_if(g.nodes().begin(), g.nodes().end(), [&](const core::Node& n) { return n.op_type == op; }));
}

}  // namespace

// Operator and edge counts match the table in shared/models/README.md (Constant nodes are weights).
TEST(OnnxImportModels, CountsMatchReadmeTable) {
  struct Row { const char* name; std::size_t ops, edges; };
  for (const Row& r : {Row{"googlenet", 139, 165}, Row{"resnet50", 122, 137}, Row{"squeezenet1_1", 65, 72},
                       Row{"mobilenet_v3_large", 161, 199}}) {
    auto g = core::import_onnx(model(r.name));
    ASSERT_TRUE(g) << r.name << ": " << g.error().message;
    EXPECT_EQ(g->node_count(), r.ops) << r.name;
    EXPECT_EQ(g->edge_count(), r.edges) << r.name;
    EXPECT_EQ(g->info().opset, 13) << r.name;
  }
}

// Every shared model loads, and after folding every tensor has a static shape (ppocr with its
// input bound to 1x3x640x640); silero's body sits in an If on a runtime input and stays opaque.
TEST(OnnxImportModels, EveryModelLoadsWithStaticShapes) {
  std::size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(WEFT_TEST_DATA_DIR) + "/models")) {
    if (entry.path().extension() != ".onnx") continue;
    ++seen;
    const std::string name = entry.path().stem().string();
    core::ImportOptions options;
    options.dims = weft::test::model_dims(name);
    auto g = core::import_onnx(entry.path().string(), options);
    ASSERT_TRUE(g) << name << ": " << g.error().message;
    EXPECT_GT(g->node_count(), 0u) << name;
    EXPECT_EQ(count_op(*g, "Constant"), 0u) << name;
    if (name == "silero_vad_v5") continue;
    EXPECT_TRUE(g->info().unresolved_dims.empty()) << name;
    for (const core::Tensor& t : g->tensors()) {
      EXPECT_TRUE(t.shape_known()) << name << ": tensor '" << t.name << "' is " << core::format_shape(t);
      EXPECT_NE(t.dtype, core::DType::Undefined) << name << ": tensor '" << t.name << "'";
    }
  }
  EXPECT_GE(seen, 12u);
}

// Shape arithmetic folds away: shufflenet and vit lose their Shape/Gather chains and every
// Reshape gets a constant target; without folding shufflenet keeps unknown shapes.
TEST(OnnxImportModels, FoldingResolvesShapeArithmetic) {
  for (const char* name : {"shufflenet_v2_x1_0", "vit_b_16"}) {
    auto folded = core::import_onnx(model(name));
    ASSERT_TRUE(folded) << folded.error().message;
    EXPECT_GT(folded->info().folded_nodes, 0) << name;
    EXPECT_EQ(count_op(*folded, "Shape"), 0u) << name;
    EXPECT_EQ(unknown_shapes(*folded), 0u) << name;

    core::ImportOptions no_fold;
    no_fold.fold = false;
    auto raw = core::import_onnx(model(name), no_fold);
    ASSERT_TRUE(raw) << raw.error().message;
    EXPECT_EQ(raw->info().folded_nodes, 0) << name;
    EXPECT_GT(unknown_shapes(*raw), 0u) << name;
    EXPECT_EQ(raw->node_count(), folded->node_count() + static_cast<std::size_t>(folded->info().folded_nodes)) << name;
  }
  // shufflenet: ONNX inference alone leaves about a quarter of the tensors unknown.
  core::ImportOptions no_fold;
  no_fold.fold = false;
  auto raw = core::import_onnx(model("shufflenet_v2_x1_0"), no_fold);
  ASSERT_TRUE(raw);
  auto folded = core::import_onnx(model("shufflenet_v2_x1_0"));
  ASSERT_TRUE(folded);
  EXPECT_EQ(count_op(*folded, "Gather"), 0u);
  EXPECT_EQ(count_op(*folded, "Reshape"), 32u);  // the channel shuffles stay: they move data
  EXPECT_GT(unknown_shapes(*raw) * 100, raw->tensor_count() * 15);
}

// Models without shape arithmetic fold nothing (folding must not eat real operators).
TEST(OnnxImportModels, NothingToFoldInPlainCnns) {
  for (const char* name : {"googlenet", "resnet50", "convnext_tiny", "regnet_y_400mf"}) {
    auto g = core::import_onnx(model(name));
    ASSERT_TRUE(g) << g.error().message;
    EXPECT_EQ(g->info().folded_nodes, 0) << name;
  }
}

// ppocr's symbolic input dims are reported when unbound and resolve every shape when bound.
TEST(OnnxImportModels, PpocrDimBinding) {
  auto unbound = core::import_onnx(model("ppocr_v4_det"));
  ASSERT_TRUE(unbound) << unbound.error().message;
  ASSERT_EQ(unbound->info().unresolved_dims.size(), 3u);
  EXPECT_EQ(unbound->info().unresolved_dims[0], "x: dim 0 'p2o.DynamicDimension.0'");
  EXPECT_GT(unknown_shapes(*unbound), 100u);
  EXPECT_EQ(unbound->info().constant_nodes, 342);
  // The unbound dims as the studio's dialog lists them: keyed by symbol, described as the importer
  // words them, suggested 1 for the batch and 224 for the image's height and width.
  const auto dims = core::unbound_dims(*unbound);
  ASSERT_EQ(dims.size(), 3u);
  for (std::size_t i = 0; i < dims.size(); ++i) {
    EXPECT_EQ(dims[i].describe(), unbound->info().unresolved_dims[i]);
    EXPECT_EQ(dims[i].key(), "p2o.DynamicDimension." + std::to_string(i));
  }
  EXPECT_EQ(core::suggested_dim_value(dims[0]), 1);
  EXPECT_EQ(core::suggested_dim_value(dims[1]), 224);
  EXPECT_EQ(core::suggested_dim_value(dims[2]), 224);

  auto bound = core::import_onnx(model("ppocr_v4_det"), ppocr_dims());
  ASSERT_TRUE(bound) << bound.error().message;
  EXPECT_TRUE(bound->info().unresolved_dims.empty());
  EXPECT_TRUE(core::unbound_dims(*bound).empty());
  EXPECT_EQ(unknown_shapes(*bound), 0u);
  const core::Tensor& x = bound->tensor(bound->inputs()[0]);
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.shape(), (std::vector<std::int64_t>{1, 3, 640, 640}));
  EXPECT_EQ(x.dims[2].symbol, "p2o.DynamicDimension.1");
  EXPECT_EQ(bound->node_count(), 330u);
  const core::Tensor& out = bound->tensor(bound->outputs()[0]);
  EXPECT_EQ(out.shape(), (std::vector<std::int64_t>{1, 1, 640, 640}));
}

// Weights keep where their bytes live: googlenet's are external (absent weights.bin, resolved
// against the model folder), ppocr.weights' are inline and readable.
TEST(OnnxImportModels, WeightData) {
  auto g = core::import_onnx(model("googlenet"));
  ASSERT_TRUE(g);
  std::size_t weights = 0, external = 0;
  const auto expected_path =
      (std::filesystem::absolute(std::string(WEFT_TEST_DATA_DIR) + "/models") / "weights.bin").lexically_normal();
  for (const core::Tensor& t : g->tensors()) {
    if (t.kind != core::TensorKind::Weight) continue;
    ++weights;
    EXPECT_TRUE(t.data.has_data()) << t.name;
    if (t.data.inline_bytes) {
      // The exporter kept small tensors inline.
      EXPECT_EQ(static_cast<std::int64_t>(t.data.inline_bytes->size()), t.bytes()) << t.name;
      continue;
    }
    ++external;
    EXPECT_EQ(std::filesystem::path(t.data.external_path), expected_path) << t.name;
    EXPECT_GE(t.data.external_offset, 0);
  }
  EXPECT_EQ(weights, 116u);
  EXPECT_GT(external, 50u);
  const core::Tensor& first = g->tensor(g->inputs()[0]);
  EXPECT_EQ(first.kind, core::TensorKind::Input);
  EXPECT_EQ(first.shape(), (std::vector<std::int64_t>{1, 3, 224, 224}));
  auto missing = core::read_weight_bytes(g->tensor(g->node(g->topo_order()[0]).inputs[1]));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, core::ErrorKind::Runtime);
  EXPECT_NE(missing.error().message.find("weights.bin"), std::string::npos);

  auto w = core::import_onnx(model("ppocr_v4_det.weights"), ppocr_dims());
  ASSERT_TRUE(w) << w.error().message;
  std::int64_t inline_bytes = 0;
  for (const core::Tensor& t : w->tensors()) {
    if (t.kind != core::TensorKind::Weight) continue;
    ASSERT_NE(t.data.inline_bytes, nullptr) << t.name;
    EXPECT_EQ(static_cast<std::int64_t>(t.data.inline_bytes->size()), t.bytes()) << t.name;
    auto bytes = core::read_weight_bytes(t);
    ASSERT_TRUE(bytes) << bytes.error().message;
    inline_bytes += static_cast<std::int64_t>(bytes->size());
  }
  EXPECT_GT(inline_bytes, 4'000'000);
}

// GraphInfo records the file, its SHA-256 and the opset; tensor kinds are set.
TEST(OnnxImportModels, GraphInfoAndKinds) {
  const std::string path = model("squeezenet1_1");
  auto g = core::import_onnx(path);
  ASSERT_TRUE(g);
  auto bytes = core::read_file(path);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(g->info().model_path, path);
  EXPECT_EQ(g->info().model_sha256, core::sha256_hex(*bytes));
  ASSERT_EQ(g->outputs().size(), 1u);
  const core::Tensor& out = g->tensor(g->outputs()[0]);
  EXPECT_EQ(out.kind, core::TensorKind::Output);
  EXPECT_EQ(out.shape(), (std::vector<std::int64_t>{1, 1000}));
  EXPECT_EQ(out.bytes(), 4000);
  const core::Node& conv = g->node(g->topo_order()[0]);
  EXPECT_EQ(conv.op_type, "Conv");
  EXPECT_EQ(conv.attr_ints("kernel_shape"), (std::vector<std::int64_t>{3, 3}));
  EXPECT_EQ(conv.attr_ints("strides"), (std::vector<std::int64_t>{2, 2}));
}

// silero_vad_v5: the whole model is an If on a runtime input; it imports as one opaque node
// whose graph attributes are kept as Graph and whose implicit outer reads are inputs.
TEST(OnnxImportModels, SileroIfIsOpaque) {
  auto g = core::import_onnx(model("silero_vad_v5"));
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->node_count(), 4u);  // Equal, If, Identity, Identity
  EXPECT_EQ(g->info().constant_nodes, 1);
  auto if_node = std::find_if(g->nodes().begin(), g->nodes().end(), [](const core::Node& n) { return n.op_type == "If"; });
  ASSERT_NE(if_node, g->nodes().end());
  ASSERT_NE(if_node->attribute("then_branch"), nullptr);
  EXPECT_EQ(if_node->attribute("then_branch")->type, core::Attribute::Type::Graph);
  std::vector<std::string> reads;
  for (core::TensorId t : if_node->inputs) reads.push_back(g->tensor(t).name);
  EXPECT_NE(std::find(reads.begin(), reads.end(), "input"), reads.end());
  EXPECT_NE(std::find(reads.begin(), reads.end(), "state"), reads.end());
  EXPECT_EQ(g->edge_count(), 3u);
}
