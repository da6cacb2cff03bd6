#include <gtest/gtest.h>

#include <string>

#include "weft/core/onnx_import.h"

using namespace weft;

namespace {
std::string model(const std::string& name) { return std::string(WEFT_TEST_DATA_DIR) + "/models/" + name + ".onnx"; }
}  // namespace

// googlenet imports with the operator and edge counts of shared/models/README.md.
TEST(OnnxImport, GooglenetCounts) {
  auto g = core::import_onnx(model("googlenet"));
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->node_count(), 139u);
  EXPECT_EQ(g->edge_count(), 165u);
  EXPECT_EQ(g->info().opset, 13);
  EXPECT_EQ(g->info().model_sha256.size(), 64u);
  for (const core::Tensor& t : g->tensors()) EXPECT_TRUE(t.shape_known()) << t.name;
}
