// Devices: presets (assets/devices/*.json) and device files, parsed, written and found by name.
#include "weft/core/cost/device.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "weft/core/base/file_io.h"

namespace weft::core {

namespace fs = std::filesystem;

namespace {

struct NumberKey {
  std::string_view key;
  double DeviceSpec::*field;  // nullptr: an integer field, set by name
  double scale;               // file unit -> DeviceSpec unit
  bool required;
};

Error preset_error(std::string_view origin, const std::string& what) {
  return make_error(ErrorKind::InvalidInput, std::string(origin) + ": " + what);
}

bool valid_preset_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
  }) && name.front() != '.';
}

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "(none)" : s;
}

}  // namespace

std::string_view device_kind_name(DeviceKind kind) { return kind == DeviceKind::Cpu ? "cpu" : "gpu"; }

Expected<DeviceSpec> parse_device(std::string_view json_text, std::string_view origin) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    return preset_error(origin, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) return preset_error(origin, "a device preset must be a JSON object");

  DeviceSpec d;
  if (j.contains("kind")) {
    if (!j["kind"].is_string() || (j["kind"] != "gpu" && j["kind"] != "cpu"))
      return preset_error(origin, "key 'kind' must be \"gpu\" or \"cpu\"");
    d.kind = j["kind"] == "cpu" ? DeviceKind::Cpu : DeviceKind::Gpu;
  }
  const bool cpu = d.kind == DeviceKind::Cpu;
  // A CPU device has cores instead of SMs, and no CUDA Graph or kernel floor of its own.
  static constexpr NumberKey kNumbers[] = {
      {"peak_fp32_tflops", &DeviceSpec::peak_fp32_flops, 1e12, true},
      {"peak_tf32_tflops", &DeviceSpec::peak_tf32_flops, 1e12, false},
      {"peak_fp16_tflops", &DeviceSpec::peak_fp16_flops, 1e12, false},
      {"memory_bandwidth_gb_s", &DeviceSpec::memory_bandwidth, 1e9, true},
      {"sm_count", nullptr, 1, true},
      {"cores", nullptr, 1, true},
      {"max_threads_per_sm", nullptr, 1, false},
      {"hardware_queues", nullptr, 1, false},
      {"launch_us", &DeviceSpec::launch_us, 1, true},
      {"graph_launch_per_node_us", &DeviceSpec::graph_launch_per_node_us, 1, true},
      {"event_record_us", &DeviceSpec::event_record_us, 1, true},
      {"event_wait_us", &DeviceSpec::event_wait_us, 1, true},
      {"kernel_min_us", &DeviceSpec::kernel_min_us, 1, true},
      {"concurrent_slowdown", &DeviceSpec::concurrent_slowdown, 1, false},
      {"concurrent_slowdown_memory", &DeviceSpec::concurrent_slowdown_memory, 1, false},
      {"cross_core_us_per_mib", &DeviceSpec::cross_core_us_per_mib, 1, false},
      {"cross_core_max_kib", &DeviceSpec::cross_core_max_bytes, 1024, false},
      {"threads_per_stream", nullptr, 1, false},
  };
  const auto applies = [&](std::string_view key) {
    if (key == "sm_count" || key == "graph_launch_per_node_us" || key == "max_threads_per_sm") return !cpu;
    if (key == "cores" || key == "concurrent_slowdown" || key == "concurrent_slowdown_memory" || key == "threads_per_stream" ||
        key == "teams" || key == "cross_core_us_per_mib" || key == "cross_core_max_kib")
      return cpu;
    return true;
  };
  const auto required = [&](const NumberKey& k) { return k.required && !(cpu && k.key == "kernel_min_us"); };

  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    if (key == "name" || key == "display_name" || key == "source" || key == "kind") {
      if (!it->is_string()) return preset_error(origin, "key '" + key + "' must be a string");
      continue;
    }
    if (key == "op_efficiency") {
      if (!it->is_object()) return preset_error(origin, "key 'op_efficiency' must be an object of operator families");
      for (auto e = it->begin(); e != it->end(); ++e) {
        if (!e->is_number() || !(e->get<double>() > 0))
          return preset_error(origin, "op_efficiency '" + e.key() + "' must be a positive number");
        d.op_efficiency[e.key()] = e->get<double>();
      }
      continue;
    }
    if (key == "teams") {
      if (!applies(key)) return preset_error(origin, "key 'teams' does not apply to a gpu device");
      if (!it->is_array()) return preset_error(origin, "key 'teams' must be an array");
      continue;
    }
    const auto known = std::find_if(std::begin(kNumbers), std::end(kNumbers),
                                    [&](const NumberKey& k) { return k.key == key; });
    if (known == std::end(kNumbers)) return preset_error(origin, "unknown key '" + key + "'");
    if (!applies(key))
      return preset_error(origin, "key '" + key + "' does not apply to a " + std::string(device_kind_name(d.kind)) + " device");
    if (!it->is_number()) return preset_error(origin, "key '" + key + "' must be a number");
  }
  if (!j.contains("name")) return preset_error(origin, "missing key 'name'");
  d.name = j["name"].get<std::string>();
  if (!valid_preset_name(d.name))
    return preset_error(origin, "name '" + d.name + "' must be lower-case letters, digits, '-', '_' or '.'");
  d.display_name = j.contains("display_name") ? j["display_name"].get<std::string>() : d.name;
  if (j.contains("source")) d.source = j["source"].get<std::string>();

  for (const NumberKey& k : kNumbers) {
    const std::string key(k.key);
    if (!applies(key)) continue;
    if (!j.contains(key)) {
      if (required(k)) return preset_error(origin, "missing key '" + key + "'");
      continue;
    }
    const double v = j[key].get<double>();
    const bool is_overhead = key.size() > 3 && key.compare(key.size() - 3, 3, "_us") == 0;
    if (!(v > 0) && !(is_overhead && v == 0))
      return preset_error(origin, "key '" + key + "' must be " + (is_overhead ? "non-negative" : "positive"));
    if (k.field == nullptr) {
      if (v != static_cast<double>(static_cast<int>(v)) || v > 1e6)
        return preset_error(origin, "key '" + key + "' must be a whole number");
      const int iv = static_cast<int>(v);
      if (key == "sm_count" || key == "cores") d.sm_count = iv;
      else if (key == "threads_per_stream") d.threads_per_stream = iv;
      else if (key == "max_threads_per_sm") d.max_threads_per_sm = iv;
      else d.hardware_queues = iv;
      continue;
    }
    d.*k.field = v * k.scale;
  }
  if (d.concurrent_slowdown < 1) return preset_error(origin, "key 'concurrent_slowdown' must be 1 or more");
  if (j.contains("concurrent_slowdown_memory") && d.concurrent_slowdown_memory < 1)
    return preset_error(origin, "key 'concurrent_slowdown_memory' must be 1 or more");
  if (j.contains("cross_core_us_per_mib") != j.contains("cross_core_max_kib"))
    return preset_error(origin, "keys 'cross_core_us_per_mib' and 'cross_core_max_kib' go together");
  if (cpu) {
    // The file counts every core; the simulator runs sm_count streams at once, each a team.
    if (d.threads_per_stream > d.sm_count)
      return preset_error(origin, "key 'threads_per_stream' (" + std::to_string(d.threads_per_stream) + ") is more than 'cores' (" +
                                      std::to_string(d.sm_count) + ")");
    d.sm_count /= d.threads_per_stream;
    if (j.contains("teams")) {
      for (const auto& t : j["teams"]) {
        const auto number = [&](const char* k) -> double {
          return t.is_object() && t.contains(k) && t[k].is_number() ? t[k].get<double>() : -1.0;
        };
        DeviceSpec::CpuTeam team;
        const double threads = number("threads");
        team.peak_fp32_flops = number("peak_fp32_tflops") * 1e12;
        team.memory_bandwidth = number("memory_bandwidth_gb_s") * 1e9;
        team.launch_us = number("launch_us");
        if (threads < 1 || threads != static_cast<double>(static_cast<int>(threads)) || threads > device_cores(d) ||
            !(team.peak_fp32_flops > 0) || !(team.memory_bandwidth > 0) || team.launch_us < 0)
          return preset_error(origin, "each of 'teams' must be {threads (1 to the cores), peak_fp32_tflops > 0, memory_bandwidth_gb_s > 0, "
                                      "launch_us >= 0}");
        team.threads = static_cast<int>(threads);
        if (!d.cpu_teams.empty() && team.threads <= d.cpu_teams.back().threads)
          return preset_error(origin, "'teams' must list each team size once, ascending");
        d.cpu_teams.push_back(team);
      }
    }
  }
  // Devices without faster tensor-core paths: fall back to the FP32 rate.
  if (d.peak_tf32_flops == 0) d.peak_tf32_flops = d.peak_fp32_flops;
  if (d.peak_fp16_flops == 0) d.peak_fp16_flops = d.peak_fp32_flops;
  return d;
}

