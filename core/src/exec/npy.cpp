// numpy's .npy and .npz formats (numpy's NEP 1 "A Simple File Format for NumPy Arrays" and the
// PKWARE zip APPNOTE for the archive), written from the format descriptions.
#include "weft/core/exec/npy.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>

#include "weft/core/base/file_io.h"
#include "weft/core/exec/tensor_files.h"
#include "weft/core/base/tensor_size.h"

namespace weft::core {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

Error bad(const std::string& where, const std::string& why) { return make_error(ErrorKind::InvalidInput, where + ": " + why); }

// numpy's type strings for the dtypes Weft has ('|' for one-byte types, which have no order).
struct Descr {
  char kind;  // 'f' float, 'i' signed, 'u' unsigned, 'b' bool
  int size;
  DType dtype;
};
constexpr Descr kDescrs[] = {
    {'f', 2, DType::Float16}, {'f', 4, DType::Float32}, {'f', 8, DType::Float64}, {'i', 1, DType::Int8},
    {'i', 2, DType::Int16},   {'i', 4, DType::Int32},   {'i', 8, DType::Int64},   {'u', 1, DType::UInt8},
    {'u', 2, DType::UInt16},  {'u', 4, DType::UInt32},  {'u', 8, DType::UInt64},  {'b', 1, DType::Bool},
};

std::optional<DType> dtype_of_descr(std::string_view d) {
  if (d.size() < 3) return std::nullopt;
  const char order = d[0];
  const char kind = d[1];
  int size = 0;
  for (char c : d.substr(2)) {
    if (c < '0' || c > '9') return std::nullopt;
    size = size * 10 + (c - '0');
    if (size > 64) return std::nullopt;
  }
  // '<' little-endian, '|' no byte order (one byte), '=' native (little-endian on every machine Weft builds for).
  if (order == '>' && size > 1) return std::nullopt;
  if (order != '<' && order != '|' && order != '=' && order != '>') return std::nullopt;
  for (const Descr& x : kDescrs)
    if (x.kind == kind && x.size == size) return x.dtype;
  return std::nullopt;
}

std::optional<std::string> descr_of(DType dtype) {
  for (const Descr& x : kDescrs)
    if (x.dtype == dtype) return std::string(1, x.size == 1 ? '|' : '<') + x.kind + std::to_string(x.size);
  return std::nullopt;
}

// The header is a Python dict literal as numpy's repr writes it: {'descr': '<f4', 'fortran_order':
// False, 'shape': (2, 3), }. A small reader of exactly that grammar: quoted strings, True/False,
// tuples of integers.
class HeaderReader {
 public:
  explicit HeaderReader(std::string_view text) : m_text(text) {}

  bool parse(std::string& descr, bool& fortran, std::vector<std::int64_t>& shape, std::string& why) {
    bool have_descr = false, have_order = false, have_shape = false;
    if (!eat('{')) return fail(why, "the header is not a dict");
    while (!eat('}')) {
      std::string key;
      if (!string(key)) return fail(why, "a header key is not a quoted string");
      if (!eat(':')) return fail(why, "no ':' after '" + key + "'");
      if (key == "descr") {
        if (!string(descr)) return fail(why, "'descr' is not a type string (structured arrays are not supported)");
        have_descr = true;
      } else if (key == "fortran_order") {
        if (!boolean(fortran)) return fail(why, "'fortran_order' is not True or False");
        have_order = true;
      } else if (key == "shape") {
        if (!tuple(shape)) return fail(why, "'shape' is not a tuple of non-negative integers");
        have_shape = true;
      } else {
        return fail(why, "unknown header key '" + key + "'");
      }
      if (!eat(',')) {
        if (!eat('}')) return fail(why, "the header dict is not closed");
        break;
      }
    }
    if (!have_descr || !have_order || !have_shape) return fail(why, "the header lacks 'descr', 'fortran_order' or 'shape'");
    return true;
  }

