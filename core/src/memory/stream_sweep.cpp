// The stream sweep: the planner of a several-stream liveness too dense to list
// (AllocationProblem::frontiers). Blocks go in start order, each at the lowest offset free of every
// placed block it conflicts with: first fit over the exact conflicts in that order, the offsets
// Decoder::decode(order_by_start, Fit::First) gives from the listed conflicts, without listing them.
//
// Which placed blocks a block conflicts with depends only on its stream and index: they are the
// blocks whose dead-from frontier on that stream lies beyond that index. Each stream keeps the
// bytes those blocks hold, as coverage counts over slots in a segment tree (a range add, the lowest
// run of free slots of a length, both O(log slots)); a block enters every stream's tree when placed
// and leaves a stream's when the sweep reaches that stream's frontier. O(B·S·log B) time,
// O(B·S + S·slots) memory, where the pairs themselves can be O(B²).
#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <queue>
#include <string>
#include <utility>

#include "allocation_detail.h"

namespace weft::core::detail {
namespace {

// Coverage counts over slots [0, capacity); slots from the capacity up are free. Each node keeps
// the least and largest count of its range and the runs of cells at that least count (at its
// start, at its end, the longest): a run of free slots is a run at count 0. A node's values
// include its own pending add but not its ancestors', which a descent sums.
class SlotTree {
 public:
  explicit SlotTree(std::size_t capacity) : m_cap(capacity), m_t(2 * capacity) { init(1, capacity); }

  std::size_t capacity() const { return m_cap; }
  std::size_t nodes() const { return m_t.size(); }

  // Adds v to the count of every slot in [l, r) (r <= capacity).
  void add(std::size_t l, std::size_t r, std::int32_t v) { add(1, 0, m_cap, l, r, v); }

  // The lowest slot k with [k, k + need) free (k + need may pass the capacity).
  std::size_t first_fit(std::size_t need) const {
    const Runs root = zero_runs(1, m_cap, 0);
    if (root.best >= need) return descend(1, m_cap, 0, 0, need);
    return m_cap - root.suf;  // the free run reaching the capacity, which free slots continue
  }

  // The same tree over twice the slots: the old one becomes the left half (node i of depth d
  // moves to i + 2^d), the right half is free.
  void grow() {
    std::vector<Node> t(4 * m_cap);
    for (std::size_t level = 1; level <= m_cap; level *= 2) {
      std::copy(m_t.begin() + static_cast<std::ptrdiff_t>(level), m_t.begin() + static_cast<std::ptrdiff_t>(2 * level),
                t.begin() + static_cast<std::ptrdiff_t>(2 * level));
      const std::size_t len = m_cap / level;
      for (std::size_t i = 3 * level; i < 4 * level; ++i) t[i] = free_node(len);
    }
    m_t = std::move(t);
    m_cap *= 2;
    pull(1, m_cap);
  }

 private:
  struct Node {
    std::int32_t min = 0, max = 0, add = 0;
    std::uint32_t pref = 0, suf = 0, best = 0;  // runs of cells at `min`
  };
  struct Runs {
    std::size_t pref = 0, suf = 0, best = 0;
  };

  static Node free_node(std::size_t len) {
    Node n;
    n.pref = n.suf = n.best = static_cast<std::uint32_t>(len);
    return n;
  }

  void init(std::size_t i, std::size_t len) {
    m_t[i] = free_node(len);
    if (len > 1) {
      init(2 * i, len / 2);
      init(2 * i + 1, len / 2);
    }
  }

  // The node's free runs, `above` the adds of its ancestors.
  Runs zero_runs(std::size_t i, std::size_t, std::int64_t above) const {
    const Node& n = m_t[i];
    if (n.min + above != 0) return {};
    return {n.pref, n.suf, n.best};
  }

  void pull(std::size_t i, std::size_t len) {
    const Node& l = m_t[2 * i];
    const Node& r = m_t[2 * i + 1];
    const std::uint32_t half = static_cast<std::uint32_t>(len / 2);
    Node& n = m_t[i];
    const std::int32_t low = std::min(l.min, r.min);
    const std::uint32_t lp = l.min == low ? l.pref : 0, ls = l.min == low ? l.suf : 0, lb = l.min == low ? l.best : 0;
    const std::uint32_t rp = r.min == low ? r.pref : 0, rs = r.min == low ? r.suf : 0, rb = r.min == low ? r.best : 0;
    n.min = low + n.add;
    n.max = std::max(l.max, r.max) + n.add;
    n.pref = lp == half ? half + rp : lp;
    n.suf = rs == half ? half + ls : rs;
    n.best = std::max({lb, rb, ls + rp});
  }

  void add(std::size_t i, std::size_t lo, std::size_t hi, std::size_t l, std::size_t r, std::int32_t v) {
    if (r <= lo || hi <= l) return;
    if (l <= lo && hi <= r) {
      m_t[i].add += v;
      m_t[i].min += v;
      m_t[i].max += v;
      return;
    }
    const std::size_t mid = lo + (hi - lo) / 2;
    add(2 * i, lo, mid, l, r, v);
    add(2 * i + 1, mid, hi, l, r, v);
    pull(i, hi - lo);
  }

  std::size_t descend(std::size_t i, std::size_t len, std::int64_t above, std::size_t base, std::size_t need) const {
    while (len > 1) {
      above += m_t[i].add;
      const std::size_t half = len / 2;
      const Runs l = zero_runs(2 * i, half, above), r = zero_runs(2 * i + 1, half, above);
      if (l.best >= need) {
        i = 2 * i;
      } else if (l.suf + r.pref >= need) {
        return base + half - l.suf;
      } else {
        i = 2 * i + 1;
        base += half;
      }
      len = half;
    }
    return base;
  }

