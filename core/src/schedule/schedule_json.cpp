// Schedule JSON (docs/schedule-format.md): export, validated import, atomic save and load.
#include "weft/core/schedule_json.h"

#include <nlohmann/json.hpp>

#include "weft/core/file_io.h"
#include "weft/core/sync.h"

namespace weft::core {
namespace {

constexpr const char* kFormat = "weft-schedule";
constexpr int kVersion = 1;

Error refuse(std::string message) { return make_error(ErrorKind::InvalidInput, "schedule JSON: " + std::move(message)); }

}  // namespace

std::string schedule_to_json(const Graph& graph, const Schedule& schedule, std::string_view device) {
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["model"] = {{"path", graph.info().model_path}, {"sha256", graph.info().model_sha256}};
  j["device"] = std::string(device);
  j["strategy"] = schedule.strategy;
  j["options"] = schedule.options;
  auto streams = nlohmann::ordered_json::array();
  for (const auto& stream : schedule.streams) {
    auto keys = nlohmann::ordered_json::array();
    for (NodeId v : stream) keys.push_back(graph.key(v));
    streams.push_back(std::move(keys));
  }
  j["streams"] = std::move(streams);
  auto events = nlohmann::ordered_json::array();
  for (const Event& e : schedule.events) events.push_back({{"from", graph.key(e.from)}, {"to", graph.key(e.to)}});
  j["events"] = std::move(events);
  return j.dump(2) + "\n";
}

Expected<Schedule> schedule_from_json(const Graph& graph, std::string_view json_text, const ScheduleImport& how) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    return refuse(std::string("malformed JSON: ") + e.what());
  }
  if (!j.is_object()) return refuse("the top level must be an object");
  auto string_field = [&](const nlohmann::json& obj, const char* key, std::string& out) -> bool {
    auto it = obj.find(key);
    if (it == obj.end() || !it->is_string()) return false;
    out = it->get<std::string>();
    return true;
  };
  std::string format;
  if (!string_field(j, "format", format) || format != kFormat)
    return refuse("'format' must be \"" + std::string(kFormat) + "\"");
  auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer() || version->get<std::int64_t>() != kVersion)
    return refuse("unsupported 'version' (this weft reads version " + std::to_string(kVersion) + ")");
  if (auto model = j.find("model"); model != j.end()) {
    if (!model->is_object()) return refuse("'model' must be an object {path, sha256}");
    std::string sha, path;
    string_field(*model, "path", path);
    if (string_field(*model, "sha256", sha) && !sha.empty() && !graph.info().model_sha256.empty() &&
        sha != graph.info().model_sha256)
      return refuse("it was made for another model ('" + path + "', sha256 " + sha.substr(0, 12) + "...), not '" +
                    graph.info().model_path + "' (sha256 " + graph.info().model_sha256.substr(0, 12) + "...)");
  }
  Schedule s;
  if (auto it = j.find("strategy"); it != j.end() && !string_field(j, "strategy", s.strategy))
    return refuse("'strategy' must be a string");
  if (auto it = j.find("options"); it != j.end() && !string_field(j, "options", s.options))
    return refuse("'options' must be a string");

  auto node_of = [&](const nlohmann::json& key, std::string_view where) -> Expected<NodeId> {
    if (!key.is_string()) return refuse(std::string(where) + ": node keys must be strings");
    const auto k = key.get<std::string>();
    auto v = graph.find_node(k);
    if (!v) return refuse(std::string(where) + ": unknown node '" + k + "' (not in the model)");
    return *v;
  };
  auto streams = j.find("streams");
  if (streams == j.end() || !streams->is_array()) return refuse("'streams' must be a list of lists of node keys");
  if (streams->size() > kMaxScheduleStreams)
    return refuse("'streams' lists " + std::to_string(streams->size()) + " streams; weft handles at most " +
                  std::to_string(kMaxScheduleStreams));
  std::vector<int> stream_of(graph.node_count(), -1);
  for (std::size_t si = 0; si < streams->size(); ++si) {
    const auto& keys = (*streams)[si];
    if (!keys.is_array()) return refuse("stream " + std::to_string(si) + " must be a list of node keys");
    auto& stream = s.streams.emplace_back();
    for (const auto& key : keys) {
      WEFT_TRY_ASSIGN(auto v, node_of(key, "stream " + std::to_string(si)));
      int& placed = stream_of[static_cast<std::size_t>(v)];
      if (placed >= 0)
        return refuse("duplicate node '" + graph.key(v) + "' (on stream " + std::to_string(placed) + " and stream " +
                      std::to_string(si) + ")");
      placed = static_cast<int>(si);
      stream.push_back(v);
    }
  }
  std::size_t missing = 0;
  std::string first_missing;
  for (std::size_t v = 0; v < graph.node_count(); ++v)
    if (stream_of[v] < 0 && missing++ == 0) first_missing = graph.key(static_cast<NodeId>(v));
  if (missing > 0)
    return refuse(std::to_string(missing) + " node(s) of the model are on no stream (first: '" + first_missing + "')");
  if (auto events = j.find("events"); events != j.end()) {
    if (!events->is_array()) return refuse("'events' must be a list of {\"from\", \"to\"}");
    for (std::size_t i = 0; i < events->size(); ++i) {
      const auto& e = (*events)[i];
      const std::string where = "event " + std::to_string(i);
      if (!e.is_object() || !e.contains("from") || !e.contains("to")) return refuse(where + " must be {\"from\": key, \"to\": key}");
      WEFT_TRY_ASSIGN(auto from, node_of(e["from"], where));
      WEFT_TRY_ASSIGN(auto to, node_of(e["to"], where));
      s.events.push_back(Event{from, to});
    }
  } else if (how.compute_missing_events) {
    // compute_events needs data edges ∪ stream order acyclic. With an event on every cross-stream
    // data edge, validation fails exactly when that union has a cycle, and names it.
    std::vector<int> on(graph.node_count(), -1);
    for (std::size_t si = 0; si < s.streams.size(); ++si)
      for (NodeId v : s.streams[si]) on[static_cast<std::size_t>(v)] = static_cast<int>(si);
    for (std::size_t u = 0; u < graph.node_count(); ++u)
      for (NodeId v : graph.successors(static_cast<NodeId>(u)))
        if (on[u] != on[static_cast<std::size_t>(v)]) s.events.push_back(Event{static_cast<NodeId>(u), v});
    if (Status ok = validate_schedule(graph, s); !ok) return refuse(ok.error().message);
    s.events = compute_events(graph, s);
  }
  if (Status ok = validate_schedule(graph, s); !ok) return refuse(ok.error().message);
  return s;
}

Status save_schedule(const std::string& path, const Graph& graph, const Schedule& schedule, std::string_view device) {
  return write_file_atomic(path, schedule_to_json(graph, schedule, device));
}

Expected<Schedule> load_schedule(const std::string& path, const Graph& graph) {
  WEFT_TRY_ASSIGN(auto text, read_file(path));
  auto s = schedule_from_json(graph, text);
  if (!s) return make_error(s.error().kind, path + ": " + s.error().message);
  return s;
}

}  // namespace weft::core
