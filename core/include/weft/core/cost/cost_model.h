#pragma once
// Per-device cost model v1: flops and bytes per node from shapes; roofline time plus launch overhead.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"

namespace weft::core {

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
  /// Where the measured times in it come from (apply_profile: the profile's source and file), for
  /// studies to say so; empty: predictions (or a run's calibration, which says so itself).
  std::string measured_from;
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

/// `costs` of `graph` on CPU device `from` moved to `to`, the same CPU with another team size per
/// stream (cpu_team_device): each node's time scaled by the ratio of its predicted times on the
/// two devices (estimate_costs with each one's rates), so that a measured time keeps what was
/// measured and takes the team's intra-operator speedup for that node's flops and bytes (a fused
/// node's, its chain's members' together); nodes of unknown cost keep their time. `to`'s name. O(V + total tensor ranks).
CostTable cpu_team_costs(const Graph& graph, const CostTable& costs, const DeviceSpec& from, const DeviceSpec& to);

/// The operator family a device's op_efficiency is kept by: "conv", "gemm", "norm", "pool",
/// "reduce", "data" (copies, layout and indexing) or "elementwise" (everything else). O(1).
std::string_view op_family(std::string_view op_type);

/// Node times as a plain vector (µs), for passes that only need weights.
std::vector<double> node_times(const CostTable& costs);

}  // namespace weft::core
