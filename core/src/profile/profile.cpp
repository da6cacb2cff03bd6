// Importing a measured profile: the importers (profile_onnxruntime.cpp, profile_pytorch.cpp,
// profile_weft.cpp) parse and match each kernel record to nodes; this file turns the records of
// every iteration into per-node medians, the profiled run's own schedule and its timeline, and
// refuses what cannot be a profile of this model.
#include "weft/core/profile/profile.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "profile_detail.h"
#include "weft/core/base/file_io.h"
#include "weft/core/schedule/sync.h"

namespace weft::core {

using detail::idx;
using detail::median;
using detail::ProfileRecord;
using detail::ProfileRecords;

std::string_view profile_format_name(ProfileFormat format) {
  switch (format) {
    case ProfileFormat::OnnxRuntime: return "onnxruntime";
    case ProfileFormat::PyTorch: return "pytorch";
    case ProfileFormat::WeftTrace: return "weft";
  }
  return "?";
}

std::string_view profile_match_name(ProfileMatch match) {
  switch (match) {
    case ProfileMatch::None: return "none";
    case ProfileMatch::Exact: return "exact";
    case ProfileMatch::OutputTensor: return "output-tensor";
    case ProfileMatch::FusedChain: return "fused-chain";
    case ProfileMatch::Scope: return "scope";
    case ProfileMatch::RoundTrip: return "round-trip";
  }
  return "?";
}

std::size_t Profile::matched_count() const {
  return static_cast<std::size_t>(std::count_if(node_us.begin(), node_us.end(), [](const auto& t) { return t.has_value(); }));
}

std::vector<std::size_t> Profile::match_counts() const {
  std::vector<std::size_t> counts(static_cast<std::size_t>(ProfileMatch::RoundTrip) + 1, 0);
  for (std::size_t v = 0; v < match.size(); ++v)
    if (node_us[v]) ++counts[static_cast<std::size_t>(match[v])];
  return counts;
}

namespace detail {

bool is_operator(const CostTable& predicted, NodeId n) { return predicted[n].time_us > 0; }

Expected<nlohmann::json> parse_profile_json(std::string_view text, const std::string& path) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is where parsing stopped: at the end for a truncated file.
    const bool truncated = e.byte >= text.size();
    return make_error(ErrorKind::InvalidInput, path + ": " + (truncated ? "truncated" : "malformed") + " JSON at byte " +
                                                   std::to_string(e.byte) + " (" + e.what() + ")");
  } catch (const nlohmann::json::exception& e) {
    // A number the parser cannot hold (1e608) is out_of_range, not a parse_error.
    return make_error(ErrorKind::InvalidInput, path + ": malformed JSON (" + e.what() + ")");
  }
}

}  // namespace detail

namespace {

/// Each member's share of a fused record: its predicted time over the chain's (equal shares where
/// the chain's prediction is zero).
std::vector<double> chain_shares(const CostTable& predicted, const std::vector<NodeId>& nodes) {
  std::vector<double> shares(nodes.size(), 0);
  double total = 0;
  for (NodeId n : nodes) total += predicted[n].time_us;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    shares[i] = total > 0 ? predicted[nodes[i]].time_us / total : 1.0 / static_cast<double>(nodes.size());
  return shares;
}

/// Records that matched no node are absorbed into the preceding matched record on their stream in
/// the same iteration (the following one where none precedes): a reorder ONNX Runtime inserted
/// after a convolution, or a batch_norm the exporter folded into it, is time that node's kernel
/// needs in that runtime. Returns the time absorbed per iteration, µs (median).
double absorb_unmatched(const std::vector<ProfileRecord>& records, int runs, std::vector<double>& absorbed_into) {
  std::vector<std::size_t> order(records.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const ProfileRecord& x = records[a];
    const ProfileRecord& y = records[b];
    if (x.run != y.run) return x.run < y.run;
    if (x.stream != y.stream) return x.stream < y.stream;
    return x.start_us < y.start_us;
  });
  absorbed_into.assign(records.size(), 0);
  std::vector<double> per_run(static_cast<std::size_t>(runs), 0);
  std::size_t i = 0;
  while (i < order.size()) {
    std::size_t end = i;
    while (end < order.size() && records[order[end]].run == records[order[i]].run &&
           records[order[end]].stream == records[order[i]].stream)
      ++end;
    std::optional<std::size_t> last;
    std::vector<std::size_t> pending;  // unmatched before the first matched record
    for (std::size_t k = i; k < end; ++k) {
      const std::size_t r = order[k];
      if (!records[r].nodes.empty()) {
        if (!last)
          for (std::size_t p : pending) absorbed_into[r] += records[p].dur_us;
        last = r;
        continue;
      }
      per_run[static_cast<std::size_t>(records[r].run)] += records[r].dur_us;
      if (last) absorbed_into[*last] += records[r].dur_us;
      else pending.push_back(r);
    }
    i = end;
  }
  return median(per_run);
}

