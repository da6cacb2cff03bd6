// Schedules under a memory budget: serialise the concurrent live ranges that hold the arena up,
// cheapest first by predicted time; merge streams when that stalls; the reference schedule last.
#include "weft/core/study/memory_budget.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

#include "weft/core/memory/bounds.h"
#include "weft/core/base/check.h"
#include "weft/core/onnx/dim_binding.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/memory/liveness.h"
#include "weft/core/schedule/schedule_edit.h"
#include "weft/core/strategy/registry.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/study/schedule_study.h"
#include "weft/core/schedule/sync.h"
#include "weft/core/base/text_format.h"

namespace weft::core {

namespace {

// Candidates examined per step: the largest tensors matter most (serialising them frees the most
// bytes), and the cap keeps a step to a few hundred longest-path passes.
constexpr std::size_t kFocusTensors = 12;
constexpr std::size_t kNeighbours = 10;
// Candidates ranked by the longest path are re-ranked by the simulator.
constexpr std::size_t kSimulated = 3;

// A fitted schedule's options text records the budget it was fitted to.
void note_budget(Schedule& s, std::int64_t budget_bytes) {
  s.options += (s.options.empty() ? "" : " ") + std::string("memory_budget=") + std::to_string(budget_bytes);
}

std::string bytes_text(std::int64_t bytes) {
  return std::to_string(bytes) + " bytes" + (bytes >= 1024 * 1024 ? " (" + mib_text(bytes) + ")" : std::string());
}

// The state of one fitting run: the graph, costs and options, and the planning calls.
class Fitter {
 public:
  Fitter(const Graph& graph, const CostTable& costs, const DeviceSpec& device, const BudgetOptions& options)
      : m_graph(graph), m_costs(costs), m_device(device), m_options(options),
        m_weights(launch_weights(costs, device, options.mode)) {
    m_weights.resize(graph.node_count(), 0.0);
  }

  double predicted(const Schedule& s) const { return predicted_makespan_us(m_graph, s, m_costs, m_device, m_options.mode); }
  double predicted(const ExecutionOrder& order) const {
    return predicted_makespan_us(m_graph, order, m_costs, m_device, m_options.mode);
  }

  Expected<MemoryPlan> plan(const ExecutionOrder& order, std::int64_t lower_bound = -1) const {
    return study_plan(m_graph, order, m_options.planner, m_options.plan, lower_bound);
  }

  /// The schedule's plan when it fits, else nullopt; `over` receives the plan that does not fit
  /// (only when one was made: a concurrent bound above the budget needs no plan). The plan
  /// reuses the bound computed here.
  Expected<std::optional<MemoryPlan>> fitting_plan(const ExecutionOrder& order, std::optional<MemoryPlan>* over,
                                                   std::optional<ConcurrentBound>* bound) {
    over->reset();
    bound->reset();
    ConcurrentBound b = concurrent_lower_bound(m_graph, order, m_options.plan);
    if (b.bytes > m_options.budget_bytes) {
      *bound = std::move(b);
      return std::optional<MemoryPlan>{};
    }
    WEFT_TRY_ASSIGN(MemoryPlan p, plan(order, b.bytes));
    if (p.arena_bytes <= m_options.budget_bytes) return std::optional<MemoryPlan>{std::move(p)};
    *over = std::move(p);
    return std::optional<MemoryPlan>{};
  }

  /// Serialises pairs of live ranges until `s` fits or no pair helps (or the step cap). Returns
  /// the fitting schedule and plan, or nullopt.
  Expected<std::optional<std::pair<Schedule, MemoryPlan>>> serialise(Schedule s, std::size_t* pairs) {
    *pairs = 0;
    for (int step = 0;; ++step) {
      if (m_options.cancelled && m_options.cancelled()) return make_error(ErrorKind::Runtime, "cancelled");
      // One execution order per step: the bound, the plan, the liveness and the orderings.
      WEFT_TRY_ASSIGN(const ExecutionOrder clocks, ExecutionOrder::build(m_graph, s));
      std::optional<MemoryPlan> over;
      std::optional<ConcurrentBound> bound;
      WEFT_TRY_ASSIGN(auto fit, fitting_plan(clocks, &over, &bound));
      if (fit) return std::optional<std::pair<Schedule, MemoryPlan>>{std::pair{std::move(s), std::move(*fit)}};
      if (step >= m_options.max_serialisations) break;
      const std::vector<std::pair<TensorId, TensorId>> pairs_to_try =
          bound ? antichain_pairs(*bound) : overflow_pairs(compute_liveness(m_graph, clocks, m_options.plan), *over);
      std::optional<std::vector<Event>> best = cheapest_serialisation(s, clocks, pairs_to_try);
      if (!best) break;
      s.events.insert(s.events.end(), best->begin(), best->end());
      ++*pairs;
    }
    return std::optional<std::pair<Schedule, MemoryPlan>>{};
  }

