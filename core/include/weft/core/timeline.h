#pragma once
// Timelines: per-node start and end on streams, predicted (simulator) or measured (executors).
#include <cstdint>
#include <string>
#include <vector>

#include "weft/core/graph.h"
#include "weft/core/schedule.h"

namespace weft::core {

struct TimelineItem {
  NodeId node = kNoNode;
  int stream = 0;
  double start_us = 0;
  double end_us = 0;
};

/// A sample of a device-wide counter over time (arena bytes, compute or bandwidth use).
struct CounterSample {
  double time_us = 0;
  double value = 0;
};

struct Timeline {
  std::string label;    ///< run name shown in traces and the studio, e.g. "predicted cp-list"
  std::string kind;     ///< "predicted", "measured", "sequential-eager", "sequential-graph", ...
  std::string device;   ///< device preset or real device name
  int stream_count = 0;
  std::vector<TimelineItem> items;     ///< one per executed node
  std::vector<Event> events;           ///< cross-stream waits (drawn as flows)
  std::vector<CounterSample> arena_bytes;
  std::vector<CounterSample> compute_use;    ///< 0..1, predicted timelines
  std::vector<CounterSample> bandwidth_use;  ///< 0..1, predicted timelines

  double makespan_us() const;
  /// Busy time per stream (union of its items), µs.
  std::vector<double> stream_busy_us() const;
};

}  // namespace weft::core
