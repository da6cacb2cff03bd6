#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "weft/core/proto/external_data.h"
#include "weft/core/base/tensor_size.h"

using namespace weft;
namespace fs = std::filesystem;

namespace {

// A fresh folder per test: model/ (the model's folder) beside outside/ (a file it must not reach).
struct Folders {
  fs::path base, model, outside_file;
  explicit Folders(const std::string& name) {
    base = fs::temp_directory_path() / ("weft_external_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(base);
    model = base / "model";
    fs::create_directories(model / "sub");
    fs::create_directories(base / "outside");
    outside_file = base / "outside" / "secret.bin";
    write(outside_file, std::string(64, 's'));
  }
  ~Folders() { fs::remove_all(base); }
  static void write(const fs::path& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary) << bytes;
  }
};

core::Expected<core::WeightData> resolve(const Folders& f, const std::string& location, std::int64_t bytes,
                                         std::int64_t offset = 0, std::int64_t length = -1) {
  return core::resolve_external_data(core::ExternalDataRef{location, offset, length}, f.model.string(), bytes, "w0");
}

void expect_refused(const core::Expected<core::WeightData>& w, const std::string& needle) {
  ASSERT_FALSE(w) << "expected a refusal mentioning '" << needle << "'";
  EXPECT_EQ(w.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(w.error().message.find("'w0'"), std::string::npos) << w.error().message;
  EXPECT_NE(w.error().message.find(needle), std::string::npos) << w.error().message;
}

}  // namespace

// Absolute locations and locations climbing out of the model's folder are refused, naming the tensor.
TEST(ExternalData, RefusesLocationsOutsideTheFolder) {
  Folders f("lexical");
  expect_refused(resolve(f, f.outside_file.string(), 64), "absolute");
  expect_refused(resolve(f, "/etc/passwd", 16), "absolute");
  expect_refused(resolve(f, "../outside/secret.bin", 64), "leaves the model's folder");
  expect_refused(resolve(f, "sub/../../outside/secret.bin", 64), "leaves the model's folder");
  expect_refused(resolve(f, "../../../../etc/passwd", 16), "leaves the model's folder");
  expect_refused(resolve(f, std::string("w.bin\0../x", 10), 16), "NUL");
}

// A link inside the folder that points out of it is refused, whether its target exists or not.
TEST(ExternalData, RefusesSymlinksLeavingTheFolder) {
  Folders f("links");
  fs::create_symlink(f.outside_file, f.model / "link.bin");
  expect_refused(resolve(f, "link.bin", 64), "symbolic link");
  fs::create_directory_symlink(f.base / "outside", f.model / "dirlink");
  expect_refused(resolve(f, "dirlink/secret.bin", 64), "symbolic link");
  fs::create_symlink(f.base / "outside" / "not_yet.bin", f.model / "dangling.bin");
  expect_refused(resolve(f, "dangling.bin", 64), "symbolic link");
  // A link that stays inside is fine.
  Folders::write(f.model / "sub" / "real.bin", std::string(16, 'r'));
  fs::create_symlink("sub/real.bin", f.model / "inner.bin");
  auto ok = resolve(f, "inner.bin", 16);
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(fs::path(ok->external_path), fs::canonical(f.model / "sub" / "real.bin"));
}

// Offsets and lengths beyond the file, negative or disagreeing with the shape, are refused before any read.
TEST(ExternalData, RefusesRangesBeyondTheFile) {
  Folders f("ranges");
  Folders::write(f.model / "w.bin", std::string(10, 'x'));
  expect_refused(resolve(f, "w.bin", std::int64_t{4'000'000'000'000}), "past the end");
  expect_refused(resolve(f, "w.bin", 8, 4), "past the end");
  expect_refused(resolve(f, "w.bin", 8, -1), "negative");
  expect_refused(resolve(f, "w.bin", 8, 0, 12), "length 12");
  expect_refused(resolve(f, "sub", 8), "not a regular file");
  auto ok = resolve(f, "w.bin", 8, 2, 8);
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->external_offset, 2);
  // An absent file is accepted (structure-only models); reading it is a Runtime error naming it.
  auto absent = resolve(f, "absent.bin", 8);
  ASSERT_TRUE(absent) << absent.error().message;
  auto read = core::read_external_data(*absent, 8, "w0");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().kind, core::ErrorKind::Runtime);
  EXPECT_NE(read.error().message.find("absent.bin"), std::string::npos) << read.error().message;
}

