// Schedule JSON (docs/schedule-format.md): export, validated import, atomic save and load.
#include "weft/core/schedule/schedule_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "weft/core/base/file_io.h"
#include "weft/core/graph/fused_node.h"
#include "weft/core/graph/merged_node.h"
#include "weft/core/schedule/sync.h"

namespace weft::core {
namespace {

constexpr const char* kScheduleFormat = "weft-schedule";
constexpr int kScheduleVersion = 1;

Error refuse(std::string message) { return make_error(ErrorKind::InvalidInput, "schedule JSON: " + std::move(message)); }

/// The nodes a file records under `field` ("merges", "fusions") against `graph`: each listed node
/// is one of the graph's `kind` nodes (`is_kind`), and every such node of the graph is listed.
Status check_recorded_nodes(const Graph& graph, const nlohmann::json& j, const std::string& field, const std::string& what,
                            const std::string& kind, bool (*is_kind)(const Node&)) {
  const auto have = static_cast<std::size_t>(std::count_if(graph.nodes().begin(), graph.nodes().end(), is_kind));
  std::size_t listed = 0;
  if (auto entries = j.find(field); entries != j.end()) {
    if (!entries->is_array()) return refuse("'" + field + "' must be a list of {\"node\", \"members\"}");
    listed = entries->size();
    if (listed > 0 && have == 0)
      return refuse("it runs " + std::to_string(listed) + " " + what + " of operators; load it with its " + field +
                    " (weft applies them to the model it loads)");
    for (const auto& e : *entries) {
      if (!e.is_object() || !e.contains("node") || !e["node"].is_string())
        return refuse("each entry of '" + field + "' must be {\"node\": key, \"members\": [keys]}");
      const std::string key = e["node"].get<std::string>();
      auto v = graph.find_node(key);
      if (!v || !is_kind(graph.node(*v)))
        return refuse(field + ": '" + key + "' is not a " + kind + " node of the model it was loaded onto");
    }
  }
  if (listed != have)
    return refuse("the model has " + std::to_string(have) + " " + kind + " node(s), the schedule records " + std::to_string(listed) +
                  " " + (field == "merges" ? std::string("merge(s)") : std::string("fusion(s)")));
  return {};
}

}  // namespace

std::string schedule_to_json(const Graph& graph, const Schedule& schedule, std::string_view device) {
  nlohmann::ordered_json j;
  j["format"] = kScheduleFormat;
  j["version"] = kScheduleVersion;
  j["model"] = {{"path", graph.info().model_path}, {"sha256", graph.info().model_sha256}};
  j["device"] = std::string(device);
  j["strategy"] = schedule.strategy;
  j["options"] = schedule.options;
  if (schedule.threads_per_stream > 1) j["threads_per_stream"] = schedule.threads_per_stream;
  // Hybrid teams: the nodes whose team is not their stream's, by key.
  if (schedule.has_node_teams()) {
    auto teams = nlohmann::ordered_json::object();
    for (std::size_t v = 0; v < schedule.node_threads.size() && v < graph.node_count(); ++v)
      if (const int t = schedule.team_of(static_cast<NodeId>(v)); t != schedule.threads_per_stream) teams[graph.key(static_cast<NodeId>(v))] = t;
    j["node_threads"] = std::move(teams);
  }
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
  auto merges = nlohmann::ordered_json::array(), fusions = nlohmann::ordered_json::array();
  for (std::size_t v = 0; v < graph.node_count(); ++v) {
    const Node& node = graph.node(static_cast<NodeId>(v));
    if (!is_merged_node(node) && !is_fused_node(node)) continue;
    const Attribute* body = node.attribute("body");
    auto members = nlohmann::ordered_json::array();
    if (body && body->graph)
      for (const Node& m : body->graph->nodes()) members.push_back(m.name);
    (is_fused_node(node) ? fusions : merges).push_back({{"node", node.name}, {"members", std::move(members)}});
  }
  if (!fusions.empty()) j["fusions"] = std::move(fusions);
  if (!merges.empty()) j["merges"] = std::move(merges);
  if (graph.info().micro_batches >= 2) j["split"] = {{"k", graph.info().micro_batches}, {"batch", graph.info().split_batch}};
  return j.dump(2) + "\n";
}

Status check_schedule_model(const ScheduleHeader& header, const Graph& graph) {
  const std::string& sha = header.model_sha256;
  if (sha.empty() || graph.info().model_sha256.empty() || sha == graph.info().model_sha256) return {};
  return refuse("it was made for another model ('" + header.model_path + "', sha256 " + sha.substr(0, 12) + "...), not '" +
                graph.info().model_path + "' (sha256 " + graph.info().model_sha256.substr(0, 12) + "...)");
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
  if (!string_field(j, "format", format) || format != kScheduleFormat)
    return refuse("'format' must be \"" + std::string(kScheduleFormat) + "\"");
  auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer() || version->get<std::int64_t>() != kScheduleVersion)
    return refuse("unsupported 'version' (this weft reads version " + std::to_string(kScheduleVersion) + ")");
  if (auto model = j.find("model"); model != j.end()) {
    if (!model->is_object()) return refuse("'model' must be an object {path, sha256}");
    ScheduleHeader named;
    string_field(*model, "path", named.model_path);
    string_field(*model, "sha256", named.model_sha256);
    WEFT_TRY(check_schedule_model(named, graph));
  }
  // A micro-batch split: the graph must be the model split the same way.
  {
    WEFT_TRY_ASSIGN(const auto split, schedule_split_from_json(json_text));
    const int have = std::max(1, graph.info().micro_batches);
    if (split.k != have)
      return refuse(split.k > 1 ? "it runs the model split into " + std::to_string(split.k) +
                                      " micro-batches; load it with --split " + std::to_string(split.k) +
                                      " (weft splits the model it loads)"
                                : "it was made for the unsplit model, not one split into " + std::to_string(have) + " micro-batches");
    if (split.k > 1 && split.batch != graph.info().split_batch)
      return refuse("it splits batch " + std::to_string(split.batch) + ", the model has batch " +
                    std::to_string(graph.info().split_batch));
  }
  // Merges and fusions: the graph must be the model they describe.
  WEFT_TRY(check_recorded_nodes(graph, j, "merges", "merge group(s)", "merged", is_merged_node));
  WEFT_TRY(check_recorded_nodes(graph, j, "fusions", "fused chain(s)", "fused", is_fused_node));
  Schedule s;
  if (auto it = j.find("strategy"); it != j.end() && !string_field(j, "strategy", s.strategy))
    return refuse("'strategy' must be a string");
  if (auto it = j.find("options"); it != j.end() && !string_field(j, "options", s.options))
    return refuse("'options' must be a string");
  if (auto it = j.find("threads_per_stream"); it != j.end()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 1 || it->get<std::int64_t>() > 4096)
      return refuse("'threads_per_stream' must be a whole number from 1 to 4096");
    s.threads_per_stream = static_cast<int>(it->get<std::int64_t>());
  }

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
  if (auto teams = j.find("node_threads"); teams != j.end()) {
    if (!teams->is_object()) return refuse("'node_threads' must be an object {node key: threads}");
    s.node_threads.assign(graph.node_count(), 0);
    for (const auto& [key, threads] : teams->items()) {
      WEFT_TRY_ASSIGN(auto v, node_of(nlohmann::json(key), "node_threads"));
      if (!threads.is_number_integer() || threads.get<std::int64_t>() < 1 || threads.get<std::int64_t>() > 4096)
        return refuse("node_threads: '" + key + "' must have a whole number of threads from 1 to 4096");
      s.node_threads[static_cast<std::size_t>(v)] = static_cast<std::int32_t>(threads.get<std::int64_t>());
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

namespace {

Expected<nlohmann::json> parse_object(std::string_view json_text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    return refuse(std::string("malformed JSON: ") + e.what());
  }
  if (!j.is_object()) return refuse("the top level must be an object");
  return j;
}

Expected<ScheduleSplit> split_of(const nlohmann::json& j) {
  ScheduleSplit out;
  auto split = j.find("split");
  if (split == j.end()) return out;
  if (!split->is_object() || !split->contains("k") || !(*split)["k"].is_number_integer() || !split->contains("batch") ||
      !(*split)["batch"].is_number_integer())
    return refuse("'split' must be {\"k\": integer, \"batch\": integer}");
  const auto k = (*split)["k"].get<std::int64_t>();
  if (k < 2 || k > 4096) return refuse("'split' k must be between 2 and 4096 (--split's range), got " + std::to_string(k));
  out.k = static_cast<int>(k);
  out.batch = (*split)["batch"].get<std::int64_t>();
  return out;
}

}  // namespace

Expected<ScheduleSplit> schedule_split_from_json(std::string_view json_text) {
  WEFT_TRY_ASSIGN(const nlohmann::json j, parse_object(json_text));
  return split_of(j);
}

Expected<ScheduleHeader> schedule_header_from_json(std::string_view json_text) {
  WEFT_TRY_ASSIGN(const nlohmann::json j, parse_object(json_text));
  ScheduleHeader out;
  WEFT_TRY_ASSIGN(out.split, split_of(j));
  if (auto model = j.find("model"); model != j.end()) {
    if (!model->is_object()) return refuse("'model' must be an object {path, sha256}");
    if (auto path = model->find("path"); path != model->end()) {
      if (!path->is_string()) return refuse("'model.path' must be a string");
      out.model_path = path->get<std::string>();
    }
    if (auto sha = model->find("sha256"); sha != model->end()) {
      if (!sha->is_string()) return refuse("'model.sha256' must be a string");
      out.model_sha256 = sha->get<std::string>();
    }
  }
  if (auto merges = j.find("merges"); merges != j.end()) {
    if (!merges->is_array()) return refuse("'merges' must be a list of {\"node\", \"members\"}");
    out.merges = merges->size();
  }
  if (auto fusions = j.find("fusions"); fusions != j.end()) {
    if (!fusions->is_array()) return refuse("'fusions' must be a list of {\"node\", \"members\"}");
    out.fusions = fusions->size();
  }
  if (auto strategy = j.find("strategy"); strategy != j.end() && strategy->is_string()) out.strategy = strategy->get<std::string>();
  return out;
}

namespace {

/// The groups listed under `field` ("merges": sorted by id; "fusions": in chain order).
Expected<std::vector<std::vector<NodeId>>> groups_from_json(const Graph& graph, std::string_view json_text, const std::string& field,
                                                            const std::string& entry, bool sort) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    return refuse(std::string("malformed JSON: ") + e.what());
  }
  std::vector<std::vector<NodeId>> groups;
  if (!j.is_object()) return refuse("the top level must be an object");
  auto merges = j.find(field);
  if (merges == j.end()) return groups;
  if (!merges->is_array()) return refuse("'" + field + "' must be a list of {\"node\", \"members\"}");
  std::vector<int> group_of(graph.node_count(), -1);
  for (std::size_t i = 0; i < merges->size(); ++i) {
    const auto& m = (*merges)[i];
    const std::string where = entry + " " + std::to_string(i);
    if (!m.is_object() || !m.contains("members") || !m["members"].is_array())
      return refuse(where + " must be {\"node\": key, \"members\": [keys]}");
    auto& group = groups.emplace_back();
    for (const auto& key : m["members"]) {
      if (!key.is_string()) return refuse(where + ": member keys must be strings");
      const auto k = key.get<std::string>();
      auto v = graph.find_node(k);
      if (!v) return refuse(where + ": unknown node '" + k + "' (not in the model)");
      int& in = group_of[static_cast<std::size_t>(*v)];
      if (in >= 0) return refuse(where + ": node '" + k + "' is already in " + entry + " " + std::to_string(in));
      in = static_cast<int>(i);
      group.push_back(*v);
    }
    if (group.size() < 2) return refuse(where + " has " + std::to_string(group.size()) + " member(s); a " + entry + " needs two or more");
    if (sort) std::sort(group.begin(), group.end());
  }
  return groups;
}

}  // namespace

Expected<std::vector<std::vector<NodeId>>> schedule_merges_from_json(const Graph& graph, std::string_view json_text) {
  return groups_from_json(graph, json_text, "merges", "merge", true);
}

Expected<std::vector<std::vector<NodeId>>> schedule_fusions_from_json(const Graph& graph, std::string_view json_text) {
  return groups_from_json(graph, json_text, "fusions", "fusion", false);
}

Status save_schedule(const std::string& path, const Graph& graph, const Schedule& schedule, std::string_view device) {
  return write_file_atomic(path, schedule_to_json(graph, schedule, device));
}

Expected<Schedule> load_schedule(const std::string& path, const Graph& graph) {
  WEFT_TRY_ASSIGN(auto text, read_file(path, kMaxTextBytes));
  auto s = schedule_from_json(graph, text);
  if (!s) return make_error(s.error().kind, path + ": " + s.error().message);
  return s;
}

}  // namespace weft::core
