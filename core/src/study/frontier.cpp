// The speed-versus-memory front: strategies × stream caps, budget-constrained variants, Pareto filter.
#include "weft/core/study/frontier.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "weft/core/base/csv.h"
#include "weft/core/onnx/dim_binding.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/strategy/registry.h"
#include "weft/core/study/memory_budget.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/study/schedule_study.h"
#include "weft/core/base/text_format.h"

namespace weft::core {

namespace {

constexpr std::size_t kFittedFastest = 6;


bool same_schedule(const Schedule& a, const Schedule& b) { return a.streams == b.streams && a.events == b.events; }

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// A round tick step near range / 5 (1, 2 or 5 times a power of ten).
double tick_step(double range) {
  if (range <= 0) return 1;
  const double raw = range / 5;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

}  // namespace

std::string FrontierPoint::label() const {
  std::string s = strategy + ", " + std::to_string(stream_cap) + (stream_cap == 1 ? " stream" : " streams");
  if (budget_bytes > 0) s += ", budget " + mib_text(budget_bytes);
  return s;
}

std::vector<std::size_t> pareto_front(const std::vector<FrontierPoint>& points) {
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (points[a].arena_bytes != points[b].arena_bytes) return points[a].arena_bytes < points[b].arena_bytes;
    return points[a].predicted_us < points[b].predicted_us;
  });
  std::vector<std::size_t> front;
  for (std::size_t i : order)
    if (front.empty() || points[i].predicted_us < points[front.back()].predicted_us) front.push_back(i);
  return front;
}

