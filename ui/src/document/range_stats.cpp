#include "weft/ui/range_stats.h"

#include <algorithm>
#include <utility>

namespace weft::ui {

RangeStats range_stats(const core::Timeline& timeline, double t0_us, double t1_us) {
  RangeStats r;
  r.label = timeline.label;
  r.t0_us = std::min(t0_us, t1_us);
  r.t1_us = std::max(t0_us, t1_us);
  const double length = r.t1_us - r.t0_us;
  int streams = std::max(0, timeline.stream_count);
  for (const core::TimelineItem& it : timeline.items) streams = std::max(streams, it.stream + 1);
  r.busy_share.assign(static_cast<std::size_t>(streams), 0.0);
  if (length <= 0) return r;
  std::vector<std::vector<std::pair<double, double>>> spans(static_cast<std::size_t>(streams));
  for (const core::TimelineItem& it : timeline.items) {
    const double a = std::max(it.start_us, r.t0_us), b = std::min(it.end_us, r.t1_us);
    if (b > a && it.stream >= 0) spans[static_cast<std::size_t>(it.stream)].emplace_back(a, b);
  }
  // Union per stream (a stream's items may touch or, in measured runs, overlap by rounding).
  std::vector<std::pair<double, int>> edges;
  double work = 0;
  for (std::size_t s = 0; s < spans.size(); ++s) {
    auto& v = spans[s];
    std::sort(v.begin(), v.end());
    double busy = 0;
    for (std::size_t i = 0; i < v.size();) {
      double a = v[i].first, b = v[i].second;
      for (++i; i < v.size() && v[i].first <= b; ++i) b = std::max(b, v[i].second);
      busy += b - a;
      edges.emplace_back(a, +1);
      edges.emplace_back(b, -1);
    }
    r.busy_share[s] = busy / length;
    work += busy;
  }
  // Sweep the unions: ends before starts at equal times, so touching spans do not overlap.
  std::sort(edges.begin(), edges.end());
  double active = 0, overlap = 0, prev = r.t0_us;
  int busy_streams = 0;
  for (const auto& [t, delta] : edges) {
    if (busy_streams >= 1) active += t - prev;
    if (busy_streams >= 2) overlap += t - prev;
    busy_streams += delta;
    prev = t;
  }
  r.active_share = active / length;
  r.overlap_share = overlap / length;
  r.speedup = active > 0 ? work / active : 0.0;
  return r;
}

}  // namespace weft::ui