/// Events that matched no node, by name: median time per iteration, largest first.
std::vector<UnmatchedEvent> unmatched_events(const std::vector<ProfileRecord>& records, int runs) {
  std::map<std::string, std::pair<std::string, std::vector<double>>> by_name;
  for (const ProfileRecord& r : records) {
    if (!r.nodes.empty()) continue;
    auto& [op, per_run] = by_name[r.name];
    if (per_run.empty()) per_run.assign(static_cast<std::size_t>(runs), 0);
    op = r.op;
    per_run[static_cast<std::size_t>(r.run)] += r.dur_us;
  }
  std::vector<UnmatchedEvent> out;
  for (auto& [name, entry] : by_name) out.push_back({name, entry.first, median(entry.second)});
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.time_us > b.time_us; });
  return out;
}

/// The iteration whose duration is the median one.
int median_run(const std::vector<double>& iteration_us) {
  std::vector<int> runs(iteration_us.size());
  std::iota(runs.begin(), runs.end(), 0);
  std::sort(runs.begin(), runs.end(), [&](int a, int b) { return iteration_us[static_cast<std::size_t>(a)] < iteration_us[static_cast<std::size_t>(b)]; });
  return runs[runs.size() / 2];
}

/// Per-node medians over the iterations, how each node matched, and its stream (renumbered in
/// order of first appearance).
void fill_nodes(const Graph& graph, const CostTable& predicted, const ProfileRecords& in, const std::vector<double>& absorbed,
                int runs, Profile& p) {
  const std::size_t n = graph.node_count();
  std::vector<std::vector<double>> per_run(n);
  p.match.assign(n, ProfileMatch::None);
  p.stream.assign(n, -1);
  std::map<int, int> streams;
  for (std::size_t r = 0; r < in.records.size(); ++r) {
    const ProfileRecord& rec = in.records[r];
    if (rec.nodes.empty()) continue;
    const int s = streams.emplace(rec.stream, static_cast<int>(streams.size())).first->second;
    const std::vector<double> shares = chain_shares(predicted, rec.nodes);
    for (std::size_t i = 0; i < rec.nodes.size(); ++i) {
      const std::size_t v = idx(rec.nodes[i]);
      if (per_run[v].empty()) per_run[v].assign(static_cast<std::size_t>(runs), 0);
      per_run[v][static_cast<std::size_t>(rec.run)] += (rec.dur_us + absorbed[r]) * shares[i];
      if (p.match[v] == ProfileMatch::None) p.match[v] = rec.nodes.size() > 1 ? ProfileMatch::FusedChain : rec.match;
      if (p.stream[v] < 0) p.stream[v] = s;
    }
  }
  p.node_us.assign(n, std::nullopt);
  for (std::size_t v = 0; v < n; ++v)
    if (!per_run[v].empty()) p.node_us[v] = median(per_run[v]);
}

/// The profiled run's own schedule: matched nodes on their streams in the order they started in
/// the median iteration (a fused chain's members in chain order), each unmatched node right after
/// its latest predecessor on that one's stream. Every stream order is kept consistent with the
/// data edges (a key never below a predecessor's), so the schedule is valid.
Schedule own_schedule(const Graph& graph, const ProfileRecords& in, int run, Profile& p) {
  const std::size_t n = graph.node_count();
  std::vector<double> key(n, -1);
  for (const ProfileRecord& rec : in.records) {
    if (rec.run != run) continue;
    for (std::size_t i = 0; i < rec.nodes.size(); ++i)
      if (key[idx(rec.nodes[i])] < 0) key[idx(rec.nodes[i])] = rec.start_us + 1e-6 * static_cast<double>(i);
  }
  // A node matched in other iterations but not this one starts where its predecessors allow.
  std::vector<int> stream(p.stream.begin(), p.stream.end());
  for (NodeId v : graph.topo_order()) {
    double after = 0;
    int pred_stream = -1;
    for (NodeId u : graph.predecessors(v))
      if (key[idx(u)] >= after) {
        after = key[idx(u)];
        pred_stream = stream[idx(u)];
      }
    // Strictly after every predecessor: equal keys on two streams could order a cycle.
    const bool has_pred = pred_stream >= 0;
    if (key[idx(v)] < 0 || (has_pred && key[idx(v)] <= after)) key[idx(v)] = after + 1e-9 * std::max(1.0, after);
    if (stream[idx(v)] < 0) stream[idx(v)] = std::max(0, pred_stream);
  }
  int streams = 1;
  for (int s : stream) streams = std::max(streams, s + 1);
  Schedule schedule;
  schedule.streams.assign(static_cast<std::size_t>(streams), {});
  for (std::size_t v = 0; v < n; ++v) schedule.streams[static_cast<std::size_t>(stream[v])].push_back(static_cast<NodeId>(v));
  for (auto& s : schedule.streams)
    std::stable_sort(s.begin(), s.end(), [&](NodeId a, NodeId b) { return key[idx(a)] < key[idx(b)]; });
  // An empty stream (a thread whose records all went unmatched) would only confuse readers.
  std::erase_if(schedule.streams, [](const auto& s) { return s.empty(); });
  if (schedule.streams.empty()) schedule.streams.emplace_back();
  schedule.strategy = "profile";
  schedule.options = std::string(profile_format_name(p.format));
  schedule.events = compute_events(graph, schedule);
  return schedule;
}