Expected<Frontier> memory_frontier(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                                   const FrontierOptions& options) {
  WEFT_TRY(require_bound_dims(graph, "the speed/memory front"));
  Frontier f;
  f.mode = launch_mode_of(options.strategy);
  BudgetOptions budget;
  budget.mode = f.mode;
  budget.planner = options.planner;
  budget.plan = options.plan;
  budget.cancelled = options.cancelled;
  const auto stop = [&] { return options.cancelled && options.cancelled(); };

  auto add = [&](FrontierPoint p) {
    for (const FrontierPoint& q : f.points)
      if (same_schedule(q.schedule, p.schedule)) return;
    f.points.push_back(std::move(p));
  };

  const Schedule reference = reference_schedule(graph);
  // Each schedule's execution order once, for its plan and its prediction.
  WEFT_TRY_ASSIGN(const ExecutionOrder reference_order, ExecutionOrder::build(graph, reference));
  WEFT_TRY_ASSIGN(const MemoryPlan reference_plan, study_plan(graph, reference_order, options.planner, options.plan));
  f.sequential_arena_bytes = reference_plan.arena_bytes;
  f.sequential_us = predicted_makespan_us(graph, reference_order, costs, device, f.mode);
  add(FrontierPoint{"sequential", 1, 0, reference, f.sequential_arena_bytes, f.sequential_us, 1.0, false});

  // The fixed strategies only: each builds its schedule deterministically and quickly (search is
  // bounded by wall time, so its points would depend on the machine's load).
  for (const std::string& name : fixed_strategy_names())
    for (int cap : options.stream_caps) {
      StrategyOptions so = options.strategy;
      so.max_streams = cap;
      if (stop()) return make_error(ErrorKind::Runtime, "cancelled");
      WEFT_TRY_ASSIGN(Schedule s, make_schedule(name, graph, costs, device, so));
      bool seen = false;
      for (const FrontierPoint& q : f.points) seen = seen || same_schedule(q.schedule, s);
      if (seen) continue;
      WEFT_TRY_ASSIGN(const ExecutionOrder order, ExecutionOrder::build(graph, s));
      WEFT_TRY_ASSIGN(const MemoryPlan plan, study_plan(graph, order, options.planner, options.plan));
      FrontierPoint p;
      p.strategy = name;
      p.stream_cap = cap;
      p.arena_bytes = plan.arena_bytes;
      p.predicted_us = predicted_makespan_us(graph, order, costs, device, f.mode);
      p.schedule = std::move(s);
      add(std::move(p));
    }

  // Budgets between the sequential arena (included) and the fastest schedule's arena.
  const std::vector<std::size_t> unconstrained = pareto_front(f.points);
  const std::int64_t widest = f.points[unconstrained.back()].arena_bytes;
  std::vector<std::int64_t> budgets{f.sequential_arena_bytes};
  for (int k = 1; k <= options.budget_levels; ++k)
    budgets.push_back(f.sequential_arena_bytes +
                      (widest - f.sequential_arena_bytes) * k / (options.budget_levels + 1));
  budgets.erase(std::unique(budgets.begin(), budgets.end()), budgets.end());
  // Fitted: the front's points and the fastest few (equally fast schedules on more streams can
  // fit a budget better: merging leaves more choice than the schedule made for fewer streams).
  std::vector<std::size_t> to_fit(f.points.size());
  std::iota(to_fit.begin(), to_fit.end(), std::size_t{0});
  std::stable_sort(to_fit.begin(), to_fit.end(),
                   [&](std::size_t a, std::size_t b) { return f.points[a].predicted_us < f.points[b].predicted_us; });
  if (to_fit.size() > kFittedFastest) to_fit.resize(kFittedFastest);
  for (std::size_t i : unconstrained)
    if (std::find(to_fit.begin(), to_fit.end(), i) == to_fit.end()) to_fit.push_back(i);
  for (std::int64_t b : budgets)
    for (std::size_t i : to_fit) {
      if (f.points[i].arena_bytes <= b) continue;
      budget.budget_bytes = b;
      WEFT_TRY_ASSIGN(BudgetFit fit, fit_memory_budget(graph, costs, device, f.points[i].schedule, budget));
      FrontierPoint p;
      p.strategy = f.points[i].strategy;
      p.stream_cap = f.points[i].stream_cap;
      p.budget_bytes = b;
      p.arena_bytes = fit.plan.arena_bytes;
      p.predicted_us = fit.fitted_us;
      p.schedule = std::move(fit.schedule);
      add(std::move(p));
    }

  for (FrontierPoint& p : f.points) p.speedup = p.predicted_us > 0 ? f.sequential_us / p.predicted_us : 1.0;
  std::stable_sort(f.points.begin(), f.points.end(), [](const FrontierPoint& a, const FrontierPoint& b) {
    return a.arena_bytes != b.arena_bytes ? a.arena_bytes < b.arena_bytes : a.predicted_us < b.predicted_us;
  });
  f.front = pareto_front(f.points);
  for (std::size_t i : f.front) f.points[i].on_front = true;
  return f;
}

std::string frontier_csv(const Frontier& frontier) {
  std::ostringstream out;
  out << "strategy,stream_cap,budget_bytes,streams,events,arena_bytes,predicted_us,speedup,on_front\r\n";
  for (const FrontierPoint& p : frontier.points)
    out << csv_field(p.strategy) << ',' << p.stream_cap << ',' << p.budget_bytes << ',' << p.schedule.stream_count() << ','
        << p.schedule.events.size() << ',' << p.arena_bytes << ',' << fixed_text(p.predicted_us, 3) << ',' << fixed_text(p.speedup, 4)
        << ',' << (p.on_front ? 1 : 0) << "\r\n";
  return out.str();
}

