#pragma once
// Timelines: per-node start and end on streams, predicted (simulator) or measured (executors).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"

namespace weft::core {

/// What a run is: a prediction of a schedule, a measured run, or one of the two sequential
/// baselines (the reference schedule predicted with eager launches / as one CUDA Graph).
enum class RunKind : std::uint8_t { Predicted, Measured, BaselineEager, BaselineGraph };
/// "predicted", "measured", "sequential-eager", "sequential-graph" (the names in timeline JSON
/// and Chrome traces).
std::string_view run_kind_name(RunKind kind);
/// The kind named `name`, or nothing for an unknown name.
std::optional<RunKind> parse_run_kind(std::string_view name);

/// What tells one run from another (labels are for people and play no part): its kind, the
/// executor that measured it ("cpu", "cuda", "cuda-graph"; empty for predictions and baselines)
/// and the strategy of the schedule it ran ("sequential" for the reference schedule).
struct RunIdentity {
  RunKind kind = RunKind::Measured;
  std::string backend;
  std::string strategy;
  friend bool operator==(const RunIdentity&, const RunIdentity&) = default;
};

/// The label core gives a run of `identity`: "predicted <strategy>", "measured <backend>
/// <strategy>" (an empty strategy reads "schedule"), "sequential eager", "sequential CUDA Graph".
std::string run_label(const RunIdentity& identity);

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
  std::string label;    ///< run name shown in traces and the studio, e.g. "predicted cp-list" (run_label)
  RunKind kind = RunKind::Measured;
  std::string backend;   ///< RunIdentity::backend: the executor of a measured run, else empty
  std::string strategy;  ///< RunIdentity::strategy: the strategy of the schedule that ran
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
  RunIdentity identity() const { return {kind, backend, strategy}; }
};

/// Pairs of items on different streams whose intervals overlap: what a measured run actually ran
/// concurrently. O(n log n + pairs).
std::int64_t overlapped_pairs(const Timeline& timeline);

}  // namespace weft::core
