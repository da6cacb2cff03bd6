#pragma once
// Schedule JSON (docs/schedule-format.md): export, validated import, atomic save.
#include <string>
#include <string_view>

#include "weft/core/graph.h"
#include "weft/core/schedule.h"

namespace weft::core {

/// Serialises a schedule with the model's path and sha256, node keys, streams, events, strategy,
/// options and device name.
std::string schedule_to_json(const Graph& graph, const Schedule& schedule, std::string_view device);
struct ScheduleImport {
  /// A file without an "events" key gets the minimal events (compute_events) instead of being
  /// refused for the data edges it leaves unenforced. External strategies may omit them.
  bool compute_missing_events = false;
};

/// Parses and validates: refuses (InvalidInput, with the reason) a schedule for another model,
/// unknown, missing or duplicate nodes, malformed JSON and deadlocks.
Expected<Schedule> schedule_from_json(const Graph& graph, std::string_view json_text, const ScheduleImport& how = {});

Status save_schedule(const std::string& path, const Graph& graph, const Schedule& schedule, std::string_view device);
Expected<Schedule> load_schedule(const std::string& path, const Graph& graph);

}  // namespace weft::core
