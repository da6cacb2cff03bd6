#include "weft/core/schedule/timeline.h"

#include <algorithm>

namespace weft::core {

std::string_view run_kind_name(RunKind kind) {
  switch (kind) {
    case RunKind::Predicted: return "predicted";
    case RunKind::Measured: return "measured";
    case RunKind::BaselineEager: return "sequential-eager";
    case RunKind::BaselineGraph: return "sequential-graph";
  }
  return "measured";
}

std::optional<RunKind> parse_run_kind(std::string_view name) {
  for (RunKind k : {RunKind::Predicted, RunKind::Measured, RunKind::BaselineEager, RunKind::BaselineGraph})
    if (run_kind_name(k) == name) return k;
  return std::nullopt;
}

std::string run_label(const RunIdentity& identity) {
  const std::string strategy = identity.strategy.empty() ? std::string("schedule") : identity.strategy;
  switch (identity.kind) {
    case RunKind::Predicted: return "predicted " + strategy;
    case RunKind::Measured: return "measured " + identity.backend + " " + strategy;
    case RunKind::BaselineEager: return "sequential eager";
    case RunKind::BaselineGraph: return "sequential CUDA Graph";
  }
  return strategy;
}

double Timeline::makespan_us() const {
  if (items.empty()) return 0;
  double lo = items.front().start_us, hi = items.front().end_us;
  for (const TimelineItem& it : items) {
    lo = std::min(lo, it.start_us);
    hi = std::max(hi, it.end_us);
  }
  return hi - lo;
}

std::vector<double> Timeline::stream_busy_us() const {
  std::vector<std::vector<std::pair<double, double>>> per(static_cast<std::size_t>(std::max(stream_count, 0)));
  for (const TimelineItem& it : items) {
    if (it.stream < 0) continue;
    if (static_cast<std::size_t>(it.stream) >= per.size()) per.resize(static_cast<std::size_t>(it.stream) + 1);
    per[static_cast<std::size_t>(it.stream)].emplace_back(it.start_us, it.end_us);
  }
  std::vector<double> busy(per.size(), 0.0);
  for (std::size_t s = 0; s < per.size(); ++s) {
    auto& v = per[s];
    std::sort(v.begin(), v.end());
    double cur_lo = 0, cur_hi = -1;
    bool open = false;
    for (auto [a, b] : v) {
      if (!open || a > cur_hi) {
        if (open) busy[s] += cur_hi - cur_lo;
        cur_lo = a;
        cur_hi = b;
        open = true;
      } else {
        cur_hi = std::max(cur_hi, b);
      }
    }
    if (open) busy[s] += cur_hi - cur_lo;
  }
  return busy;
}

std::int64_t overlapped_pairs(const Timeline& timeline) {
  std::vector<TimelineItem> items = timeline.items;
  std::sort(items.begin(), items.end(), [](const TimelineItem& a, const TimelineItem& b) { return a.start_us < b.start_us; });
  std::int64_t pairs = 0;
  for (std::size_t i = 0; i < items.size(); ++i)
    for (std::size_t j = i + 1; j < items.size() && items[j].start_us < items[i].end_us; ++j)
      if (items[j].stream != items[i].stream) ++pairs;
  return pairs;
}

}  // namespace weft::core
