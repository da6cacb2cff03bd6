// `weft calibrate`: a CPU device file fitted to a sequential run of a model on the CPU executor.
#include <algorithm>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "weft/core/file_io.h"
#include "weft/core/study/cpu_calibration.h"
#include "weft/core/text_format.h"

namespace weft::cli {

int cmd_calibrate(Args& args) {
  if (auto ok = args.parse({"backend=", "o=", "output=", "name=", "cores=", "iterations=", "warmup=", "seed=", "json"}, true);
      !ok)
    return usage_error("calibrate", ok.error().message);
  const std::string backend = args.value("backend").value_or("cpu");
  if (backend != "cpu")
    return usage_error("calibrate", "--backend must be cpu (a CUDA device is described by a preset), got '" + backend + "'");
  auto iterations = args.int_value("iterations");
  auto warmup = args.int_value("warmup");
  auto seed = args.int_value("seed");
  auto cores = args.int_value("cores");
  for (const auto* v : {&iterations, &warmup, &seed, &cores})
    if (!*v) return usage_error("calibrate", v->error().message);
  if (*iterations && **iterations < 1) return usage_error("calibrate", "--iterations must be >= 1");
  if (*warmup && **warmup < 0) return usage_error("calibrate", "--warmup must be >= 0");
  if (*cores && (**cores < 1 || **cores > 4096)) return usage_error("calibrate", "--cores must be in 1..4096");
  core::CpuFitOptions fit;
  fit.name = args.value("name").value_or("cpu");
  const bool name_ok = !fit.name.empty() && fit.name.size() <= 64 && fit.name.front() != '.' &&
                       std::all_of(fit.name.begin(), fit.name.end(), [](char c) {
                         return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
                       });
  if (!name_ok)
    return usage_error("calibrate", "--name '" + fit.name + "' must be lower-case letters, digits, '-', '_' or '.'");
  if (*cores) fit.cores = static_cast<int>(**cores);
  const auto output = args.value("o") ? args.value("o") : args.value("output");

  auto model = load_model(args);
  if (!model) return report("calibrate", model.error());
  core::RunOptions ro;
  ro.iterations = *iterations ? static_cast<int>(**iterations) : 5;
  ro.warmup = *warmup ? static_cast<int>(**warmup) : 1;
  if (*seed) ro.seed = static_cast<std::uint64_t>(**seed);
  auto cal = core::calibrate_cpu(model->graph, ro, fit);
  if (!cal) return report("calibrate", cal.error());
  const core::DeviceSpec& d = cal->device;
  const std::string text = core::device_to_json(d);
  if (output)
    if (auto ok = core::write_file_atomic(*output, text); !ok) return report("calibrate", ok.error());

  if (args.flag("json")) {
    nlohmann::ordered_json j;
    j["model"] = model->graph.info().model_path;
    j["device"] = nlohmann::ordered_json::parse(text);
    j["fitted_nodes"] = cal->fitted_nodes;
    j["median_node_error"] = cal->median_node_error;
    j["total_error"] = cal->total_error;
    j["sequential_us"] = cal->measured.total_us();
    if (output) j["output"] = *output;
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "model: " << model->graph.info().model_path << " (" << model->graph.node_count()
            << " operators), sequential CPU run, median of " << ro.iterations << " after " << ro.warmup << " warm-up\n"
            << "device " << d.name << ": " << d.sm_count << " cores, " << core::fixed_text(d.peak_fp32_flops / 1e9, 2) << " GFLOP/s, "
            << core::fixed_text(d.memory_bandwidth / 1e9, 2) << " GB/s, " << core::fixed_text(d.launch_us, 2) << " µs per operator, latch "
            << core::fixed_text(d.event_wait_us, 2) << " µs, operators " << core::fixed_text(d.concurrent_slowdown, 2)
            << "x slower with every core busy\n"
            << "fit over " << cal->fitted_nodes << " nodes: median node error " << core::fixed_text(100 * cal->median_node_error, 1)
            << "%, total time error " << core::fixed_text(100 * cal->total_error, 1) << "%\n";
  if (output) std::cout << "wrote " << *output << " (use it as --device " << *output << ")\n";
  else std::cout << text;
  return 0;
}

}  // namespace weft::cli
