#pragma once
// Dynamic bitset for reachability closures (64 nodes per word).
#include <bit>
#include <cstdint>
#include <vector>

namespace weft::core {

class Bitset {
 public:
  Bitset() = default;
  explicit Bitset(std::size_t bits) : m_words((bits + 63) / 64, 0), m_bits(bits) {}
  std::size_t size() const { return m_bits; }
  bool test(std::size_t i) const { return (m_words[i >> 6] >> (i & 63)) & 1u; }
  void set(std::size_t i) { m_words[i >> 6] |= std::uint64_t{1} << (i & 63); }
  void reset(std::size_t i) { m_words[i >> 6] &= ~(std::uint64_t{1} << (i & 63)); }
  Bitset& operator|=(const Bitset& o) {
    for (std::size_t w = 0; w < m_words.size(); ++w) m_words[w] |= o.m_words[w];
    return *this;
  }
  std::size_t count() const {
    std::size_t c = 0;
    for (std::uint64_t w : m_words) c += static_cast<std::size_t>(std::popcount(w));
    return c;
  }
  bool any() const {
    for (std::uint64_t w : m_words) if (w) return true;
    return false;
  }
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t w = 0; w < m_words.size(); ++w) {
      std::uint64_t bits = m_words[w];
      while (bits) {
        f(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
        bits &= bits - 1;
      }
    }
  }
  const std::vector<std::uint64_t>& words() const { return m_words; }

 private:
  std::vector<std::uint64_t> m_words;
  std::size_t m_bits = 0;
};

}  // namespace weft::core
