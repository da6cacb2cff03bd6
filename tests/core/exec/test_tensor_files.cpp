// Tensor files as runs take and give them: numpy's own .npy and .npz files (made by numpy, in
// tests/data/bad/inputs/formats) read to the values numpy wrote, TensorProto and numpy files
// written and read back bit for bit, folders read in their order, and broken files refused by name.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "weft/core/exec/npy.h"
#include "weft/core/exec/tensor_files.h"
#include "weft/core/proto/tensor_pb.h"

namespace {

using namespace weft;
namespace fs = std::filesystem;

const std::string kFormats = std::string(WEFT_TEST_DATA_DIR) + "/bad/inputs/formats/";

template <class T>
std::vector<T> values(const core::HostTensor& t) {
  std::vector<T> v(t.bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
  return v;
}

core::HostTensor tensor(core::DType dtype, std::vector<std::int64_t> shape, std::vector<std::uint8_t> bytes) {
  return core::HostTensor{dtype, std::move(shape), std::move(bytes)};
}

std::string fresh_dir(const std::string& name) {
  const std::string dir = test::temp_path(name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

}  // namespace

// Every dtype and layout numpy writes that Weft has a type for reads to numpy's values: C and
// Fortran order (transposed into row-major), format 2.0, a scalar and an empty array.
TEST(Npy, ReadsWhatNumpyWrote) {
  auto f = core::read_npy(kFormats + "float32_2x3.npy");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->dtype, core::DType::Float32);
  EXPECT_EQ(f->shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(values<float>(*f), (std::vector<float>{0, 1, 2, 3, 4, 5}));

  auto fortran = core::read_npy(kFormats + "fortran_2x3x4.npy");
  ASSERT_TRUE(fortran) << fortran.error().message;
  EXPECT_EQ(fortran->shape, (std::vector<std::int64_t>{2, 3, 4}));
  std::vector<double> want(24);
  for (int i = 0; i < 24; ++i) want[static_cast<std::size_t>(i)] = i;  // row-major arange, as numpy's a.ravel()
  EXPECT_EQ(values<double>(*fortran), want);

  auto half = core::read_npy(kFormats + "float16_5.npy");
  ASSERT_TRUE(half) << half.error().message;
  EXPECT_EQ(half->dtype, core::DType::Float16);
  EXPECT_EQ(values<std::uint16_t>(*half), (std::vector<std::uint16_t>{0x0000, 0x3c00, 0x4000, 0x4200, 0x4400}));

  auto i64 = core::read_npy(kFormats + "int64_2x2.npy");
  ASSERT_TRUE(i64);
  EXPECT_EQ(i64->dtype, core::DType::Int64);
  EXPECT_EQ(values<std::int64_t>(*i64), (std::vector<std::int64_t>{0, 1, 2, 3}));
  auto u8 = core::read_npy(kFormats + "uint8_3.npy");
  ASSERT_TRUE(u8);
  EXPECT_EQ(u8->dtype, core::DType::UInt8);
  EXPECT_EQ(u8->bytes, (std::vector<std::uint8_t>{0, 1, 2}));
  auto b = core::read_npy(kFormats + "bool_4.npy");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->dtype, core::DType::Bool);
  EXPECT_EQ(b->bytes, (std::vector<std::uint8_t>{1, 0, 0, 1}));
  auto scalar = core::read_npy(kFormats + "scalar_int32.npy");
  ASSERT_TRUE(scalar);
  EXPECT_TRUE(scalar->shape.empty());
  EXPECT_EQ(values<std::int32_t>(*scalar), (std::vector<std::int32_t>{7}));
  auto empty = core::read_npy(kFormats + "empty_0x3.npy");
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_EQ(empty->shape, (std::vector<std::int64_t>{0, 3}));
  EXPECT_TRUE(empty->bytes.empty());
  auto v2 = core::read_npy(kFormats + "v2_float32_3.npy");
  ASSERT_TRUE(v2) << v2.error().message;
  EXPECT_EQ(values<float>(*v2), (std::vector<float>{0, 1, 2}));
}

// .npz: stored (np.savez) and deflated (np.savez_compressed) entries, in the archive's order,
// named without ".npy".
TEST(Npy, ReadsNumpyArchives) {
  auto two = core::read_npz(kFormats + "two.npz");
  ASSERT_TRUE(two) << two.error().message;
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].name, "b");
  EXPECT_EQ(values<std::int32_t>((*two)[0].value), (std::vector<std::int32_t>{0, 1, 2}));
  EXPECT_EQ((*two)[1].name, "a");
  EXPECT_EQ(values<float>((*two)[1].value), (std::vector<float>{0, 1}));
  auto packed = core::read_npz(kFormats + "two_compressed.npz");
  ASSERT_TRUE(packed) << packed.error().message;
  ASSERT_EQ(packed->size(), 2u);
  EXPECT_EQ((*packed)[0].name, "arr_0");
  const auto big = values<float>((*packed)[0].value);
  ASSERT_EQ(big.size(), 1000u);
  EXPECT_EQ(big[999], 999.0f);
  EXPECT_EQ((*packed)[1].value.dtype, core::DType::Int64);
}

