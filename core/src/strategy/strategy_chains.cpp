// chains (a minimum chain cover as streams, merged down to the cap losing the least
// concurrency) and resource-aware (the same, with merges and a launch order that pair
// compute-bound with memory-bound operators, in the manner of Opara).
#include <algorithm>
#include <numeric>
#include <queue>
#include <tuple>

#include "strategy_detail.h"
#include "weft/core/analysis/antichain.h"
#include "weft/core/base/check.h"
#include "weft/core/strategy/registry.h"

namespace weft::core::detail {
namespace {

// Busy time per time bucket of the cost-weighted ASAP timeline, split by what bounds it.
// Merging two chains serialises exactly the work that overlaps bucket by bucket.
constexpr std::size_t kBuckets = 1024;

struct Busy {
  std::size_t bucket;
  double compute;
  double memory;
};

bool compute_bound(const StrategyInput& in, NodeId v) {
  const auto vi = static_cast<std::size_t>(v);
  return vi < in.costs.nodes.size() && in.costs.nodes[vi].bound == Bound::Compute;
}

std::vector<Busy> chain_profile(const StrategyInput& in, const std::vector<NodeId>& chain, const std::vector<double>& est,
                                double bucket_us) {
  std::vector<Busy> out;
  for (NodeId v : chain) {
    const auto vi = static_cast<std::size_t>(v);
    const double start = est[vi], end = est[vi] + in.time_us[vi];
    if (end <= start) continue;
    const bool compute = compute_bound(in, v);
    const auto b0 = std::min(kBuckets - 1, static_cast<std::size_t>(start / bucket_us));
    const auto b1 = std::min(kBuckets - 1, static_cast<std::size_t>(end / bucket_us));
    for (std::size_t b = b0; b <= b1; ++b) {
      const double lo = std::max(start, static_cast<double>(b) * bucket_us);
      const double hi = b == kBuckets - 1 ? end : std::min(end, static_cast<double>(b + 1) * bucket_us);
      if (hi <= lo) continue;
      out.push_back(Busy{b, compute ? hi - lo : 0, compute ? 0 : hi - lo});
    }
  }
  std::sort(out.begin(), out.end(), [](const Busy& a, const Busy& b) { return a.bucket < b.bucket; });
  return out;
}

// Concurrency lost by serialising busy time `a` with busy time `b` (per bucket: the time both
// are busy). With `complementary`, overlap between a compute-bound and a memory-bound operator
// counts double that between two of a kind: two of a kind contend for the same units anyway, a
// complementary pair is what concurrency is for.
double overlap_loss(double ac, double am, double bc, double bm, bool complementary) {
  if (!complementary) return std::min(ac + am, bc + bm);
  return 0.5 * (std::min(ac, bc) + std::min(am, bm)) + std::min(ac, bm) + std::min(am, bc);
}

// Assigns chains to at most max_streams streams, losing the least concurrency. Up to
// kExactWidth chains: agglomerative (repeatedly merge the pair of groups whose busy profiles
// overlap least, ties to the least combined work). Wider covers: chains in decreasing order of
// work, each joining the stream where it overlaps least once every stream is taken.
constexpr std::size_t kExactWidth = 64;

std::vector<int> assign_chains(const StrategyInput& in, const ChainCover& cover, bool complementary) {
  const std::size_t n = in.graph.node_count();
  std::vector<int> stream_of(n, 0);
  const std::size_t width = cover.chains.size();
  const auto cap = static_cast<std::size_t>(in.options.max_streams);
  if (width <= cap) {
    for (std::size_t c = 0; c < width; ++c)
      for (NodeId v : cover.chains[c]) stream_of[static_cast<std::size_t>(v)] = static_cast<int>(c);
    return stream_of;
  }
  const std::vector<double> est = earliest_start(in);
  double horizon = 0;
  for (std::size_t v = 0; v < n; ++v) horizon = std::max(horizon, est[v] + in.time_us[v]);
  const double bucket_us = horizon > 0 ? horizon / static_cast<double>(kBuckets) : 1.0;
  std::vector<double> work(width, 0);
  for (std::size_t c = 0; c < width; ++c)
    for (NodeId v : cover.chains[c]) work[c] += in.time_us[static_cast<std::size_t>(v)];

  // Dense busy profiles: [group][bucket] compute and memory time.
  struct Profile {
    std::vector<double> compute = std::vector<double>(kBuckets, 0.0), memory = std::vector<double>(kBuckets, 0.0);
    void add(const std::vector<Busy>& busy) {
      for (const Busy& b : busy) {
        compute[b.bucket] += b.compute;
        memory[b.bucket] += b.memory;
      }
    }
  };

  if (width <= kExactWidth) {
    std::vector<Profile> group(width);
    std::vector<int> group_of(width);  // chain → group (groups merge into the lower index)
    std::vector<bool> alive(width, true);
    for (std::size_t c = 0; c < width; ++c) {
      group[c].add(chain_profile(in, cover.chains[c], est, bucket_us));
      group_of[c] = static_cast<int>(c);
    }
    auto loss = [&](std::size_t a, std::size_t b) {
      double l = 0;
      for (std::size_t k = 0; k < kBuckets; ++k)
        l += overlap_loss(group[a].compute[k], group[a].memory[k], group[b].compute[k], group[b].memory[k], complementary);
      return l;
    };
    std::vector<std::vector<double>> pair(width, std::vector<double>(width, 0));
    for (std::size_t a = 0; a < width; ++a)
      for (std::size_t b = a + 1; b < width; ++b) pair[a][b] = loss(a, b);
    for (std::size_t groups = width; groups > cap; --groups) {
      std::size_t ba = 0, bb = 0;
      bool found = false;
      for (std::size_t a = 0; a < width; ++a)
        for (std::size_t b = a + 1; b < width && alive[a]; ++b) {
          if (!alive[b]) continue;
          const double l = pair[a][b], bl = found ? pair[ba][bb] : 0;
          if (!found || l < bl || (l == bl && work[a] + work[b] < work[ba] + work[bb])) {
            ba = a;
            bb = b;
            found = true;
          }
        }
      for (std::size_t k = 0; k < kBuckets; ++k) {
        group[ba].compute[k] += group[bb].compute[k];
        group[ba].memory[k] += group[bb].memory[k];
      }
      work[ba] += work[bb];
      alive[bb] = false;
      for (int& g : group_of)
        if (g == static_cast<int>(bb)) g = static_cast<int>(ba);
      for (std::size_t o = 0; o < width; ++o)
        if (alive[o] && o != ba) (o < ba ? pair[o][ba] : pair[ba][o]) = loss(std::min(o, ba), std::max(o, ba));
    }
    for (std::size_t c = 0; c < width; ++c)
      for (NodeId v : cover.chains[c]) stream_of[static_cast<std::size_t>(v)] = group_of[c];
    return stream_of;
  }

  std::vector<std::size_t> by_work(width);
  std::iota(by_work.begin(), by_work.end(), std::size_t{0});
  std::stable_sort(by_work.begin(), by_work.end(), [&](std::size_t a, std::size_t b) { return work[a] > work[b]; });
  std::vector<Profile> streams;
  std::vector<double> stream_work;
  for (std::size_t c : by_work) {
    const std::vector<Busy> profile = chain_profile(in, cover.chains[c], est, bucket_us);
    std::size_t target = 0;
    if (streams.size() < cap) {
      target = streams.size();
      streams.emplace_back();
      stream_work.push_back(0);
    } else {
      double best = -1;
      for (std::size_t s = 0; s < streams.size(); ++s) {
        double l = 0;
        for (const Busy& b : profile)
          l += overlap_loss(b.compute, b.memory, streams[s].compute[b.bucket], streams[s].memory[b.bucket], complementary);
        if (best < 0 || l < best || (l == best && stream_work[s] < stream_work[target])) {
          best = l;
          target = s;
        }
      }
    }
    streams[target].add(profile);
    stream_work[target] += work[c];
    for (NodeId v : cover.chains[c]) stream_of[static_cast<std::size_t>(v)] = static_cast<int>(target);
  }
  return stream_of;
}

// Launch order: a list schedule by upward rank that alternates compute-bound and memory-bound
// operators whenever both kinds are ready, so neighbours in issue order can overlap usefully.
std::vector<NodeId> complementary_order(const StrategyInput& in) {
  const std::vector<double> rank = upward_rank(in, in.event_us);
  const std::size_t n = in.graph.node_count();
  std::vector<int> topo_rank(n);
  const auto topo = in.graph.topo_order();
  for (std::size_t i = 0; i < topo.size(); ++i) topo_rank[static_cast<std::size_t>(topo[i])] = static_cast<int>(i);
  using Item = std::pair<double, int>;  // (rank, -topo rank): highest rank, then file order
  std::priority_queue<Item> ready[2];   // 0: memory-bound or unknown, 1: compute-bound
  std::vector<std::size_t> missing(n);
  auto push = [&](NodeId v) { ready[compute_bound(in, v) ? 1 : 0].emplace(rank[static_cast<std::size_t>(v)], -topo_rank[static_cast<std::size_t>(v)]); };
  for (std::size_t v = 0; v < n; ++v) {
    missing[v] = in.graph.predecessors(static_cast<NodeId>(v)).size();
    if (missing[v] == 0) push(static_cast<NodeId>(v));
  }
  std::vector<NodeId> order;
  order.reserve(n);
  int last = 1;
  while (!ready[0].empty() || !ready[1].empty()) {
    const int kind = ready[1 - last].empty() ? last : 1 - last;
    const NodeId v = topo[static_cast<std::size_t>(-ready[kind].top().second)];
    ready[kind].pop();
    last = kind;
    order.push_back(v);
    for (NodeId w : in.graph.successors(v))
      if (--missing[static_cast<std::size_t>(w)] == 0) push(w);
  }
  return order;
}

// The graph's minimum chain cover: the one the options carry, else computed here into `own`.
const ChainCover& chain_cover(const StrategyInput& in, ChainCover& own) {
  if (!in.options.chain_cover) return own = min_chain_cover(in.graph);
  std::size_t nodes = 0;
  for (const auto& chain : in.options.chain_cover->chains) nodes += chain.size();
  WEFT_CHECK_MSG(nodes == in.graph.node_count(), "StrategyOptions::chain_cover is not a cover of the scheduled graph");
  return *in.options.chain_cover;
}

Schedule chains(const StrategyInput& in) {
  ChainCover own;
  const ChainCover& cover = chain_cover(in, own);
  std::vector<int> stream_of = assign_chains(in, cover, /*complementary=*/false);
  keep_small_on_producer_stream(in, stream_of);
  return from_assignment(std::move(stream_of), order_by(in.graph, earliest_start(in), /*descending=*/false));
}

Schedule resource_aware(const StrategyInput& in) {
  ChainCover own;
  const ChainCover& cover = chain_cover(in, own);
  std::vector<int> stream_of = assign_chains(in, cover, /*complementary=*/true);
  keep_small_on_producer_stream(in, stream_of);
  Schedule s = from_assignment(std::move(stream_of), complementary_order(in));
  s.options = "launch=complementary";
  return s;
}

}  // namespace
}  // namespace weft::core::detail

WEFT_STRATEGY_FILE(chains) {
  using namespace weft::core;
  WEFT_CHECK(register_strategy(make_strategy("chains", "a minimum chain cover as streams, merged down to the cap losing the least concurrency", 40,
                                  [](const StrategyInput& in) -> Expected<Schedule> { return detail::chains(in); })));
  WEFT_CHECK(register_strategy(make_strategy("resource-aware", "chains with merges and a launch order pairing compute- and memory-bound operators (after Opara)", 60,
                                  [](const StrategyInput& in) -> Expected<Schedule> { return detail::resource_aware(in); })));
}
