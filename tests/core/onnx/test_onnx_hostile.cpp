#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>

#include "onnx_model_builder.h"
#include "weft/core/base/file_io.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/proto/tensor_pb.h"

using namespace weft;
using test::OnnxModel;

namespace {

core::Expected<core::Graph> import(const OnnxModel& m, const core::ImportOptions& o = {}) {
  return core::import_onnx_bytes(m.bytes(), "/tmp/weft_hostile/model.onnx", o);
}

void expect_invalid(const core::Expected<core::Graph>& g, const std::string& needle) {
  ASSERT_FALSE(g) << "expected an error mentioning '" << needle << "'";
  EXPECT_EQ(g.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(g.error().message.find("model.onnx"), std::string::npos) << g.error().message;
  EXPECT_NE(g.error().message.find(needle), std::string::npos) << g.error().message;
}

}  // namespace

// An empty file is refused as invalid input naming the file.
TEST(OnnxHostile, EmptyFile) { expect_invalid(core::import_onnx_bytes("", "/tmp/weft_hostile/model.onnx"), "empty"); }

// Random bytes never crash the parser and are refused.
TEST(OnnxHostile, RandomBytes) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::string bytes(static_cast<std::size_t>(1 + rng() % 4096), '\0');
    for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
    auto g = core::import_onnx_bytes(bytes, "/tmp/weft_hostile/model.onnx");
    ASSERT_FALSE(g) << "trial " << trial;
    EXPECT_EQ(g.error().kind, core::ErrorKind::InvalidInput);
  }
}

// googlenet cut in half (and at other points) is a truncated protobuf, refused cleanly.
TEST(OnnxHostile, TruncatedProtobuf) {
  auto bytes = core::read_file(std::string(WEFT_TEST_DATA_DIR) + "/models/googlenet.onnx");
  ASSERT_TRUE(bytes);
  for (std::size_t cut : {bytes->size() / 2, bytes->size() / 3, bytes->size() - 1}) {
    auto g = core::import_onnx_bytes(std::string_view(*bytes).substr(0, cut), "/tmp/weft_hostile/model.onnx");
    ASSERT_FALSE(g) << "cut at " << cut;
    EXPECT_EQ(g.error().kind, core::ErrorKind::InvalidInput);
    EXPECT_NE(g.error().message.find("truncated"), std::string::npos) << g.error().message;
  }
}

// A file that cannot be opened is a Runtime error naming the path.
TEST(OnnxHostile, MissingFile) {
  auto g = core::import_onnx("/nonexistent/weft/model.onnx");
  ASSERT_FALSE(g);
  EXPECT_EQ(g.error().kind, core::ErrorKind::Runtime);
  EXPECT_NE(g.error().message.find("/nonexistent/weft/model.onnx"), std::string::npos);
}

// A cycle (a → b → c → b) is refused, naming a node on it.
TEST(OnnxHostile, Cycle) {
  OnnxModel m;
  m.input("x", {1, 4}).output("c");
  m.node("Relu", {"x"}, {"a"}, "A");
  m.node("Add", {"a", "c"}, {"b"}, "B");
  m.node("Relu", {"b"}, {"c"}, "C");
  expect_invalid(import(m), "cycle");
  expect_invalid(import(m), "'B'");
}

// A node reading a tensor nothing defines is refused, naming node and tensor.
TEST(OnnxHostile, UndefinedTensor) {
  OnnxModel m;
  m.input("x", {1, 4}).output("y");
  m.node("Add", {"x", "ghost"}, {"y"}, "adder");
  expect_invalid(import(m), "ghost");
  expect_invalid(import(m), "adder");
}

// Two nodes writing one tensor are refused, naming the tensor and both nodes.
TEST(OnnxHostile, DuplicateProducers) {
  OnnxModel m;
  m.input("x", {1, 4}).output("y");
  m.node("Relu", {"x"}, {"y"}, "first");
  m.node("Sigmoid", {"x"}, {"y"}, "second");
  expect_invalid(import(m), "'y'");
  expect_invalid(import(m), "second");
}

// A node overwriting an initializer is refused.
TEST(OnnxHostile, NodeWritesInitializer) {
  OnnxModel m;
  m.input("x", {1, 4}).output("w");
  m.init_f32("w", {1, 4}, {1, 2, 3, 4});
  m.node("Relu", {"x"}, {"w"}, "clobber");
  expect_invalid(import(m), "'w'");
}