std::string device_to_json(const DeviceSpec& d) {
  const bool cpu = d.kind == DeviceKind::Cpu;
  nlohmann::ordered_json j;
  j["name"] = d.name;
  j["display_name"] = d.display_name.empty() ? d.name : d.display_name;
  if (cpu) j["kind"] = "cpu";
  j["peak_fp32_tflops"] = d.peak_fp32_flops / 1e12;
  j["peak_tf32_tflops"] = d.peak_tf32_flops / 1e12;
  j["peak_fp16_tflops"] = d.peak_fp16_flops / 1e12;
  j["memory_bandwidth_gb_s"] = d.memory_bandwidth / 1e9;
  j[cpu ? "cores" : "sm_count"] = device_cores(d);
  if (cpu && d.threads_per_stream > 1) j["threads_per_stream"] = d.threads_per_stream;
  if (!cpu) j["max_threads_per_sm"] = d.max_threads_per_sm;
  j["hardware_queues"] = d.hardware_queues;
  j["launch_us"] = d.launch_us;
  if (!cpu) j["graph_launch_per_node_us"] = d.graph_launch_per_node_us;
  j["event_record_us"] = d.event_record_us;
  j["event_wait_us"] = d.event_wait_us;
  j["kernel_min_us"] = d.kernel_min_us;
  if (cpu) j["concurrent_slowdown"] = d.concurrent_slowdown;
  if (cpu && d.concurrent_slowdown_memory >= 1) j["concurrent_slowdown_memory"] = d.concurrent_slowdown_memory;
  if (cpu && d.cross_core_us_per_mib > 0 && d.cross_core_max_bytes > 0) {
    j["cross_core_us_per_mib"] = d.cross_core_us_per_mib;
    j["cross_core_max_kib"] = d.cross_core_max_bytes / 1024;
  }
  if (cpu && !d.cpu_teams.empty()) {
    j["teams"] = nlohmann::ordered_json::array();
    for (const DeviceSpec::CpuTeam& t : d.cpu_teams)
      j["teams"].push_back({{"threads", t.threads},
                            {"peak_fp32_tflops", t.peak_fp32_flops / 1e12},
                            {"memory_bandwidth_gb_s", t.memory_bandwidth / 1e9},
                            {"launch_us", t.launch_us}});
  }
  if (!d.op_efficiency.empty()) {
    j["op_efficiency"] = nlohmann::ordered_json::object();
    for (const auto& [family, e] : d.op_efficiency) j["op_efficiency"][family] = e;
  }
  if (!d.source.empty()) j["source"] = d.source;
  return j.dump(2) + "\n";
}

