#pragma once
// Shared pieces of the `weft` commands: argument parsing, model loading, error reporting.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/base/expected.h"
#include "weft/core/graph/graph.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/memory_budget.h"
#include "weft/core/graph/fused_node.h"
#include "weft/core/study/merge_study.h"
#include "weft/core/transform/vertical_fusion.h"
#include "weft/core/study/open_model.h"
#include "weft/core/study/split_study.h"
#include "weft/core/exec/tensor_files.h"

#include <nlohmann/json.hpp>

namespace weft::cli {

/// Command-line arguments after the command name. Options are `--name value`, `--name=value`
/// or flags; every option a command reads must be declared, anything else is a usage error.
class Args {
 public:
  Args(std::vector<std::string> argv) : m_argv(std::move(argv)) {}  // NOLINT(implicit)
  /// Declares the options this command knows: names with a trailing '=' take a value
  /// (e.g. "strategy="), names without are flags; repeatable ones are read with values().
  /// Returns an error (Usage) for unknown options or missing values.
  /// With model_options, the model options (--dim, --no-fold, --device) are known too.
  core::Status parse(std::initializer_list<std::string_view> known, bool model_options = false);
  const std::vector<std::string>& positional() const { return m_positional; }
  /// Removes `flag` and every argument after it, and returns those arguments (empty when the flag
  /// is absent): for `--external PROGRAM ARGS...`, whose arguments belong to the program. Call
  /// before parse().
  std::optional<std::vector<std::string>> take_after(std::string_view flag);
  bool flag(std::string_view name) const;
  std::optional<std::string> value(std::string_view name) const;
  std::vector<std::string> values(std::string_view name) const;
  /// Integer option; usage error when not a number.
  core::Expected<std::optional<std::int64_t>> int_value(std::string_view name) const;
  core::Expected<std::optional<double>> double_value(std::string_view name) const;