// An operator of an unknown custom domain does not stop the import; shapes after it stay unknown.
TEST(OnnxHostile, UnknownOperatorProceeds) {
  OnnxModel m;
  m.input("x", {1, 4}).output("z");
  m.node("Relu", {"x"}, {"y"}, "relu");
  m.node("FancyOp", {"y"}, {"z"}, "fancy").set_domain("com.example");
  auto g = import(m);
  ASSERT_TRUE(g) << g.error().message;
  ASSERT_EQ(g->node_count(), 2u);
  const core::Node& fancy = g->node(*g->find_node("fancy"));
  EXPECT_EQ(fancy.domain, "com.example");
  EXPECT_TRUE(g->tensor(*g->find_tensor("y")).shape_known());
  EXPECT_FALSE(g->tensor(*g->find_tensor("z")).shape_known());
}

// A default-domain operator ONNX does not know proceeds too.
TEST(OnnxHostile, UnknownDefaultDomainOperatorProceeds) {
  OnnxModel m;
  m.input("x", {1, 4}).output("z");
  m.node("NotARealOp", {"x"}, {"z"}, "mystery");
  auto g = import(m);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->node_count(), 1u);
}

// A missing external weights file is fine for analysis; reading the bytes fails with the path.
TEST(OnnxHostile, MissingExternalDataIsFine) {
  OnnxModel m;
  m.input("x", {2, 3}).output("y");
  m.init_external("w", {3, 5}, "absent_weights.bin", 128);
  m.node("MatMul", {"x", "w"}, {"y"}, "mm");
  auto g = import(m);
  ASSERT_TRUE(g) << g.error().message;
  const core::Tensor& w = g->tensor(*g->find_tensor("w"));
  EXPECT_EQ(w.kind, core::TensorKind::Weight);
  EXPECT_EQ(w.data.external_path, "/tmp/weft_hostile/absent_weights.bin");
  EXPECT_EQ(w.data.external_offset, 128);
  EXPECT_EQ(g->tensor(*g->find_tensor("y")).shape(), (std::vector<std::int64_t>{2, 5}));
  auto bytes = core::read_weight_bytes(w);
  ASSERT_FALSE(bytes);
  EXPECT_EQ(bytes.error().kind, core::ErrorKind::Runtime);
  EXPECT_NE(bytes.error().message.find("absent_weights.bin"), std::string::npos);
}

// An initializer whose raw_data does not match its shape is refused, naming it.
TEST(OnnxHostile, InitializerSizeMismatch) {
  OnnxModel m;
  m.input("x", {1, 4}).output("y");
  m.init_f32("w", {1, 8}, {1, 2, 3});
  m.node("Add", {"x", "w"}, {"y"}, "add");
  expect_invalid(import(m), "'w'");
}

// A model that has no graph (a valid but empty protobuf) is refused.
TEST(OnnxHostile, NoGraph) {
  onnx::ModelProto p;
  p.set_ir_version(8);
  expect_invalid(core::import_onnx_bytes(p.SerializeAsString(), "/tmp/weft_hostile/model.onnx"), "no graph");
}

// Inconsistent declared shapes (inference disagrees with value_info) never crash the import.
TEST(OnnxHostile, ConflictingValueInfo) {
  OnnxModel m;
  m.input("x", {2, 3}).output("y");
  m.node("Relu", {"x"}, {"y"}, "relu");
  auto* vi = m.graph().add_value_info();
  vi->set_name("y");
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(7);
  auto g = import(m);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->node_count(), 1u);
}

// A Constant node without its value attribute is refused, naming the node.
TEST(OnnxHostile, ConstantWithoutValue) {
  OnnxModel m;
  m.input("x", {1}).output("y");
  m.node("Constant", {}, {"k"}, "empty_constant");
  m.node("Add", {"x", "k"}, {"y"});
  expect_invalid(import(m), "empty_constant");
}

// An If reading outer tensors inside its branches gets those reads as inputs (real dependencies).
TEST(OnnxHostile, IfOuterScopeReadsAreEdges) {
  OnnxModel m;
  m.input("x", {2}).input("c", {}, onnx::TensorProto::BOOL).output("y");
  m.node("Relu", {"x"}, {"r"}, "relu");
  auto& node = m.node("If", {"c"}, {"y"}, "branch");
  for (const char* which : {"then_branch", "else_branch"}) {
    auto* a = node.add_attribute();
    a->set_name(which);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* body = a->mutable_g();
    body->set_name(which);
    auto* n = body->add_node();
    n->set_op_type("Neg");
    n->add_input("r");
    n->add_output(std::string(which) + "_out");
    body->add_output()->set_name(std::string(which) + "_out");
  }
  auto g = import(m);
  ASSERT_TRUE(g) << g.error().message;
  ASSERT_EQ(g->node_count(), 2u);
  const core::NodeId relu = *g->find_node("relu");
  const core::NodeId branch = *g->find_node("branch");
  ASSERT_EQ(g->successors(relu).size(), 1u);
  EXPECT_EQ(g->successors(relu)[0], branch);
  EXPECT_EQ(g->node(branch).attribute("else_branch")->type, core::Attribute::Type::Graph);
}