int device_cores(const DeviceSpec& device) {
  return device.kind == DeviceKind::Cpu ? device.sm_count * std::max(device.threads_per_stream, 1) : device.sm_count;
}

std::vector<int> cpu_team_sizes(const DeviceSpec& cpu) {
  std::vector<int> sizes;
  for (const DeviceSpec::CpuTeam& t : cpu.cpu_teams) sizes.push_back(t.threads);
  if (sizes.empty()) sizes.push_back(std::max(cpu.threads_per_stream, 1));
  return sizes;
}

Expected<DeviceSpec> cpu_team_device(const DeviceSpec& cpu, int threads) {
  if (cpu.kind != DeviceKind::Cpu) return make_error(ErrorKind::InvalidInput, "device '" + cpu.name + "' is a GPU: it has no CPU teams");
  const int cores = device_cores(cpu);
  if (threads < 1 || threads > cores)
    return make_error(ErrorKind::InvalidInput, "device '" + cpu.name + "' has " + std::to_string(cores) + " cores: no team of " +
                                                   std::to_string(threads) + " threads");
  DeviceSpec d = cpu;
  if (threads != std::max(cpu.threads_per_stream, 1) || !cpu.cpu_teams.empty()) {
    const auto it = std::find_if(cpu.cpu_teams.begin(), cpu.cpu_teams.end(), [&](const DeviceSpec::CpuTeam& t) { return t.threads == threads; });
    if (it == cpu.cpu_teams.end()) {
      std::string known;
      for (int t : cpu_team_sizes(cpu)) known += (known.empty() ? "" : ", ") + std::to_string(t);
      return make_error(ErrorKind::InvalidInput, "device '" + cpu.name + "' was calibrated with streams of " + known +
                                                     " thread(s), not " + std::to_string(threads) +
                                                     " (weft calibrate measures every team size)");
    }
    d.peak_fp32_flops = d.peak_tf32_flops = d.peak_fp16_flops = it->peak_fp32_flops;
    d.memory_bandwidth = it->memory_bandwidth;
    d.launch_us = it->launch_us;
  }
  d.threads_per_stream = threads;
  d.sm_count = std::max(cores / threads, 1);
  return d;
}