  /// The events that put every reader of a before b's producer (a then dies before b is born),
  /// or nullopt when that would close a cycle (b's producer reads a, or happens before a reader).
  std::optional<std::vector<Event>> ordering(const ExecutionOrder& clocks, TensorId a, TensorId b) const {
    // One writer each: a producer, or the merged node writing a block of outputs (views); a split
    // output's parent, written by every copy, is not reordered.
    const std::span<const NodeId> writers_a = m_graph.writers(a), writers_b = m_graph.writers(b);
    if (writers_a.size() != 1 || writers_b.size() != 1) return std::nullopt;
    const NodeId p = writers_b.front();
    std::vector<Event> events;
    auto need = [&](NodeId r) {
      if (r == p || clocks.before(p, r)) return false;
      if (!clocks.before(r, p)) events.push_back(Event{r, p});
      return true;
    };
    const std::span<const NodeId> readers_a = m_graph.readers(a);
    for (NodeId r : readers_a.empty() ? writers_a : readers_a)
      if (!need(r)) return std::nullopt;
    if (events.empty()) return std::nullopt;  // already ordered: nothing to gain
    return events;
  }

 private:
  std::vector<std::pair<TensorId, TensorId>> antichain_pairs(const ConcurrentBound& bound) const {
    std::vector<TensorId> focus = bound.antichain;
    by_size(focus);
    if (focus.size() > kFocusTensors) focus.resize(kFocusTensors);
    std::vector<std::pair<TensorId, TensorId>> out;
    for (TensorId a : focus)
      for (TensorId b : focus)
        if (a != b) out.emplace_back(a, b);
    return out;
  }

  // A plan above the budget under a bound within it: the tensors placed above the budget and
  // their conflicting neighbours; separating them frees room for the planner to pack lower.
  std::vector<std::pair<TensorId, TensorId>> overflow_pairs(const Liveness& live, const MemoryPlan& plan) const {
    std::vector<std::int32_t> top;
    for (std::size_t i = 0; i < live.tensors.size(); ++i) {
      const auto t = static_cast<std::size_t>(live.tensors[i]);
      if (plan.offset[t] != kNotPlanned && plan.offset[t] + plan.size[t] > m_options.budget_bytes)
        top.push_back(static_cast<std::int32_t>(i));
    }
    auto block_size = [&](std::int32_t i) { return live.problem.size[static_cast<std::size_t>(i)]; };
    std::stable_sort(top.begin(), top.end(), [&](std::int32_t x, std::int32_t y) { return block_size(x) > block_size(y); });
    if (top.size() > kFocusTensors / 2) top.resize(kFocusTensors / 2);
    std::vector<std::pair<TensorId, TensorId>> out;
    for (std::int32_t i : top) {
      std::vector<std::int32_t> near;
      if (live.problem.conflicts_omitted()) {
        // Too many to list: the blocks whose conservative ranges overlap this one's (a superset).
        const auto ui = static_cast<std::size_t>(i);
        for (std::size_t j = 0; j < live.tensors.size(); ++j)
          if (j != ui && live.problem.start[j] <= live.problem.end[ui] && live.problem.start[ui] <= live.problem.end[j])
            near.push_back(static_cast<std::int32_t>(j));
      } else {
        near = live.problem.conflicts[static_cast<std::size_t>(i)];
      }
      std::stable_sort(near.begin(), near.end(), [&](std::int32_t x, std::int32_t y) { return block_size(x) > block_size(y); });
      if (near.size() > kNeighbours) near.resize(kNeighbours);
      const TensorId a = live.tensors[static_cast<std::size_t>(i)];
      for (std::int32_t j : near) {
        const TensorId b = live.tensors[static_cast<std::size_t>(j)];
        out.emplace_back(a, b);
        out.emplace_back(b, a);
      }
    }
    return out;
  }

  void by_size(std::vector<TensorId>& tensors) const {
    std::stable_sort(tensors.begin(), tensors.end(), [&](TensorId x, TensorId y) {
      return m_graph.tensor(x).bytes() > m_graph.tensor(y).bytes();
    });
  }

  // Longest path over the launch weights through H plus the new events: the cheap first rank.
  double longest_path(const Schedule& s) const { return ideal_makespan_us(m_graph, s, m_weights); }