namespace {

// A model file in a fresh folder, so external data can be placed beside it (or not).
std::string model_in_folder(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("weft_hostile_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return (dir / "model.onnx").string();
}

core::Expected<core::Graph> import_at(const OnnxModel& m, const std::string& path) {
  EXPECT_TRUE(core::write_file_atomic(path, m.bytes()));
  return core::import_onnx(path);
}

}  // namespace

// The report: external data naming ../../../../etc/passwd is refused at import (every
// command), naming the initializer, and so is an absolute location.
TEST(OnnxHostile, ExternalDataOutsideTheFolderRefused) {
  const std::string path = model_in_folder("passwd");
  for (const std::string location : {"../../../../etc/passwd", "/etc/passwd", "sub/../../model.onnx"}) {
    OnnxModel m;
    m.input("x", {1, 4}).output("y");
    m.init_external("stolen", {1, 4}, location);
    m.node("Add", {"x", "stolen"}, {"y"}, "add");
    auto g = import_at(m, path);
    ASSERT_FALSE(g) << location;
    EXPECT_EQ(g.error().kind, core::ErrorKind::InvalidInput);
    EXPECT_NE(g.error().message.find("'stolen'"), std::string::npos) << g.error().message;
    EXPECT_NE(g.error().message.find(location), std::string::npos) << g.error().message;
  }
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}

// A 10-byte file claiming 10^12 elements is refused with the tensor's name, never read.
TEST(OnnxHostile, ShortExternalFileClaimingHugeTensor) {
  const std::string path = model_in_folder("short");
  const auto bin = std::filesystem::path(path).parent_path() / "w.bin";
  ASSERT_TRUE(core::write_file_atomic(bin.string(), std::string(10, 'x')));
  OnnxModel m;
  m.input("x", {1}).output("y");
  m.init_external("huge", {1'000'000, 1'000'000}, "w.bin");
  m.node("Add", {"x", "huge"}, {"y"}, "add");
  auto g = import_at(m, path);
  ASSERT_FALSE(g);
  EXPECT_EQ(g.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(g.error().message.find("'huge'"), std::string::npos) << g.error().message;
  EXPECT_NE(g.error().message.find("past the end"), std::string::npos) << g.error().message;
  std::filesystem::remove_all(bin.parent_path());
}

// An offset that is not a byte count is refused, not read as zero.
TEST(OnnxHostile, MalformedExternalOffsetRefused) {
  OnnxModel m;
  m.input("x", {1, 4}).output("y");
  m.init_external("w", {1, 4}, "w.bin");
  m.graph().mutable_initializer(0)->mutable_external_data(1)->set_value("12abc");
  m.node("Add", {"x", "w"}, {"y"}, "add");
  expect_invalid(import(m), "'12abc'");
}

// Sizes overflowing 64 bits (input dims, initializer dims, raw data claims) are refused naming
// the tensor and saying "overflow", never attempted.
TEST(OnnxHostile, OverflowingSizesRefused) {
  {
    OnnxModel m;
    m.input("big", {std::int64_t{1} << 40, std::int64_t{1} << 40}).output("y");
    m.node("Relu", {"big"}, {"y"}, "relu");
    expect_invalid(import(m), "'big'");
    expect_invalid(import(m), "overflow");
  }
  {
    OnnxModel m;
    m.input("x", {1}).output("y");
    m.init_f32("w", {std::int64_t{1} << 62, 4}, {1, 2, 3});
    m.node("Add", {"x", "w"}, {"y"}, "add");
    expect_invalid(import(m), "'w'");
    expect_invalid(import(m), "overflow");
  }
  {
    // Inference would carry the huge dim to the output: refused at the first tensor holding it.
    OnnxModel m;
    m.input("x", {std::int64_t{1} << 50}).output("y");
    m.node("Relu", {"x"}, {"y"}, "relu");
    expect_invalid(import(m), "overflow");
  }
}
