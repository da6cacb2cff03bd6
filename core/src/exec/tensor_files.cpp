// Tensor sets on disk: which files a folder holds, in which order, and writing them back.
#include "weft/core/exec/tensor_files.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>

#include "weft/core/exec/npy.h"
#include "weft/core/proto/tensor_pb.h"

namespace weft::core {
namespace {

namespace fs = std::filesystem;

bool ends_with(std::string_view s, std::string_view tail) { return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail; }

// N of "PREFIX_N.pb", when the name has that form.
std::optional<long long> numbered(const std::string& file, std::string_view prefix) {
  const std::string head = std::string(prefix) + "_";
  if (file.size() <= head.size() + 3 || file.compare(0, head.size(), head) != 0 || !ends_with(file, ".pb")) return std::nullopt;
  const std::string digits = file.substr(head.size(), file.size() - head.size() - 3);
  if (digits.empty() || digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoll(digits);
}

// np.savez's unnamed arrays are arr_0, arr_1, ...: their N is a position.
int npz_position(const std::string& name) {
  if (name.size() < 5 || name.compare(0, 4, "arr_") != 0) return -1;
  const std::string digits = name.substr(4);
  if (digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return -1;
  return std::stoi(digits);
}

Expected<TensorFile> read_pb(const std::string& file, int position) {
  TensorFile t;
  t.position = position;
  t.source = file;
  auto value = read_tensor_pb(file, &t.name);
  // A file the command was given that cannot be read is the input's fault, not the machine's.
  if (!value) return make_error(ErrorKind::InvalidInput, value.error().message);
  t.value = std::move(*value);
  return t;
}

Expected<TensorFile> read_one_npy(const std::string& file, int position) {
  TensorFile t;
  t.position = position;
  t.source = file;
  t.name = fs::path(file).stem().string();
  WEFT_TRY_ASSIGN(t.value, read_npy(file));
  return t;
}

Expected<TensorFiles> read_folder(const std::string& path, std::string_view prefix) {
  std::vector<std::pair<long long, std::string>> pbs;
  std::vector<std::string> npys;
  std::error_code ec;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    if (auto n = numbered(file, prefix)) pbs.emplace_back(*n, it->path().string());
    else if (ends_with(file, ".npy")) npys.push_back(it->path().string());
  }
  if (ec) return make_error(ErrorKind::InvalidInput, path + ": cannot list the folder: " + ec.message());
  TensorFiles out;
  out.path = path;
  if (!pbs.empty()) {
    std::sort(pbs.begin(), pbs.end());
    out.format = TensorFormat::Pb;
    for (std::size_t i = 0; i < pbs.size(); ++i) {
      WEFT_TRY_ASSIGN(auto t, read_pb(pbs[i].second, static_cast<int>(i)));
      out.tensors.push_back(std::move(t));
    }
    return out;
  }
  if (npys.empty())
    return make_error(ErrorKind::InvalidInput, path + ": holds no " + std::string(prefix) + "_N.pb and no .npy files");
  std::sort(npys.begin(), npys.end());
  out.format = TensorFormat::Npy;
  for (const std::string& file : npys) {
    WEFT_TRY_ASSIGN(auto t, read_one_npy(file, -1));
    out.tensors.push_back(std::move(t));
  }
  return out;
}

// A tensor's name as a file name: one path component.
std::string file_name_of(const std::string& name) {
  std::string s = name;
  std::replace(s.begin(), s.end(), '/', '_');
  if (s == "." || s == "..") s = "_" + s;
  return s;
}

}  // namespace

std::string_view tensor_format_name(TensorFormat format) {
  switch (format) {
    case TensorFormat::Pb: return "pb";
    case TensorFormat::Npy: return "npy";
    case TensorFormat::Npz: return "npz";
  }
  return "pb";
}

std::string tensor_type_text(DType dtype, std::span<const std::int64_t> shape) {
  std::string s(dtype_name(dtype));
  if (shape.empty()) return s + " scalar";
  s += ' ';
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

Expected<TensorFiles> read_tensor_files(const std::string& path, std::string_view prefix) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return make_error(ErrorKind::InvalidInput, path + ": no such file or folder");
  if (fs::is_directory(st)) return read_folder(path, prefix);
  TensorFiles out;
  out.path = path;
  if (ends_with(path, ".npz")) {
    out.format = TensorFormat::Npz;
    WEFT_TRY_ASSIGN(auto entries, read_npz(path));
    for (auto& e : entries) {
      TensorFile t;
      t.position = npz_position(e.name);
      t.source = path + ":" + e.name;
      t.name = std::move(e.name);
      t.value = std::move(e.value);
      out.tensors.push_back(std::move(t));
    }
    return out;
  }
  if (ends_with(path, ".npy")) {
    out.format = TensorFormat::Npy;
    WEFT_TRY_ASSIGN(auto t, read_one_npy(path, 0));
    out.tensors.push_back(std::move(t));
    return out;
  }
  if (ends_with(path, ".pb")) {
    out.format = TensorFormat::Pb;
    WEFT_TRY_ASSIGN(auto t, read_pb(path, 0));
    out.tensors.push_back(std::move(t));
    return out;
  }
  return make_error(ErrorKind::InvalidInput, path + ": not a folder, .npz, .npy or .pb file");
}

Status write_tensor_files(const std::string& path, TensorFormat format,
                          std::span<const std::pair<std::string, const HostTensor*>> tensors, std::string_view prefix) {
  if (format == TensorFormat::Npz) {
    for (const auto& [name, value] : tensors)
      if (name.empty()) return make_error(ErrorKind::InvalidInput, path + ": an unnamed tensor cannot be an .npz entry");
    const fs::path parent = fs::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty()) fs::create_directories(parent, ec);
    return write_npz(path, tensors);
  }
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec || !fs::is_directory(path, ec))
    return make_error(ErrorKind::Runtime, path + ": cannot create the folder" + (ec ? ": " + ec.message() : std::string()));
  std::set<std::string> used;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto& [name, value] = tensors[i];
    if (format == TensorFormat::Pb) {
      WEFT_TRY(write_tensor_pb((fs::path(path) / (std::string(prefix) + "_" + std::to_string(i) + ".pb")).string(), name, *value));
      continue;
    }
    const std::string file = file_name_of(name);
    if (file.empty()) return make_error(ErrorKind::InvalidInput, path + ": tensor " + std::to_string(i) + " has no name to make an .npy file of");
    if (!used.insert(file).second)
      return make_error(ErrorKind::InvalidInput, path + ": two tensors would both be written to " + file + ".npy");
    WEFT_TRY(write_npy((fs::path(path) / (file + ".npy")).string(), *value));
  }
  return {};
}

}  // namespace weft::core