bool is_device_file(std::string_view name_or_path) {
  return name_or_path.find('/') != std::string_view::npos ||
         (name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".json");
}

Expected<DeviceSpec> load_device_file(const std::string& path) {
  auto text = read_file(path, kMaxTextBytes);
  if (!text) return make_error(ErrorKind::InvalidInput, "device file: " + text.error().message);
  return parse_device(*text, path);
}

std::string assets_dir() {
  if (const char* env = std::getenv("WEFT_ASSETS_DIR"); env && *env) return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "weft" / "assets";
    if (is_dir(installed)) return installed.string();
    const fs::path beside = exe.parent_path() / "assets";  // the GPU bundle (scripts/gpu-bundle.sh)
    if (is_dir(beside)) return beside.string();
  }
  return WEFT_SOURCE_ASSETS_DIR;
}

std::vector<std::string> device_names() {
  std::vector<std::string> names;
  const fs::path dir = fs::path(assets_dir()) / "devices";
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.extension() == ".json" && valid_preset_name(p.stem().string())) names.push_back(p.stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string_view default_device_name() { return "h100-sxm"; }

Status check_device_name(std::string_view name) {
  const fs::path dir = fs::path(assets_dir()) / "devices";
  if (!valid_preset_name(name) || !fs::exists(dir / (std::string(name) + ".json"))) {
    if (!is_dir(dir))
      return make_error(ErrorKind::Runtime, "device presets folder '" + dir.string() +
                                                "' not found (set WEFT_ASSETS_DIR to the assets folder)");
    return make_error(ErrorKind::InvalidInput, "unknown device '" + std::string(name) +
                                            "'; known devices: " + join_names(device_names()));
  }
  return {};
}

Expected<DeviceSpec> load_device(std::string_view name) {
  const fs::path dir = fs::path(assets_dir()) / "devices";
  WEFT_TRY(check_device_name(name));
  const std::string path = (dir / (std::string(name) + ".json")).string();
  WEFT_TRY_ASSIGN(auto text, read_file(path, kMaxTextBytes));
  WEFT_TRY_ASSIGN(auto spec, parse_device(text, path));
  if (spec.name != name)
    return preset_error(path, "declares name '" + spec.name + "', expected '" + std::string(name) + "'");
  return spec;
}

}  // namespace weft::core
