// Replay fidelity and device fitting from a mapped profile. Replay follows Lumos (MLSys 2025):
// the profiled run's own schedule (its streams and their order) simulated with the measured
// kernel times and the measured idle time between kernels, against the measured iteration, so
// the error says how far the simulator's what-ifs on those times can be trusted.
#include <algorithm>
#include <cmath>
#include <map>

#include "profile_detail.h"
#include "weft/core/simulator.h"

namespace weft::core {

using detail::idx;
using detail::median;

namespace {

/// `device` as the kind of device the profile ran on: a CPU runs each stream's operators on its
/// own thread, one after another with the per-operator overhead between them; a GPU's host
/// launches ahead of the kernels.
DeviceSpec profiled_kind(const DeviceSpec& device, const Profile& profile) {
  DeviceSpec d = device;
  if (d.kind == profile.device_kind) return d;
  d.kind = profile.device_kind;
  d.threads_per_stream = 1;
  d.cpu_teams.clear();
  d.sm_count = std::max(1, static_cast<int>(profile.schedule.stream_count()));
  return d;
}

/// The gap each measured node carries on a CPU (0 on a GPU, whose host pays it as launches).
double device_kind_gap(const Profile& profile, std::size_t timed_nodes) {
  if (profile.device_kind != DeviceKind::Cpu || timed_nodes == 0) return 0;
  return profile.gap_us * static_cast<double>(profile.kernels) / static_cast<double>(timed_nodes);
}

}  // namespace

namespace {

/// One iteration replayed: its own node times (gaps spread as device_kind_gap says) on the
/// profile's schedule.
ProfileReplay replay_iteration(const Graph& graph, const CostTable& predicted, const Profile& profile, const DeviceSpec& d, int run) {
  const Timeline& measured = profile.iterations[static_cast<std::size_t>(run)];
  CostTable costs = predicted;
  std::vector<double> own(costs.nodes.size(), -1);
  for (const TimelineItem& it : measured.items) own[idx(it.node)] = std::max(own[idx(it.node)], 0.0) + (it.end_us - it.start_us);
  // On a CPU the gap between operators is part of each one's time on its thread (the cost
  // model's convention); spread over a fused kernel's members, each kernel pays it once.
  const std::size_t timed = static_cast<std::size_t>(std::count_if(own.begin(), own.end(), [](double t) { return t >= 0; }));
  const double per_node_gap = device_kind_gap(profile, timed);
  for (std::size_t v = 0; v < costs.nodes.size(); ++v) {
    costs.nodes[v].time_us = own[v] < 0 ? 0 : own[v] + per_node_gap;
    costs.nodes[v].measured = true;
  }
  SimOptions options;
  // Measured times already carry what concurrent kernels cost each other.
  options.share_compute = false;
  options.share_bandwidth = false;
  options.kind = RunKind::Predicted;
  options.label = "replay: " + profile.source;
  ProfileReplay r;
  r.iteration = run;
  r.timeline = simulate(graph, profile.schedule, costs, d, options);
  r.measured_us = profile.iteration_times_us[static_cast<std::size_t>(run)];
  r.replayed_us = r.timeline.makespan_us();
  r.error = r.measured_us > 0 ? (r.replayed_us - r.measured_us) / r.measured_us : 0;
  return r;
}

}  // namespace

ProfileReplay replay_profile(const Graph& graph, const CostTable& predicted, const Profile& profile, const DeviceSpec& device) {
  WEFT_CHECK(!profile.iterations.empty() && profile.iterations.size() == profile.iteration_times_us.size());
  DeviceSpec d = profiled_kind(device, profile);
  d.launch_us = profile.gap_us;
  d.kernel_min_us = 0;
  d.concurrent_slowdown = 1;
  d.concurrent_slowdown_memory = 0;
  std::vector<ProfileReplay> all;
  for (int run = 0; run < static_cast<int>(profile.iterations.size()); ++run) all.push_back(replay_iteration(graph, predicted, profile, d, run));
  double worst = 0;
  for (const ProfileReplay& r : all)
    if (std::abs(r.error) > std::abs(worst)) worst = r.error;
  std::sort(all.begin(), all.end(), [](const ProfileReplay& a, const ProfileReplay& b) { return a.error < b.error; });
  ProfileReplay median_one = std::move(all[all.size() / 2]);
  median_one.worst_error = worst;
  return median_one;
}

Expected<DeviceSpec> fit_device_to_profile(const Graph& graph, const Profile& profile, const DeviceSpec& preset, const std::string& name) {
  if (!(preset.peak_fp32_flops > 0) || !(preset.memory_bandwidth > 0))
    return make_error(ErrorKind::InvalidInput, "device '" + preset.name + "' has no rates to fit");
  // The preset's roofline time of each node without its launch: what efficiency scales.
  DeviceSpec bare = profiled_kind(preset, profile);
  bare.launch_us = 0;
  bare.op_efficiency.clear();
  const CostTable roofline = estimate_costs(graph, bare);
  std::map<std::string, std::vector<double>> ratios;
  for (std::size_t v = 0; v < graph.node_count(); ++v) {
    const NodeCost& c = roofline.nodes[v];
    if (!profile.node_us[v] || !c.known || c.time_us <= 0) continue;
    // The idle gap is the launch cost the fitted device charges apart from the kernel.
    const double kernel = std::max(*profile.node_us[v], 1e-3);
    ratios[std::string(op_family(graph.node(static_cast<NodeId>(v)).op_type))].push_back(c.time_us / kernel);
  }
  if (ratios.empty()) return make_error(ErrorKind::InvalidInput, profile.path + ": no measured node of known cost to fit a device to");
  DeviceSpec fit = profiled_kind(preset, profile);
  fit.name = name;
  fit.display_name = preset.display_name + " fitted to " + profile.source;
  fit.source = "weft calibrate --profile " + profile.path + " (" + profile.source + ") against " + preset.name;
  fit.op_efficiency.clear();
  for (auto& [family, r] : ratios) fit.op_efficiency[family] = std::clamp(median(std::move(r)), 1e-4, 1e4);
  fit.launch_us = profile.gap_us;
  fit.kernel_min_us = 0;
  return fit;
}

}  // namespace weft::core
