// The schedule options shared by every command that takes or makes a schedule.
#include <algorithm>
#include <iostream>
#include <limits>

#include "cli.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/study/schedule_study.h"

namespace weft::cli {

namespace {

core::Error usage(std::string message) { return core::Error{core::ErrorKind::Usage, std::move(message)}; }

core::BudgetOptions budget_options(const ScheduleChoice& choice, std::string_view planner, const core::PlanOptions& plan) {
  core::BudgetOptions budget;
  budget.budget_bytes = choice.memory_budget;
  budget.mode = core::launch_mode_of(choice.options);
  budget.planner = std::string(planner);
  budget.plan = plan;
  return budget;
}

}  // namespace

core::Expected<ScheduleChoice> schedule_choice(const Args& args, std::string_view default_strategy, bool cuda_graph) {
  ScheduleChoice choice;
  choice.file = args.value("schedule");
  const auto strategy = args.value("strategy");
  if (choice.file && strategy) return usage("give --schedule FILE or --strategy S, not both");
  core::StrategyRequest request;
  WEFT_TRY_ASSIGN(request.max_streams, args.int_value("streams"));
  WEFT_TRY_ASSIGN(request.granularity_us, args.double_value("granularity"));
  if (choice.file && (request.max_streams || request.granularity_us))
    return usage("--streams and --granularity shape a --strategy; they do not apply to a loaded --schedule");
  WEFT_TRY_ASSIGN(request.search_budget_ms, args.double_value("budget-ms"));
  WEFT_TRY_ASSIGN(request.search_evaluations, args.int_value("search-evals"));
  WEFT_TRY_ASSIGN(request.seed, args.int_value("search-seed"));
  if (choice.file && (request.search_budget_ms || request.search_evaluations || request.seed))
    return usage("--budget-ms, --search-evals and --search-seed shape --strategy search, not a loaded --schedule");
  request.cuda_graph = cuda_graph;
  // The ranges are core's to check (one set of checks with Python's); reported as usage errors.
  auto options = core::strategy_options_for(request);
  if (!options) return as_usage(options.error());
  choice.options = std::move(*options);
  if (const auto memory_budget = args.value("memory-budget")) {
    auto bytes = core::parse_byte_size(*memory_budget);
    if (!bytes) return usage("--memory-budget: " + bytes.error().message);
    choice.memory_budget = *bytes;
  }
  choice.strategy = strategy ? *strategy : std::string(default_strategy);
  if (auto ok = core::check_strategy(choice.strategy, choice.options); !ok) return as_usage(ok.error());
  return choice;
}

core::Expected<core::Schedule> obtain_schedule(std::string_view command, const ScheduleChoice& choice,
                                              const core::Graph& graph, const core::CostTable& costs,
                                              const core::DeviceSpec& device, std::optional<core::BudgetFit>* fit,
                                              std::string_view planner, const core::PlanOptions& plan) {
  core::Schedule made;
  if (choice.file) {
    WEFT_TRY_ASSIGN(made, core::load_schedule(*choice.file, graph));
    return fit_schedule(choice, graph, costs, device, std::move(made), fit, planner, plan);
  }
  WEFT_TRY_ASSIGN(made, core::make_schedule(choice.strategy, graph, costs, device, choice.options));
  for (const std::string& w : core::schedule_warnings(made, choice.options, device))
    std::cerr << "weft " << command << ": warning: " << w << "\n";
  if (choice.memory_budget <= 0) return made;
  // A strategy's schedule is fitted as the studio fits it: also made again on fewer streams.
  WEFT_TRY_ASSIGN(core::BudgetFit fitted, core::fit_strategy_schedule(choice.strategy, graph, costs, device, choice.options,
                                                                      std::move(made), budget_options(choice, planner, plan)));
  made = fitted.schedule;
  if (fit) *fit = std::move(fitted);
  return made;
}

core::Expected<core::Schedule> fit_schedule(const ScheduleChoice& choice, const core::Graph& graph, const core::CostTable& costs,
                                           const core::DeviceSpec& device, core::Schedule made,
                                           std::optional<core::BudgetFit>* fit, std::string_view planner,
                                           const core::PlanOptions& plan) {
  if (choice.memory_budget <= 0) return made;
  WEFT_TRY_ASSIGN(core::BudgetFit fitted,
                  core::fit_memory_budget(graph, costs, device, std::move(made), budget_options(choice, planner, plan)));
  made = fitted.schedule;
  if (fit) *fit = std::move(fitted);
  return made;
}

std::string budget_line(const core::BudgetFit& fit) { return "memory budget: " + fit.summary(); }

nlohmann::ordered_json budget_json(const core::BudgetFit& fit) {
  nlohmann::ordered_json j;
  j["budget_bytes"] = fit.budget_bytes;
  j["arena_bytes"] = fit.plan.arena_bytes;
  j["original_arena_bytes"] = fit.original_arena_bytes;
  j["original_us"] = fit.original_us;
  j["fitted_us"] = fit.fitted_us;
  j["cost_us"] = fit.cost_us();
  j["serialised_pairs"] = fit.serialised_pairs;
  j["ordering_events"] = fit.ordering_events;
  j["merged_streams"] = fit.merged_streams;
  j["sequential"] = fit.sequential;
  j["stream_cap"] = fit.stream_cap;
  j["summary"] = fit.summary();
  return j;
}

core::Expected<ObtainedSchedule> obtain_merged_schedule(std::string_view command, const ScheduleChoice& choice, const LoadedModel& model,
                                                        std::optional<core::BudgetFit>* fit, std::string_view planner,
                                                        const core::PlanOptions& plan, const core::CostTable* costs,
                                                        const core::DeviceSpec* device) {
  ObtainedSchedule out;
  out.merged = model.merged.get();
  const core::CostTable& c = costs ? *costs : model.scheduled_costs();
  const core::DeviceSpec& d = device ? *device : model.device;
  if (model.schedule) {
    WEFT_TRY_ASSIGN(out.schedule, fit_schedule(choice, model.scheduled_graph(), c, d, *model.schedule, fit, planner, plan));
    return out;
  }
  WEFT_TRY_ASSIGN(out.schedule, obtain_schedule(command, choice, model.scheduled_graph(), c, d, fit, planner, plan));
  return out;
}

}  // namespace weft::cli
