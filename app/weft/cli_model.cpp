#include <cstdio>
#include <iostream>

#include "cli.h"
#include "weft/core/onnx/dim_binding.h"
#include "weft/core/base/file_io.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/base/text_format.h"
#include "weft/core/study/schedule_study.h"
#include "weft/core/study/split_study.h"
#include "weft/core/transform/vertical_fusion.h"

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

core::Expected<LoadedModel> load_model(const Args& args, SplitMode split_mode, const std::optional<std::string>& schedule_file,
                                       const core::TensorFiles* given_inputs, const std::optional<std::string>& profile_file) {
  if (args.positional().empty()) return core::make_error(core::ErrorKind::Usage, "missing MODEL (an .onnx file)");
  core::OpenRequest request;
  request.path = args.positional()[0];
  WEFT_TRY_ASSIGN(request.import, import_options(args));
  // An unknown preset name is the option's fault (usage); a broken device file, the input's.
  WEFT_TRY_ASSIGN(const core::DeviceSpec device, load_device_option(args));
  request.device = args.value("device").value_or(std::string());
  if (auto split = args.value("split")) {
    auto parsed = core::parse_split(*split);
    if (!parsed) return as_usage(parsed.error());
    request.split = *parsed;
  }
  // --split predicts in the mode --graph gives; `weft analyze` in its advice's baseline mode.
  const bool graph = split_mode == SplitMode::AdviceBaseline ? device.kind != core::DeviceKind::Cpu : args.flag("graph");
  request.split_mode = graph ? core::LaunchMode::Graph : core::LaunchMode::Eager;
  // The schedule file, read once; the split and merges it records open the model as they say.
  const auto file = schedule_file ? schedule_file : args.value("schedule");
  if (file) request.schedule_file = *file;
  request.merge = args.flag("merge") && !file;
  request.fuse = args.flag("fuse") && !file;
  request.given_inputs = given_inputs;
  request.profile = profile_file ? *profile_file : args.value("profile").value_or(std::string());
  if (request.split == 0 && !core::can_simulate(device))
    return core::make_error(core::ErrorKind::Usage, "--split auto predicts on the device; '" + device.name + "' has no rates");
  WEFT_TRY_ASSIGN(auto m, core::open_model(request));
  // What the import had to assume or could not do (an option that matched nothing, inference that
  // stopped early, a re-batched model that keeps its batch), and what opening did: said once, on stderr.
  for (const std::string& w : m.graph->info().warnings) std::cerr << "weft: warning: " << w << "\n";
  for (const std::string& u : m.graph->info().unresolved_dims)
    std::cerr << "weft: warning: unresolved dimension " << u
              << " (bind it with --dim NAME=VALUE, or --dim INPUT:AXIS=VALUE for an unnamed one)\n";
  for (const std::string& n : m.notes) std::cerr << "weft: " << n << "\n";
  if (!m.split_summary.empty() && core::can_simulate(m.device)) std::cerr << "weft: " << m.split_summary << "\n";
  if (m.profile && !profile_file)
    std::cerr << "weft: measured times from " << m.profile->path << " (" << m.profile->source << ") for "
              << m.profile->matched_count() << " of " << m.graph->node_count() << " nodes; replay error "
              << (m.profile_replay->error >= 0 ? "+" : "") << core::fixed_text(100 * m.profile_replay->error, 1) << "%\n";
  if (args.flag("fuse") && file && !m.fused)
    return core::make_error(core::ErrorKind::Usage,
                            "--fuse: " + *file + " records no fusions (save a fused schedule with 'weft schedule --fuse -o FILE')");
  if (args.flag("merge") && file && !m.merged)
    return core::make_error(core::ErrorKind::Usage,
                            "--merge: " + *file + " records no merges (save a merged schedule with 'weft schedule --merge -o FILE')");
  return m;
}

std::string fusion_text(const LoadedModel& model) {
  return "fused         " + core::summarize_fusion(model.scheduled_graph()).text() + "; " + std::to_string(model.graph->node_count()) +
         " -> " + std::to_string(model.scheduled_graph().node_count()) + " nodes";
}

nlohmann::ordered_json fusion_json(const LoadedModel& model) {
  const core::FusionSummary s = core::summarize_fusion(model.scheduled_graph());
  nlohmann::ordered_json labels = nlohmann::ordered_json::object();
  for (const auto& [label, count] : s.labels) labels[label] = count;
  return {{"chains", s.chains}, {"operators", s.operators}, {"labels", std::move(labels)},
          {"nodes_before", model.graph->node_count()}, {"nodes_after", model.scheduled_graph().node_count()}};
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