  std::size_t m_cap;
  std::vector<Node> m_t;
};

// Trees of every stream together hold at most this many nodes (24 bytes each: 96 MiB); a problem
// that needs more is left to the interval sweep.
constexpr std::size_t kMaxSlotNodes = std::size_t{1} << 22;

}  // namespace

std::optional<Placement> stream_sweep_placement(const AllocationProblem& p) {
  const StreamFrontiers& f = p.frontiers;
  const std::size_t n = p.block_count(), streams = f.streams;
  if (f.empty() || f.stream.size() != n || f.dead_from.size() != n * streams) return std::nullopt;
  // Slots of the sizes' greatest common divisor: first fit only ever places a block at 0 or where
  // a placed one ends, so every offset is a multiple of it, as with byte offsets.
  std::int64_t unit = 0;
  for (std::int64_t s : p.size) {
    if (s <= 0 || s % p.alignment != 0) return std::nullopt;
    unit = std::gcd(unit, s);
  }
  Placement out;
  out.planner = "stream-sweep";
  out.offset.assign(n, kNotPlanned);
  if (n == 0) return out;
  const auto slots = [&](std::size_t b) { return static_cast<std::size_t>(p.size[b] / unit); };
  std::size_t capacity = 64;
  for (std::size_t b = 0; b < n; ++b)
    while (capacity < 2 * slots(b)) capacity *= 2;
  std::vector<char> used(streams, 0);
  for (std::int32_t s : f.stream) used[static_cast<std::size_t>(s)] = 1;
  const std::size_t used_streams = static_cast<std::size_t>(std::count(used.begin(), used.end(), 1));
  if (used_streams * 2 * capacity > kMaxSlotNodes) return std::nullopt;
  std::vector<std::optional<SlotTree>> tree(streams);
  for (std::size_t s = 0; s < streams; ++s)
    if (used[s]) tree[s].emplace(capacity);
  // Per stream: the blocks in its tree by the index where they leave it (a min-heap), and the
  // indices of its blocks in sweep order with the next one to come: a block placed now matters to
  // a stream only if it is live there at that index (the later ones come at it or after it).
  using Leave = std::pair<std::int32_t, std::int32_t>;  // (dead-from index, block)
  std::vector<std::priority_queue<Leave, std::vector<Leave>, std::greater<>>> leaves(streams);
  const std::vector<std::int32_t> order = order_by_start(p);
  std::vector<std::vector<std::int32_t>> coming(streams);
  for (std::int32_t block : order) coming[static_cast<std::size_t>(f.stream[static_cast<std::size_t>(block)])].push_back(f.index[static_cast<std::size_t>(block)]);
  std::vector<std::size_t> next(streams, 0);
  const auto at = [&](std::size_t b) { return static_cast<std::size_t>(out.offset[b] / unit); };
  for (const std::int32_t block : order) {
    const auto b = static_cast<std::size_t>(block);
    const auto s = static_cast<std::size_t>(f.stream[b]);
    const std::int32_t index = f.index[b];
    ++next[s];
    // The blocks dead before this node of the stream leave its tree.
    auto& leaving = leaves[s];
    while (!leaving.empty() && leaving.top().first <= index) {
      const auto gone = static_cast<std::size_t>(leaving.top().second);
      leaving.pop();
      tree[s]->add(at(gone), at(gone) + slots(gone), -1);
    }
    const std::size_t k = tree[s]->first_fit(slots(b));
    while (k + slots(b) > capacity) {
      capacity *= 2;
      if (used_streams * 2 * capacity > kMaxSlotNodes) return std::nullopt;
      for (auto& t : tree)
        if (t) t->grow();
    }
    out.offset[b] = static_cast<std::int64_t>(k) * unit;
    out.arena_bytes = std::max(out.arena_bytes, out.offset[b] + p.size[b]);
    // It holds its bytes for every stream whose blocks to come it may be live beside.
    for (std::size_t t = 0; t < streams; ++t) {
      const std::int32_t dead = f.dead_from[b * streams + t];
      if (next[t] >= coming[t].size() || dead <= coming[t][next[t]]) continue;
      tree[t]->add(k, k + slots(b), +1);
      leaves[t].emplace(dead, block);
    }
  }
  return out;
}

bool stream_frontiers_conflict(const AllocationProblem& p, std::int32_t earlier, std::int32_t later) {
  const StreamFrontiers& f = p.frontiers;
  const auto a = static_cast<std::size_t>(earlier), c = static_cast<std::size_t>(later);
  return f.index[c] < f.dead_from[a * f.streams + static_cast<std::size_t>(f.stream[c])];
}

std::string check_stream_placement(const AllocationProblem& p, const Placement& placement) {
  // The conservative ranges hold every conflicting pair, so the pairs that share bytes while their
  // ranges overlap, tested by the frontiers, are the only ones that can clash.
  std::string clash;
  std::vector<std::int64_t> size(p.size.begin(), p.size.end());
  for_each_shared_live_pair(p.start, p.end, placement.offset, size, [&](std::int32_t later, std::int32_t earlier) {
    if (!stream_frontiers_conflict(p, earlier, later)) return true;
    clash = "blocks " + std::to_string(later) + " and " + std::to_string(earlier) + " conflict but overlap in the arena";
    return false;
  });
  return clash;
}

}  // namespace weft::core::detail
