// A small raster plotter for `weft sweep --png`: lines, markers and a 5×7 bitmap font into an RGB
// canvas, written as a PNG with stored (uncompressed) deflate blocks, so no image library is needed.
#include "sweep_chart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <map>
#include <set>

namespace weft::cli {
namespace {

struct Rgb {
  std::uint8_t r, g, b;
};

class Canvas {
 public:
  Canvas(int w, int h) : m_w(w), m_h(h), m_px(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), Rgb{255, 255, 255}) {}
  int width() const { return m_w; }
  int height() const { return m_h; }
  void set(int x, int y, Rgb c) {
    if (x >= 0 && y >= 0 && x < m_w && y < m_h) m_px[static_cast<std::size_t>(y) * static_cast<std::size_t>(m_w) + static_cast<std::size_t>(x)] = c;
  }
  void rect(int x0, int y0, int x1, int y1, Rgb c) {
    for (int y = std::min(y0, y1); y <= std::max(y0, y1); ++y)
      for (int x = std::min(x0, x1); x <= std::max(x0, x1); ++x) set(x, y, c);
  }
  // A line `thick` pixels wide; with `dash` > 0 drawn in dash-long pieces with equal gaps.
  void line(double x0, double y0, double x1, double y1, Rgb c, int thick = 1, int dash = 0) {
    const double len = std::hypot(x1 - x0, y1 - y0);
    const int steps = std::max(1, static_cast<int>(std::ceil(len * 2)));
    for (int i = 0; i <= steps; ++i) {
      const double t = static_cast<double>(i) / steps;
      if (dash > 0 && static_cast<int>(t * len / dash) % 2 == 1) continue;
      const int x = static_cast<int>(std::lround(x0 + t * (x1 - x0))), y = static_cast<int>(std::lround(y0 + t * (y1 - y0)));
      rect(x - (thick - 1) / 2, y - (thick - 1) / 2, x + thick / 2, y + thick / 2, c);
    }
  }
  const std::vector<Rgb>& pixels() const { return m_px; }

 private:
  int m_w, m_h;
  std::vector<Rgb> m_px;
};

// 5×7 glyphs, one byte per row, bit 4 leftmost. Upper case is drawn as lower case.
const std::array<std::uint8_t, 7>* glyph(char c) {
  static const std::map<char, std::array<std::uint8_t, 7>> kFont = {
      {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}}, {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}},
      {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}}, {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
      {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}}, {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}},
      {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}}, {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
      {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}}, {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}},
      {'a', {0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F}}, {'b', {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1E}},
      {'c', {0x00, 0x00, 0x0E, 0x10, 0x10, 0x11, 0x0E}}, {'d', {0x01, 0x01, 0x0D, 0x13, 0x11, 0x11, 0x0F}},
      {'e', {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E}}, {'f', {0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08}},
      {'g', {0x00, 0x0F, 0x11, 0x11, 0x0F, 0x01, 0x0E}}, {'h', {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11}},
      {'i', {0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E}}, {'j', {0x02, 0x00, 0x06, 0x02, 0x02, 0x12, 0x0C}},
      {'k', {0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12}}, {'l', {0x0C, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E}},
      {'m', {0x00, 0x00, 0x1A, 0x15, 0x15, 0x11, 0x11}}, {'n', {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11}},
      {'o', {0x00, 0x00, 0x0E, 0x11, 0x11, 0x11, 0x0E}}, {'p', {0x00, 0x00, 0x1E, 0x11, 0x1E, 0x10, 0x10}},
      {'q', {0x00, 0x00, 0x0D, 0x13, 0x0F, 0x01, 0x01}}, {'r', {0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10}},
      {'s', {0x00, 0x00, 0x0E, 0x10, 0x0E, 0x01, 0x1E}}, {'t', {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06}},
      {'u', {0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0D}}, {'v', {0x00, 0x00, 0x11, 0x11, 0x11, 0x0A, 0x04}},
      {'w', {0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0A}}, {'x', {0x00, 0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11}},
      {'y', {0x00, 0x00, 0x11, 0x11, 0x0F, 0x01, 0x0E}}, {'z', {0x00, 0x00, 0x1F, 0x02, 0x04, 0x08, 0x1F}},
      {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}}, {',', {0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08}},
      {'-', {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}}, {'_', {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F}},
      {':', {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00}}, {'(', {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02}},
      {')', {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08}}, {'/', {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00}},
      {'%', {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03}}, {'+', {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00}},
      {'=', {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00}}, {'>', {0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08}},
      {'<', {0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02}}, {'?', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04}},
  };
  if (c == ' ') return nullptr;
  const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  const auto it = kFont.find(lower);
  return it != kFont.end() ? &it->second : &kFont.at('?');
}