 private:
  std::vector<std::string> m_argv;
  std::vector<std::string> m_positional;
  std::multimap<std::string, std::string, std::less<>> m_values;
};

/// A model opened for a command (core::open_model): as imported and split, merged where --merge
/// or a schedule file says, with the schedule file's schedule.
using LoadedModel = core::OpenedModel;

/// The import options given by the model options (--dim NAME=VALUE, --no-fold); usage errors.
core::Expected<core::ImportOptions> import_options(const Args& args);
/// Loads positional()[0] as an ONNX model with the model options; reports unresolved dims on stderr.
/// --split predicts in the mode --graph gives (eager without it); `weft analyze`, which has no
/// --graph, predicts in its advice's baseline mode instead (CUDA Graph on a GPU, eager on a CPU).
enum class SplitMode { GraphFlag, AdviceBaseline };
/// `schedule_file`: the schedule the command reads when it is not --schedule's (weft validate's
/// second argument); the split and merges it records are applied as --schedule's are, and the
/// schedule is LoadedModel::schedule. --merge merges the model (core::merge_model) where no
/// schedule file is given. `given_inputs` (weft run --inputs, --test-data) bind the dims --dim
/// leaves unbound. Import warnings, the dims left unbound, the split and what opening did are said
/// on stderr. `profile_file`: the measured profile the command reads when it is not --profile's
/// (weft profile's second argument); its measured times replace the predictions (core::open_model)
/// and one line on stderr says where they come from and the replay error.
/// A fused model's fusion for reports: "fused         94 chains of 188 operators (Conv+Relu 94); 313 -> 219 nodes"
/// and its JSON ({"chains", "operators", "labels": {label: count}, "nodes_before", "nodes_after"}).
std::string fusion_text(const LoadedModel& model);
nlohmann::ordered_json fusion_json(const LoadedModel& model);

core::Expected<LoadedModel> load_model(const Args& args, SplitMode split_mode = SplitMode::GraphFlag,
                                       const std::optional<std::string>& schedule_file = std::nullopt,
                                       const core::TensorFiles* given_inputs = nullptr,
                                       const std::optional<std::string>& profile_file = std::nullopt);
/// The same error as a usage error when it is InvalidInput: core never returns Usage, but a bad
/// name given on the command line (strategy, planner, device, stream cap) is the option's fault.
core::Error as_usage(core::Error error);
/// Loads only the device preset named by --device (default preset otherwise); an unknown name
/// is a usage error.
core::Expected<core::DeviceSpec> load_device_option(const Args& args);

/// How a command gets its schedule: `--schedule FILE`, or `--strategy S` (the command's default
/// when absent) shaped by `--streams N` and `--granularity US`. Commands declare "schedule=",
/// "strategy=", "streams=" and "granularity=" in parse().
struct ScheduleChoice {
  std::optional<std::string> file;
  std::string strategy;
  core::StrategyOptions options;
  /// `--memory-budget BYTES` (suffixes B, KB, MB, GB, KiB, MiB, GiB); 0: none. Commands that
  /// accept it declare "memory-budget=" in parse().
  std::int64_t memory_budget = 0;
};
/// Checks the schedule options (usage errors name the option: both sources given, an unknown
/// strategy, a cap outside 1..1024, a negative granularity, strategy options with a file, a
/// memory budget that is not a positive byte count).
/// `cuda_graph`: the schedule will be replayed as a CUDA Graph (automatic granularity 0).
core::Expected<ScheduleChoice> schedule_choice(const Args& args, std::string_view default_strategy, bool cuda_graph = false);
/// Loads the file or runs the strategy on the model's costs; strategy warnings go to stderr
/// as "weft <command>: warning: ...". With a memory budget the schedule is then fitted to it
/// (core::fit_memory_budget, judged by `planner` and `plan`, the command's own planning) and the
/// fit goes to `fit` when given; a budget below the sequential order's arena is InvalidInput.
core::Expected<core::Schedule> obtain_schedule(std::string_view command, const ScheduleChoice& choice,
                                              const core::Graph& graph, const core::CostTable& costs,
                                              const core::DeviceSpec& device, std::optional<core::BudgetFit>* fit = nullptr,
                                              std::string_view planner = core::kReferencePlanner,
                                              const core::PlanOptions& plan = core::reference_plan_options());
/// The fit's summary as one line ("memory budget: ...") and as a JSON object (budget_bytes,
/// arena_bytes, original_arena_bytes, original_us, fitted_us, cost_us, serialised_pairs,
/// ordering_events, merged_streams, sequential, stream_cap, summary).
std::string budget_line(const core::BudgetFit& fit);
nlohmann::ordered_json budget_json(const core::BudgetFit& fit);

/// A schedule and, when it runs merged operators, the merged model it is a schedule of.
struct ObtainedSchedule {
  const core::MergedModel* merged = nullptr;  ///< the model's merge (LoadedModel::merged), when merged
  core::Schedule schedule;
  const core::Graph& graph(const core::Graph& unmerged) const { return merged ? merged->graph : unmerged; }
  const core::CostTable& costs(const core::CostTable& unmerged) const { return merged ? merged->costs : unmerged; }
};
/// The model's schedule: the schedule file's (LoadedModel::schedule, on the model as its split and
/// merges made it), else the strategy's schedule of the model (merged where --merge merged it).
/// `costs` and `device` replace the model's for the strategy (weft run --backend cpu schedules for
/// the calibrated CPU). A memory budget fits the schedule of the graph it runs on.
core::Expected<ObtainedSchedule> obtain_merged_schedule(std::string_view command, const ScheduleChoice& choice, const LoadedModel& model,
                                                        std::optional<core::BudgetFit>* fit = nullptr,
                                                        std::string_view planner = core::kReferencePlanner,
                                                        const core::PlanOptions& plan = core::reference_plan_options(),
                                                        const core::CostTable* costs = nullptr, const core::DeviceSpec* device = nullptr);
/// The memory-budget step of obtain_schedule alone: `made` unchanged without a budget, else
/// fitted (core::fit_memory_budget), the fit going to `fit` when given.
core::Expected<core::Schedule> fit_schedule(const ScheduleChoice& choice, const core::Graph& graph, const core::CostTable& costs,
                                           const core::DeviceSpec& device, core::Schedule made,
                                           std::optional<core::BudgetFit>* fit = nullptr,
                                           std::string_view planner = core::kReferencePlanner,
                                           const core::PlanOptions& plan = core::reference_plan_options());

/// Prints "weft <command>: error: <message>" to stderr and returns the error's exit code.
int report(std::string_view command, const core::Error& error);
int usage_error(std::string_view command, std::string_view message);

/// --threads-per-stream T of a CPU command: 1 when absent; errors (the message for usage_error)
/// for a value that is not a whole number or that core::check_threads_per_stream refuses.
core::Expected<int> cpu_threads_option(const Args& args, std::string_view command);

int cmd_analyze(Args& args);
int cmd_advise(Args& args);
int cmd_schedule(Args& args);
int cmd_validate(Args& args);
int cmd_plan(Args& args);
int cmd_simulate(Args& args);
int cmd_run(Args& args);
int cmd_devices(Args& args);
int cmd_layers(Args& args);
int cmd_calibrate(Args& args);
int cmd_sweep(Args& args);
int cmd_frontier(Args& args);
int cmd_profile(Args& args);

}  // namespace weft::cli
