// weft plan: memory plans for a model's schedule (per planner arena, bounds, price of
// concurrency) or for a raw MiniMalloc interval instance.
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.h"
#include "weft/core/memory/allocation_problem.h"
#include "weft/core/memory/bounds.h"
#include "weft/core/base/file_io.h"
#include "weft/core/memory/intervals.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/memory/plan_checker.h"
#include "weft/core/memory/plan_json.h"
#include "weft/core/memory/plan_repair.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/onnx/dim_binding.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/base/text_format.h"

namespace weft::cli {
namespace {

std::string ratio_text(std::int64_t a, std::int64_t b) {
  if (b <= 0) return "-";
  std::ostringstream out;
  out << std::fixed << std::setprecision(3) << static_cast<double>(a) / static_cast<double>(b);
  return out.str();
}

double ratio(std::int64_t a, std::int64_t b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

int plan_intervals(const Args& args, const std::string& path, const core::PlanOptions& options, const std::string& planner) {
  auto text = core::read_file(path);
  if (!text) return report("plan", text.error());
  auto instance = core::parse_minimalloc_csv(*text, path);
  if (!instance) return report("plan", instance.error());
  const core::AllocationProblem problem = core::interval_problem(*instance);
  const std::int64_t bound = core::interval_lower_bound(problem);
  nlohmann::json per_planner = nlohmann::json::array();
  std::optional<core::Placement> chosen;
  // Every planner at once (the searches shared: `best` continues from `exact`), or the one asked for.
  std::vector<core::Placement> placements;
  if (planner.empty()) {
    placements = core::place_blocks_all(problem, options, bound);
  } else {
    auto placement = core::place_blocks(problem, planner, options, bound);
    if (!placement) return report("plan", placement.error());
    placements.push_back(std::move(*placement));
  }
  // Both core calls check every placement they return (an invalid one aborts there).
  for (core::Placement& placement : placements) {
    per_planner.push_back(
        {{"planner", placement.planner}, {"arena_bytes", placement.arena_bytes}, {"ratio", ratio(placement.arena_bytes, bound)}});
    if (!args.flag("json"))
      std::cout << std::left << std::setw(20) << placement.planner << std::right << std::setw(14) << placement.arena_bytes
                << "  " << ratio_text(placement.arena_bytes, bound) << "\n";
    if (!chosen || placement.arena_bytes < chosen->arena_bytes) chosen = std::move(placement);
  }
  if (args.flag("json")) {
    nlohmann::json offsets = nlohmann::json::object();
    for (std::size_t i = 0; i < instance->ids.size(); ++i) offsets[instance->ids[i]] = chosen->offset[i];
    nlohmann::json j{{"file", path},
                     {"buffers", instance->ids.size()},
                     {"planner", chosen->planner},
                     {"arena_bytes", chosen->arena_bytes},
                     {"lower_bound_bytes", bound},
                     {"ratio", ratio(chosen->arena_bytes, bound)},
                     {"planners", per_planner},
                     {"offsets", offsets}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << instance->ids.size() << " buffers, lower bound " << bound << " bytes; best " << chosen->planner << " "
              << chosen->arena_bytes << " bytes (arena/bound " << ratio_text(chosen->arena_bytes, bound) << ")\n";
  }
  return 0;
}

// The placed tensors of a plan (views too, inside their parents) as `weft plan --json` lists
// them, and --repair reads them back.
nlohmann::json tensors_json(const core::Graph& graph, const core::MemoryPlan& plan) {
  nlohmann::json tensors = nlohmann::json::array();
  for (std::size_t t = 0; t < graph.tensor_count(); ++t) {
    if (plan.offset[t] == core::kNotPlanned) continue;
    tensors.push_back({{"name", graph.tensor(static_cast<core::TensorId>(t)).name}, {"offset", plan.offset[t]}, {"size", plan.size[t]}});
  }
  return tensors;
}

// What every plan's --json says of it: the model and schedule, the plan's settings, its arena and
// its tensors (the keys --repair reads back).
nlohmann::json plan_json(const core::Graph& graph, const core::Schedule& schedule, const core::MemoryPlan& plan) {
  return {{"model", graph.info().model_path},     {"strategy", schedule.strategy},
          {"streams", schedule.stream_count()},    {"planner", plan.planner},
          {"alignment", plan.alignment},           {"outputs_in_arena", plan.outputs_in_arena},
          {"arena_bytes", plan.arena_bytes},       {"tensors", tensors_json(graph, plan)}};
}

// --repair FILE: an earlier plan (weft plan --json) made valid for this schedule, moving only the
// tensors that clash under it (core::repair_plan, as the studio does after every edit).
int plan_repair(const Args& args, const std::string& path, const core::Graph& graph, const core::Schedule& schedule,
                const core::PlanOptions& options) {
  // As memory_report(): tensors of unknown size would plan as zero bytes.
  if (auto bound = core::require_bound_dims(graph, "the memory plan"); !bound) return report("plan", bound.error());
  auto text = core::read_file(path);
  if (!text) return report("plan", text.error());
  auto previous = core::plan_from_json(graph, *text, options.outputs_in_arena);
  if (!previous) return report("plan", previous.error());
  if (previous->alignment != options.alignment && args.value("alignment"))
    return usage_error("plan", "--alignment " + std::to_string(options.alignment) + " differs from the plan file's " +
                                   std::to_string(previous->alignment));
  auto order = core::ExecutionOrder::build(graph, schedule);
  if (!order) return report("plan", order.error());
  auto repaired = core::repair_plan(graph, *order, *previous);
  if (!repaired) return report("plan", repaired.error());
  const core::MemoryPlan& plan = repaired->plan;
  if (auto ok = core::check_plan(graph, *order, plan); !ok)
    return report("plan", core::make_error(core::ErrorKind::Internal, "the repaired plan: " + ok.error().message));
  core::PlanOptions bound_options = options;
  bound_options.alignment = plan.alignment;
  const core::ConcurrentBound bound = core::concurrent_lower_bound(graph, *order, bound_options);
  std::size_t planned = 0;
  for (std::size_t t = 0; t < graph.tensor_count(); ++t)
    planned += plan.offset[t] != core::kNotPlanned && !graph.tensor(static_cast<core::TensorId>(t)).is_view() ? 1 : 0;
  if (args.flag("json")) {
    nlohmann::json j = plan_json(graph, schedule, plan);
    j.update({{"previous_arena_bytes", previous->arena_bytes},
              {"lower_bound_bytes", bound.bytes},
              {"lower_bound_exact", bound.exact},
              {"ratio", ratio(plan.arena_bytes, bound.bytes)},
              {"moved", repaired->moved},
              {"shared_pairs", repaired->shared_pairs},
              {"conflicts", repaired->conflicts}});
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "schedule: " << schedule.strategy << ", " << schedule.stream_count() << " stream(s), " << planned
            << " planned tensors\n"
            << "repaired " << path << ": " << repaired->moved << " of " << planned << " tensors moved ("
            << repaired->shared_pairs << " pairs sharing bytes with overlapping live ranges tested, " << repaired->conflicts
            << " may now be live at once)\n"
            << "arena                  " << plan.arena_bytes << " bytes (the file's " << previous->arena_bytes << ")\n"
            << "concurrent lower bound " << bound.bytes << " bytes; arena/bound " << ratio_text(plan.arena_bytes, bound.bytes)
            << "\n"
            << "(weft plan without --repair plans this schedule afresh, offsets free to change)\n";
  return 0;
}

}  // namespace

int cmd_plan(Args& args) {
  if (auto ok = args.parse({"intervals=", "repair=", "profile=", "schedule=", "strategy=", "streams=", "granularity=", "memory-budget=", "graph", "planner=", "alignment=", "outputs",
                            "search-ms=", "search-steps=", "json", "merge", "fuse"},
                           true);
      !ok)
    return usage_error("plan", ok.error().message);
  core::PlanOptions options = core::reference_plan_options();
  auto alignment = args.int_value("alignment");
  if (!alignment) return usage_error("plan", alignment.error().message);
  auto search_ms = args.double_value("search-ms");
  if (!search_ms) return usage_error("plan", search_ms.error().message);
  if (*search_ms) {
    if (**search_ms < 0) return usage_error("plan", "--search-ms must be >= 0");
    options.search_ms = **search_ms;
  }
  auto search_steps = args.int_value("search-steps");
  if (!search_steps) return usage_error("plan", search_steps.error().message);
  if (*search_steps) {
    if (**search_steps < 0) return usage_error("plan", "--search-steps must be >= 0");
    options.search_steps = **search_steps;
  }
  const std::string planner = args.value("planner").value_or("");
  if (!planner.empty())
    if (auto ok = core::check_planner(planner); !ok) return usage_error("plan", ok.error().message);
  if (args.value("repair") && (!planner.empty() || args.value("intervals")))
    return usage_error("plan", std::string(args.value("intervals") ? "--intervals" : "--planner") + " does not apply to --repair");
  if (auto intervals = args.value("intervals")) {
    if (*alignment) return usage_error("plan", "--alignment does not apply to --intervals (sizes are taken as given)");
    // Raw instances: search harder (deterministic step budget, a generous wall-clock guard).
    if (!*search_steps) options.search_steps = 6'000'000;
    if (!*search_ms) options.search_ms = 10000;
    return plan_intervals(args, *intervals, options, planner);
  }
  if (*alignment) {
    if (**alignment <= 0 || **alignment > core::kMaxAlignment)
      return usage_error("plan", "--alignment must be from 1 to " + std::to_string(core::kMaxAlignment));
    options.alignment = **alignment;
  }
  options.outputs_in_arena = args.flag("outputs");
  auto choice = schedule_choice(args, "sequential", args.flag("graph"));
  if (!choice) return usage_error("plan", choice.error().message);

  auto model = load_model(args);
  if (!model) return report("plan", model.error());
  // Merges (--merge, or recorded in a loaded schedule): the plan is the merged model's, whose
  // merged nodes write all their members' outputs at once.
  std::optional<core::BudgetFit> fit;
  auto obtained = obtain_merged_schedule("plan", *choice, *model, &fit, planner, options);
  if (!obtained) return report("plan", obtained.error());
  const core::Graph& graph = obtained->graph(*model->graph);
  const core::Schedule& schedule = obtained->schedule;
  if (obtained->merged && !args.flag("json"))
    std::cout << core::transformed_word(graph) << ": " << model->graph->node_count() << " -> " << graph.node_count() << " operators\n";
  if (auto repair = args.value("repair")) return plan_repair(args, *repair, graph, schedule, options);

  // The memory report: every planner (or --planner alone), the smallest arena, the reference
  // schedule planned the same way, bounds; every plan re-checked against the schedule.
  core::MemoryReportOptions report_options;
  report_options.planner = planner;
  report_options.plan = options;
  report_options.verify = true;
  auto memory = core::memory_report(graph, schedule, report_options);
  if (!memory) return report("plan", memory.error());
  const core::MemoryReport& m = *memory;
  const core::MemoryPlan& chosen = m.plan;

  nlohmann::json per_planner = nlohmann::json::array();
  for (const core::PlannerArena& a : m.planners)
    per_planner.push_back({{"planner", a.planner}, {"arena_bytes", a.arena_bytes}, {"ratio", ratio(a.arena_bytes, m.bound.bytes)}});
  if (args.flag("json")) {
    nlohmann::json j = plan_json(graph, schedule, chosen);
    j.update({{"lower_bound_bytes", m.bound.bytes},
              {"lower_bound_exact", m.bound.exact},
              {"linear_lower_bound_bytes", m.linear_bound_bytes},
              {"file_order_linear_lower_bound_bytes", m.file_order_linear_bound_bytes},
              {"sequential_arena_bytes", m.reference_arena_bytes()},
              {"no_reuse_bytes", m.no_reuse_bytes},
              {"ratio", ratio(chosen.arena_bytes, m.bound.bytes)},
              {"price_of_concurrency", m.price_of_concurrency()},
              {"planners", per_planner}});
    if (fit) j["memory_budget"] = budget_json(*fit);
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "schedule: " << schedule.strategy << ", " << schedule.stream_count() << " stream(s), " << m.planned_tensors
            << " planned tensors\n"
            << std::left << std::setw(20) << "planner" << std::right << std::setw(14) << "arena bytes" << std::setw(14)
            << "arena/bound\n";
  for (const core::PlannerArena& a : m.planners)
    std::cout << std::left << std::setw(20) << a.planner << std::right << std::setw(14) << a.arena_bytes << std::setw(13)
              << ratio_text(a.arena_bytes, m.bound.bytes) << "\n";
  std::cout << "concurrent lower bound " << m.bound.bytes << " bytes (" << m.bound.antichain.size() << " tensors live at once"
            << (m.bound.exact ? "" : "; busiest step of a linearisation, the exact flow is skipped past 250k tensors") << ")\n"
            << "linear lower bound     " << m.linear_bound_bytes << " bytes (memory-aware order; file order "
            << m.file_order_linear_bound_bytes << ")\n"
            << "sequential arena       " << m.reference_arena_bytes() << " bytes; price of concurrency (arena / sequential) "
            << core::fixed_text(m.price_of_concurrency(), 3) << "\n"
            << "no reuse               " << m.no_reuse_bytes << " bytes\n";
  if (m.plan.planner == "sweep" || m.plan.planner == "stream-sweep") {
    std::cout << "note: under this schedule too many tensor pairs may be live at once to list (more than "
              << m.options.max_conflict_pairs_per_block << " per planned\n      tensor once past " << core::kDenseFloorPairs
              << ", or more than " << m.options.max_conflict_pairs << "): the arena is ";
    if (schedule.stream_count() <= 1)
      std::cout << "the interval sweep's over\n      the exact live ranges of one stream\n";
    else if (m.plan.planner == "stream-sweep")
      std::cout << "the stream sweep's (first fit in\n      start order over the exact conflicts, read off each stream's dead-from frontiers); with fewer\n"
                   "      streams or more events the pairs can be listed and every planner runs\n";
    else
      std::cout << "the interval sweep's over\n      conservative live ranges (arena/bound says how close it is); with fewer streams or more events\n"
                   "      the pairs can be listed and every planner runs\n";
  }
  if (fit) std::cout << budget_line(*fit) << "\n";
  return 0;
}

}  // namespace weft::cli