/// The median iteration as a measured timeline: a fused record's interval split over its members.
Timeline measured_timeline(const CostTable& predicted, const ProfileRecords& in, const std::vector<double>& absorbed, int run,
                           const Profile& p) {
  Timeline tl;
  tl.kind = RunKind::Measured;
  tl.backend = std::string(profile_format_name(p.format));
  tl.strategy = "profile";
  tl.label = "measured: " + p.source;
  tl.device = p.source;
  std::map<int, int> streams;
  for (std::size_t r = 0; r < in.records.size(); ++r) {
    const ProfileRecord& rec = in.records[r];
    if (rec.run != run || rec.nodes.empty()) continue;
    const int s = p.stream[idx(rec.nodes.front())];
    const std::vector<double> shares = chain_shares(predicted, rec.nodes);
    double t = rec.start_us;
    for (std::size_t i = 0; i < rec.nodes.size(); ++i) {
      const double d = (rec.dur_us + absorbed[r]) * shares[i];
      tl.items.push_back({rec.nodes[i], s, t, t + d});
      t += d;
    }
    tl.stream_count = std::max(tl.stream_count, s + 1);
  }
  std::sort(tl.items.begin(), tl.items.end(), [](const auto& a, const auto& b) { return a.node < b.node || (a.node == b.node && a.start_us < b.start_us); });
  return tl;
}

/// Idle time between consecutive records on one stream within an iteration: the mean, leaving
/// out pre-emptions (gaps over 20 times the median: a busy machine's scheduler, not the runtime).
double typical_gap(const std::vector<ProfileRecord>& records) {
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> by_stream;
  for (const ProfileRecord& r : records) by_stream[{r.run, r.stream}].push_back({r.start_us, r.start_us + r.dur_us});
  std::vector<double> gaps;
  for (auto& [key, spans] : by_stream) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i) gaps.push_back(std::max(0.0, spans[i].first - spans[i - 1].second));
  }
  const double limit = 20 * median(gaps);
  double sum = 0;
  std::size_t n = 0;
  for (double g : gaps)
    if (g <= limit) sum += g, ++n;
  return n ? sum / static_cast<double>(n) : 0;
}