 private:
  static bool fail(std::string& why, std::string text) {
    why = std::move(text);
    return false;
  }
  void skip() {
    while (m_at < m_text.size() && (m_text[m_at] == ' ' || m_text[m_at] == '\t' || m_text[m_at] == '\n')) ++m_at;
  }
  bool eat(char c) {
    skip();
    if (m_at < m_text.size() && m_text[m_at] == c) {
      ++m_at;
      return true;
    }
    return false;
  }
  bool string(std::string& out) {
    skip();
    if (m_at >= m_text.size() || (m_text[m_at] != '\'' && m_text[m_at] != '"')) return false;
    const char quote = m_text[m_at++];
    const std::size_t end = m_text.find(quote, m_at);
    if (end == std::string_view::npos) return false;
    out = std::string(m_text.substr(m_at, end - m_at));
    m_at = end + 1;
    return true;
  }
  bool boolean(bool& out) {
    skip();
    for (const auto& [word, value] : {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}})
      if (m_text.substr(m_at, word.size()) == word) {
        m_at += word.size();
        out = value;
        return true;
      }
    return false;
  }
  bool tuple(std::vector<std::int64_t>& out) {
    out.clear();
    if (!eat('(')) return false;
    while (!eat(')')) {
      skip();
      std::int64_t v = 0;
      bool digits = false;
      while (m_at < m_text.size() && m_text[m_at] >= '0' && m_text[m_at] <= '9') {
        if (v > (std::numeric_limits<std::int64_t>::max() - 9) / 10) return false;
        v = v * 10 + (m_text[m_at++] - '0');
        digits = true;
      }
      // numpy writes Python ints; a 'L' suffix (Python 2) may follow.
      if (m_at < m_text.size() && m_text[m_at] == 'L') ++m_at;
      if (!digits) return false;
      out.push_back(v);
      if (!eat(',')) {
        if (!eat(')')) return false;
        break;
      }
    }
    return true;
  }

  std::string_view m_text;
  std::size_t m_at = 0;
};

std::uint32_t read_u16(const unsigned char* p) { return static_cast<std::uint32_t>(p[0] | (p[1] << 8)); }
std::uint32_t read_u32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) | (static_cast<std::uint32_t>(p[2]) << 16) |
         (static_cast<std::uint32_t>(p[3]) << 24);
}
std::uint64_t read_u64(const unsigned char* p) { return read_u32(p) | (static_cast<std::uint64_t>(read_u32(p + 4)) << 32); }

// A Fortran-order array of shape (d0, ..., dk) holds the row-major array of shape (dk, ..., d0):
// transposing that (reversing the axes) gives the row-major bytes of the array itself.
std::vector<std::uint8_t> from_fortran(const std::vector<std::uint8_t>& bytes, const std::vector<std::int64_t>& shape, std::size_t es) {
  const std::size_t rank = shape.size();
  if (rank < 2 || bytes.empty()) return bytes;
  std::vector<std::uint8_t> out(bytes.size());
  // Fortran strides (in elements) of each axis of the array: 1, d0, d0*d1, ...
  std::vector<std::int64_t> fstride(rank, 1);
  for (std::size_t a = 1; a < rank; ++a) fstride[a] = fstride[a - 1] * shape[a - 1];
  std::vector<std::int64_t> index(rank, 0);
  const std::size_t n = bytes.size() / es;
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t from = 0;
    for (std::size_t a = 0; a < rank; ++a) from += index[a] * fstride[a];
    std::memcpy(out.data() + i * es, bytes.data() + static_cast<std::size_t>(from) * es, es);
    for (std::size_t a = rank; a-- > 0;) {  // row-major increment
      if (++index[a] < shape[a]) break;
      index[a] = 0;
    }
  }
  return out;
}

