// The mapping report of `weft profile` (text and JSON): the replay error first, so a reader knows
// how far to trust what follows, then what matched how and what did not.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "profile_detail.h"
#include "weft/core/text_format.h"

namespace weft::core {

namespace {

constexpr std::size_t kListed = 10;

std::string signed_percent(double fraction) { return (fraction >= 0 ? "+" : "") + fixed_text(100 * fraction, 1) + "%"; }

std::size_t operator_count(const Profile& p) { return p.matched_count() + p.unmatched_nodes.size(); }

}  // namespace

std::string profile_report_text(const Graph& graph, const Profile& p, const ProfileReplay& replay) {
  std::string out;
  const std::string iterations = p.iterations.size() == 1 ? "1 iteration" : "median of " + std::to_string(p.iterations.size()) + " iterations";
  out += "replay error: " + signed_percent(replay.error) + " (" + iterations + ", worst " + signed_percent(replay.worst_error) +
         "; the profiled run's own schedule on " +
         std::to_string(p.schedule.stream_count()) + " stream" + (p.schedule.stream_count() == 1 ? "" : "s") + " replays iteration " +
         std::to_string(replay.iteration + 1) + " in " + fixed_text(replay.replayed_us / 1000, 3) + " ms, measured " +
         fixed_text(replay.measured_us / 1000, 3) + " ms)\n";
  out += "iteration: " + fixed_text(p.iteration_us / 1000, 3) + " ms measured" +
         (p.runs > 1 ? " (median of " + std::to_string(p.runs) + ")" : std::string()) + "\n";
  out += "profile: " + p.path + " (" + p.source + ", " + std::string(profile_format_name(p.format)) + ")\n";
  const std::size_t ops = operator_count(p);
  const std::size_t matched_ops = ops - p.unmatched_nodes.size();
  out += "matched: " + std::to_string(matched_ops) + " of " + std::to_string(ops) + " operators (" +
         fixed_text(ops ? 100.0 * static_cast<double>(matched_ops) / static_cast<double>(ops) : 0, 1) + "%)";
  const std::vector<std::size_t> counts = p.match_counts();
  std::string how;
  for (std::size_t m = 1; m < counts.size(); ++m)
    if (counts[m] > 0) how += (how.empty() ? "" : ", ") + std::to_string(counts[m]) + " " + std::string(profile_match_name(static_cast<ProfileMatch>(m)));
  out += how.empty() ? "\n" : "; nodes by match: " + how + "\n";
  double total = 0;
  for (const auto& t : p.node_us)
    if (t) total += *t;
  out += "measured node time: " + fixed_text(total / 1000, 3) + " ms per iteration; idle between kernels on a stream: " +
         fixed_text(p.gap_us, 1) + " us (mean, pre-emptions left out)\n";
  if (!p.unmatched_nodes.empty()) {
    out += "unmatched nodes (keep their prediction): " + std::to_string(p.unmatched_nodes.size()) + "\n";
    for (std::size_t i = 0; i < std::min(kListed, p.unmatched_nodes.size()); ++i)
      out += "  " + graph.key(p.unmatched_nodes[i]) + " (" + graph.node(p.unmatched_nodes[i]).op_type + ")\n";
    if (p.unmatched_nodes.size() > kListed) out += "  ... " + std::to_string(p.unmatched_nodes.size() - kListed) + " more\n";
  }
  if (!p.unmatched_events.empty()) {
    out += "events matching no node: " + std::to_string(p.unmatched_events.size()) + "\n";
    for (std::size_t i = 0; i < std::min(kListed, p.unmatched_events.size()); ++i) {
      const UnmatchedEvent& e = p.unmatched_events[i];
      out += "  " + e.name + (e.op.empty() || e.op == e.name ? "" : " (" + e.op + ")") + ": " + fixed_text(e.time_us, 1) + " us\n";
    }
    if (p.unmatched_events.size() > kListed) out += "  ... " + std::to_string(p.unmatched_events.size() - kListed) + " more\n";
  }
  for (const std::string& note : p.notes) out += "note: " + note + "\n";
  return out;
}

std::string profile_report_json(const Graph& graph, const Profile& p, const ProfileReplay& replay) {
  nlohmann::ordered_json j;
  j["format"] = "weft-profile-report";
  j["version"] = 1;
  j["replay"] = {{"error", replay.error},         {"worst_error", replay.worst_error}, {"iteration", replay.iteration},
                 {"replayed_us", replay.replayed_us}, {"measured_us", replay.measured_us},   {"streams", p.schedule.stream_count()}};
  j["profile"] = {{"path", p.path}, {"format", profile_format_name(p.format)}, {"source", p.source}, {"runs", p.runs},
                  {"iteration_us", p.iteration_us}, {"gap_us", p.gap_us}};
  const std::size_t ops = operator_count(p);
  j["operators"] = ops;
  j["operators_matched"] = ops - p.unmatched_nodes.size();
  nlohmann::ordered_json by_match = nlohmann::ordered_json::object();
  const std::vector<std::size_t> counts = p.match_counts();
  for (std::size_t m = 1; m < counts.size(); ++m) by_match[std::string(profile_match_name(static_cast<ProfileMatch>(m)))] = counts[m];
  j["nodes_by_match"] = std::move(by_match);
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  for (std::size_t v = 0; v < p.node_us.size(); ++v) {
    if (!p.node_us[v]) continue;
    nodes.push_back({{"node", graph.key(static_cast<NodeId>(v))}, {"op", graph.node(static_cast<NodeId>(v)).op_type},
                     {"match", profile_match_name(p.match[v])}, {"measured_us", *p.node_us[v]}, {"stream", p.stream[v]}});
  }
  j["nodes"] = std::move(nodes);
  nlohmann::ordered_json unmatched = nlohmann::ordered_json::array();
  for (NodeId n : p.unmatched_nodes) unmatched.push_back({{"node", graph.key(n)}, {"op", graph.node(n).op_type}});
  j["unmatched_nodes"] = std::move(unmatched);
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  for (const UnmatchedEvent& e : p.unmatched_events) events.push_back({{"name", e.name}, {"op", e.op}, {"time_us", e.time_us}});
  j["unmatched_events"] = std::move(events);
  j["notes"] = p.notes;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace weft::core
