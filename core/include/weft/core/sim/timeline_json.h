#pragma once
// Timeline JSON (docs/trace-format.md): saved and loaded runs, checked against their model.
#include <string>
#include <string_view>

#include "weft/core/base/expected.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/timeline.h"

namespace weft::core {

/// Timeline JSON (docs/trace-format.md): format "weft-timeline", version 1, the model's path
/// and sha256, label, kind, backend, strategy, device, stream_count, nodes by key with stream/start_us/end_us,
/// events by node keys and the counters. O(items + samples).
std::string timeline_to_json(const Graph& graph, const Timeline& timeline);
/// Parses timeline JSON for `graph` (an absent "kind" is "measured"). Refuses (InvalidInput,
/// naming `origin` and the problem) malformed JSON, an unknown kind, another model (sha256 differs when both are known), unknown node keys,
/// negative or reversed times and unknown event nodes.
Expected<Timeline> timeline_from_json(const Graph& graph, std::string_view json_text, std::string_view origin = "timeline");
/// Atomic save / load of timeline JSON.
Status save_timeline(const std::string& path, const Graph& graph, const Timeline& timeline);
Expected<Timeline> load_timeline(const std::string& path, const Graph& graph);

}  // namespace weft::core