constexpr int kGlyphW = 6;  // 5 columns and a gap

int text_width(const std::string& s, int scale) { return static_cast<int>(s.size()) * kGlyphW * scale; }

void text(Canvas& c, int x, int y, const std::string& s, Rgb colour, int scale = 2) {
  for (char ch : s) {
    if (const auto* g = glyph(ch))
      for (int row = 0; row < 7; ++row)
        for (int col = 0; col < 5; ++col)
          if ((*g)[static_cast<std::size_t>(row)] & (0x10 >> col))
            c.rect(x + col * scale, y + row * scale, x + col * scale + scale - 1, y + row * scale + scale - 1, colour);
    x += kGlyphW * scale;
  }
}

// ---- PNG: signature, IHDR, one IDAT (zlib, stored blocks), IEND ----

std::uint32_t crc32(const std::string& data, std::size_t from) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::size_t i = from; i < data.size(); ++i) c = table[(c ^ static_cast<std::uint8_t>(data[i])) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

void put32(std::string& s, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) s += static_cast<char>((v >> shift) & 0xFF);
}

void chunk(std::string& png, const char* type, const std::string& body) {
  put32(png, static_cast<std::uint32_t>(body.size()));
  const std::size_t start = png.size();
  png += type;
  png += body;
  put32(png, crc32(png, start));
}

std::string encode_png(const Canvas& c) {
  std::string raw;  // filter byte 0 per scanline, then RGB
  raw.reserve(static_cast<std::size_t>(c.height()) * (1 + 3 * static_cast<std::size_t>(c.width())));
  for (int y = 0; y < c.height(); ++y) {
    raw += '\0';
    for (int x = 0; x < c.width(); ++x) {
      const Rgb& p = c.pixels()[static_cast<std::size_t>(y) * static_cast<std::size_t>(c.width()) + static_cast<std::size_t>(x)];
      raw += static_cast<char>(p.r);
      raw += static_cast<char>(p.g);
      raw += static_cast<char>(p.b);
    }
  }
  std::string z = "\x78\x01";
  std::uint32_t a = 1, b = 0;  // Adler-32
  for (char ch : raw) {
    a = (a + static_cast<std::uint8_t>(ch)) % 65521;
    b = (b + a) % 65521;
  }
  for (std::size_t off = 0; off < raw.size() || off == 0; off += 65535) {
    const std::size_t n = std::min<std::size_t>(65535, raw.size() - off);
    const bool last = off + n >= raw.size();
    z += static_cast<char>(last ? 1 : 0);
    z += static_cast<char>(n & 0xFF);
    z += static_cast<char>(n >> 8);
    z += static_cast<char>(~n & 0xFF);
    z += static_cast<char>((~n >> 8) & 0xFF);
    z.append(raw, off, n);
    if (last) break;
  }
  put32(z, (b << 16) | a);

  std::string png = "\x89PNG\r\n\x1a\n";
  std::string ihdr;
  put32(ihdr, static_cast<std::uint32_t>(c.width()));
  put32(ihdr, static_cast<std::uint32_t>(c.height()));
  ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8-bit, RGB, deflate, no filter, no interlace
  chunk(png, "IHDR", ihdr);
  chunk(png, "IDAT", z);
  chunk(png, "IEND", "");
  return png;
}

std::string label(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 10 ? "%.2fx" : "%.1fx", v);
  return buf;
}

}  // namespace

