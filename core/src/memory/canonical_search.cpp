// Exact placement search over canonical solutions, after MiniMalloc (Moffitt, ASPLOS 2023),
// generalised from interval overlaps to any conflict graph (the partial-order conflicts of a
// multi-stream schedule included).
//
// Canonical solutions. Push every block of a valid placement down as far as it goes (gravity):
// then each block sits at 0 or on top of a conflicting block, and listing the blocks by (offset,
// rank) each one's offset is exactly the highest top among the conflicting blocks listed before
// it. So the search places blocks one at a time in non-decreasing (offset, rank) order, each at
// its "min offset" (the highest top among its placed conflicting blocks), and branches only on
// which block comes next. Among the optimal placements, one with the least sum of offsets
// survives every rule below, so the search is complete.
//  - Dominance (min height): a block whose min offset plus size is at most the next block's
//    offset would fit wholly below it and stay valid whatever comes later; lowering it lowers
//    the sum of offsets, so that branch is dominated.
//  - Stuck blocks: a block whose min offset fell behind the last placed (offset, rank) can only
//    be placed once a conflicting block raises it, and (by dominance) that block must go below
//    the stuck block's current top; with no unplaced conflicting block able to, the branch is dead.
//  - Hatless: a block no unplaced block conflicts with constrains no one; if the rest fails with
//    it placed, every choice ordered after it (which would have to place it out of order) fails
//    too.
//  - Inference on cliques (MiniMalloc's sections): the unplaced blocks of a clique of the
//    conflict graph are stacked above the lowest min offset among them (and above the last
//    placed offset), so that floor plus their bytes must fit under the capacity.
//  - Decomposition: unplaced blocks that no longer conflict across two groups are solved group
//    by group; optionally each group is ranked afresh by the bytes left in its cliques and its
//    canonical order starts over at 0 (MiniMalloc's per-partition preorder).
//  - Transpositions: what remains depends only on the unplaced blocks, their min offsets and the
//    last placed (offset, rank); states proven infeasible are remembered (a hash table) so that
//    placements reaching the same state by another route are cut at once.
// Cost per node: O(group size) to scan and sort candidates; per placement tried, O(degree +
// cliques holding the block) to update, and O(1) per clique of the group to test its floor (a
// rescan of the clique only where its remembered witness no longer passes).
#include <algorithm>
#include <limits>
#include <numeric>

#include "allocation_detail.h"
#include "weft/core/base/bitset.h"
#include "weft/core/base/check.h"