// What Weft writes reads back bit for bit, in each format (and numpy reads it: the CLI tests'
// --save-outputs files come back through numpy in tests/python).
TEST(TensorFiles, WrittenFilesReadBack) {
  const core::HostTensor a = tensor(core::DType::Float32, {2, 2}, {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64});
  const core::HostTensor b = tensor(core::DType::Int64, {}, {5, 0, 0, 0, 0, 0, 0, 0});
  const std::vector<std::pair<std::string, const core::HostTensor*>> both{{"a/1", &a}, {"b", &b}};
  for (core::TensorFormat format : {core::TensorFormat::Pb, core::TensorFormat::Npy, core::TensorFormat::Npz}) {
    SCOPED_TRACE(std::string(core::tensor_format_name(format)));
    std::string where = fresh_dir("weft_tensor_files");
    if (format == core::TensorFormat::Npz) where += ".npz";
    ASSERT_TRUE(core::write_tensor_files(where, format, both));
    auto read = core::read_tensor_files(where, "output");
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(read->format, format);
    ASSERT_EQ(read->tensors.size(), 2u);
    // .npy folders are read in name order, the others in the order written.
    const bool by_name = format == core::TensorFormat::Npy;
    const core::TensorFile& first = read->tensors[0];
    EXPECT_EQ(first.name, by_name ? "a_1" : "a/1");
    EXPECT_EQ(first.value.shape, a.shape);
    EXPECT_EQ(first.value.bytes, a.bytes);
    EXPECT_EQ(read->tensors[1].value.bytes, b.bytes);
    EXPECT_TRUE(read->tensors[1].value.shape.empty());
    EXPECT_EQ(first.position, by_name ? -1 : (format == core::TensorFormat::Pb ? 0 : -1));
    fs::remove_all(where);
  }
}

// A folder's input_N.pb are read in N's numeric order (input_10 after input_2), and other files
// beside them are left alone; PREFIX chooses input_ or output_ files of a test data set.
TEST(TensorFiles, FolderOrderAndPrefix) {
  const std::string dir = fresh_dir("weft_tensor_folder");
  fs::create_directories(dir);
  const core::HostTensor t = tensor(core::DType::UInt8, {1}, {9});
  for (int n : {10, 2, 0, 1})
    ASSERT_TRUE(core::write_tensor_pb(dir + "/input_" + std::to_string(n) + ".pb", "t" + std::to_string(n), t));
  ASSERT_TRUE(core::write_tensor_pb(dir + "/output_0.pb", "out", t));
  std::ofstream(dir + "/notes.npy") << "not read: .pb files come first";
  auto in = core::read_tensor_files(dir, "input");
  ASSERT_TRUE(in) << in.error().message;
  ASSERT_EQ(in->tensors.size(), 4u);
  std::vector<std::string> names;
  for (const auto& f : in->tensors) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"t0", "t1", "t2", "t10"}));
  EXPECT_EQ(in->tensors[3].position, 3);
  auto out = core::read_tensor_files(dir, "output");
  ASSERT_TRUE(out);
  ASSERT_EQ(out->tensors.size(), 1u);
  EXPECT_EQ(out->tensors[0].name, "out");
  fs::remove_all(dir);
}

// Broken files are refused, each naming the file and what is wrong (the CLI's bad-input corpus
// covers the command's messages; these pin the readers').
TEST(TensorFiles, BrokenFilesNameTheProblem) {
  auto npy = core::npy_bytes(tensor(core::DType::Float32, {1, 4}, std::vector<std::uint8_t>(16, 0)));
  ASSERT_TRUE(npy);
  EXPECT_EQ(npy->size() % 64, 16u) << "data starts on a 64-byte boundary";
  auto truncated = core::parse_npy(npy->substr(0, npy->size() - 4), "t.npy");
  ASSERT_FALSE(truncated);
  EXPECT_NE(truncated.error().message.find("t.npy: truncated: the header says float32 1x4 (16 bytes), the file holds 12"),
            std::string::npos)
      << truncated.error().message;
  std::string big_endian = *npy;
  big_endian.replace(big_endian.find("<f4"), 3, ">f4");
  auto be = core::parse_npy(big_endian, "be.npy");
  ASSERT_FALSE(be);
  EXPECT_NE(be.error().message.find("'>f4' has no Weft type"), std::string::npos) << be.error().message;
  auto header = core::parse_npy(std::string("\x93NUMPY\x01\x00\x08\x00{'a': 1}", 18), "h.npy");
  ASSERT_FALSE(header);
  EXPECT_NE(header.error().message.find("unknown header key 'a'"), std::string::npos) << header.error().message;
  EXPECT_FALSE(core::parse_npy("", "e.npy"));
  auto bf16 = core::npy_bytes(tensor(core::DType::BFloat16, {1}, {0, 0}));
  ASSERT_FALSE(bf16);
  EXPECT_NE(bf16.error().message.find("numpy has no bfloat16"), std::string::npos);
  auto missing = core::read_tensor_files(kFormats + "absent");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(missing.error().message.find("no such file or folder"), std::string::npos);
}
