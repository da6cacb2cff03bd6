#include <cstdio>
#include <iostream>

#include "cli.h"
#include "weft/core/file_io.h"

namespace weft::cli {

core::Expected<core::DeviceSpec> load_device_option(const Args& args) {
  const std::string name = args.value("device").value_or(std::string(core::default_device_name()));
  // An unknown name is the option's fault (usage); a broken preset file is invalid input.
  if (auto known = core::check_device_name(name); !known) return as_usage(known.error());
  return core::load_device(name);
}

core::Error as_usage(core::Error error) {
  if (error.kind == core::ErrorKind::InvalidInput) error.kind = core::ErrorKind::Usage;
  return error;
}

core::Expected<LoadedModel> load_model(const Args& args) {
  if (args.positional().empty()) return core::make_error(core::ErrorKind::Usage, "missing MODEL (an .onnx file)");
  core::ImportOptions options;
  options.fold = !args.flag("no-fold");
  for (const std::string& d : args.values("dim")) {
    const auto eq = d.find('=');
    if (eq == std::string::npos || eq == 0)
      return core::make_error(core::ErrorKind::Usage, "--dim needs NAME=VALUE, got '" + d + "'");
    try {
      std::size_t used = 0;
      const long long v = std::stoll(d.substr(eq + 1), &used);
      if (used != d.size() - eq - 1 || v <= 0) throw std::invalid_argument(d);
      options.dims[d.substr(0, eq)] = v;
    } catch (const std::exception&) {
      return core::make_error(core::ErrorKind::Usage, "--dim " + d + ": the value must be a positive integer");
    }
  }
  WEFT_TRY_ASSIGN(auto device, load_device_option(args));
  // The model file is the command's input: missing or unreadable is invalid input (exit 2), in
  // every command, not an environment failure.
  const std::string& path = args.positional()[0];
  auto bytes = core::read_file(path);
  if (!bytes) return core::make_error(core::ErrorKind::InvalidInput, bytes.error().message);
  WEFT_TRY_ASSIGN(auto graph, core::import_onnx_bytes(*bytes, path, options));
  for (const std::string& u : graph.info().unresolved_dims)
    std::cerr << "weft: warning: unresolved dimension " << u
              << " (bind it with --dim NAME=VALUE, or --dim INPUT:AXIS=VALUE for an unnamed one)\n";
  LoadedModel m{std::move(graph), std::move(device), {}};
  m.costs = core::estimate_costs(m.graph, m.device);
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
