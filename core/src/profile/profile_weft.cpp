// Weft's own Chrome trace (chrome_trace.h) read back: one process per run, one thread per stream,
// one "X" event per node named by its key. The run taken is the last measured one (`weft run
// --trace`: the schedule's, after the reference run), else the first run; a trace holds one
// iteration.
#include <algorithm>

#include "profile_detail.h"

namespace weft::core::detail {

Expected<ProfileRecords> weft_trace_records(const Graph& graph, std::string_view text, const std::string& path) {
  WEFT_TRY_ASSIGN(const nlohmann::json doc, parse_profile_json(text, path));
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
    return make_error(ErrorKind::InvalidInput, path + ": not a Weft Chrome trace (no \"traceEvents\")");
  const nlohmann::json other = doc.contains("otherData") ? doc["otherData"] : nlohmann::json::object();
  int pid = 1;
  std::string label, device, backend;
  if (other.contains("runs") && other["runs"].is_array()) {
    const nlohmann::json* chosen = nullptr;
    // The last measured run: `weft run --trace` writes the reference (sequential) run first and
    // the schedule's run after it.
    for (const auto& r : other["runs"])
      if (json_string(r, "kind") == "measured") chosen = &r;
    if (!chosen && !other["runs"].empty()) chosen = &other["runs"][0];
    if (chosen) {
      pid = static_cast<int>(json_number(*chosen, "pid").value_or(1));
      label = json_string(*chosen, "label");
      device = json_string(*chosen, "device");
      backend = json_string(*chosen, "backend");
    }
  }
  ProfileRecords out;
  double end = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (json_string(e, "ph") != "X" || json_number(e, "pid").value_or(-1) != pid) continue;
    const auto ts = json_number(e, "ts");
    const auto dur = json_number(e, "dur");
    if (!ts || !dur || *dur < 0) return make_error(ErrorKind::InvalidInput, path + ": event without ts and dur");
    ProfileRecord r;
    r.name = json_string(e, "name");
    r.op = json_string(e, "cat");
    r.stream = static_cast<int>(json_number(e, "tid").value_or(0));
    r.start_us = *ts;
    r.dur_us = *dur;
    if (auto n = graph.find_node(r.name); n && graph.node(*n).op_type == r.op) {
      r.nodes = {*n};
      r.match = ProfileMatch::RoundTrip;
    }
    end = std::max(end, *ts + *dur);
    out.records.push_back(std::move(r));
  }
  // The run's makespan (Timeline::makespan_us): from its first start to its last end.
  double start = end;
  for (const ProfileRecord& r : out.records) start = std::min(start, r.start_us);
  for (ProfileRecord& r : out.records) r.start_us -= start;
  if (!out.records.empty()) out.iteration_us.push_back(end - start);
  // A CPU executor's run, or a prediction for a CPU device file; GPU otherwise.
  out.device_kind = backend == "cpu" || (backend.empty() && device.find("cpu") != std::string::npos) ? DeviceKind::Cpu : DeviceKind::Gpu;
  out.source = "Weft trace" + (label.empty() ? std::string() : ", " + label) + (device.empty() ? std::string() : " on " + device);
  const std::string sha = json_string(other, "sha256");
  if (!sha.empty() && !graph.info().model_sha256.empty() && sha != graph.info().model_sha256)
    out.notes.push_back("the trace records another model file (sha256 " + sha.substr(0, 12) + "...); matched by node names");
  return out;
}

}  // namespace weft::core::detail
