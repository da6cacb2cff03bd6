// Every weight of a model made inline: external data read, absent data given by the caller (the
// seeded values of a run), so that the file runs elsewhere on exactly Weft's weights.
#include "weft/core/proto/onnx_weights.h"

#include <onnx/onnx_pb.h>

#include <climits>
#include <filesystem>

#include "weft/core/proto/onnx_proto_util.h"
#include "weft/core/proto/external_data.h"

namespace weft::core {
namespace {

// `t` (an initializer, or a Constant's value named `name`) with its bytes inline.
Status make_inline(onnx::TensorProto& t, const std::string& name, int depth, const std::string& dir, const AbsentWeightFill& fill) {
  const DType dtype = detail::dtype_from_onnx(t.data_type());
  if (dtype == DType::String || dtype_size(dtype) == 0) return {};  // strings have no byte form; Weft seeds none
  std::vector<std::uint8_t> bytes;
  bool present = false;
  if (detail::is_external(t)) {
    WEFT_TRY_ASSIGN(const WeightData w, detail::external_weight(t, dir));
    std::error_code ec;
    // As the executors decide (initial_value): data in a file that exists, else seeded values.
    if (!w.external_path.empty() && std::filesystem::exists(w.external_path, ec)) {
      WEFT_TRY_ASSIGN(bytes, read_external_data(w, detail::byte_count(t), name));
      present = true;
    }
  } else if (detail::has_inline_data(t)) {
    return {};
  }
  if (!present) {
    const std::int64_t size = detail::byte_count(t);
    if (size < 0) return make_error(ErrorKind::InvalidInput, "weight '" + name + "' has an invalid shape");
    Tensor w;
    w.name = name;
    w.dtype = dtype;
    w.kind = TensorKind::Weight;
    w.rank_known = true;
    for (std::int64_t d : t.dims()) w.dims.push_back(Dim{d, {}});
    bytes.resize(static_cast<std::size_t>(size));
    fill(w, depth, bytes);
  }
  t.clear_external_data();
  t.clear_data_location();
  t.clear_float_data();
  t.clear_int32_data();
  t.clear_int64_data();
  t.clear_double_data();
  t.clear_uint64_data();
  t.set_raw_data(bytes.data(), bytes.size());
  return {};
}

Status inline_graph(onnx::GraphProto& g, int depth, const std::string& dir, const AbsentWeightFill& fill) {
  for (auto& init : *g.mutable_initializer()) WEFT_TRY(make_inline(init, init.name(), depth, dir, fill));
  for (auto& node : *g.mutable_node()) {
    for (auto& a : *node.mutable_attribute()) {
      // The importer names a Constant's weight after its output (constants_to_initializers).
      if (node.op_type() == "Constant" && node.domain().empty() && a.name() == "value" && a.has_t() && node.output_size() == 1)
        WEFT_TRY(make_inline(*a.mutable_t(), node.output(0), depth, dir, fill));
      if (a.has_g()) WEFT_TRY(inline_graph(*a.mutable_g(), depth + 1, dir, fill));
      for (auto& body : *a.mutable_graphs()) WEFT_TRY(inline_graph(body, depth + 1, dir, fill));
    }
  }
  return {};
}

}  // namespace

Expected<std::string> inline_model_weights(std::string_view model_bytes, const std::string& model_path, const AbsentWeightFill& fill) {
  onnx::ModelProto model;
  WEFT_TRY(detail::parse_model(model_bytes, model_path, model));
  const std::filesystem::path p(model_path);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  WEFT_TRY(inline_graph(*model.mutable_graph(), 0, dir, fill));
  if (model.ByteSizeLong() > static_cast<std::size_t>(INT_MAX))
    return make_error(ErrorKind::InvalidInput, model_path + ": with its weights inline the model is over protobuf's 2 GB limit");
  std::string out;
  if (!model.SerializeToString(&out)) return make_error(ErrorKind::Runtime, model_path + ": cannot serialise the model");
  return out;
}

}  // namespace weft::core