void put_u16(std::string& s, std::uint32_t v) {
  s += static_cast<char>(v & 0xff);
  s += static_cast<char>((v >> 8) & 0xff);
}
void put_u32(std::string& s, std::uint32_t v) {
  put_u16(s, v & 0xffff);
  put_u16(s, v >> 16);
}

}  // namespace

Expected<HostTensor> parse_npy(std::string_view bytes, const std::string& where) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < 10 || bytes.substr(0, kMagic.size()) != kMagic) return bad(where, "not a numpy .npy file (no \\x93NUMPY magic)");
  const int major = p[6];
  std::size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = read_u16(p + 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return bad(where, "truncated .npy header");
    header_len = read_u32(p + 8);
    offset = 12;
  } else {
    return bad(where, "unsupported .npy format version " + std::to_string(major));
  }
  if (header_len > bytes.size() - offset) return bad(where, "truncated .npy header");
  std::string descr, why;
  bool fortran = false;
  std::vector<std::int64_t> shape;
  if (!HeaderReader(bytes.substr(offset, header_len)).parse(descr, fortran, shape, why)) return bad(where, "bad .npy header: " + why);
  const std::optional<DType> dtype = dtype_of_descr(descr);
  if (!dtype)
    return bad(where, "numpy dtype '" + descr + "' has no Weft type (float16/32/64, int8..64, uint8..64 and bool, little-endian)");
  HostTensor t;
  t.dtype = *dtype;
  t.shape = shape;
  const std::size_t es = dtype_size(t.dtype);
  const auto elements = checked_elements(shape, es);
  if (!elements) return bad(where, "the header's shape " + tensor_type_text(t.dtype, shape) + " is too large");
  const std::size_t want = static_cast<std::size_t>(*elements) * es;
  const std::size_t have = bytes.size() - offset - header_len;
  if (have != want)
    return bad(where, (have < want ? "truncated: " : "holds more than its header says: ") + std::string("the header says ") +
                          tensor_type_text(t.dtype, shape) + " (" + std::to_string(want) + " bytes), the file holds " +
                          std::to_string(have));
  t.bytes.assign(p + offset + header_len, p + bytes.size());
  if (fortran) t.bytes = from_fortran(t.bytes, t.shape, es);
  return t;
}

Expected<std::string> npy_bytes(const HostTensor& t) {
  const auto descr = descr_of(t.dtype);
  if (!descr) return make_error(ErrorKind::InvalidInput, "numpy has no " + std::string(dtype_name(t.dtype)) + " type");
  std::string shape = "(";
  for (std::size_t i = 0; i < t.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(t.shape[i]);
  shape += t.shape.size() == 1 ? ",)" : ")";
  std::string header = "{'descr': '" + *descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Padded with spaces and a final newline so that the data starts on a 64-byte boundary.
  const std::size_t total = kMagic.size() + 4 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic);
  out += '\x01';
  out += '\x00';
  put_u16(out, static_cast<std::uint32_t>(header.size()));
  out += header;
  out.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
  return out;
}

Expected<HostTensor> read_npy(const std::string& path) {
  auto bytes = read_file(path);
  if (!bytes) return make_error(ErrorKind::InvalidInput, bytes.error().message);
  return parse_npy(*bytes, path);
}

Status write_npy(const std::string& path, const HostTensor& t) {
  auto bytes = npy_bytes(t);
  if (!bytes) return make_error(ErrorKind::InvalidInput, path + ": " + bytes.error().message);
  return write_file_atomic(path, *bytes);
}

Expected<std::vector<NpzEntry>> read_npz(const std::string& path) {
  auto file = read_file(path);
  if (!file) return make_error(ErrorKind::InvalidInput, file.error().message);
  return parse_npz(*file, path);
}

