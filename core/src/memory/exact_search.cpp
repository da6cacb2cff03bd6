// Exact search for interval instances: a skyline branch and bound after MiniMalloc (Moffitt,
// ASPLOS 2023). Blocks are placed in non-decreasing offset order, each at its lowest offset
// above the placed blocks it overlaps (every gravity-packed solution arises this way, so the
// search is complete); pruned by a dominance rule (never leave a gap another block would fill
// entirely below), and by section inference (in every elementary time section, the skyline plus
// the unplaced bytes crossing it must fit under the capacity).
#include <algorithm>
#include <limits>
#include <tuple>
#include <numeric>

#include "allocation_detail.h"

namespace weft::core::detail {
namespace {

class Skyline {
 public:
  Skyline(const AllocationProblem& p, std::int64_t capacity, std::span<const std::int32_t> preorder,
          std::int64_t node_limit, Clock::time_point deadline)
      : m_p(p), m_capacity(capacity), m_limit(node_limit), m_nodes_left(node_limit), m_deadline(deadline) {
    const std::size_t n = p.block_count();
    std::vector<std::int64_t> points;
    for (std::size_t b = 0; b < n; ++b) {
      points.push_back(p.start[b]);
      points.push_back(p.end[b] + 1);
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    const std::size_t sections = points.size() - 1;
    m_first.resize(n);
    m_last.resize(n);
    m_in_section.assign(sections, {});
    m_total.assign(sections, 0);
    m_floor.assign(sections, 0);
    for (std::size_t b = 0; b < n; ++b) {
      m_first[b] = static_cast<std::size_t>(std::lower_bound(points.begin(), points.end(), p.start[b]) - points.begin());
      m_last[b] = static_cast<std::size_t>(std::lower_bound(points.begin(), points.end(), p.end[b] + 1) - points.begin()) - 1;
      for (std::size_t s = m_first[b]; s <= m_last[b]; ++s) {
        m_in_section[s].push_back(static_cast<std::int32_t>(b));
        m_total[s] += p.size[b];
      }
    }
    m_rank.resize(n);
    for (std::size_t i = 0; i < preorder.size(); ++i) m_rank[static_cast<std::size_t>(preorder[i])] = static_cast<std::int32_t>(i);
    m_offset.assign(n, -1);
    m_min.assign(n, 0);
    m_stamp.assign(sections, 0);
  }

  std::int64_t nodes_used() const { return m_limit - std::max<std::int64_t>(m_nodes_left, 0); }

  SearchOutcome run(std::vector<std::int64_t>& offsets) {
    std::vector<std::int32_t> all(m_p.block_count());
    std::iota(all.begin(), all.end(), 0);
    std::stable_sort(all.begin(), all.end(), [&](std::int32_t a, std::int32_t b) {
      return m_first[static_cast<std::size_t>(a)] < m_first[static_cast<std::size_t>(b)];
    });
    m_solution.assign(m_p.block_count(), -1);
    const SearchOutcome r = solve_parts(all, all.size());
    if (r == SearchOutcome::Found) offsets = m_solution;
    return r;
  }

 private:
  struct Change {
    std::int32_t index;
    std::int64_t old;
  };

  // Splits the unplaced blocks of `blocks` (sorted by first section) into groups that share no
  // section: they cannot conflict, so each is solved on its own (MiniMalloc's dynamic
  // decomposition), and the node fails as soon as one group does.
  SearchOutcome solve_parts(const std::vector<std::int32_t>& blocks, std::size_t unplaced) {
    std::vector<std::int32_t> group;
    std::size_t reach = 0;
    std::vector<std::vector<std::int32_t>> groups;
    for (std::int32_t b : blocks) {
      const auto ub = static_cast<std::size_t>(b);
      if (m_offset[ub] >= 0) continue;
      if (!group.empty() && m_first[ub] > reach) groups.push_back(std::move(group)), group.clear();
      reach = group.empty() ? m_last[ub] : std::max(reach, m_last[ub]);
      group.push_back(b);
    }
    if (!group.empty()) groups.push_back(std::move(group));
    if (groups.size() <= 1) return dfs(blocks, 0, -1, unplaced);
    for (std::int32_t b : blocks)
      if (m_offset[static_cast<std::size_t>(b)] >= 0) m_solution[static_cast<std::size_t>(b)] = m_offset[static_cast<std::size_t>(b)];
    for (const auto& g : groups) {
      const SearchOutcome r = dfs(g, 0, -1, g.size());
      if (r != SearchOutcome::Found) return r;
    }
    return SearchOutcome::Found;
  }

  SearchOutcome dfs(const std::vector<std::int32_t>& blocks, std::int64_t last_offset, std::int32_t last_rank,
                    std::size_t unplaced) {
    if (unplaced == 0) {
      for (std::int32_t b : blocks) m_solution[static_cast<std::size_t>(b)] = m_offset[static_cast<std::size_t>(b)];
      return SearchOutcome::Found;
    }
    if (--m_nodes_left < 0) return SearchOutcome::Aborted;
    if (Clock::now() >= m_deadline) return SearchOutcome::Aborted;  // cheap beside a node's O(B log B)
    struct Cand {
      std::int64_t off;
      std::int32_t rank;
      std::int32_t block;
    };
    std::vector<Cand> cands;
    cands.reserve(unplaced);
    std::int64_t min_height = std::numeric_limits<std::int64_t>::max();
    std::size_t lo_section = std::numeric_limits<std::size_t>::max(), hi_section = 0;
    for (std::int32_t bi : blocks) {
      const auto b = static_cast<std::size_t>(bi);
      if (m_offset[b] >= 0) continue;
      cands.push_back({m_min[b], m_rank[b], bi});
      min_height = std::min(min_height, m_min[b] + m_p.size[b]);
      lo_section = std::min(lo_section, m_first[b]);
      hi_section = std::max(hi_section, m_last[b]);
    }
    std::sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) {
      return a.off != b.off ? a.off < b.off : a.rank < b.rank;
    });
    std::vector<Change> min_changes, floor_changes;
    std::vector<std::size_t> affected;
    for (const Cand& c : cands) {
      if (c.off < last_offset || (c.off == last_offset && c.rank < last_rank)) continue;  // canonical order
      if (c.off >= min_height) break;  // dominance: some block fits wholly below; sorted, so stop
      const auto b = static_cast<std::size_t>(c.block);
      const std::int64_t height = c.off + m_p.size[b];
      if (height > m_capacity) continue;
      // Every placement tried counts against the node limit (a node's cost is its trials).
      if (--m_nodes_left < 0) return SearchOutcome::Aborted;
      m_offset[b] = c.off;
      bool hatless = true;  // no unplaced block overlaps b: nothing can ever sit on it
      min_changes.clear();
      floor_changes.clear();
      affected.clear();
      ++m_epoch;
      for (std::size_t s = m_first[b]; s <= m_last[b]; ++s) {
        floor_changes.push_back({static_cast<std::int32_t>(s), m_floor[s]});
        m_floor[s] = height;
        m_total[s] -= m_p.size[b];
      }
      // A section's floor only needs a fresh look when its new lowest offset could prune: that
      // lowest is at most the raised minimum (aligned height), and the section's unplaced bytes
      // only shrink deeper down, so a section with room for aligned height + its bytes can never
      // be pruned by it (here or below), and one whose floor is already that high cannot change.
      const std::int64_t raised = align_up(height, m_p.alignment);
      for (std::int32_t o : m_p.conflicts[b]) {
        const auto uo = static_cast<std::size_t>(o);
        if (m_offset[uo] >= 0) continue;
        hatless = false;
        if (m_min[uo] >= height) continue;
        min_changes.push_back({o, m_min[uo]});
        m_min[uo] = raised;
        for (std::size_t s = m_first[uo]; s <= m_last[uo]; ++s)
          if (m_stamp[s] != m_epoch) {
            m_stamp[s] = m_epoch;
            if (raised + m_total[s] > m_capacity && m_floor[s] < raised) affected.push_back(s);
          }
      }
      // A section's floor is at least the lowest offset any unplaced block crossing it can take.
      for (std::size_t s : affected) {
        std::int64_t lowest = std::numeric_limits<std::int64_t>::max();
        for (std::int32_t o : m_in_section[s]) {
          const auto uo = static_cast<std::size_t>(o);
          if (m_offset[uo] >= 0) continue;
          lowest = std::min(lowest, m_min[uo]);
          if (lowest <= m_floor[s]) break;  // the floor stays
        }
        if (lowest != std::numeric_limits<std::int64_t>::max() && m_floor[s] < lowest) {
          floor_changes.push_back({static_cast<std::int32_t>(s), m_floor[s]});
          m_floor[s] = lowest;
        }
      }
      bool ok = true;
      for (std::size_t s = lo_section; s <= hi_section && ok; ++s)
        ok = m_total[s] == 0 || std::max(c.off, m_floor[s]) + m_total[s] <= m_capacity;
      SearchOutcome r = SearchOutcome::Infeasible;
      if (ok) {
        // Placing b may cut the remaining blocks into independent groups.
        bool split = false;
        std::size_t reach = 0;
        bool any = false;
        for (std::int32_t o : blocks) {
          const auto uo = static_cast<std::size_t>(o);
          if (m_offset[uo] >= 0) continue;
          if (any && m_first[uo] > reach) {
            split = true;
            break;
          }
          reach = any ? std::max(reach, m_last[uo]) : m_last[uo];
          any = true;
        }
        r = split ? solve_parts(blocks, unplaced - 1) : dfs(blocks, c.off, c.rank, unplaced - 1);
      }
      for (auto it = floor_changes.rbegin(); it != floor_changes.rend(); ++it) m_floor[static_cast<std::size_t>(it->index)] = it->old;
      for (std::size_t s = m_first[b]; s <= m_last[b]; ++s) m_total[s] += m_p.size[b];
      for (auto it = min_changes.rbegin(); it != min_changes.rend(); ++it) m_min[static_cast<std::size_t>(it->index)] = it->old;
      m_offset[b] = -1;
      if (r != SearchOutcome::Infeasible) return r;
      // b at its lowest offset constrains no one, so no other choice here can do better.
      if (hatless) return SearchOutcome::Infeasible;
    }
    return SearchOutcome::Infeasible;
  }