Expected<Profile> map_records(const Graph& graph, const CostTable& predicted, ProfileRecords in, const std::string& path,
                              ProfileFormat format, const ProfileOptions& options) {
  const int runs = static_cast<int>(in.iteration_us.size());
  if (in.records.empty() || runs == 0)
    return make_error(ErrorKind::InvalidInput, path + ": no node events (a profile recorded without operators, or only session events)");
  Profile p;
  p.path = path;
  p.format = format;
  p.runs = runs;
  p.source = in.source;
  p.device_kind = in.device_kind;
  p.notes = std::move(in.notes);
  p.iteration_us = median(in.iteration_us);
  std::vector<double> absorbed;
  const double absorbed_us = absorb_unmatched(in.records, runs, absorbed);
  fill_nodes(graph, predicted, in, absorbed, runs, p);

  std::size_t operators = 0, matched = 0;
  for (std::size_t v = 0; v < graph.node_count(); ++v) {
    // Operators: nodes that run a kernel by the cost model, or that the profile timed.
    if (!detail::is_operator(predicted, static_cast<NodeId>(v)) && !p.node_us[v]) continue;
    ++operators;
    if (p.node_us[v]) ++matched;
    else p.unmatched_nodes.push_back(static_cast<NodeId>(v));
  }
  const double share = operators == 0 ? 0 : static_cast<double>(matched) / static_cast<double>(operators);
  if (matched == 0 || share < options.min_matched_share) {
    char said[160];
    std::snprintf(said, sizeof said, "%zu of %zu operators (%.0f%%) matched an event, below %.0f%%", matched, operators, 100 * share,
                  100 * options.min_matched_share);
    return make_error(ErrorKind::InvalidInput, path + ": a profile of another model? " + said + " (first events: " +
                                                   (in.records.empty() ? std::string() : in.records.front().name) + ")");
  }
  p.unmatched_events = unmatched_events(in.records, runs);
  if (absorbed_us > 0) {
    char said[200];
    std::snprintf(said, sizeof said, "%.1f us per iteration of events matching no node absorbed into the node run before them", absorbed_us);
    p.notes.push_back(said);
  }
  p.gap_us = typical_gap(in.records);
  const int run = median_run(in.iteration_us);
  p.kernels = static_cast<std::size_t>(
      std::count_if(in.records.begin(), in.records.end(), [&](const ProfileRecord& r) { return r.run == run; }));
  p.schedule = own_schedule(graph, in, run, p);
  for (int r = 0; r < runs; ++r) p.iterations.push_back(measured_timeline(predicted, in, absorbed, r, p));
  p.iteration_times_us = in.iteration_us;
  p.measured = p.iterations[static_cast<std::size_t>(run)];
  return p;
}

/// ONNX Runtime writes a bare array of events with "cat": "Node"; Weft names itself in otherData;
/// any other Chrome trace is taken for PyTorch's.
std::optional<ProfileFormat> detect_format(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return std::nullopt;
  const std::string_view head = text.substr(0, 4096);
  if (text[first] == '[' && head.find("\"cat\"") != std::string_view::npos && head.find("\"Node\"") != std::string_view::npos)
    return ProfileFormat::OnnxRuntime;
  if (text[first] == '[' && text.find("\"cat\" : \"Node\"") != std::string_view::npos) return ProfileFormat::OnnxRuntime;
  if (text[first] == '[' && text.find("\"cat\":\"Node\"") != std::string_view::npos) return ProfileFormat::OnnxRuntime;
  if (text.find("\"generator\":\"weft") != std::string_view::npos || text.find("\"generator\": \"weft") != std::string_view::npos)
    return ProfileFormat::WeftTrace;
  if (text[first] == '[' || text[first] == '{') return ProfileFormat::PyTorch;
  return std::nullopt;
}

}  // namespace

Expected<Profile> import_profile(const Graph& graph, const CostTable& predicted, std::string_view text, const std::string& path,
                                 const ProfileOptions& options) {
  WEFT_CHECK(predicted.nodes.size() == graph.node_count());
  const std::optional<ProfileFormat> format = options.format ? options.format : detect_format(text);
  if (!format)
    return make_error(ErrorKind::InvalidInput, path + ": not a profile (expected ONNX Runtime profile JSON or a Chrome trace)");
  Expected<ProfileRecords> records = [&]() -> Expected<ProfileRecords> {
    switch (*format) {
      case ProfileFormat::OnnxRuntime: return detail::onnxruntime_records(graph, text, path);
      case ProfileFormat::PyTorch: return detail::pytorch_records(graph, text, path);
      case ProfileFormat::WeftTrace: return detail::weft_trace_records(graph, text, path);
    }
    return make_error(ErrorKind::Internal, "unknown profile format");
  }();
  if (!records) return records.error();
  return map_records(graph, predicted, std::move(*records), path, *format, options);
}

Expected<Profile> load_profile(const Graph& graph, const CostTable& predicted, const std::string& path, const ProfileOptions& options) {
  auto text = read_file(path, kMaxTextBytes);
  if (!text) return make_error(ErrorKind::InvalidInput, text.error().message);
  return import_profile(graph, predicted, *text, path, options);
}

CostTable apply_profile(const CostTable& predicted, const Profile& profile) {
  CostTable out = predicted;
  out.measured_from = profile.source + ", " + profile.path;
  for (std::size_t v = 0; v < out.nodes.size() && v < profile.node_us.size(); ++v) {
    if (!profile.node_us[v]) continue;
    out.nodes[v].time_us = *profile.node_us[v];
    out.nodes[v].measured = true;
  }
  return out;
}

}  // namespace weft::core
