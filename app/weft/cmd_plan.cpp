// weft plan: memory plans for a model's schedule (per planner arena, bounds, price of
// concurrency) or for a raw MiniMalloc interval instance.
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.h"
#include "weft/core/file_io.h"
#include "weft/core/memory_planner.h"
#include "weft/core/schedule_json.h"
#include "weft/core/strategies.h"

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
  for (const std::string& name : core::planner_names()) {
    if (!planner.empty() && name != planner) continue;
    auto placement = core::place_blocks(problem, name, options, bound);
    if (!placement) return report("plan", placement.error());
    if (auto ok = core::check_placement(problem, *placement); !ok) return report("plan", ok.error());
    per_planner.push_back({{"planner", name}, {"arena_bytes", placement->arena_bytes}, {"ratio", ratio(placement->arena_bytes, bound)}});
    if (!args.flag("json"))
      std::cout << std::left << std::setw(20) << name << std::right << std::setw(14) << placement->arena_bytes << "  "
                << ratio_text(placement->arena_bytes, bound) << "\n";
    if (!chosen || placement->arena_bytes < chosen->arena_bytes) chosen = std::move(*placement);
  }
  if (!chosen) return usage_error("plan", "unknown planner '" + planner + "'");
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

}  // namespace

int cmd_plan(Args& args) {
  if (auto ok = args.parse({"intervals=", "schedule=", "strategy=", "streams=", "granularity=", "graph", "planner=", "alignment=", "outputs",
                            "search-ms=", "search-steps=", "json"},
                           true);
      !ok)
    return usage_error("plan", ok.error().message);
  core::PlanOptions options;
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
  if (!planner.empty()) {
    const auto names = core::planner_names();
    if (std::find(names.begin(), names.end(), planner) == names.end()) {
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      return usage_error("plan", "unknown planner '" + planner + "' (known: " + known + ")");
    }
  }
  if (auto intervals = args.value("intervals")) {
    if (*alignment) return usage_error("plan", "--alignment does not apply to --intervals (sizes are taken as given)");
    // Raw instances: search harder (deterministic step budget, a generous wall-clock guard).
    if (!*search_steps) options.search_steps = 15'000'000;
    if (!*search_ms) options.search_ms = 10000;
    return plan_intervals(args, *intervals, options, planner);
  }
  if (*alignment) {
    if (**alignment <= 0) return usage_error("plan", "--alignment must be positive");
    options.alignment = **alignment;
  }
  options.outputs_in_arena = args.flag("outputs");
  auto choice = schedule_choice(args, "sequential", args.flag("graph"));
  if (!choice) return usage_error("plan", choice.error().message);

  auto model = load_model(args);
  if (!model) return report("plan", model.error());
  const core::Graph& graph = model->graph;

  // The schedule planned for, and the one-stream reference (memory-aware order).
  core::Schedule sequential{{core::memory_aware_order(graph)}, {}, "sequential", "memory-aware order"};
  auto obtained = obtain_schedule("plan", *choice, graph, model->costs, model->device);
  if (!obtained) return report("plan", obtained.error());
  const core::Schedule schedule = std::move(*obtained);

  auto live = core::compute_liveness(graph, schedule, options);
  if (!live) return report("plan", live.error());
  auto bound = core::concurrent_lower_bound(graph, schedule, options);
  if (!bound) return report("plan", bound.error());
  const std::int64_t file_linear = core::linear_lower_bound(graph, graph.topo_order(), options);
  const std::int64_t seq_linear = core::linear_lower_bound(graph, sequential.streams[0], options);
  const core::MemoryPlan no_reuse = core::plan_no_reuse(graph, options.alignment, options.outputs_in_arena);
  auto seq_plan = core::plan_memory(graph, sequential, "best", options);
  if (!seq_plan) return report("plan", seq_plan.error());

  nlohmann::json per_planner = nlohmann::json::array();
  std::optional<core::MemoryPlan> chosen;
  const bool json = args.flag("json");
  if (!json)
    std::cout << "schedule: " << schedule.strategy << ", " << schedule.stream_count() << " stream(s), " << live->tensors.size()
              << " planned tensors\n"
              << std::left << std::setw(20) << "planner" << std::right << std::setw(14) << "arena bytes" << std::setw(14)
              << "arena/bound\n";
  for (const std::string& name : core::planner_names()) {
    if (!planner.empty() && name != planner) continue;
    auto plan = core::plan_memory(graph, *live, name, options, bound->bytes);
    if (!plan) return report("plan", plan.error());
    if (auto ok = core::check_plan(graph, schedule, *plan); !ok)
      return report("plan", core::make_error(core::ErrorKind::Internal, "planner " + name + ": " + ok.error().message));
    per_planner.push_back({{"planner", name}, {"arena_bytes", plan->arena_bytes}, {"ratio", ratio(plan->arena_bytes, bound->bytes)}});
    if (!json)
      std::cout << std::left << std::setw(20) << name << std::right << std::setw(14) << plan->arena_bytes << std::setw(13)
                << ratio_text(plan->arena_bytes, bound->bytes) << "\n";
    if (!chosen || plan->arena_bytes < chosen->arena_bytes) chosen = std::move(*plan);
  }
  if (json) {
    nlohmann::json tensors = nlohmann::json::array();
    for (core::TensorId t : live->tensors) {
      const auto ut = static_cast<std::size_t>(t);
      tensors.push_back({{"name", graph.tensor(t).name}, {"offset", chosen->offset[ut]}, {"size", chosen->size[ut]}});
    }
    nlohmann::json j{{"model", graph.info().model_path},
                     {"strategy", schedule.strategy},
                     {"streams", schedule.stream_count()},
                     {"planner", chosen->planner},
                     {"alignment", options.alignment},
                     {"arena_bytes", chosen->arena_bytes},
                     {"lower_bound_bytes", bound->bytes},
                     {"lower_bound_exact", bound->exact},
                     {"linear_lower_bound_bytes", seq_linear},
                     {"file_order_linear_lower_bound_bytes", file_linear},
                     {"sequential_arena_bytes", seq_plan->arena_bytes},
                     {"no_reuse_bytes", no_reuse.arena_bytes},
                     {"ratio", ratio(chosen->arena_bytes, bound->bytes)},
                     {"price_of_concurrency", ratio(chosen->arena_bytes, seq_plan->arena_bytes)},
                     {"planners", per_planner},
                     {"tensors", tensors}};
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "concurrent lower bound " << bound->bytes << " bytes (" << bound->antichain.size() << " tensors live at once"
            << (bound->exact ? "" : "; busiest step of a linearisation, the exact flow is skipped past 250k tensors") << ")\n"
            << "linear lower bound     " << seq_linear << " bytes (memory-aware order; file order " << file_linear << ")\n"
            << "sequential arena       " << seq_plan->arena_bytes << " bytes; price of concurrency (arena / sequential) "
            << ratio_text(chosen->arena_bytes, seq_plan->arena_bytes) << "\n"
            << "no reuse               " << no_reuse.arena_bytes << " bytes\n";
  return 0;
}

}  // namespace weft::cli