  std::optional<std::vector<Event>> cheapest_serialisation(const Schedule& s, const ExecutionOrder& clocks,
                                                           const std::vector<std::pair<TensorId, TensorId>>& pairs) const {
    struct Candidate {
      std::vector<Event> events;
      double rank = 0;
    };
    std::vector<Candidate> candidates;
    const double event_us = m_options.mode == LaunchMode::Eager ? m_device.event_record_us + m_device.event_wait_us : 0.0;
    Schedule trial = s;
    for (auto [a, b] : pairs) {
      auto events = ordering(clocks, a, b);
      if (!events) continue;
      trial.events.resize(s.events.size());
      trial.events.insert(trial.events.end(), events->begin(), events->end());
      const double rank = longest_path(trial) + event_us * static_cast<double>(events->size());
      candidates.push_back({std::move(*events), rank});
    }
    if (candidates.empty()) return std::nullopt;
    std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& x, const Candidate& y) {
      return x.rank != y.rank ? x.rank < y.rank : x.events.size() < y.events.size();
    });
    if (!can_simulate(m_device)) return std::move(candidates.front().events);
    std::size_t best = 0;
    double best_us = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < std::min(kSimulated, candidates.size()); ++i) {
      trial.events.resize(s.events.size());
      trial.events.insert(trial.events.end(), candidates[i].events.begin(), candidates[i].events.end());
      const double us = predicted(trial);
      if (us < best_us) {
        best_us = us;
        best = i;
      }
    }
    return std::move(candidates[best].events);
  }

  const Graph& m_graph;
  const CostTable& m_costs;
  const DeviceSpec& m_device;
  const BudgetOptions& m_options;
  std::vector<double> m_weights;
};

// Drops added events that the rest of H already implies (an earlier serialisation may be covered
// by a later one), so the schedule carries no event it does not need. Same partial order, so the
// same liveness and plan.
Schedule drop_implied_events(const Graph& graph, Schedule s, std::size_t minimal) {
  for (std::size_t i = s.events.size(); i-- > minimal;) {
    Schedule without = s;
    without.events.erase(without.events.begin() + static_cast<std::ptrdiff_t>(i));
    auto clocks = ExecutionOrder::build(graph, without);
    if (clocks && clocks->before(s.events[i].from, s.events[i].to)) s = std::move(without);
  }
  return s;
}

}  // namespace

Expected<std::int64_t> parse_byte_size(std::string_view text) {
  const std::string original(text);
  auto bad = [&](const std::string& why) {
    return make_error(ErrorKind::InvalidInput, "memory budget '" + original + "': " + why +
                                                   " (give bytes, or a number with B, KB, MB, GB, KiB, MiB or GiB)");
  };
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0) return bad("no number");
  double value = 0;
  try {
    std::size_t used = 0;
    value = std::stod(std::string(text.substr(0, i)), &used);
    if (used != i) return bad("not a number");
  } catch (const std::exception&) {
    return bad("not a number");
  }
  std::string unit;
  for (char c : text.substr(i))
    if (c != ' ') unit.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  double scale = 0;
  static constexpr std::pair<const char*, double> kUnits[] = {
      {"", 1.0},        {"b", 1.0},          {"kb", 1e3},         {"mb", 1e6},
      {"gb", 1e9},      {"kib", 1024.0},     {"mib", 1048576.0},  {"gib", 1073741824.0},
      {"k", 1024.0},    {"m", 1048576.0},    {"g", 1073741824.0},
  };
  for (const auto& [name, factor] : kUnits)
    if (unit == name) scale = factor;
  if (scale == 0) return bad("unknown unit '" + unit + "'");
  const double bytes = std::round(value * scale);
  if (!(bytes >= 1)) return bad("must be at least one byte");
  if (bytes > 9.0e18) return bad("too large");
  return static_cast<std::int64_t>(bytes);
}