Expected<std::vector<NpzEntry>> parse_npz(std::string_view z, const std::string& path) {
  const auto* p = reinterpret_cast<const unsigned char*>(z.data());
  const std::size_t n = z.size();
  // The end-of-central-directory record: 22 bytes plus a comment of at most 64 KiB, at the end.
  std::size_t eocd = std::string::npos;
  for (std::size_t i = n >= 22 ? n - 22 + 1 : 0; i-- > 0 && n - i <= 22 + 0xffff;)
    if (read_u32(p + i) == 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd == std::string::npos) return bad(path, "not an .npz file (no zip end-of-directory record)");
  std::uint64_t entries = read_u16(p + eocd + 10);
  std::uint64_t dir_offset = read_u32(p + eocd + 16);
  if ((entries == 0xffff || dir_offset == 0xffffffff) && eocd >= 20 && read_u32(p + eocd - 20) == 0x07064b50) {
    const std::uint64_t z64 = read_u64(p + eocd - 20 + 8);
    if (n < 56 || z64 > n - 56 || read_u32(p + z64) != 0x06064b50) return bad(path, "corrupt ZIP64 end-of-directory record");
    entries = read_u64(p + z64 + 32);
    dir_offset = read_u64(p + z64 + 48);
  }
  std::vector<NpzEntry> out;
  std::size_t at = dir_offset;
  for (std::uint64_t e = 0; e < entries; ++e) {
    if (at > n || n - at < 46 || read_u32(p + at) != 0x02014b50) return bad(path, "corrupt zip central directory (truncated?)");
    const std::uint32_t flags = read_u16(p + at + 8), method = read_u16(p + at + 10), crc = read_u32(p + at + 16);
    std::uint64_t packed = read_u32(p + at + 20), size = read_u32(p + at + 24);
    const std::size_t name_len = read_u16(p + at + 28), extra_len = read_u16(p + at + 30), comment_len = read_u16(p + at + 32);
    std::uint64_t local = read_u32(p + at + 42);
    if (n - at - 46 < name_len + extra_len + comment_len) return bad(path, "corrupt zip central directory (truncated?)");
    const std::string name(z.data() + at + 46, name_len);
    // ZIP64 extended information: the 64-bit values of the fields that hold 0xffffffff, in order.
    for (std::size_t x = at + 46 + name_len, end = x + extra_len; x + 4 <= end;) {
      const std::uint32_t id = read_u16(p + x), len = read_u16(p + x + 2);
      if (x + 4 + len > end) break;
      if (id == 0x0001) {
        std::size_t f = x + 4;
        for (std::uint64_t* field : {&size, &packed, &local})
          if (*field == 0xffffffff && f + 8 <= x + 4 + len) {
            *field = read_u64(p + f);
            f += 8;
          }
      }
      x += 4 + len;
    }
    at += 46 + name_len + extra_len + comment_len;
    const std::string where = path + ": entry '" + name + "'";
    if (flags & 1u) return bad(where, "is encrypted");
    if (method != 0 && method != 8) return bad(where, "uses compression method " + std::to_string(method) + " (only stored and deflate are read)");
    if (local > n || n - local < 30 || read_u32(p + local) != 0x04034b50) return bad(where, "corrupt (no local header)");
    const std::uint64_t data = local + 30 + read_u16(p + local + 26) + read_u16(p + local + 28);
    if (data > n || n - data < packed) return bad(where, "truncated");
    if (size > static_cast<std::uint64_t>(kMaxTensorBytes)) return bad(where, "is too large");
    // Deflate expands at most 1032:1: a header claiming more is corrupt or hostile, refused
    // before the buffer is allocated.
    if (method == 8 && size > packed * 1032 + 1024)
      return bad(where, "corrupt: claims " + std::to_string(size) + " bytes from " + std::to_string(packed) + " compressed");
    std::string npy;
    if (method == 0) {
      if (packed != size) return bad(where, "corrupt (stored sizes differ)");
      npy.assign(z.data() + data, static_cast<std::size_t>(size));
    } else {
      npy.resize(static_cast<std::size_t>(size));
      z_stream s{};
      if (inflateInit2(&s, -MAX_WBITS) != Z_OK) return make_error(ErrorKind::Runtime, where + ": zlib failed to start");
      s.next_in = const_cast<Bytef*>(p + data);  // zlib's API is not const-correct; it only reads
      s.avail_in = static_cast<uInt>(std::min<std::uint64_t>(packed, std::numeric_limits<uInt>::max()));
      s.next_out = reinterpret_cast<Bytef*>(npy.data());
      s.avail_out = static_cast<uInt>(std::min<std::uint64_t>(size, std::numeric_limits<uInt>::max()));
      const int rc = inflate(&s, Z_FINISH);
      const std::uint64_t produced = s.total_out;
      inflateEnd(&s);
      if (rc != Z_STREAM_END || produced != size) return bad(where, "corrupt or truncated deflate data");
    }
    const auto got = static_cast<std::uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(npy.data()), static_cast<uInt>(npy.size())));
    if (got != crc) return bad(where, "corrupt (CRC-32 mismatch)");
    std::string array = name;
    if (array.size() > 4 && array.compare(array.size() - 4, 4, ".npy") == 0) array.resize(array.size() - 4);
    WEFT_TRY_ASSIGN(auto value, parse_npy(npy, path + ":" + name));
    out.push_back({std::move(array), std::move(value)});
  }
  return out;
}