  const AllocationProblem& m_p;
  std::int64_t m_capacity;
  std::int64_t m_limit;
  std::int64_t m_nodes_left;
  Clock::time_point m_deadline;
  std::vector<std::size_t> m_first, m_last;
  std::vector<std::vector<std::int32_t>> m_in_section;
  std::vector<std::int64_t> m_total, m_floor;
  std::vector<std::int32_t> m_rank;
  std::vector<std::int64_t> m_offset, m_min, m_solution;
  std::vector<std::uint32_t> m_stamp;
  std::uint32_t m_epoch = 0;
};

}  // namespace

SearchOutcome skyline_search(const AllocationProblem& p, std::int64_t capacity, std::span<const std::int32_t> preorder,
                             std::int64_t node_limit, Clock::time_point deadline, std::vector<std::int64_t>& offsets,
                             std::int64_t* nodes_used) {
  Skyline search(p, capacity, preorder, node_limit, deadline);
  const SearchOutcome r = search.run(offsets);
  if (nodes_used) *nodes_used += search.nodes_used();
  return r;
}

std::vector<std::vector<std::int32_t>> skyline_preorders(const AllocationProblem& p) {
  const std::size_t n = p.block_count();
  // Per block: its number of elementary sections ("width"), its area, and the most bytes
  // crossing any of its sections ("total"); MiniMalloc's preorders combine these three.
  std::vector<std::int64_t> points;
  for (std::size_t b = 0; b < n; ++b) {
    points.push_back(p.start[b]);
    points.push_back(p.end[b] + 1);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  std::vector<std::size_t> first(n), last(n);
  std::vector<std::int64_t> at(points.size(), 0);
  for (std::size_t b = 0; b < n; ++b) {
    first[b] = static_cast<std::size_t>(std::lower_bound(points.begin(), points.end(), p.start[b]) - points.begin());
    last[b] = static_cast<std::size_t>(std::lower_bound(points.begin(), points.end(), p.end[b] + 1) - points.begin()) - 1;
    for (std::size_t s = first[b]; s <= last[b]; ++s) at[s] += p.size[b];
  }
  std::vector<std::int64_t> total(n, 0), width(n), area(n);
  for (std::size_t b = 0; b < n; ++b) {
    for (std::size_t s = first[b]; s <= last[b]; ++s) total[b] = std::max(total[b], at[s]);
    width[b] = static_cast<std::int64_t>(last[b] - first[b] + 1);
    area[b] = (p.end[b] - p.start[b] + 1) * p.size[b];
  }
  const auto make = [&](auto key) {
    std::vector<std::int32_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
      return key(static_cast<std::size_t>(a)) > key(static_cast<std::size_t>(b));
    });
    return order;
  };
  using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t>;
  return {
      make([&](std::size_t b) { return Key{width[b], area[b], total[b]}; }),
      make([&](std::size_t b) { return Key{total[b], area[b], width[b]}; }),
      make([&](std::size_t b) { return Key{total[b], width[b], area[b]}; }),
  };
}

}  // namespace weft::core::detail
