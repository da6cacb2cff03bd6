#pragma once
// Per-device cost model v1: flops and bytes per node from shapes; roofline time plus launch overhead.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/graph.h"

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
  int max_threads_per_sm = 2048;
  int hardware_queues = 8;       ///< default number of concurrent work queues
  std::string source;            ///< where the figures come from (datasheet, calibration run)
};

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

/// Assumed block size when deriving a kernel's grid from its output elements (cost model and simulator).
inline constexpr int kThreadsPerBlock = 256;

/// Roofline class. Metadata-only operators (Reshape, Flatten, Squeeze, ...: no kernel) are Memory
/// with zero bytes and zero time; operators of unknown cost are Unknown.
enum class Bound : std::uint8_t { Compute, Memory, Unknown };
/// "compute", "memory" or "unknown".
std::string_view bound_name(Bound b);

struct NodeCost {
  double flops = 0;       ///< floating-point operations (multiply-add = 2)
  double bytes = 0;       ///< bytes read + written (inputs incl. weights, outputs)
  double time_us = 0;     ///< max(flops/peak, bytes/bandwidth) + launch; measured when calibrated
  double intensity = 0;   ///< flops / bytes
  Bound bound = Bound::Unknown;
  bool known = false;     ///< false: unknown operator or shapes; time_us then is a launch-only guess
  bool measured = false;  ///< time_us comes from a measured run
};

/// Per-node costs for one graph and device; index by NodeId.
struct CostTable {
  std::string device;
  std::vector<NodeCost> nodes;
  double total_us() const;
  const NodeCost& operator[](NodeId n) const { return nodes[static_cast<std::size_t>(n)]; }
};

/// Estimates every node's flops, bytes and time. O(V + total tensor ranks). The per-operator
/// formulas are documented in docs/devices.md; on a GPU, a kernel whose grid (one block of
/// kThreadsPerBlock threads per as many output elements) covers fewer blocks than the SMs
/// computes at that share of the peak rate; unknown operators, control flow (If, Loop, Scan)
/// and nodes with a tensor of unknown shape get known = false and a launch-only time.
CostTable estimate_costs(const Graph& graph, const DeviceSpec& device);

/// The FLOP/s rate `node` runs at on `device` (tensor-core rate for half-precision operands), before
/// the grid-fill scaling estimate_costs applies. O(inputs).
double peak_flops(const Graph& graph, NodeId node, const DeviceSpec& device);

/// The share of a GPU's SMs filled by a grid of one block of kThreadsPerBlock threads per as many
/// of `output_elements`: min(1, blocks / sm_count), one block at least; 1 on a CPU. O(1).
double grid_fill(double output_elements, const DeviceSpec& device);

/// Node times as a plain vector (µs), for passes that only need weights.
std::vector<double> node_times(const CostTable& costs);

}  // namespace weft::core