std::string sweep_chart_png(const std::vector<core::SweepPoint>& points, const std::string& title, int width, int height) {
  Canvas c(width, height);
  const Rgb ink{40, 40, 40}, grid{225, 225, 225}, unity{150, 150, 150};
  static const Rgb kColours[] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44},  {214, 39, 40},
                                 {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {23, 190, 207}};
  std::vector<std::string> strategies;
  std::set<std::int64_t> batches;
  double lo = 1.0, hi = 1.0;
  bool measured = false;
  for (const core::SweepPoint& p : points) {
    if (std::find(strategies.begin(), strategies.end(), p.strategy) == strategies.end()) strategies.push_back(p.strategy);
    batches.insert(p.batch);
    lo = std::min(lo, p.predicted_speedup);
    hi = std::max(hi, p.predicted_speedup);
    if (p.measured_speedup) {
      measured = true;
      lo = std::min(lo, *p.measured_speedup);
      hi = std::max(hi, *p.measured_speedup);
    }
  }
  // A round y range around the data, 1.0x always inside.
  const double span = std::max(0.1, hi - lo);
  lo = std::max(0.0, std::floor((lo - 0.08 * span) * 10) / 10);
  hi = std::ceil((hi + 0.08 * span) * 10) / 10;
  const int left = 90, right = width - 30, top = 60, bottom = height - 70;
  const double bmin = batches.empty() ? 1 : std::log2(static_cast<double>(*batches.begin()));
  const double bmax = batches.empty() ? 1 : std::log2(static_cast<double>(*batches.rbegin()));
  const auto px = [&](std::int64_t b) {
    if (bmax <= bmin) return 0.5 * (left + right);
    return left + (std::log2(static_cast<double>(b)) - bmin) / (bmax - bmin) * (right - left);
  };
  const auto py = [&](double s) { return bottom - (s - lo) / (hi - lo) * (bottom - top); };

  text(c, left, 10, title, ink);
  // Grid and y labels: about six steps of a round size.
  const double raw_step = (hi - lo) / 6;
  const double mag = std::pow(10.0, std::floor(std::log10(raw_step)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * mag >= raw_step) {
      step = m * mag;
      break;
    }
  for (double y = std::ceil(lo / step) * step; y <= hi + 1e-9; y += step) {
    c.line(left, py(y), right, py(y), grid);
    const std::string l = label(y);
    text(c, left - 10 - text_width(l, 2), static_cast<int>(py(y)) - 7, l, ink);
  }
  for (std::int64_t b : batches) {
    c.line(px(b), top, px(b), bottom, grid);
    const std::string l = std::to_string(b);
    text(c, static_cast<int>(px(b)) - text_width(l, 2) / 2, bottom + 10, l, ink);
  }
  c.line(left, py(1.0), right, py(1.0), unity, 2, 8);
  c.line(left, top, left, bottom, ink, 2);
  c.line(left, bottom, right, bottom, ink, 2);
  text(c, (left + right) / 2 - text_width("batch", 2) / 2, bottom + 38, "batch", ink);
  text(c, 10, top - 26, "speedup", ink);

  for (std::size_t s = 0; s < strategies.size(); ++s) {
    const Rgb col = kColours[s % std::size(kColours)];
    for (int kind = 0; kind < (measured ? 2 : 1); ++kind) {
      std::vector<std::pair<double, double>> xy;
      for (const core::SweepPoint& p : points) {
        if (p.strategy != strategies[s]) continue;
        if (kind == 1 && !p.measured_speedup) continue;
        xy.emplace_back(px(p.batch), py(kind == 0 ? p.predicted_speedup : *p.measured_speedup));
      }
      std::sort(xy.begin(), xy.end());
      for (std::size_t i = 1; i < xy.size(); ++i)
        c.line(xy[i - 1].first, xy[i - 1].second, xy[i].first, xy[i].second, col, 3, kind == 1 ? 10 : 0);
      for (const auto& [x, y] : xy) {
        const int r = kind == 0 ? 4 : 5;
        if (kind == 0) c.rect(static_cast<int>(x) - r, static_cast<int>(y) - r, static_cast<int>(x) + r, static_cast<int>(y) + r, col);
        else {
          c.rect(static_cast<int>(x) - r, static_cast<int>(y) - r, static_cast<int>(x) + r, static_cast<int>(y) + r, col);
          c.rect(static_cast<int>(x) - r + 2, static_cast<int>(y) - r + 2, static_cast<int>(x) + r - 2, static_cast<int>(y) + r - 2, {255, 255, 255});
        }
      }
    }
  }
  // Legend, top right, on white over the lines: one row per strategy.
  const int rows = static_cast<int>(strategies.size()) + (measured ? 1 : 0);
  c.rect(right - 270, top + 2, right - 2, top + 14 + rows * 22, grid);
  c.rect(right - 268, top + 4, right - 4, top + 12 + rows * 22, {255, 255, 255});
  for (std::size_t s = 0; s < strategies.size(); ++s) {
    const int ly = top + 10 + static_cast<int>(s) * 22;
    const int lx = right - 260;
    c.line(lx, ly + 7, lx + 30, ly + 7, kColours[s % std::size(kColours)], 3);
    text(c, lx + 40, ly, strategies[s], ink);
  }
  if (measured) {
    const int ly = top + 10 + static_cast<int>(strategies.size()) * 22;
    c.line(right - 260, ly + 7, right - 230, ly + 7, ink, 3, 10);
    text(c, right - 220, ly, "measured", ink);
  }
  return encode_png(c);
}

}  // namespace weft::cli
