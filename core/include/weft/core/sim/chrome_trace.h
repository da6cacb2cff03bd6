#pragma once
// Chrome trace export (docs/trace-format.md): several timelines in one file, one process per run,
// for Perfetto and chrome://tracing.
#include <span>
#include <string>

#include "weft/core/cost/cost_model.h"
#include "weft/core/base/expected.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/timeline.h"

namespace weft::core {

/// Weft's metadata written under "otherData"; empty fields fall back to the graph's info and
/// the first timeline's device.
struct TraceInfo {
  std::string model;     ///< model path
  std::string sha256;    ///< model content hash
  std::string device;
  std::string strategy;
};

/// The trace as JSON text: "displayTimeUnit" first, then "traceEvents" (process/thread name
/// metadata, one `X` event per item with args op/flops/bytes, `s`/`f` flow pairs with bp "e"
/// for every event between different streams, `C` counters for arena bytes and device use),
/// then "otherData". Run i is pid i + 1, stream s is tid s. `costs` (may be null) fills flops
/// and bytes. O(total items + events + samples).
std::string chrome_trace_json(const Graph& graph, std::span<const Timeline> runs, const CostTable* costs = nullptr,
                              const TraceInfo& info = {});

/// Writes chrome_trace_json() atomically to `path`.
Status save_chrome_trace(const std::string& path, const Graph& graph, std::span<const Timeline> runs,
                         const CostTable* costs = nullptr, const TraceInfo& info = {});

}  // namespace weft::core
