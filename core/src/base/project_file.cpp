#include "weft/core/base/project_file.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "weft/core/base/file_io.h"

namespace weft::core {
namespace {

namespace fs = std::filesystem;

constexpr const char* kProjectFormat = "weft-project";
constexpr int kProjectVersion = 1;

}  // namespace

Expected<ProjectFile> parse_project(std::string_view text, const std::string& project_path) {
  const std::string where = project_path + ": ";
  auto refuse = [&](const std::string& what) { return make_error(ErrorKind::InvalidInput, where + what); };
  nlohmann::ordered_json root;
  try {
    root = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return refuse(std::string("not a JSON object (") + e.what() + ")");
  }
  if (!root.is_object()) return refuse("not a JSON object (the top level is a " + std::string(root.type_name()) + ")");
  auto format = root.find("format");
  if (format == root.end() || !format->is_string() || format->get<std::string>() != kProjectFormat)
    return refuse(std::string("'format' is not ") + kProjectFormat);
  auto version = root.find("version");
  if (version == root.end() || !version->is_number_integer() || version->get<std::int64_t>() != kProjectVersion)
    return refuse("unsupported version " + (version == root.end() ? std::string("(none)") : version->dump()) +
                  " (this weft reads version " + std::to_string(kProjectVersion) + ")");

  ProjectFile p;
  auto string_of = [&](const nlohmann::ordered_json& obj, const char* key, std::string& out) -> Status {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return {};
    if (!it->is_string()) return refuse(std::string("'") + key + "' must be a string");
    out = it->get<std::string>();
    return {};
  };
  std::string model, relative;
  WEFT_TRY(string_of(root, "model", model));
  WEFT_TRY(string_of(root, "model_relative", relative));
  p.model_path = model;
  std::error_code ec;
  if (!relative.empty()) {
    const fs::path folder = fs::absolute(fs::path(project_path), ec).parent_path();
    const fs::path resolved = (folder / relative).lexically_normal();
    // A moved project (or one made elsewhere) finds its model beside it.
    if ((model.empty() || !fs::exists(model, ec)) && fs::exists(resolved, ec)) p.model_path = resolved.string();
  }
  if (p.model_path.empty()) return refuse("no model path ('model' and 'model_relative' are empty or absent)");

  auto schedule = root.find("schedule");
  if (schedule == root.end() || !schedule->is_object()) return refuse("no schedule (an object under 'schedule')");
  p.schedule_json = schedule->dump();

  if (auto settings = root.find("settings"); settings != root.end() && !settings->is_null()) {
    if (!settings->is_object()) return refuse("'settings' must be an object");
    const auto& s = *settings;
    WEFT_TRY(string_of(s, "strategy", p.strategy));
    WEFT_TRY(string_of(s, "lane_widths", p.lane_widths));
    if (auto it = s.find("max_streams"); it != s.end()) {
      if (!it->is_number_integer() || it->get<std::int64_t>() < 1 || it->get<std::int64_t>() > 1024)
        return refuse("'max_streams' must be an integer from 1 to 1024");
      p.max_streams = static_cast<int>(it->get<std::int64_t>());
    }
    if (auto it = s.find("granularity_us"); it != s.end()) {
      if (!it->is_number()) return refuse("'granularity_us' must be a number");
      p.granularity_us = it->get<double>();
    }
    if (auto it = s.find("cuda_graph"); it != s.end()) {
      if (!it->is_boolean()) return refuse("'cuda_graph' must be true or false");
      p.cuda_graph = it->get<bool>();
    }
    if (auto it = s.find("merge"); it != s.end()) {
      if (!it->is_boolean()) return refuse("'merge' must be true or false");
      p.merge = it->get<bool>();
    }
    if (auto it = s.find("batch"); it != s.end()) {
      if (!it->is_number_integer() || it->get<std::int64_t>() < 0 || it->get<std::int64_t>() > (std::int64_t{1} << 31))
        return refuse("'batch' must be a non-negative integer (0: the model's own)");
      p.batch = it->get<std::int64_t>();
    }
    if (auto it = s.find("split"); it != s.end()) {
      if (!it->is_number_integer() || it->get<std::int64_t>() < 0 || it->get<std::int64_t>() > 4096)
        return refuse("'split' must be an integer from 0 (not split) to 4096");
      p.split = static_cast<int>(it->get<std::int64_t>());
    }
    if (auto it = s.find("dims"); it != s.end() && !it->is_null()) {
      if (!it->is_object()) return refuse("'dims' must be an object of NAME: VALUE");
      for (const auto& [name, value] : it->items()) {
        if (name.empty() || !value.is_number_integer() || value.get<std::int64_t>() <= 0)
          return refuse("'dims': '" + name + "' must be bound to a positive integer");
        p.dims[name] = value.get<std::int64_t>();
      }
    }
  }
  return p;
}

Expected<ProjectFile> load_project_file(const std::string& path) {
  WEFT_TRY_ASSIGN(auto text, read_file(path, kMaxTextBytes));
  return parse_project(text, path);
}

Expected<std::string> project_to_json(const ProjectFile& project, const std::string& project_path) {
  std::error_code ec;
  const fs::path model = fs::absolute(fs::path(project.model_path), ec).lexically_normal();
  const fs::path folder = fs::absolute(fs::path(project_path), ec).parent_path().lexically_normal();
  nlohmann::ordered_json root;
  root["format"] = kProjectFormat;
  root["version"] = kProjectVersion;
  root["model"] = model.string();
  root["model_relative"] = model.lexically_relative(folder).string();
  nlohmann::ordered_json schedule;
  try {
    schedule = nlohmann::ordered_json::parse(project.schedule_json);
  } catch (const nlohmann::json::exception& e) {
    return make_error(ErrorKind::Internal, project_path + ": the schedule JSON did not parse: " + e.what());
  }
  root["schedule"] = std::move(schedule);
  root["settings"] = {{"strategy", project.strategy},
                      {"max_streams", project.max_streams},
                      {"granularity_us", project.granularity_us},
                      {"cuda_graph", project.cuda_graph},
                      {"lane_widths", project.lane_widths},
                      {"merge", project.merge}};
  if (project.batch > 0) root["settings"]["batch"] = project.batch;
  if (project.split > 1) root["settings"]["split"] = project.split;
  if (!project.dims.empty()) {
    nlohmann::ordered_json dims = nlohmann::ordered_json::object();
    for (const auto& [name, value] : project.dims) dims[name] = value;
    root["settings"]["dims"] = std::move(dims);
  }
  return root.dump(4) + "\n";
}

}  // namespace weft::core