namespace weft::core::detail {

CliqueCover position_cliques(const AllocationProblem& p) {
  const std::size_t n = p.block_count();
  CliqueCover cover;
  cover.of_block.assign(n, {});
  if (n == 0) return cover;
  // Elementary sections between consecutive boundaries (starts and ends + 1): the blocks alive
  // in one are pairwise overlapping, so a clique whenever positions come from a linear order in
  // which overlap implies conflict (raw intervals, a linearisation of the schedule).
  std::vector<std::int64_t> points;
  points.reserve(2 * n);
  for (std::size_t b = 0; b < n; ++b) {
    points.push_back(p.start[b]);
    points.push_back(p.end[b] + 1);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  std::vector<std::vector<std::int32_t>> sections(points.size() - 1);
  for (std::size_t b = 0; b < n; ++b) {
    const auto first = std::lower_bound(points.begin(), points.end(), p.start[b]) - points.begin();
    const auto last = std::lower_bound(points.begin(), points.end(), p.end[b] + 1) - points.begin();
    for (auto s = first; s < last; ++s) sections[static_cast<std::size_t>(s)].push_back(static_cast<std::int32_t>(b));
  }
  // Where positions are only a hint, keep the part of a section that is a clique (largest
  // blocks first), checked against the conflict lists as a bit matrix.
  std::vector<Bitset> adjacent;
  if (!p.conflicts_are_overlaps) {
    adjacent.assign(n, Bitset(n));
    for (std::size_t b = 0; b < n; ++b)
      for (std::int32_t c : p.conflicts[b]) adjacent[b].set(static_cast<std::size_t>(c));
  }
  for (auto& members : sections) {
    if (members.size() < 2) continue;
    if (!p.conflicts_are_overlaps) {
      std::stable_sort(members.begin(), members.end(), [&](std::int32_t a, std::int32_t b) {
        return p.size[static_cast<std::size_t>(a)] > p.size[static_cast<std::size_t>(b)];
      });
      std::vector<std::int32_t> clique;
      for (std::int32_t b : members)
        if (std::all_of(clique.begin(), clique.end(), [&](std::int32_t c) {
              return adjacent[static_cast<std::size_t>(b)].test(static_cast<std::size_t>(c));
            }))
          clique.push_back(b);
      members = std::move(clique);
      if (members.size() < 2) continue;
      std::sort(members.begin(), members.end());
    }
    // Consecutive sections often hold the same blocks: one copy is enough.
    if (!cover.members.empty() && cover.members.back() == members) continue;
    cover.members.push_back(std::move(members));
  }
  for (std::size_t c = 0; c < cover.members.size(); ++c)
    for (std::int32_t b : cover.members[c]) cover.of_block[static_cast<std::size_t>(b)].push_back(static_cast<std::int32_t>(c));
  return cover;
}

std::int64_t clique_cover_bound(const AllocationProblem& p, const CliqueCover& cover) {
  std::int64_t bound = 0;
  for (std::size_t b = 0; b < p.block_count(); ++b) bound = std::max(bound, p.size[b]);
  for (const auto& members : cover.members) {
    std::int64_t sum = 0;
    for (std::int32_t b : members) sum += p.size[static_cast<std::size_t>(b)];
    bound = std::max(bound, sum);
  }
  return bound;
}

namespace {

constexpr std::uint64_t mix(std::uint64_t x) {
  // splitmix64's finaliser: a cheap, well-spread 64-bit hash.
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

CanonicalSearch::CanonicalSearch(const AllocationProblem& p, const CliqueCover& cover) : m_p(p), m_cover(cover) {
  const std::size_t n = p.block_count();
  m_offset.assign(n, -1);
  m_min.assign(n, 0);
  m_rank.assign(n, 0);
  m_free_degree.assign(n, 0);
  m_solution.assign(n, -1);
  m_mark.assign(n, 0);
  m_total.assign(cover.members.size(), 0);
  m_witness.assign(cover.members.size(), -1);
  m_clique_mark.assign(cover.members.size(), 0);
  // Cuts: the boundaries between consecutive elementary sections, each with the number of
  // unplaced blocks alive on both sides (MiniMalloc's cut counts). A group of intervals falls
  // apart exactly where one drops to 0.
  m_cut_first.assign(n, 0);
  m_cut_last.assign(n, 0);
  if (p.conflicts_are_overlaps && n > 0) {
    std::vector<std::int64_t> points;
    points.reserve(2 * n);
    for (std::size_t b = 0; b < n; ++b) {
      points.push_back(p.start[b]);
      points.push_back(p.end[b] + 1);
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    m_cuts_initial.assign(points.size(), 0);
    for (std::size_t b = 0; b < n; ++b) {
      // b crosses the boundaries strictly inside its span: points in (start, end + 1).
      m_cut_first[b] = static_cast<std::int32_t>(std::upper_bound(points.begin(), points.end(), p.start[b]) - points.begin());
      m_cut_last[b] = static_cast<std::int32_t>(std::lower_bound(points.begin(), points.end(), p.end[b] + 1) - points.begin());
      for (std::int32_t k = m_cut_first[b]; k < m_cut_last[b]; ++k) ++m_cuts_initial[static_cast<std::size_t>(k)];
    }
  }
  m_key_total.assign(n, 0);
  m_key.resize(n);
  for (std::size_t b = 0; b < n; ++b) m_key[b] = mix(b * 0x2545f4914f6cdd1dull + 1);
  // About 8 entries per block, at least 2^16 and at most 2^20 (24 MiB).
  std::size_t slots = std::size_t{1} << 16;
  while (slots < 8 * n && slots < (std::size_t{1} << 20)) slots <<= 1;
  m_table.assign(slots, Slot{});
}

SearchOutcome CanonicalSearch::solve(const Trial& trial, std::vector<std::int64_t>& offsets) {
  const std::size_t n = m_p.block_count();
  const std::int64_t capacity = trial.capacity;
  m_capacity = capacity;
  m_steps_left = trial.step_limit;
  m_steps_granted = trial.step_limit;
  m_deadline = trial.deadline;
  m_noise = trial.noise;
  m_rerank = trial.rerank;
  m_rng.seed(trial.seed);
  // Failed states depend on the capacity and on the ranks (ties), not on the noise.
  m_salt = mix(static_cast<std::uint64_t>(capacity) ^ mix(trial.preorder_id + 0x51ull));
  WEFT_CHECK_MSG(trial.preorder.size() == n, "a preorder must rank every block");
  for (std::size_t i = 0; i < n; ++i) m_rank[static_cast<std::size_t>(trial.preorder[i])] = static_cast<std::int32_t>(i);
  std::fill(m_offset.begin(), m_offset.end(), -1);
  m_cuts = m_cuts_initial;
  std::fill(m_min.begin(), m_min.end(), 0);
  for (std::size_t b = 0; b < n; ++b) {
    m_free_degree[b] = static_cast<std::int32_t>(m_p.conflicts[b].size());
    if (m_p.size[b] > capacity) return SearchOutcome::Infeasible;
  }
  for (std::size_t c = 0; c < m_cover.members.size(); ++c) {
    m_total[c] = 0;
    for (std::int32_t b : m_cover.members[c]) m_total[c] += m_p.size[static_cast<std::size_t>(b)];
    if (m_total[c] > capacity) return SearchOutcome::Infeasible;
  }
  Group root;
  root.blocks.resize(n);
  std::iota(root.blocks.begin(), root.blocks.end(), 0);
  if (m_p.conflicts_are_overlaps)
    std::stable_sort(root.blocks.begin(), root.blocks.end(), [&](std::int32_t a, std::int32_t b) {
      return m_p.start[static_cast<std::size_t>(a)] < m_p.start[static_cast<std::size_t>(b)];
    });
  root.cliques.resize(m_cover.members.size());
  std::iota(root.cliques.begin(), root.cliques.end(), 0);
  const SearchOutcome r = solve_group(root, 0, -1);
  if (r == SearchOutcome::Found) offsets = m_solution;
  return r;
}

std::int64_t CanonicalSearch::steps_used() const { return m_steps_granted - std::max<std::int64_t>(m_steps_left, 0); }

std::vector<CanonicalSearch::Group> CanonicalSearch::split(const Group& group) {
  std::vector<Group> parts;
  if (m_p.conflicts_are_overlaps) {
    // The group is in start order: a position no unplaced block covers separates two parts.
    std::int64_t reach = std::numeric_limits<std::int64_t>::min();
    for (std::int32_t b : group.blocks) {
      const auto ub = static_cast<std::size_t>(b);
      if (m_offset[ub] >= 0) continue;
      if (parts.empty() || m_p.start[ub] > reach) parts.emplace_back();
      parts.back().blocks.push_back(b);
      reach = parts.back().blocks.size() == 1 ? m_p.end[ub] : std::max(reach, m_p.end[ub]);
    }
  } else {
    // Connected components of the conflict graph on the group's unplaced blocks.
    const std::uint32_t unseen = ++m_epoch;
    for (std::int32_t b : group.blocks)
      if (m_offset[static_cast<std::size_t>(b)] < 0) m_mark[static_cast<std::size_t>(b)] = unseen;
    const std::uint32_t seen = ++m_epoch;
    for (std::int32_t root : group.blocks) {
      if (m_mark[static_cast<std::size_t>(root)] != unseen) continue;
      parts.emplace_back();
      auto& part = parts.back().blocks;
      part.push_back(root);
      m_mark[static_cast<std::size_t>(root)] = seen;
      for (std::size_t i = 0; i < part.size(); ++i)
        for (std::int32_t c : m_p.conflicts[static_cast<std::size_t>(part[i])])
          if (m_mark[static_cast<std::size_t>(c)] == unseen) {
            m_mark[static_cast<std::size_t>(c)] = seen;
            part.push_back(c);
          }
      std::sort(part.begin(), part.end());
    }
  }
  if (parts.size() <= 1) return {};
  // A clique's unplaced blocks conflict pairwise, so they all lie in one part.
  for (Group& part : parts) {
    const std::uint32_t epoch = ++m_epoch;
    for (std::int32_t b : part.blocks)
      for (std::int32_t c : m_cover.of_block[static_cast<std::size_t>(b)])
        if (m_clique_mark[static_cast<std::size_t>(c)] != epoch) {
          m_clique_mark[static_cast<std::size_t>(c)] = epoch;
          part.cliques.push_back(c);
        }
  }
  return parts;
}

SearchOutcome CanonicalSearch::solve_group(const Group& group, std::int64_t last_offset, std::int32_t last_rank) {
  const auto parts = split(group);
  if (parts.empty()) return dfs(group, last_offset, last_rank);
  for (std::int32_t b : group.blocks)
    if (m_offset[static_cast<std::size_t>(b)] >= 0) m_solution[static_cast<std::size_t>(b)] = m_offset[static_cast<std::size_t>(b)];
  // Each part is its own canonical sequence (interleaved with the others' in the whole). Ranked
  // afresh, a part's sequence starts over at 0: gravity packs its blocks onto the placed ones
  // and each other whatever ranks break the ties, so that is still complete.
  for (const Group& part : parts) {
    SearchOutcome r;
    if (m_rerank) {
      const std::size_t saved = m_saved_rank.size();
      for (std::int32_t b : part.blocks) m_saved_rank.push_back(m_rank[static_cast<std::size_t>(b)]);
      const std::uint64_t outer_salt = m_salt;
      // Failed states of this part hold only under its ranking: the table tells them apart.
      m_salt = mix(outer_salt ^ rerank(part));
      r = dfs(part, 0, -1);
      m_salt = outer_salt;
      for (std::size_t i = 0; i < part.blocks.size(); ++i)
        m_rank[static_cast<std::size_t>(part.blocks[i])] = m_saved_rank[saved + i];
      m_saved_rank.resize(saved);
    } else {
      r = dfs(part, last_offset, last_rank);
    }
    if (r != SearchOutcome::Found) return r;
  }
  return SearchOutcome::Found;
}

std::uint64_t CanonicalSearch::rerank(const Group& part) {
  // A block's total now: the unplaced bytes of the heaviest clique holding it (all of which lie
  // in this part), or its own size.
  for (std::int32_t bi : part.blocks) {
    const auto b = static_cast<std::size_t>(bi);
    std::int64_t total = m_p.size[b];
    for (std::int32_t c : m_cover.of_block[b]) total = std::max(total, m_total[static_cast<std::size_t>(c)]);
    m_key_total[b] = total;
  }
  m_order.assign(part.blocks.begin(), part.blocks.end());
  sort_by_key(m_p, *m_rerank, m_key_total, m_order);
  std::uint64_t hash = 0x7f4a7c15ull;
  for (std::size_t i = 0; i < m_order.size(); ++i) {
    m_rank[static_cast<std::size_t>(m_order[i])] = static_cast<std::int32_t>(i);
    hash = mix(hash ^ static_cast<std::uint64_t>(m_order[i]));
  }
  return hash;
}

// A state with the same unplaced blocks and min offsets but a later last placement has fewer
// canonical completions (each of its completions is one of the earlier state's), so an entry
// keeps the earliest (offset, rank) proven infeasible and covers every later one. Keys are never
// 0 (the empty slot). A hash collision can only cut a branch, never admit an invalid placement.
bool CanonicalSearch::known_infeasible(std::uint64_t key, std::int64_t last_offset, std::int32_t last_rank) const {
  const std::size_t mask = m_table.size() - 1;
  for (std::size_t i = 0; i < kProbes; ++i) {
    const Slot& s = m_table[(key + i) & mask];
    if (s.key == 0) return false;
    if (s.key == key)
      return s.last_offset < last_offset || (s.last_offset == last_offset && s.last_rank <= last_rank);
  }
  return false;
}

void CanonicalSearch::remember_infeasible(std::uint64_t key, std::int64_t last_offset, std::int32_t last_rank) {
  const std::size_t mask = m_table.size() - 1;
  for (std::size_t i = 0; i < kProbes; ++i) {
    Slot& s = m_table[(key + i) & mask];
    if (s.key == 0) {
      s = {key, last_offset, last_rank};
      return;
    }
    if (s.key == key) {
      if (last_offset < s.last_offset || (last_offset == s.last_offset && last_rank < s.last_rank)) {
        s.last_offset = last_offset;
        s.last_rank = last_rank;
      }
      return;
    }
  }
  m_table[key & mask] = {key, last_offset, last_rank};  // a full run of probes: replace the home slot
}

SearchOutcome CanonicalSearch::dfs(const Group& group, std::int64_t last_offset, std::int32_t last_rank) {
  // One scan of the group's unplaced blocks: the dominance height, stuck blocks, the state's key.
  std::int64_t min_height = std::numeric_limits<std::int64_t>::max();
  std::uint64_t key = m_salt;
  std::size_t unplaced = 0;
  std::vector<Cand> cands;
  m_stuck.clear();
  for (std::int32_t bi : group.blocks) {
    const auto b = static_cast<std::size_t>(bi);
    if (m_offset[b] >= 0) continue;
    ++unplaced;
    const std::int64_t lo = m_min[b];
    min_height = std::min(min_height, lo + m_p.size[b]);
    key ^= mix(m_key[b] ^ static_cast<std::uint64_t>(lo));
    if (lo < last_offset || (lo == last_offset && m_rank[b] < last_rank)) {
      m_stuck.push_back(bi);
      continue;
    }
    // min_height only falls, so a block at or above it now is cut by dominance below anyway.
    if (lo < min_height) cands.push_back({lo, m_rank[b], bi});
  }
  if (unplaced == 0) {
    for (std::int32_t b : group.blocks) m_solution[static_cast<std::size_t>(b)] = m_offset[static_cast<std::size_t>(b)];
    return SearchOutcome::Found;
  }
  // A stuck block must be raised by a conflicting block placed below its current top (any
  // other next placement would leave room for it underneath).
  for (std::int32_t a : m_stuck) {
    const auto ua = static_cast<std::size_t>(a);
    const std::int64_t reach = m_min[ua] + m_p.size[ua];
    bool raisable = false;
    for (std::int32_t c : m_p.conflicts[ua])
      if (m_offset[static_cast<std::size_t>(c)] < 0 && m_min[static_cast<std::size_t>(c)] < reach) {
        raisable = true;
        break;
      }
    if (!raisable) return SearchOutcome::Infeasible;
  }
  if (--m_steps_left < 0) return SearchOutcome::Aborted;
  if ((m_steps_left & 255) == 0 && Clock::now() >= m_deadline) return SearchOutcome::Aborted;
  key |= 1;
  if (known_infeasible(key, last_offset, last_rank)) return SearchOutcome::Infeasible;
  // dominance: a block at or above min_height would leave room for another wholly below it
  std::erase_if(cands, [&](const Cand& c) { return c.offset >= min_height; });
  std::sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) {
    return a.offset != b.offset ? a.offset < b.offset : a.rank < b.rank;
  });
  // Restarts with noise swap neighbours now and then: another path through the same tree.
  if (m_noise > 0)
    for (std::size_t i = 0; i + 1 < cands.size(); ++i)
      if (std::uniform_real_distribution<double>(0, 1)(m_rng) < m_noise) std::swap(cands[i], cands[i + 1]);
  // A hatless block bounds the candidates worth trying after it: those ordered before it.
  std::int64_t hat_offset = std::numeric_limits<std::int64_t>::max();
  std::int32_t hat_rank = 0;
  for (const Cand& c : cands) {
    if (c.offset > hat_offset || (c.offset == hat_offset && c.rank > hat_rank)) continue;
    const auto b = static_cast<std::size_t>(c.block);
    if (c.offset + m_p.size[b] > m_capacity) continue;
    if (--m_steps_left < 0) return SearchOutcome::Aborted;
    const std::size_t mins_mark = m_min_log.size();
    const bool hatless = place(c.block, c.offset);
    SearchOutcome r = SearchOutcome::Infeasible;
    // The group was connected before b, so only b's leaving can part it: on intervals, when a
    // cut b alone crossed opened; otherwise, when b's unplaced neighbours no longer reach each other.
    if (feasible(group, c.offset)) {
      const bool parts = m_p.conflicts_are_overlaps ? m_cut_opened : separates(c.block);
      r = parts ? solve_group(group, c.offset, c.rank) : dfs(group, c.offset, c.rank);
    }
    unplace(c.block, mins_mark);
    if (r != SearchOutcome::Infeasible) return r;
    if (hatless && (c.offset < hat_offset || (c.offset == hat_offset && c.rank < hat_rank))) {
      hat_offset = c.offset;
      hat_rank = c.rank;
    }
  }
  remember_infeasible(key, last_offset, last_rank);
  return SearchOutcome::Infeasible;
}

// A search from one unplaced neighbour of the placed block through unplaced blocks, stopped as
// soon as it has met every other unplaced neighbour: usually a few lists, where finding the
// components (split) costs the whole group on every placement.
bool CanonicalSearch::separates(std::int32_t block) {
  const std::uint32_t target = ++m_epoch;
  std::size_t left = 0;
  std::int32_t from = -1;
  for (std::int32_t c : m_p.conflicts[static_cast<std::size_t>(block)])
    if (m_offset[static_cast<std::size_t>(c)] < 0) {
      m_mark[static_cast<std::size_t>(c)] = target;
      ++left;
      from = c;
    }
  if (left <= 1) return false;
  const std::uint32_t seen = ++m_epoch;
  m_queue.clear();
  m_queue.push_back(from);
  m_mark[static_cast<std::size_t>(from)] = seen;
  --left;
  for (std::size_t i = 0; i < m_queue.size() && left > 0; ++i)
    for (std::int32_t c : m_p.conflicts[static_cast<std::size_t>(m_queue[i])]) {
      const auto uc = static_cast<std::size_t>(c);
      if (m_offset[uc] >= 0 || m_mark[uc] == seen) continue;
      if (m_mark[uc] == target && --left == 0) break;
      m_mark[uc] = seen;
      m_queue.push_back(c);
    }
  return left > 0;
}

bool CanonicalSearch::place(std::int32_t block, std::int64_t offset) {
  const auto b = static_cast<std::size_t>(block);
  m_offset[b] = offset;
  const std::int64_t top = align_up(offset + m_p.size[b], m_p.alignment);
  for (std::int32_t c : m_cover.of_block[b]) m_total[static_cast<std::size_t>(c)] -= m_p.size[b];
  m_cut_opened = false;
  for (std::int32_t k = m_cut_first[b]; k < m_cut_last[b]; ++k)
    if (--m_cuts[static_cast<std::size_t>(k)] == 0) m_cut_opened = true;
  bool hatless = true;
  for (std::int32_t o : m_p.conflicts[b]) {
    const auto u = static_cast<std::size_t>(o);
    --m_free_degree[u];
    if (m_offset[u] >= 0) continue;
    hatless = false;
    if (m_min[u] >= top) continue;
    m_min_log.push_back({o, m_min[u]});
    m_min[u] = top;
  }
  return hatless;
}

void CanonicalSearch::unplace(std::int32_t block, std::size_t mins_mark) {
  const auto b = static_cast<std::size_t>(block);
  while (m_min_log.size() > mins_mark) {
    m_min[static_cast<std::size_t>(m_min_log.back().index)] = m_min_log.back().old;
    m_min_log.pop_back();
  }
  for (std::int32_t o : m_p.conflicts[b]) ++m_free_degree[static_cast<std::size_t>(o)];
  for (std::int32_t c : m_cover.of_block[b]) m_total[static_cast<std::size_t>(c)] += m_p.size[b];
  for (std::int32_t k = m_cut_first[b]; k < m_cut_last[b]; ++k) ++m_cuts[static_cast<std::size_t>(k)];
  m_offset[b] = -1;
}

// A clique's unplaced blocks stack up from its floor (the lowest min offset among them, and not
// below the last placed offset), so they fit only if some block's min offset is at most the
// capacity less their bytes. The floor itself is never kept: each clique remembers one block
// that met that test (a witness, as SAT solvers watch literals) and the clique is rescanned
// only once the witness is placed or raised past the test. The test only loosens as blocks are
// placed (their bytes leave), so a witness tends to stay valid; it is a cache, so backtracking
// leaves it alone and it is checked on every use.
bool CanonicalSearch::feasible(const Group& group, std::int64_t last_offset) {
  for (std::int32_t ci : group.cliques) {
    const auto c = static_cast<std::size_t>(ci);
    if (m_total[c] == 0) continue;
    const std::int64_t highest = m_capacity - m_total[c];  // the highest floor that still fits
    if (last_offset > highest) return false;
    const std::int32_t w = m_witness[c];
    if (w >= 0 && m_offset[static_cast<std::size_t>(w)] < 0 && m_min[static_cast<std::size_t>(w)] <= highest) continue;
    std::int32_t found = -1;
    for (std::int32_t u : m_cover.members[c]) {
      const auto uu = static_cast<std::size_t>(u);
      if (m_offset[uu] < 0 && m_min[uu] <= highest && (found < 0 || m_min[uu] < m_min[static_cast<std::size_t>(found)])) found = u;
    }
    if (found < 0) return false;
    m_witness[c] = found;
  }
  return true;
}

}  // namespace weft::core::detail