std::string BudgetFit::summary() const {
  std::ostringstream s;
  if (!changed()) {
    s << "fits as it is: arena " << bytes_text(original_arena_bytes) << " within the budget of " << bytes_text(budget_bytes);
    return s.str();
  }
  s << "arena " << bytes_text(original_arena_bytes) << " -> " << bytes_text(plan.arena_bytes) << " within the budget of "
    << bytes_text(budget_bytes) << ": ";
  if (sequential) {
    s << "the sequential order (the fastest schedule that fits)";
  } else {
    std::string sep;
    if (stream_cap > 0) {
      s << "made again on at most " << stream_cap << " streams";
      sep = ", ";
    }
    if (serialised_pairs > 0) {
      s << sep << "serialised " << serialised_pairs << " live-range pair" << (serialised_pairs == 1 ? "" : "s") << " ("
        << ordering_events << " ordering event" << (ordering_events == 1 ? "" : "s") << ")";
      sep = ", ";
    }
    if (merged_streams > 0) s << sep << "merged " << merged_streams << " stream" << (merged_streams == 1 ? "" : "s");
  }
  const double pct = original_us > 0 ? 100.0 * cost_us() / original_us : 0.0;
  s << "; predicted " << fixed_text(original_us, 1) << " -> " << fixed_text(fitted_us, 1) << " us (" << (pct >= 0 ? "+" : "")
    << fixed_text(pct, 1) << "%)";
  return s.str();
}

double predicted_makespan_us(const Graph& graph, const Schedule& schedule, const CostTable& costs, const DeviceSpec& device,
                             LaunchMode mode) {
  auto order = ExecutionOrder::build_unclocked(graph, schedule);
  // simulate's precondition; the ideal makespan of a schedule that does not validate is 0.
  if (!order) {
    WEFT_CHECK_MSG(!can_simulate(device), "predicted_makespan_us: invalid or deadlocking schedule");
    return mode == LaunchMode::Eager ? event_host_cost_us(schedule, device) : 0.0;
  }
  return predicted_makespan_us(graph, *order, costs, device, mode);
}

double predicted_makespan_us(const Graph& graph, const ExecutionOrder& order, const CostTable& costs,
                             const DeviceSpec& device, LaunchMode mode) {
  if (can_simulate(device)) {
    SimOptions o;
    o.cuda_graph = mode == LaunchMode::Graph;
    return simulate(graph, order, costs, device, o).makespan_us();
  }
  const double events = mode == LaunchMode::Eager ? event_host_cost_us(order.schedule(), device) : 0.0;
  return ideal_makespan_us(order, node_times(costs)) + events;
}

Expected<BudgetFit> fit_memory_budget(const Graph& graph, const CostTable& costs, const DeviceSpec& device,
                                      Schedule schedule, const BudgetOptions& options) {
  if (options.budget_bytes <= 0)
    return make_error(ErrorKind::InvalidInput, "the memory budget must be positive, got " + std::to_string(options.budget_bytes));
  WEFT_TRY(require_bound_dims(graph, "a memory budget"));
  WEFT_TRY_ASSIGN(const ExecutionOrder original, ExecutionOrder::validate(graph, schedule));
  Fitter fitter(graph, costs, device, options);
  BudgetFit fit;
  fit.budget_bytes = options.budget_bytes;
  WEFT_TRY_ASSIGN(MemoryPlan original_plan, fitter.plan(original));
  fit.original_arena_bytes = original_plan.arena_bytes;
  fit.original_us = fitter.predicted(original);
  if (original_plan.arena_bytes <= options.budget_bytes) {
    fit.schedule = std::move(schedule);
    fit.plan = std::move(original_plan);
    fit.fitted_us = fit.original_us;
    return fit;
  }

  const Schedule reference = reference_schedule(graph);
  WEFT_TRY_ASSIGN(const ExecutionOrder reference_order, ExecutionOrder::build(graph, reference));
  WEFT_TRY_ASSIGN(MemoryPlan reference_plan, fitter.plan(reference_order));
  fit.sequential_arena_bytes = reference_plan.arena_bytes;
  if (reference_plan.arena_bytes > options.budget_bytes)
    return make_error(ErrorKind::InvalidInput,
                      "memory budget " + bytes_text(options.budget_bytes) + " is below the sequential order's arena of " +
                          bytes_text(reference_plan.arena_bytes) + ": even one stream in the memory-aware order does not fit (" +
                          "the schedule as given needs " + bytes_text(original_plan.arena_bytes) + ")");

  // Serialise on the given streams; when that stalls, merge the two streams whose merge predicts
  // fastest and serialise again. Merges recompute the minimal events, so each round starts from
  // the data dependencies alone.
  Schedule base = std::move(schedule);
  const std::string strategy = base.strategy, strategy_options = base.options;
  std::optional<std::pair<Schedule, MemoryPlan>> found;
  std::size_t minimal_events = 0;
  while (true) {
    if (options.cancelled && options.cancelled()) return make_error(ErrorKind::Runtime, "cancelled");
    minimal_events = base.events.size();
    std::size_t pairs = 0;
    WEFT_TRY_ASSIGN(found, fitter.serialise(base, &pairs));
    if (found) {
      fit.serialised_pairs = pairs;
      break;
    }
    if (base.stream_count() <= 1) break;
    std::optional<Schedule> best;
    double best_us = std::numeric_limits<double>::infinity();
    for (int a = 0; a < static_cast<int>(base.stream_count()); ++a)
      for (int b = a + 1; b < static_cast<int>(base.stream_count()); ++b) {
        auto merged = merge_streams(graph, base, a, b);
        if (!merged) continue;
        const double us = fitter.predicted(*merged);
        if (us < best_us) {
          best_us = us;
          best = std::move(*merged);
        }
      }
    if (!best) break;
    base = std::move(*best);
    ++fit.merged_streams;
  }

  const double reference_us = fitter.predicted(reference_order);
  if (found) {
    Schedule fitted = drop_implied_events(graph, std::move(found->first), minimal_events);
    fit.ordering_events = fitted.events.size() - minimal_events;
    fit.fitted_us = fitter.predicted(fitted);
    if (fit.fitted_us <= reference_us) {
      fitted.strategy = strategy;
      fitted.options = strategy_options;
      note_budget(fitted, options.budget_bytes);
      WEFT_TRY(validate_schedule(graph, fitted));
      fit.schedule = std::move(fitted);
      fit.plan = std::move(found->second);
      return fit;
    }
  }
  // The reference fits (checked above) and is the fastest fitting schedule found.
  fit.sequential = true;
  fit.serialised_pairs = 0;
  fit.ordering_events = 0;
  fit.merged_streams = 0;
  fit.schedule = reference;
  note_budget(fit.schedule, options.budget_bytes);
  fit.plan = std::move(reference_plan);
  fit.fitted_us = reference_us;
  return fit;
}

