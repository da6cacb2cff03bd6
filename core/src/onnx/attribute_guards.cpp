#include "attribute_guards.h"

#include <string>

namespace weft::core::detail {
namespace {

bool must_be_positive(const std::string& name) {
  return name == "strides" || name == "dilations" || name == "kernel_shape" || name == "group" || name == "blocksize";
}

Error refuse(const onnx::NodeProto& node, const onnx::AttributeProto& a, const std::string& got) {
  return make_error(ErrorKind::InvalidInput, "node '" + node.name() + "' (" + node.op_type() + "): attribute '" + a.name() +
                                                 "' must be positive, got " + got);
}

}  // namespace

Status check_inference_attributes(const onnx::GraphProto& graph) {
  for (const onnx::NodeProto& node : graph.node()) {
    // Custom domains have no schema, so libonnx never infers (or divides) for them.
    const bool onnx_domain = node.domain().empty() || node.domain() == "ai.onnx";
    for (const onnx::AttributeProto& a : node.attribute()) {
      if (onnx_domain && must_be_positive(a.name())) {
        if (a.ints_size() > 0) {
          std::string list;
          bool bad = false;
          for (std::int64_t v : a.ints()) {
            list += (list.empty() ? "" : ", ") + std::to_string(v);
            bad = bad || v <= 0;
          }
          if (bad) return refuse(node, a, "[" + list + "]");
        } else if (a.has_i() && a.i() <= 0) {
          return refuse(node, a, std::to_string(a.i()));
        }
      }
      // Inference descends into If/Loop/Scan bodies too.
      if (a.has_g()) WEFT_TRY(check_inference_attributes(a.g()));
      for (const onnx::GraphProto& g : a.graphs()) WEFT_TRY(check_inference_attributes(g));
    }
  }
  return {};
}

namespace {

Status check_value_dims(const onnx::ValueInfoProto& v) {
  if (!v.has_type() || !v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return {};
  const auto& shape = v.type().tensor_type().shape();
  for (int axis = 0; axis < shape.dim_size(); ++axis)
    if (shape.dim(axis).has_dim_value() && shape.dim(axis).dim_value() < 0)
      return make_error(ErrorKind::InvalidInput, "tensor '" + v.name() + "' axis " + std::to_string(axis) + " is declared with dimension " +
                                                     std::to_string(shape.dim(axis).dim_value()) + ": ONNX dimensions are >= 0");
  return {};
}

}  // namespace

Status check_declared_dims(const onnx::GraphProto& graph) {
  for (const auto& v : graph.input()) WEFT_TRY(check_value_dims(v));
  for (const auto& v : graph.output()) WEFT_TRY(check_value_dims(v));
  for (const auto& v : graph.value_info()) WEFT_TRY(check_value_dims(v));
  for (const onnx::NodeProto& node : graph.node())
    for (const onnx::AttributeProto& a : node.attribute()) {
      if (a.has_g()) WEFT_TRY(check_declared_dims(a.g()));
      for (const onnx::GraphProto& g : a.graphs()) WEFT_TRY(check_declared_dims(g));
    }
  return {};
}

}  // namespace weft::core::detail
