#pragma once
// Devices: what executes the operators, as presets (assets/devices/<name>.json) or device files
// (`weft calibrate`), found by name.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/base/expected.h"

namespace weft::core {

/// What executes the operators. A GPU: one host thread launches kernels that share the SMs and
/// memory bandwidth. A CPU (the CPU executor): each stream is a thread that runs its operators
/// itself, one core each; concurrent operators share only the cores (sm_count), events are latches.
enum class DeviceKind : std::uint8_t { Gpu, Cpu };
/// "gpu" or "cpu".
std::string_view device_kind_name(DeviceKind kind);

/// A device preset (assets/devices/<name>.json) or device file (`weft calibrate`). Rates in
/// FLOP/s and bytes/s, overheads in µs.
struct DeviceSpec {
  std::string name;              ///< preset key, e.g. "h100-sxm"
  DeviceKind kind = DeviceKind::Gpu;
  std::string display_name;      ///< e.g. "NVIDIA H100 SXM5 80GB"
  double peak_fp32_flops = 0;    ///< FLOP/s
  double peak_tf32_flops = 0;
  double peak_fp16_flops = 0;
  double memory_bandwidth = 0;   ///< bytes/s
  int sm_count = 0;              ///< compute units: SMs, or cores for a CPU device (key "cores")
  double launch_us = 0;          ///< host cost of one eager kernel launch (CPU: per-operator overhead on its thread)
  double graph_launch_per_node_us = 0;  ///< per-node cost when replayed as a CUDA Graph
  double event_record_us = 0;    ///< host cost of cudaEventRecord
  double event_wait_us = 0;      ///< host cost of cudaStreamWaitEvent
  double kernel_min_us = 0;      ///< smallest kernel duration on the device (tail, ramp)
  /// CPU devices: how much longer an operator takes while every core runs one, as a factor (1:
  /// no contention). Cores share caches, memory bandwidth and a clock budget; with k of n cores
  /// busy, each running operator is slowed by 1 + (factor − 1)·(k − 1)/(n − 1).
  double concurrent_slowdown = 1;
  /// CPU devices: the same factor for memory-bound operators (NodeCost::bound), which contend for
  /// caches and memory bandwidth more than compute-bound ones; 0: concurrent_slowdown.
  double concurrent_slowdown_memory = 0;
  /// CPU devices: how much longer a core takes to read data another core wrote than data it
  /// wrote itself, µs per MiB (the caches' core-to-core transfers; cpu_cross_core_us_per_mib).
  /// An operator pays it on each input a node of another stream wrote, for up to
  /// cross_core_max_bytes of it (what the writer's cache holds: beyond that, both read from the
  /// shared cache or memory alike). 0: none (a GPU's streams share one memory).
  double cross_core_us_per_mib = 0;
  double cross_core_max_bytes = 0;
  int max_threads_per_sm = 2048;
  int hardware_queues = 8;       ///< default number of concurrent work queues
  std::string source;            ///< where the figures come from (datasheet, calibration run)
  /// CPU devices: the threads of each stream's library team (RunOptions::threads_per_stream)
  /// the rates belong to. sm_count then counts the streams that run at once, cores /
  /// threads_per_stream (a file's "cores" is every core).
  int threads_per_stream = 1;
  /// A CPU's rates with each stream a team of `threads` threads, fitted to a sequential run at
  /// that team size (`weft calibrate`): intra-operator parallelism as measured, per operator
  /// through its flops and bytes, not a linear speedup.
  struct CpuTeam {
    int threads = 1;
    double peak_fp32_flops = 0;   ///< FLOP/s
    double memory_bandwidth = 0;  ///< bytes/s
    double launch_us = 0;         ///< per-operator overhead
  };
  /// CPU devices calibrated at several team sizes (threads ascending, this device's own among
  /// them); empty: only threads_per_stream's (the device's rates). See cpu_team_device().
  std::vector<CpuTeam> cpu_teams;
  /// Per operator family (op_family(): "conv", "gemm", ...), the share of the roofline rate it
  /// reaches, fitted to a measured profile (`weft calibrate --profile`): a node's roofline time is
  /// divided by its family's efficiency. Empty (presets): 1 for every family.
  std::map<std::string, double> op_efficiency;
};

/// Every core of a CPU device (sm_count × threads_per_stream); sm_count for a GPU.
int device_cores(const DeviceSpec& device);

/// The CPU device `cpu` with each stream a team of `threads` threads: that team size's rates
/// (cpu_teams, or the device's own at its threads_per_stream), sm_count = the device's cores /
/// threads, threads_per_stream = threads. Errors (InvalidInput): a GPU device, a team size the
/// device was not calibrated at (naming the ones it was), more threads than cores. O(teams).
Expected<DeviceSpec> cpu_team_device(const DeviceSpec& cpu, int threads);

/// The team sizes a CPU device can predict (cpu_teams' sizes, else its own), ascending.
std::vector<int> cpu_team_sizes(const DeviceSpec& cpu);

/// Fails when no preset `name` exists: InvalidInput listing the known names (Runtime when the
/// presets folder itself is missing). Front ends call it to refuse a bad option early.
Status check_device_name(std::string_view name);
/// Loads a preset by name from the assets folder (see assets_dir()); errors as check_device_name,
/// then InvalidInput for a malformed preset file.
Expected<DeviceSpec> load_device(std::string_view name);
/// Parses a preset from JSON text (the same format as the files).
Expected<DeviceSpec> parse_device(std::string_view json_text, std::string_view origin);
/// A device as JSON text in the preset format (parse_device reads it back equal).
std::string device_to_json(const DeviceSpec& device);
/// Loads a device file (a preset's format at any path, e.g. written by `weft calibrate`). Errors
/// (InvalidInput) name the file: missing, unreadable or malformed.
Expected<DeviceSpec> load_device_file(const std::string& path);
/// A preset name or a device file: names containing '/' or ending in ".json" are files.
bool is_device_file(std::string_view name_or_path);
/// Names of the presets found in the assets folder, sorted.
std::vector<std::string> device_names();
/// The default preset's name ("h100-sxm").
std::string_view default_device_name();
/// Assets folder: $WEFT_ASSETS_DIR, else <exe>/../share/weft/assets, else <exe>/assets (the GPU
/// bundle), else the source tree's assets/ (none in a relocatable build).
std::string assets_dir();

}  // namespace weft::core
