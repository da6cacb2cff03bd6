#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "weft/core/base/file_io.h"
#include "weft/core/proto/tensor_pb.h"

using namespace weft;

namespace {

std::filesystem::path temp_dir() {
  auto dir = std::filesystem::temp_directory_path() / "weft_tensor_pb_test";
  std::filesystem::create_directories(dir);
  return dir;
}

std::string write_pb(const onnx::TensorProto& t, const std::string& name) {
  const std::string path = (temp_dir() / name).string();
  EXPECT_TRUE(core::write_file_atomic(path, t.SerializeAsString()));
  return path;
}

template <class T>
std::vector<T> as(const std::vector<std::uint8_t>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

}  // namespace

// raw_data float tensors (the usual conformance input) come back byte for byte with their shape.
TEST(TensorPb, RawFloat) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(2);
  t.add_dims(2);
  const std::vector<float> values{1.0f, -2.5f, 3.25f, 0.0f};
  t.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4));
  auto h = core::read_tensor_pb(write_pb(t, "raw.pb"));
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_EQ(h->dtype, core::DType::Float32);
  EXPECT_EQ(h->shape, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(as<float>(h->bytes), values);
}

// Typed fields: float_data, double_data, int32_data (int32 and bool), int64_data.
TEST(TensorPb, TypedFields) {
  onnx::TensorProto f;
  f.set_data_type(onnx::TensorProto::FLOAT);
  f.add_dims(3);
  for (float v : {0.5f, 1.5f, -1.0f}) f.add_float_data(v);
  auto hf = core::read_tensor_pb(write_pb(f, "f.pb"));
  ASSERT_TRUE(hf) << hf.error().message;
  EXPECT_EQ(as<float>(hf->bytes), (std::vector<float>{0.5f, 1.5f, -1.0f}));

  onnx::TensorProto d;
  d.set_data_type(onnx::TensorProto::DOUBLE);
  d.add_dims(2);
  d.add_double_data(1e300);
  d.add_double_data(-2.0);
  auto hd = core::read_tensor_pb(write_pb(d, "d.pb"));
  ASSERT_TRUE(hd);
  EXPECT_EQ(hd->dtype, core::DType::Float64);
  EXPECT_EQ(as<double>(hd->bytes), (std::vector<double>{1e300, -2.0}));

  onnx::TensorProto i;
  i.set_data_type(onnx::TensorProto::INT32);
  i.add_dims(2);
  i.add_int32_data(-7);
  i.add_int32_data(123456);
  auto hi = core::read_tensor_pb(write_pb(i, "i.pb"));
  ASSERT_TRUE(hi);
  EXPECT_EQ(as<std::int32_t>(hi->bytes), (std::vector<std::int32_t>{-7, 123456}));

  onnx::TensorProto l;
  l.set_data_type(onnx::TensorProto::INT64);  // a scalar: no dims
  l.add_int64_data(-9'000'000'000);
  auto hl = core::read_tensor_pb(write_pb(l, "l.pb"));
  ASSERT_TRUE(hl);
  EXPECT_TRUE(hl->shape.empty());
  EXPECT_EQ(as<std::int64_t>(hl->bytes), (std::vector<std::int64_t>{-9'000'000'000}));

  onnx::TensorProto b;
  b.set_data_type(onnx::TensorProto::BOOL);
  b.add_dims(3);
  for (int v : {1, 0, 1}) b.add_int32_data(v);
  auto hb = core::read_tensor_pb(write_pb(b, "b.pb"));
  ASSERT_TRUE(hb);
  EXPECT_EQ(hb->dtype, core::DType::Bool);
  EXPECT_EQ(hb->bytes, (std::vector<std::uint8_t>{1, 0, 1}));
}

// Wrong element counts, garbage and missing files are errors of the right kind naming the file.
TEST(TensorPb, Errors) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(4);
  t.add_float_data(1.0f);
  const std::string short_path = write_pb(t, "short.pb");
  auto bad = core::read_tensor_pb(short_path);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(bad.error().message.find("short.pb"), std::string::npos);

  const std::string junk = (temp_dir() / "junk.pb").string();
  ASSERT_TRUE(core::write_file_atomic(junk, std::string("\xff\xff\xff\xff\xff garbage", 13)));
  auto j = core::read_tensor_pb(junk);
  ASSERT_FALSE(j);
  EXPECT_EQ(j.error().kind, core::ErrorKind::InvalidInput);

  auto missing = core::read_tensor_pb((temp_dir() / "nope.pb").string());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, core::ErrorKind::Runtime);
}

// read_weight_bytes returns inline bytes, or the offset range of the external file.
TEST(TensorPb, WeightBytes) {
  core::Tensor w;
  w.name = "w";
  w.kind = core::TensorKind::Weight;
  w.dtype = core::DType::Float32;
  w.rank_known = true;
  w.dims = {core::Dim{2, {}}};
  auto none = core::read_weight_bytes(w);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().kind, core::ErrorKind::InvalidInput);

  w.data.inline_bytes = std::make_shared<const std::vector<std::uint8_t>>(std::vector<std::uint8_t>(8, 7));
  auto in = core::read_weight_bytes(w);
  ASSERT_TRUE(in);
  EXPECT_EQ(*in, std::vector<std::uint8_t>(8, 7));

  const std::string file = (temp_dir() / "weights.bin").string();
  std::string content(32, '\0');
  for (std::size_t k = 0; k < content.size(); ++k) content[k] = static_cast<char>(k);
  ASSERT_TRUE(core::write_file_atomic(file, content));
  w.data = {};
  w.data.external_path = file;
  w.data.external_offset = 12;
  auto ext = core::read_weight_bytes(w);
  ASSERT_TRUE(ext) << ext.error().message;
  EXPECT_EQ(*ext, (std::vector<std::uint8_t>{12, 13, 14, 15, 16, 17, 18, 19}));

  w.data.external_offset = 28;  // only 4 bytes left
  auto past = core::read_weight_bytes(w);
  ASSERT_FALSE(past);
  EXPECT_EQ(past.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(past.error().message.find("'w'"), std::string::npos);
  EXPECT_NE(past.error().message.find("weights.bin"), std::string::npos);
}