std::string frontier_svg(const Frontier& frontier, std::string_view title, std::int64_t current_arena, double current_us) {
  constexpr double kW = 760, kH = 480, kLeft = 80, kRight = 24, kTop = 44, kBottom = 56;
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  double x_max = 0, y_max = 0;
  for (const FrontierPoint& p : frontier.points) {
    x_max = std::max(x_max, static_cast<double>(p.arena_bytes) / 1048576.0);
    y_max = std::max(y_max, p.predicted_us);
  }
  if (current_arena >= 0) {
    x_max = std::max(x_max, static_cast<double>(current_arena) / 1048576.0);
    y_max = std::max(y_max, current_us);
  }
  const double xs = tick_step(x_max), ys = tick_step(y_max);
  x_max = std::max(xs, std::ceil(x_max * 1.05 / xs) * xs);
  y_max = std::max(ys, std::ceil(y_max * 1.05 / ys) * ys);
  auto px = [&](double mib) { return kLeft + pw * mib / x_max; };
  auto py = [&](double us) { return kTop + ph * (1 - us / y_max); };
  auto pt = [&](const FrontierPoint& p) {
    return std::pair{px(static_cast<double>(p.arena_bytes) / 1048576.0), py(p.predicted_us)};
  };

  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kW << "\" height=\"" << kH << "\" viewBox=\"0 0 " << kW << ' '
    << kH << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << kLeft << "\" y=\"24\" font-size=\"15\">" << xml_escape(title) << "</text>\n";
  for (double x = 0; x <= x_max + xs / 2; x += xs)
    s << "<line x1=\"" << px(x) << "\" y1=\"" << kTop << "\" x2=\"" << px(x) << "\" y2=\"" << kTop + ph
      << "\" stroke=\"#e4e4e4\"/><text x=\"" << px(x) << "\" y=\"" << kTop + ph + 18 << "\" text-anchor=\"middle\">"
      << fixed_text(x, xs < 1 ? 1 : 0) << "</text>\n";
  for (double y = 0; y <= y_max + ys / 2; y += ys)
    s << "<line x1=\"" << kLeft << "\" y1=\"" << py(y) << "\" x2=\"" << kLeft + pw << "\" y2=\"" << py(y)
      << "\" stroke=\"#e4e4e4\"/><text x=\"" << kLeft - 8 << "\" y=\"" << py(y) + 4 << "\" text-anchor=\"end\">"
      << fixed_text(y, ys < 1 ? 1 : 0) << "</text>\n";
  s << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << pw << "\" height=\"" << ph
    << "\" fill=\"none\" stroke=\"#444\"/>\n"
    << "<text x=\"" << kLeft + pw / 2 << "\" y=\"" << kH - 14 << "\" text-anchor=\"middle\">arena (MiB)</text>\n"
    << "<text transform=\"translate(18 " << kTop + ph / 2 << ") rotate(-90)\" text-anchor=\"middle\">predicted time (us, "
    << launch_mode_name(frontier.mode) << ")</text>\n";
  // The front as a staircase: a schedule on it serves every budget up to the next point.
  if (!frontier.front.empty()) {
    s << "<polyline fill=\"none\" stroke=\"#1f6fd1\" stroke-width=\"2\" points=\"";
    for (std::size_t k = 0; k < frontier.front.size(); ++k) {
      const auto [x, y] = pt(frontier.points[frontier.front[k]]);
      if (k > 0) s << x << ',' << pt(frontier.points[frontier.front[k - 1]]).second << ' ';
      s << x << ',' << y << ' ';
    }
    s << "\"/>\n";
  }
  for (const FrontierPoint& p : frontier.points) {
    const auto [x, y] = pt(p);
    s << "<circle cx=\"" << x << "\" cy=\"" << y << "\" r=\"" << (p.on_front ? 5 : 3.5) << "\" fill=\""
      << (p.on_front ? "#1f6fd1" : "#9a9a9a") << "\"><title>" << xml_escape(p.label()) << ": " << mib_text(p.arena_bytes)
      << ", " << fixed_text(p.predicted_us, 1) << " us</title></circle>\n";
    if (p.on_front)
      s << "<text x=\"" << x + 7 << "\" y=\"" << y - 7 << "\" font-size=\"10\" fill=\"#1f4f91\">" << xml_escape(p.label())
        << "</text>\n";
  }
  if (current_arena >= 0)
    s << "<circle cx=\"" << px(static_cast<double>(current_arena) / 1048576.0) << "\" cy=\"" << py(current_us)
      << "\" r=\"8\" fill=\"none\" stroke=\"#d12f1f\" stroke-width=\"2\"><title>current schedule</title></circle>\n";
  s << "</svg>\n";
  return s.str();
}

}  // namespace weft::core
