#include <cstdio>
#include <iostream>

#include "cli.h"
#include "weft/core/dim_binding.h"
#include "weft/core/file_io.h"
#include "weft/core/micro_batch.h"
#include "weft/core/schedule_json.h"
#include "weft/core/study/schedule_study.h"
#include "weft/core/study/split_study.h"

namespace weft::cli {

core::Expected<core::DeviceSpec> load_device_option(const Args& args) {
  const std::string name = args.value("device").value_or(std::string(core::default_device_name()));
  // A device file (e.g. from `weft calibrate`): its problems are the input's (exit 2).
  if (core::is_device_file(name)) return core::load_device_file(name);
  // An unknown name is the option's fault (usage); a broken preset file is invalid input.
  if (auto known = core::check_device_name(name); !known) return as_usage(known.error());
  return core::load_device(name);
}

core::Error as_usage(core::Error error) {
  if (error.kind == core::ErrorKind::InvalidInput) error.kind = core::ErrorKind::Usage;
  return error;
}

core::Expected<core::ImportOptions> import_options(const Args& args) {
  core::ImportOptions options;
  options.fold = !args.flag("no-fold");
  for (const std::string& d : args.values("dim")) {
    // A bad binding is the option's fault (usage), though core reports it as invalid input.
    auto binding = core::parse_dim_binding(d);
    if (!binding) return as_usage(binding.error());
    options.dims[binding->first] = binding->second;
  }
  WEFT_TRY_ASSIGN(const auto batch, args.int_value("batch"));
  if (batch) {
    if (*batch <= 0) return core::make_error(core::ErrorKind::Usage, "--batch must be a positive integer");
    options.batch = *batch;
  }
  return options;
}

namespace {

// The split the schedule file the command reads records (k > 1), when --split does not say one:
// a saved split schedule reloads onto the model split the same way. None where the file cannot be
// read or parsed: the schedule loader reports that.
std::optional<core::ScheduleSplit> recorded_split(const Args& args, const std::optional<std::string>& schedule_file) {
  const auto file = schedule_file ? schedule_file : args.value("schedule");
  if (!file || args.value("split")) return std::nullopt;
  auto text = core::read_file(*file, core::kMaxTextBytes);
  if (!text) return std::nullopt;
  auto recorded = core::schedule_split_from_json(*text);
  if (!recorded || recorded->k <= 1) return std::nullopt;
  return *recorded;
}

// --split K|auto, or the split the schedule file records: the model split into micro-batches
// (core::choose_split), told on stderr with its prediction against the unsplit sequential run.
core::Status apply_split(const Args& args, SplitMode split_mode, const std::optional<core::ScheduleSplit>& recorded, LoadedModel& m) {
  int k = -1;  // -1: no split; 0: auto
  if (auto split = args.value("split")) {
    auto parsed = core::parse_split(*split);
    if (!parsed) return as_usage(parsed.error());
    k = *parsed;
  } else if (recorded) {
    k = recorded->k;
  }
  if (k < 0) return {};
  if (k == 0 && !core::can_simulate(m.device))
    return core::make_error(core::ErrorKind::Usage, "--split auto predicts on the device; '" + m.device.name + "' has no rates");
  core::SplitOptions options;
  options.k = k;
  const bool graph = split_mode == SplitMode::AdviceBaseline ? m.device.kind != core::DeviceKind::Cpu : args.flag("graph");
  options.mode = graph ? core::LaunchMode::Graph : core::LaunchMode::Eager;
  WEFT_TRY_ASSIGN(auto split, core::apply_split(m.graph, m.device, options));
  if (core::can_simulate(m.device)) std::cerr << "weft: " << split.summary << "\n";
  m.graph = std::move(split.graph);
  m.costs = std::move(split.costs);
  m.unsplit = split.unsplit;
  return {};
}

}  // namespace

core::Expected<LoadedModel> load_model(const Args& args, SplitMode split_mode, const std::optional<std::string>& schedule_file,
                                       const std::map<std::string, std::int64_t>& dims) {
  if (args.positional().empty()) return core::make_error(core::ErrorKind::Usage, "missing MODEL (an .onnx file)");
  WEFT_TRY_ASSIGN(auto options, import_options(args));
  options.dims.insert(dims.begin(), dims.end());
  WEFT_TRY_ASSIGN(auto device, load_device_option(args));
  // The model file is the command's input: missing or unreadable is invalid input (exit 2), in
  // every command, not an environment failure.
  const std::string& path = args.positional()[0];
  auto bytes = core::read_file(path);
  if (!bytes) return core::make_error(core::ErrorKind::InvalidInput, bytes.error().message);
  WEFT_TRY_ASSIGN(auto graph, core::import_onnx_bytes(*bytes, path, options));
  // What the import had to assume or could not do (an option that matched nothing, inference that
  // stopped early, a re-batched model that keeps its batch): said once, on stderr.
  for (const std::string& w : graph.info().warnings) std::cerr << "weft: warning: " << w << "\n";
  for (const std::string& u : graph.info().unresolved_dims)
    std::cerr << "weft: warning: unresolved dimension " << u
              << " (bind it with --dim NAME=VALUE, or --dim INPUT:AXIS=VALUE for an unnamed one)\n";
  // A schedule that records a split of batch B re-batches a model of another batch (a static-batch
  // export), as --batch B would: the studio and Python open such a file the same way.
  const std::optional<core::ScheduleSplit> recorded = recorded_split(args, schedule_file);
  if (recorded && recorded->batch > 0 && options.batch == 0 && core::graph_batch(graph) != recorded->batch) {
    options.batch = recorded->batch;
    std::cerr << "weft: re-batched to " << recorded->batch << ", the batch " << (schedule_file ? *schedule_file : *args.value("schedule"))
              << " splits\n";
    WEFT_TRY_ASSIGN(graph, core::import_onnx_bytes(*bytes, path, options));
  }
  LoadedModel m{std::move(graph), std::move(device), {}, std::nullopt};
  m.costs = core::estimate_costs(m.graph, m.device);
  WEFT_TRY(apply_split(args, split_mode, recorded, m));
  return m;
}

int report(std::string_view command, const core::Error& error) {
  if (error.kind == core::ErrorKind::Usage) return usage_error(command, error.message);
  std::cerr << "weft " << command << ": error: " << error.message << "\n";
  return core::exit_code(error.kind);
}

int usage_error(std::string_view command, std::string_view message) {
  std::cerr << "weft " << command << ": error: " << message << "\n"
            << "run 'weft help' for usage\n";
  return core::exit_code(core::ErrorKind::Usage);
}

}  // namespace weft::cli
