// `weft calibrate`: a CPU device file fitted to a sequential run of a model on the CPU executor,
// or (--backend cuda) a GPU preset's launch figures measured on the GPU with empty kernels.
#include <algorithm>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "weft/core/profile/profile.h"
#include "weft/core/study/run_comparison.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/base/file_io.h"
#include "weft/core/study/cpu_calibration.h"
#include "weft/core/base/text_format.h"
#include "weft/gpu/devices.h"

namespace weft::cli {

namespace {

bool valid_device_name(const std::string& name) {
  return !name.empty() && name.size() <= 64 && name.front() != '.' && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
  });
}

// weft calibrate --backend cuda [--device PRESET] [--gpu N] [--kernels N] [-o FILE] [--name N] [--json]
int calibrate_cuda(Args& args) {
  for (const char* model_only : {"cores", "iterations", "warmup", "seed", "dim", "batch", "threads-per-stream"})
    if (args.value(model_only)) return usage_error("calibrate", std::string("--") + model_only + " is for --backend cpu");
  if (args.flag("no-fold")) return usage_error("calibrate", "--no-fold is for --backend cpu");
  if (!args.positional().empty())
    return usage_error("calibrate", "--backend cuda measures the GPU, not a model: drop '" + args.positional().front() + "'");
  auto gpu_index = args.int_value("gpu");
  auto kernels = args.int_value("kernels");
  for (const auto* v : {&gpu_index, &kernels})
    if (!*v) return usage_error("calibrate", v->error().message);
  if (*gpu_index && **gpu_index < 0) return usage_error("calibrate", "--gpu must be >= 0");
  if (*kernels && (**kernels < 16 || **kernels > 100000)) return usage_error("calibrate", "--kernels must be in 16..100000");
  const std::string preset_name = args.value("device").value_or(std::string(core::default_device_name()));
  auto preset = core::is_device_file(preset_name) ? core::load_device_file(preset_name) : core::load_device(preset_name);
  if (!preset) return report("calibrate", preset.error());
  if (preset->kind != core::DeviceKind::Gpu)
    return usage_error("calibrate", "--device " + preset_name + " is a CPU device; --backend cuda measures a GPU preset");
  const std::string name = args.value("name").value_or(preset->name + "-measured");
  if (!valid_device_name(name)) return usage_error("calibrate", "--name '" + name + "' must be lower-case letters, digits, '-', '_' or '.'");
  const auto output = args.value("o") ? args.value("o") : args.value("output");

  auto measured = gpu::measure_launch_costs(*gpu_index ? static_cast<int>(**gpu_index) : 0,
                                            *kernels ? static_cast<int>(**kernels) : 500);
  if (!measured) return report("calibrate", measured.error());
  core::DeviceSpec device = gpu::with_launch_costs(*preset, *measured);
  device.name = name;
  const std::string text = core::device_to_json(device);
  if (output)
    if (auto ok = core::write_file_atomic(*output, text); !ok) return report("calibrate", ok.error());

  const gpu::LaunchCosts& m = *measured;
  if (args.flag("json")) {
    nlohmann::ordered_json j;
    j["gpu"] = {{"index", m.device}, {"name", m.name}};
    j["kernels"] = m.kernels;
    j["rounds"] = m.rounds;
    for (const auto& [figure, value] : m.figures()) j["measured"][figure] = value;
    j["preset"] = {{"name", preset->name},
                   {"launch_us", preset->launch_us},
                   {"kernel_min_us", preset->kernel_min_us},
                   {"graph_launch_per_node_us", preset->graph_launch_per_node_us},
                   {"event_record_us", preset->event_record_us},
                   {"event_wait_us", preset->event_wait_us}};
    j["device"] = nlohmann::ordered_json::parse(text);
    if (output) j["output"] = *output;
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  const auto row = [](const char* what, double got, double preset_value) {
    std::cout << "  " << what << core::fixed_text(got, 3) << " us   (preset " << core::fixed_text(preset_value, 2) << ")\n";
  };
  std::cout << "GPU " << m.device << ": " << m.name << ", empty kernels, median of " << m.rounds << " rounds of " << m.kernels << "\n";
  row("eager launch (host, per kernel)      ", m.launch_us, preset->launch_us);
  row("kernel floor (graph chain, per kernel)", m.graph_chain_us, preset->kernel_min_us);
  row("graph release (independent, per node)", m.graph_per_node_us, preset->graph_launch_per_node_us);
  row("event record (host)                   ", m.event_record_us, preset->event_record_us);
  row("event wait (host)                     ", m.event_wait_us, preset->event_wait_us);
  std::cout << "  eager chain (device, per kernel)      " << core::fixed_text(m.eager_chain_us, 3) << " us; graph launch (host) "
            << core::fixed_text(m.graph_launch_us, 2) << " us\n";
  if (output) std::cout << "wrote " << *output << " (use it as --device " << *output << ")\n";
  else std::cout << text;
  return 0;
}

// weft calibrate MODEL --profile FILE [--device PRESET] [-o FILE] [--name N] [--json]: the preset
// fitted to a measured profile (core::fit_device_to_profile): per operator family efficiency,
// launch and gap cost from the idle time between kernels.
int calibrate_profile(Args& args) {
  for (const char* measuring : {"backend", "cores", "iterations", "warmup", "seed", "gpu", "kernels", "threads-per-stream"})
    if (args.value(measuring)) return usage_error("calibrate", std::string("--") + measuring + " measures a run; --profile fits to a measured one");
  const std::string name = args.value("name").value_or("profiled");
  if (!valid_device_name(name)) return usage_error("calibrate", "--name '" + name + "' must be lower-case letters, digits, '-', '_' or '.'");
  auto model = load_model(args);
  if (!model) return report("calibrate", model.error());
  auto fit = core::fit_device_to_profile(*model->graph, *model->profile, model->device, name);
  if (!fit) return report("calibrate", fit.error());
  const std::string text = core::device_to_json(*fit);
  const auto output = args.value("o") ? args.value("o") : args.value("output");
  if (output)
    if (auto ok = core::write_file_atomic(*output, text); !ok) return report("calibrate", ok.error());
  if (args.flag("json")) {
    nlohmann::ordered_json j;
    j["model"] = model->graph->info().model_path;
    j["profile"] = model->profile->path;
    j["replay_error"] = model->profile_replay->error;
    j["device"] = nlohmann::ordered_json::parse(text);
    if (output) j["output"] = *output;
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "device " << fit->name << " fitted to " << model->profile->source << " against " << model->device.name
            << ": launch and gap " << core::fixed_text(fit->launch_us, 2) << " us\n";
  for (const auto& [family, e] : fit->op_efficiency)
    std::cout << "  " << family << ": " << core::fixed_text(100 * e, 2) << "% of the roofline rate\n";
  if (output) std::cout << "wrote " << *output << " (use it as --device " << *output << ")\n";
  else std::cout << text;
  return 0;
}

}  // namespace

int cmd_calibrate(Args& args) {
  if (auto ok = args.parse({"backend=", "o=", "output=", "name=", "cores=", "iterations=", "warmup=", "seed=", "json", "gpu=", "kernels=",
                            "threads-per-stream=", "profile="},
                           true);
      !ok)
    return usage_error("calibrate", ok.error().message);
  if (args.value("profile")) return calibrate_profile(args);
  const std::string backend = args.value("backend").value_or("cpu");
  if (backend == "cuda") return calibrate_cuda(args);
  if (backend != "cpu") return usage_error("calibrate", "--backend must be cpu or cuda, got '" + backend + "'");
  for (const char* gpu_only : {"gpu", "kernels"})
    if (args.value(gpu_only)) return usage_error("calibrate", std::string("--") + gpu_only + " is for --backend cuda");
  auto iterations = args.int_value("iterations");
  auto warmup = args.int_value("warmup");
  auto seed = args.int_value("seed");
  auto cores = args.int_value("cores");
  for (const auto* v : {&iterations, &warmup, &seed, &cores})
    if (!*v) return usage_error("calibrate", v->error().message);
  core::RunOptions ro;
  ro.iterations = *iterations ? static_cast<int>(std::clamp<std::int64_t>(**iterations, -1, 1 << 30)) : core::kDefaultRunIterations;
  ro.warmup = *warmup ? static_cast<int>(std::clamp<std::int64_t>(**warmup, -1, 1 << 30)) : core::kDefaultRunWarmup;
  if (auto ok = core::check_run_counts(ro.iterations, ro.warmup, 1); !ok) return usage_error("calibrate", ok.error().message);
  if (*cores && (**cores < 1 || **cores > 4096)) return usage_error("calibrate", "--cores must be in 1..4096");
  core::CpuFitOptions fit;
  fit.name = args.value("name").value_or("cpu");
  if (!valid_device_name(fit.name))
    return usage_error("calibrate", "--name '" + fit.name + "' must be lower-case letters, digits, '-', '_' or '.'");
  if (*cores) fit.cores = static_cast<int>(**cores);
  const auto output = args.value("o") ? args.value("o") : args.value("output");

  auto threads = cpu_threads_option(args, "calibrate");
  if (!threads) return usage_error("calibrate", threads.error().message);

  auto model = load_model(args);
  if (!model) return report("calibrate", model.error());
  if (*seed) ro.seed = static_cast<std::uint64_t>(**seed);
  // One team size when asked for; else the device at one thread per stream with the rates of
  // every team size worth trying (intra-operator parallelism, as advise and search weigh it).
  ro.threads_per_stream = *threads;
  if (!args.value("threads-per-stream")) fit.teams = core::cpu_calibration_teams(fit.cores > 0 ? fit.cores : core::cpu_count());
  auto cal = core::calibrate_cpu(*model->graph, ro, fit);
  if (!cal) return report("calibrate", cal.error());
  const core::DeviceSpec& d = cal->device;
  const std::string text = core::device_to_json(d);
  if (output)
    if (auto ok = core::write_file_atomic(*output, text); !ok) return report("calibrate", ok.error());

  if (args.flag("json")) {
    nlohmann::ordered_json j;
    j["model"] = model->graph->info().model_path;
    j["device"] = nlohmann::ordered_json::parse(text);
    j["fitted_nodes"] = cal->fitted_nodes;
    j["median_node_error"] = cal->median_node_error;
    j["total_error"] = cal->total_error;
    j["sequential_us"] = cal->measured.total_us();
    j["threads_per_stream"] = d.threads_per_stream;
    if (output) j["output"] = *output;
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "model: " << model->graph->info().model_path << " (" << model->graph->node_count()
            << " operators), sequential CPU run, median of " << ro.iterations << " after " << ro.warmup << " warm-up\n"
            << "device " << d.name << ": " << d.sm_count << " cores, " << core::fixed_text(d.peak_fp32_flops / 1e9, 2) << " GFLOP/s, "
            << core::fixed_text(d.memory_bandwidth / 1e9, 2) << " GB/s, " << core::fixed_text(d.launch_us, 2) << " µs per operator, latch "
            << core::fixed_text(d.event_wait_us, 2) << " µs, operators " << core::fixed_text(d.concurrent_slowdown, 2)
            << "x slower with every core busy (memory-bound ones " << core::fixed_text(d.concurrent_slowdown_memory, 2) << "x)"
            << (d.cross_core_us_per_mib > 0 ? ", " + core::fixed_text(d.cross_core_us_per_mib, 1) + " µs per MiB a core reads that another wrote"
                                            : std::string())
            << "\n"
            << "fit over " << cal->fitted_nodes << " nodes: median node error " << core::fixed_text(100 * cal->median_node_error, 1)
            << "%, total time error " << core::fixed_text(100 * cal->total_error, 1) << "%\n";
  if (d.threads_per_stream > 1) std::cout << "streams of " << d.threads_per_stream << " threads: " << d.sm_count << " run at once\n";
  for (const core::DeviceSpec::CpuTeam& t : d.cpu_teams)
    std::cout << "  streams of " << t.threads << (t.threads == 1 ? " thread:  " : " threads: ") << core::fixed_text(t.peak_fp32_flops / 1e9, 2)
              << " GFLOP/s, " << core::fixed_text(t.memory_bandwidth / 1e9, 2) << " GB/s, " << core::fixed_text(t.launch_us, 2)
              << " µs per operator\n";
  if (output) std::cout << "wrote " << *output << " (use it as --device " << *output << ")\n";
  else std::cout << text;
  return 0;
}

}  // namespace weft::cli
