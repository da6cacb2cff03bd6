#pragma once
// Builds small ONNX models in tests with libonnx's protobuf types.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

namespace weft::test {

class OnnxModel {
 public:
  explicit OnnxModel(std::int64_t opset = 13) {
    m_model.set_ir_version(8);
    auto* op = m_model.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    m_model.mutable_graph()->set_name("test");
  }

  onnx::ModelProto& proto() { return m_model; }
  onnx::GraphProto& graph() { return *m_model.mutable_graph(); }

  /// Graph input; a negative dim becomes the symbol `sym` (or stays unnamed when sym is empty).
  OnnxModel& input(const std::string& name, std::vector<std::int64_t> dims, int elem = onnx::TensorProto::FLOAT,
                   std::vector<std::string> syms = {}) {
    value_info(graph().add_input(), name, dims, elem, syms);
    return *this;
  }
  OnnxModel& output(const std::string& name) {
    graph().add_output()->set_name(name);
    return *this;
  }
  onnx::NodeProto& node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                        const std::string& name = "") {
    auto* n = graph().add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + "_" + std::to_string(graph().node_size()) : name);
    for (auto& i : inputs) n->add_input(i);
    for (auto& o : outputs) n->add_output(o);
    return *n;
  }
  OnnxModel& init_i64(const std::string& name, std::vector<std::int64_t> dims, std::vector<std::int64_t> values) {
    auto* t = graph().add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (auto d : dims) t->add_dims(d);
    for (auto v : values) t->add_int64_data(v);
    return *this;
  }
  OnnxModel& init_f32(const std::string& name, std::vector<std::int64_t> dims, std::vector<float> values,
                      bool raw = true) {
    auto* t = graph().add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) t->add_dims(d);
    if (raw) {
      std::string bytes(values.size() * 4, '\0');
      std::memcpy(bytes.data(), values.data(), bytes.size());
      t->set_raw_data(bytes);
    } else {
      for (float v : values) t->add_float_data(v);
    }
    return *this;
  }
  OnnxModel& init_external(const std::string& name, std::vector<std::int64_t> dims, const std::string& location,
                           std::int64_t offset = 0) {
    auto* t = graph().add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) t->add_dims(d);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = t->add_external_data();
    kv->set_key("location");
    kv->set_value(location);
    kv = t->add_external_data();
    kv->set_key("offset");
    kv->set_value(std::to_string(offset));
    return *this;
  }
  std::string bytes() const { return m_model.SerializeAsString(); }

  static void attr_int(onnx::NodeProto& n, const std::string& name, std::int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void attr_ints(onnx::NodeProto& n, const std::string& name, std::vector<std::int64_t> v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (auto x : v) a->add_ints(x);
  }

 private:
  static void value_info(onnx::ValueInfoProto* vi, const std::string& name, const std::vector<std::int64_t>& dims,
                         int elem, const std::vector<std::string>& syms) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    for (std::size_t k = 0; k < dims.size(); ++k) {
      auto* d = shape->add_dim();
      if (dims[k] >= 0) d->set_dim_value(dims[k]);
      else if (k < syms.size() && !syms[k].empty()) d->set_dim_param(syms[k]);
    }
  }
  onnx::ModelProto m_model;
};

}  // namespace weft::test
