#pragma once
// Hand-made devices, costs and schedules for the simulator tests.
#include <algorithm>
#include <random>
#include <vector>

#include "test_graphs.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"

namespace weft::test {

inline constexpr double kTestLaunch = 5;

/// 100 SMs, 1 TFLOP/s (1e6 flop per µs), 100 GB/s (1e5 bytes per µs); launch 5 µs, graph node
/// 1 µs, event record and wait 2 µs each, no minimum kernel time.
inline core::DeviceSpec test_device() {
  core::DeviceSpec d;
  d.name = "test";
  d.peak_fp32_flops = 1e12;
  d.memory_bandwidth = 1e11;
  d.sm_count = 100;
  d.launch_us = kTestLaunch;
  d.kernel_min_us = 0;
  d.graph_launch_per_node_us = 1;
  d.event_record_us = 2;
  d.event_wait_us = 2;
  return d;
}

/// A kernel running `us` µs on the device, bound by bandwidth: it moves us·1e5 bytes and computes
/// almost nothing. Its predicted time carries one launch, as the cost model's do.
inline core::NodeCost bandwidth_bound(double us) {
  core::NodeCost c;
  c.time_us = us + kTestLaunch;
  c.bytes = us * 1e5;
  c.flops = us * 1e2;
  c.bound = core::Bound::Memory;
  c.known = true;
  return c;
}

/// A kernel running `us` µs on the device, bound by compute: us·1e6 flops over few bytes.
inline core::NodeCost compute_bound(double us) {
  core::NodeCost c;
  c.time_us = us + kTestLaunch;
  c.flops = us * 1e6;
  c.bytes = us * 1e3;
  c.bound = core::Bound::Compute;
  c.known = true;
  return c;
}

inline core::CostTable table(std::vector<core::NodeCost> nodes) {
  core::CostTable t;
  t.device = "test";
  t.nodes = std::move(nodes);
  return t;
}

/// Every data edge between different streams becomes an event (valid, not minimal).
inline std::vector<core::Event> cross_stream_events(const core::Graph& g, const std::vector<int>& stream_of) {
  std::vector<core::Event> ev;
  for (std::size_t u = 0; u < g.node_count(); ++u)
    for (core::NodeId v : g.successors(static_cast<core::NodeId>(u)))
      if (stream_of[u] != stream_of[static_cast<std::size_t>(v)]) ev.push_back({static_cast<core::NodeId>(u), v});
  return ev;
}

}  // namespace weft::test
