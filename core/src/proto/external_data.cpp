#include "weft/core/proto/external_data.h"

#include "weft/core/base/tensor_size.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace weft::core {
namespace {

namespace fs = std::filesystem;

std::string quote_name(std::string_view s) { return "'" + std::string(s) + "'"; }

Error refuse(std::string_view tensor, const std::string& what) {
  return make_error(ErrorKind::InvalidInput, "tensor " + quote_name(tensor) + ": external data " + what);
}

// True when p is root or lies below it (both absolute and normalized).
bool inside(const fs::path& root, const fs::path& p) {
  auto q = p.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++q) {
    if (r->empty()) continue;  // a trailing separator
    if (q == p.end() || *q != *r) return false;
  }
  return true;
}

fs::path canonical_folder(const std::string& dir) {
  std::error_code ec;
  const fs::path abs = fs::absolute(dir.empty() ? fs::path(".") : fs::path(dir), ec);
  if (ec) return fs::path(dir).lexically_normal();
  const fs::path c = fs::weakly_canonical(abs, ec);
  return ec ? abs.lexically_normal() : c;
}

// The checks both entry points share: the range [offset, offset + bytes) within a file of `size`.
Status check_range(std::int64_t offset, std::int64_t bytes, std::int64_t size, const std::string& file,
                   std::string_view tensor) {
  if (offset > size || bytes > size - offset)
    return refuse(tensor, "range [" + std::to_string(offset) + ", " + std::to_string(offset) + " + " +
                              std::to_string(bytes) + ") lies past the end of " + quote_name(file) + " (" +
                              std::to_string(size) + " bytes)");
  return {};
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : m_fd(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (m_fd >= 0) ::close(m_fd);
  }
  int get() const { return m_fd; }

 private:
  int m_fd;
};

}  // namespace

Expected<WeightData> resolve_external_data(const ExternalDataRef& ref, const std::string& model_dir,
                                           std::int64_t bytes, std::string_view tensor) {
  WeightData w;
  if (ref.location.empty()) return w;  // data-less (structure-only) weight
  const std::string& loc = ref.location;
  if (loc.find('\0') != std::string::npos) return refuse(tensor, "location contains a NUL byte");
  if (ref.offset < 0) return refuse(tensor, "offset " + std::to_string(ref.offset) + " is negative");
  if (ref.length < -1) return refuse(tensor, "length " + std::to_string(ref.length) + " is negative");
  if (ref.length >= 0 && bytes >= 0 && ref.length != bytes)
    return refuse(tensor, "length " + std::to_string(ref.length) + " differs from the " + std::to_string(bytes) +
                              " bytes its shape needs");
  const fs::path relative(loc);
  if (relative.has_root_path())
    return refuse(tensor, "location " + quote_name(loc) + " is an absolute path; it must lie in the model's folder");
  const fs::path normal = relative.lexically_normal();
  if (normal.empty() || *normal.begin() == "..")
    return refuse(tensor, "location " + quote_name(loc) + " leaves the model's folder");

  const fs::path root = canonical_folder(model_dir);
  std::error_code ec;
  fs::path target = fs::weakly_canonical(root / normal, ec);
  if (ec) return refuse(tensor, "location " + quote_name(loc) + " cannot be resolved: " + ec.message());
  if (!inside(root, target))
    return refuse(tensor, "location " + quote_name(loc) + " leaves the model's folder through a symbolic link");
  // weakly_canonical leaves a dangling link unresolved: judge where it would point.
  if (fs::is_symlink(fs::symlink_status(target, ec))) {
    fs::path dest = fs::read_symlink(target, ec);
    if (!ec && dest.is_relative()) dest = target.parent_path() / dest;
    if (ec || !inside(root, dest.lexically_normal()))
      return refuse(tensor, "location " + quote_name(loc) + " is a symbolic link leaving the model's folder");
  }
  w.external_path = target.string();
  w.external_offset = ref.offset;
  w.external_length = ref.length;

  const fs::file_status st = fs::status(target, ec);
  if (ec || !fs::exists(st)) return w;  // absent: analysis does not need it; a run reports it
  if (!fs::is_regular_file(st)) return refuse(tensor, "location " + quote_name(loc) + " is not a regular file");
  const auto size = static_cast<std::int64_t>(fs::file_size(target, ec));
  if (ec) return w;
  const std::int64_t need = bytes >= 0 ? bytes : (ref.length >= 0 ? ref.length : 0);
  WEFT_TRY(check_range(ref.offset, need, size, loc, tensor));
  return w;
}

Expected<std::vector<std::uint8_t>> read_external_data(const WeightData& data, std::int64_t bytes,
                                                       std::string_view tensor) {
  const std::string& path = data.external_path;
  if (path.empty()) return refuse(tensor, "is absent (no location)");
  if (bytes < 0 || bytes > kMaxTensorBytes)
    return refuse(tensor, "size " + std::to_string(bytes) + " is unknown or over the 2^48-byte limit");
  if (data.external_offset < 0) return refuse(tensor, "offset " + std::to_string(data.external_offset) + " is negative");
  if (data.external_length >= 0 && data.external_length != bytes)
    return refuse(tensor, "length " + std::to_string(data.external_length) + " in " + quote_name(path) + " differs from the " +
                              std::to_string(bytes) + " bytes its shape needs");
  // O_NONBLOCK: opening a FIFO must not hang; the type check below refuses it anyway.
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0)
    return make_error(ErrorKind::Runtime, "tensor " + quote_name(tensor) + ": cannot open external data file " +
                                              quote_name(path) + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return refuse(tensor, quote_name(path) + " is not a regular file");
  // external_path is the canonical path import confined to the folder: judge the file actually
  // opened, so a name turned into a link since then (the file, or a folder above it) is refused.
  std::error_code ec;
  const fs::path real = fs::read_symlink("/proc/self/fd/" + std::to_string(fd.get()), ec);
  if (ec || real != fs::path(path))
    return refuse(tensor, quote_name(path) + " now resolves to " + quote_name(ec ? std::string("?") : real.string()) +
                              ": a link changed since the model was loaded, it may leave the model's folder");
  WEFT_TRY(check_range(data.external_offset, bytes, static_cast<std::int64_t>(st.st_size), path, tensor));
  std::vector<std::uint8_t> out(static_cast<std::size_t>(bytes));
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::pread(fd.get(), out.data() + done, out.size() - done,
                              static_cast<off_t>(data.external_offset + static_cast<std::int64_t>(done)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return make_error(ErrorKind::Runtime, "tensor " + quote_name(tensor) + ": cannot read external data file " +
                                                quote_name(path) + (n < 0 ? ": " + std::string(std::strerror(errno)) : ": it shrank"));
    done += static_cast<std::size_t>(n);
  }
  return out;
}

}  // namespace weft::core
