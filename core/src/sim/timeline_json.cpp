// Timeline JSON: the exchange format between runs (measured) and calibration (predicted).
#include "weft/core/sim/timeline_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "weft/core/base/file_io.h"
#include "weft/core/schedule/timeline.h"

namespace weft::core {

namespace {

using ojson = nlohmann::ordered_json;

constexpr const char* kTimelineFormat = "weft-timeline";
constexpr int kTimelineVersion = 1;

ojson counter_json(const std::vector<CounterSample>& v) {
  ojson a = ojson::array();
  for (const CounterSample& s : v) a.push_back(ojson::array({s.time_us, s.value}));
  return a;
}

}  // namespace

std::string timeline_to_json(const Graph& graph, const Timeline& timeline) {
  ojson j;
  j["format"] = kTimelineFormat;
  j["version"] = kTimelineVersion;
  j["model"] = {{"path", graph.info().model_path}, {"sha256", graph.info().model_sha256}};
  j["label"] = timeline.label;
  j["kind"] = run_kind_name(timeline.kind);
  j["backend"] = timeline.backend;
  j["strategy"] = timeline.strategy;
  j["device"] = timeline.device;
  j["stream_count"] = timeline.stream_count;
  ojson nodes = ojson::array();
  for (const TimelineItem& it : timeline.items) {
    if (it.node < 0 || static_cast<std::size_t>(it.node) >= graph.node_count()) continue;
    nodes.push_back({{"name", graph.key(it.node)}, {"stream", it.stream}, {"start_us", it.start_us}, {"end_us", it.end_us}});
  }
  j["nodes"] = std::move(nodes);
  ojson events = ojson::array();
  for (const Event& e : timeline.events)
    if (e.from >= 0 && e.to >= 0 && static_cast<std::size_t>(std::max(e.from, e.to)) < graph.node_count())
      events.push_back({{"from", graph.key(e.from)}, {"to", graph.key(e.to)}});
  j["events"] = std::move(events);
  j["counters"] = {{"arena_bytes", counter_json(timeline.arena_bytes)},
                   {"compute_use", counter_json(timeline.compute_use)},
                   {"bandwidth_use", counter_json(timeline.bandwidth_use)}};
  return j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Expected<Timeline> timeline_from_json(const Graph& graph, std::string_view json_text, std::string_view origin) {
  const std::string where(origin);
  auto fail = [&](const std::string& why) { return make_error(ErrorKind::InvalidInput, where + ": " + why); };
  ojson j;
  try {
    j = ojson::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("not valid JSON: ") + e.what());
  }
  try {
    if (!j.is_object()) return fail("expected a JSON object");
    if (j.value("format", std::string()) != kTimelineFormat)
      return fail("not a Weft timeline (\"format\" must be \"" + std::string(kTimelineFormat) + "\")");
    if (j.value("version", 0) != kTimelineVersion) return fail("unsupported timeline version " + j.value("version", ojson()).dump());
    if (j.contains("model") && j["model"].is_object()) {
      const std::string sha = j["model"].value("sha256", std::string());
      if (!sha.empty() && !graph.info().model_sha256.empty() && sha != graph.info().model_sha256)
        return fail("recorded for another model (sha256 " + sha.substr(0, 12) + "..., this model " +
                    graph.info().model_sha256.substr(0, 12) + "...)");
    }
    Timeline tl;
    tl.label = j.value("label", std::string());
    const std::string kind = j.value("kind", std::string("measured"));
    const auto parsed = parse_run_kind(kind);
    if (!parsed) return fail("unknown run kind '" + kind + "'");
    tl.kind = *parsed;
    tl.backend = j.value("backend", std::string());
    tl.strategy = j.value("strategy", std::string());
    tl.device = j.value("device", std::string());
    tl.stream_count = j.value("stream_count", 0);
    if (!j.contains("nodes") || !j["nodes"].is_array()) return fail("missing \"nodes\" array");
    for (const ojson& n : j["nodes"]) {
      const std::string name = n.at("name").get<std::string>();
      const auto id = graph.find_node(name);
      if (!id) return fail("node '" + name + "' is not in the model");
      TimelineItem it;
      it.node = *id;
      it.stream = n.value("stream", 0);
      it.start_us = n.at("start_us").get<double>();
      it.end_us = n.at("end_us").get<double>();
      if (!std::isfinite(it.start_us) || !std::isfinite(it.end_us) || it.start_us < 0 || it.end_us < it.start_us)
        return fail("node '" + name + "' has invalid times (start_us " + std::to_string(it.start_us) + ", end_us " +
                    std::to_string(it.end_us) + ")");
      if (it.stream < 0) return fail("node '" + name + "' has a negative stream");
      tl.stream_count = std::max(tl.stream_count, it.stream + 1);
      tl.items.push_back(it);
    }
    if (j.contains("events"))
      for (const ojson& e : j["events"]) {
        const auto from = graph.find_node(e.at("from").get<std::string>());
        const auto to = graph.find_node(e.at("to").get<std::string>());
        if (!from || !to) return fail("event " + e.dump() + " names a node that is not in the model");
        tl.events.push_back({*from, *to});
      }
    if (j.contains("counters")) {
      auto read = [&](const char* name, std::vector<CounterSample>& out) {
        if (!j["counters"].contains(name)) return;
        for (const ojson& s : j["counters"][name]) out.push_back({s.at(0).get<double>(), s.at(1).get<double>()});
      };
      read("arena_bytes", tl.arena_bytes);
      read("compute_use", tl.compute_use);
      read("bandwidth_use", tl.bandwidth_use);
    }
    return tl;
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("malformed timeline: ") + e.what());
  }
}

Status save_timeline(const std::string& path, const Graph& graph, const Timeline& timeline) {
  return write_file_atomic(path, timeline_to_json(graph, timeline));
}

Expected<Timeline> load_timeline(const std::string& path, const Graph& graph) {
  WEFT_TRY_ASSIGN(auto text, read_file(path, kMaxTextBytes));
  return timeline_from_json(graph, text, path);
}

}  // namespace weft::core
