#include "sweep_chart.h"

#include <algorithm>
#include <set>

namespace weft::cli {

Chart sweep_chart(const std::vector<core::SweepPoint>& points, const std::string& title) {
  Chart c;
  c.title = title;
  c.x_label = "batch";
  c.y_label = "speedup";
  c.log2_x = true;
  c.y_suffix = "x";
  c.y_rule = 1.0;
  std::vector<std::string> strategies;
  std::set<std::int64_t> batches;
  bool measured = false;
  for (const core::SweepPoint& p : points) {
    if (std::find(strategies.begin(), strategies.end(), p.strategy) == strategies.end()) strategies.push_back(p.strategy);
    batches.insert(p.batch);
    measured = measured || p.measured_speedup.has_value();
  }
  for (std::int64_t b : batches) c.x_ticks.push_back(static_cast<double>(b));
  for (std::size_t s = 0; s < strategies.size(); ++s) {
    ChartSeries predicted, real;
    predicted.name = strategies[s];
    predicted.colour = real.colour = static_cast<int>(s);
    real.dashed = real.hollow = true;
    real.marker = 5;
    for (const core::SweepPoint& p : points) {
      if (p.strategy != strategies[s]) continue;
      predicted.points.emplace_back(static_cast<double>(p.batch), p.predicted_speedup);
      if (p.measured_speedup) real.points.emplace_back(static_cast<double>(p.batch), *p.measured_speedup);
    }
    std::sort(predicted.points.begin(), predicted.points.end());
    std::sort(real.points.begin(), real.points.end());
    c.series.push_back(std::move(predicted));
    if (!real.points.empty()) c.series.push_back(std::move(real));
  }
  if (measured) c.dashed_legend.push_back("measured");
  return c;
}

Chart frontier_chart(const core::Frontier& f, const std::string& title) {
  Chart c;
  c.title = title;
  c.x_label = "arena (MiB)";
  c.y_label = "predicted time (us)";
  c.y_from_zero = true;
  c.y_rule = f.sequential_us;
  constexpr double kMiB = 1048576.0;
  ChartSeries all, front;
  all.name = "schedules";
  all.colour = 7;
  all.line = false;
  all.marker = 3;
  front.name = "Pareto front";
  front.colour = 0;
  front.marker = 5;
  for (const core::FrontierPoint& p : f.points) all.points.emplace_back(static_cast<double>(p.arena_bytes) / kMiB, p.predicted_us);
  for (std::size_t i : f.front)
    front.points.emplace_back(static_cast<double>(f.points[i].arena_bytes) / kMiB, f.points[i].predicted_us);
  std::sort(front.points.begin(), front.points.end());
  c.series.push_back(std::move(all));
  c.series.push_back(std::move(front));
  c.dashed_legend.push_back("sequential (rule)");
  return c;
}

}  // namespace weft::cli