Status write_npz(const std::string& path, std::span<const std::pair<std::string, const HostTensor*>> arrays) {
  std::string zip, directory;
  for (const auto& [name, tensor] : arrays) {
    auto npy = npy_bytes(*tensor);
    if (!npy) return make_error(ErrorKind::InvalidInput, path + ": '" + name + "': " + npy.error().message);
    const std::string entry = name + ".npy";
    if (zip.size() + npy->size() + entry.size() + 30 > 0xfffffffful)
      return make_error(ErrorKind::InvalidInput, path + ": over 4 GiB (write .npy files instead)");
    const auto crc = static_cast<std::uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(npy->data()), static_cast<uInt>(npy->size())));
    const auto offset = static_cast<std::uint32_t>(zip.size());
    const auto size = static_cast<std::uint32_t>(npy->size());
    // Local header: version 2.0, no flags, stored, no time (1980-01-01), sizes, name.
    put_u32(zip, 0x04034b50);
    put_u16(zip, 20);
    put_u16(zip, 0);
    put_u16(zip, 0);
    put_u16(zip, 0);
    put_u16(zip, 0x21);
    put_u32(zip, crc);
    put_u32(zip, size);
    put_u32(zip, size);
    put_u16(zip, static_cast<std::uint32_t>(entry.size()));
    put_u16(zip, 0);
    zip += entry;
    zip += *npy;
    put_u32(directory, 0x02014b50);
    put_u16(directory, 20);
    put_u16(directory, 20);
    put_u16(directory, 0);
    put_u16(directory, 0);
    put_u16(directory, 0);
    put_u16(directory, 0x21);
    put_u32(directory, crc);
    put_u32(directory, size);
    put_u32(directory, size);
    put_u16(directory, static_cast<std::uint32_t>(entry.size()));
    for (int i = 0; i < 4; ++i) put_u16(directory, 0);  // extra, comment, disk, internal attributes
    put_u32(directory, 0);                               // external attributes
    put_u32(directory, offset);
    directory += entry;
  }
  const auto dir_offset = static_cast<std::uint32_t>(zip.size());
  zip += directory;
  put_u32(zip, 0x06054b50);
  put_u16(zip, 0);
  put_u16(zip, 0);
  put_u16(zip, static_cast<std::uint32_t>(arrays.size()));
  put_u16(zip, static_cast<std::uint32_t>(arrays.size()));
  put_u32(zip, static_cast<std::uint32_t>(directory.size()));
  put_u32(zip, dir_offset);
  put_u16(zip, 0);
  return write_file_atomic(path, zip);
}

}  // namespace weft::core