// The reader returns exactly the range asked for, and re-checks the file it opened.
TEST(ExternalData, ReadsTheRangeAndRechecksTheOpenedFile) {
  Folders f("read");
  std::string content(32, '\0');
  for (std::size_t k = 0; k < content.size(); ++k) content[k] = static_cast<char>(k);
  Folders::write(f.model / "w.bin", content);
  auto w = resolve(f, "w.bin", 8, 12);
  ASSERT_TRUE(w) << w.error().message;
  auto bytes = core::read_external_data(*w, 8, "w0");
  ASSERT_TRUE(bytes) << bytes.error().message;
  EXPECT_EQ(*bytes, (std::vector<std::uint8_t>{12, 13, 14, 15, 16, 17, 18, 19}));

  // The file shrank since import: the range is checked again, nothing is allocated for it.
  Folders::write(f.model / "w.bin", std::string(4, 'x'));
  auto shrunk = core::read_external_data(*w, 8, "w0");
  ASSERT_FALSE(shrunk);
  EXPECT_EQ(shrunk.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(shrunk.error().message.find("past the end"), std::string::npos) << shrunk.error().message;

  // Swapped for a link out of the folder after import: the opened file is judged, not its name.
  fs::remove(f.model / "w.bin");
  fs::create_symlink(f.outside_file, f.model / "w.bin");
  auto swapped = core::read_external_data(*w, 8, "w0");
  ASSERT_FALSE(swapped);
  EXPECT_EQ(swapped.error().kind, core::ErrorKind::InvalidInput);
  EXPECT_NE(swapped.error().message.find("link changed"), std::string::npos) << swapped.error().message;

  // A FIFO never blocks the reader: it is not a regular file.
  fs::remove(f.model / "w.bin");
  ASSERT_EQ(::mkfifo((f.model / "w.bin").c_str(), 0600), 0);
  auto fifo = core::read_external_data(*w, 8, "w0");
  ASSERT_FALSE(fifo);
  EXPECT_NE(fifo.error().message.find("not a regular file"), std::string::npos) << fifo.error().message;

  // Sizes that cannot be allocated are refused up front.
  auto huge = core::read_external_data(*w, std::int64_t{1} << 60, "w0");
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message.find("2^48"), std::string::npos) << huge.error().message;
}

// checked_elements bounds every product: negative dims, overflow and the 2^48-byte limit.
TEST(ExternalData, CheckedElements) {
  using V = std::vector<std::int64_t>;
  EXPECT_EQ(core::checked_elements(V{}), 1);
  EXPECT_EQ(core::checked_elements(V{2, 3, 4}, 4), 24);
  EXPECT_EQ(core::checked_elements(V{0, 5}), 0);
  EXPECT_FALSE(core::checked_elements(V{-1, 5}));
  EXPECT_FALSE(core::checked_elements(V{std::int64_t{1} << 40, std::int64_t{1} << 40}));
  EXPECT_FALSE(core::checked_elements(V{0, std::int64_t{1} << 40, std::int64_t{1} << 40}));
  EXPECT_FALSE(core::checked_elements(V{std::int64_t{1} << 47}, 4));
  EXPECT_EQ(core::checked_elements(V{std::int64_t{1} << 46}, 4), std::int64_t{1} << 46);
  EXPECT_FALSE(core::checked_elements(V{INT64_MAX}));
}
