// weft devices: the CUDA GPUs this machine has, the NVIDIA libraries the CUDA module runs on, and
// the cost model's device presets. Loads the CUDA module (the only command besides `run --backend
// cuda` that does); where it or a library it needs is missing, says which and exits 3.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "weft/gpu/devices.h"

namespace weft::cli {

int cmd_devices(Args& args) {
  if (auto st = args.parse({"json"}); !st) return usage_error("devices", st.error().message);
  if (!args.positional().empty()) return usage_error("devices", "takes no arguments");

  const auto runtime = gpu::cuda_runtime_info();
  const auto gpus = gpu::list_gpus();
  std::vector<core::DeviceSpec> presets;
  std::vector<std::string> preset_errors;
  for (const std::string& name : core::device_names()) {
    auto d = core::load_device(name);
    if (d) presets.push_back(std::move(*d));
    else preset_errors.push_back(d.error().message);
  }

  if (args.flag("json")) {
    nlohmann::ordered_json j;
    auto list = nlohmann::ordered_json::array();
    if (gpus)
      for (const gpu::GpuInfo& g : *gpus)
        list.push_back({{"index", g.index}, {"name", g.name}, {"sm_count", g.sm_count},
                        {"memory_bytes", g.memory_bytes},
                        {"compute_capability", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)}});
    j["gpus"] = std::move(list);
    if (!gpus) j["gpu_error"] = gpus.error().message;
    if (runtime) {
      j["cuda"] = {{"module", runtime->module_path},
                   {"built_against", runtime->built_against},
                   {"driver_version", runtime->driver_version},
                   {"runtime_version", runtime->runtime_version},
                   {"cublas_version", runtime->cublas_version},
                   {"cudnn_version", runtime->cudnn_version},
                   {"max_connections", runtime->max_connections},
                   {"libraries", runtime->libraries},
                   {"warnings", runtime->warnings}};
    } else {
      j["cuda"] = nullptr;
    }
    auto ps = nlohmann::ordered_json::array();
    for (const core::DeviceSpec& d : presets)
      ps.push_back({{"name", d.name},
                    {"display_name", d.display_name},
                    {"peak_fp32_tflops", d.peak_fp32_flops / 1e12},
                    {"peak_tf32_tflops", d.peak_tf32_flops / 1e12},
                    {"peak_fp16_tflops", d.peak_fp16_flops / 1e12},
                    {"memory_bandwidth_gb_s", d.memory_bandwidth / 1e9},
                    {"sm_count", d.sm_count},
                    {"launch_us", d.launch_us},
                    {"graph_launch_per_node_us", d.graph_launch_per_node_us},
                    {"event_record_us", d.event_record_us},
                    {"event_wait_us", d.event_wait_us},
                    {"kernel_min_us", d.kernel_min_us},
                    {"hardware_queues", d.hardware_queues}});
    j["presets"] = std::move(ps);
    j["default_preset"] = core::default_device_name();
    j["assets_dir"] = core::assets_dir();
    j["preset_errors"] = preset_errors;
    std::cout << j.dump(2) << "\n";
  } else {
    if (gpus) {
      std::cout << "CUDA GPUs:\n";
      for (const gpu::GpuInfo& g : *gpus) {
        char line[256];
        std::snprintf(line, sizeof line, "  %d  %-32s %4d SMs  %6.1f GiB  sm_%d%d\n", g.index, g.name.c_str(),
                      g.sm_count, static_cast<double>(g.memory_bytes) / (1024.0 * 1024 * 1024), g.cc_major,
                      g.cc_minor);
        std::cout << line;
      }
    }
    if (!gpus) std::cout << gpus.error().message << "\n";
    if (runtime) {
      const auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
      std::cout << "\nCUDA module: " << runtime->module_path << " (built against " << runtime->built_against << ")\n"
                << "  driver CUDA " << (runtime->driver_version ? version(runtime->driver_version) : std::string("none")) << ", runtime "
                << version(runtime->runtime_version) << ", cuBLAS " << runtime->cublas_version << ", cuDNN " << runtime->cudnn_version
                << ", " << runtime->max_connections << " hardware queues (CUDA_DEVICE_MAX_CONNECTIONS)\n";
      for (const std::string& lib : runtime->libraries) std::cout << "  loaded " << lib << "\n";
      for (const std::string& w : runtime->warnings) std::cout << "  warning: " << w << "\n";
    }
    std::cout << "\n" << "device presets (" << core::assets_dir() << "/devices):\n";
    std::cout << "  name        fp32 TF/s  fp16 TF/s   GB/s   SMs  launch us  display name\n";
    for (const core::DeviceSpec& d : presets) {
      char line[256];
      std::snprintf(line, sizeof line, "  %-10s %10.1f %10.1f %6.0f %5d %10.1f  ", d.name.c_str(),
                    d.peak_fp32_flops / 1e12, d.peak_fp16_flops / 1e12, d.memory_bandwidth / 1e9, d.sm_count,
                    d.launch_us);
      std::cout << line << d.display_name << (d.name == core::default_device_name() ? " (default)" : "") << "\n";
    }
    for (const std::string& e : preset_errors) std::cerr << "weft devices: warning: " << e << "\n";
  }
  if (!gpus) {
    if (args.flag("json")) std::cerr << "weft devices: " << gpus.error().message << "\n";
    return core::exit_code(core::ErrorKind::Runtime);
  }
  return 0;
}

}  // namespace weft::cli
