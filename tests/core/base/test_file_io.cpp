#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "weft/core/base/file_io.h"

using namespace weft;

// SHA-256 matches the FIPS 180-4 test vectors (one and two blocks, empty input).
TEST(FileIo, Sha256Vectors) {
  EXPECT_EQ(core::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(core::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(core::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

// An atomic write replaces the file and leaves no temporary behind; reading a missing file is an error.
TEST(FileIo, AtomicWriteAndRead) {
  const auto dir = std::filesystem::temp_directory_path() / "weft_file_io_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "a.json").string();
  ASSERT_TRUE(core::write_file_atomic(path, "first"));
  ASSERT_TRUE(core::write_file_atomic(path, "second"));
  auto text = core::read_file(path);
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, "second");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator{}), 1);
  auto missing = core::read_file((dir / "nope").string());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, core::ErrorKind::Runtime);
  EXPECT_FALSE(core::write_file_atomic((dir / "no_such_dir" / "x").string(), "x"));
  std::filesystem::remove_all(dir);
}

// Reads stop at the size limit, so an endless stream is refused instead of filling memory; a file
// exactly at the limit is read whole.
TEST(FileIo, ReadStopsAtTheLimit) {
  auto zeros = core::read_file("/dev/zero", 1 << 20);
  ASSERT_FALSE(zeros);
  EXPECT_EQ(zeros.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(zeros.error().message.find("/dev/zero: larger than 1048576 bytes"), std::string::npos) << zeros.error().message;
  const auto path = (std::filesystem::temp_directory_path() / "weft_file_io_limit.bin").string();
  const std::string bytes(200000, 'x');
  ASSERT_TRUE(core::write_file_atomic(path, bytes));
  auto exact = core::read_file(path, bytes.size());
  ASSERT_TRUE(exact);
  EXPECT_EQ(*exact, bytes);
  EXPECT_FALSE(core::read_file(path, bytes.size() - 1));
  std::filesystem::remove(path);
}