Expected<BudgetFit> make_budgeted_schedule(std::string_view strategy, const Graph& graph, const CostTable& costs,
                                           const DeviceSpec& device, const StrategyOptions& strategy_options,
                                           const BudgetOptions& options) {
  WEFT_TRY_ASSIGN(Schedule schedule, make_schedule(strategy, graph, costs, device, strategy_options));
  return fit_strategy_schedule(strategy, graph, costs, device, strategy_options, std::move(schedule), options);
}

Expected<BudgetFit> fit_strategy_schedule(std::string_view strategy, const Graph& graph, const CostTable& costs,
                                          const DeviceSpec& device, const StrategyOptions& strategy_options,
                                          Schedule made, const BudgetOptions& options) {
  const int streams = static_cast<int>(made.stream_count());
  WEFT_TRY_ASSIGN(BudgetFit fit, fit_memory_budget(graph, costs, device, std::move(made), options));
  if (!fit.changed()) return fit;
  // Only the fixed strategies are made again: `search` would run its whole budget once per cap.
  const auto fixed = fixed_strategy_names();
  if (std::find(fixed.begin(), fixed.end(), strategy) == fixed.end()) return fit;
  // Fitting merges streams one pair at a time, keeping the strategy's placement of the rest; the
  // strategy itself on fewer streams often places them better (a RandWire-WS under cp-list and
  // CUDA Graph replay at 4 MiB: merged down to 1 stream, 360 us; made on 2 streams, 192.5 us).
  int previous = streams;
  for (int cap = (streams + 1) / 2; cap >= 2 && cap < streams; cap = (cap + 1) / 2) {
    if (options.cancelled && options.cancelled()) return make_error(ErrorKind::Runtime, "cancelled");
    StrategyOptions capped = strategy_options;
    capped.max_streams = cap;
    auto schedule = make_schedule(strategy, graph, costs, device, capped);
    if (!schedule) continue;  // the fit as asked stands
    const int got = static_cast<int>(schedule->stream_count());
    if (got >= previous) continue;  // the same number of streams as the cap above: nothing new
    previous = got;
    auto other = fit_memory_budget(graph, costs, device, std::move(*schedule), options);
    if (!other) {
      if (options.cancelled && options.cancelled()) return other.error();
      continue;
    }
    if (other->fitted_us < fit.fitted_us - 1e-9) {
      if (!other->changed()) note_budget(other->schedule, options.budget_bytes);  // fitted as it was: no note yet
      other->stream_cap = cap;
      other->original_arena_bytes = fit.original_arena_bytes;
      other->original_us = fit.original_us;
      if (other->sequential_arena_bytes == 0) other->sequential_arena_bytes = fit.sequential_arena_bytes;
      fit = std::move(*other);
    }
    if (cap == 2) break;
  }
  return fit;
}

}  // namespace weft::core
