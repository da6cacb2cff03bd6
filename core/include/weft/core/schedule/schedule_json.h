#pragma once
// Schedule JSON (docs/schedule-format.md): export, validated import, atomic save.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"

namespace weft::core {

/// Serialises a schedule with the model's path and sha256, node keys, streams, events, strategy,
/// options and device name; on a split graph (split_batch) "split": {"k", "batch"}. On a merged graph (merge_graph) it also writes "merges": each merged
/// node's key and its members' keys in the unmerged model, so that loading re-applies them; on a
/// fused graph (fuse_graph) "fusions" likewise, each fused node's key and its chain's keys.
std::string schedule_to_json(const Graph& graph, const Schedule& schedule, std::string_view device);
struct ScheduleImport {
  /// A file without an "events" key gets the minimal events (compute_events) instead of being
  /// refused for the data edges it leaves unenforced. External strategies may omit them.
  bool compute_missing_events = false;
};

/// Parses and validates: refuses (InvalidInput, with the reason) a schedule for another model,
/// unknown, missing or duplicate nodes, malformed JSON and deadlocks. A schedule that records
/// merges loads only onto the merged graph they describe (load_schedule_with_merges() builds it);
/// on any other graph it is refused, naming the merges.
Expected<Schedule> schedule_from_json(const Graph& graph, std::string_view json_text, const ScheduleImport& how = {});

/// The merge groups schedule JSON records, as node ids of `graph` (the unmerged model), in file
/// order; empty when it records none. Errors (InvalidInput): malformed JSON or "merges", an unknown
/// node, a group of fewer than two nodes, a node in two groups. O(size of the text).
Expected<std::vector<std::vector<NodeId>>> schedule_merges_from_json(const Graph& graph, std::string_view json_text);

/// The fused chains schedule JSON records ("fusions"), as node ids of `graph` (the unfused model),
/// each in chain order; empty when it records none. Errors as schedule_merges_from_json's.
/// Fusions apply before merges: a file's merges name nodes of the fused model.
Expected<std::vector<std::vector<NodeId>>> schedule_fusions_from_json(const Graph& graph, std::string_view json_text);

/// The micro-batch split a schedule JSON records ("split": {"k", "batch"}, written for a graph
/// split_batch made): k = 1 when it records none. Errors (InvalidInput): malformed JSON or
/// "split". O(size of the text).
struct ScheduleSplit {
  int k = 1;
  std::int64_t batch = 0;
};
Expected<ScheduleSplit> schedule_split_from_json(std::string_view json_text);

/// What a schedule JSON says about the model it runs on, read without a graph: the model file it
/// names ("model": path as written by the command that made it, possibly relative to where that
/// ran; sha256), its micro-batch split and how many merge groups it records, and its strategy.
/// The studio opens a schedule file with it (the model it names when none is open; the split and
/// merges to re-open the model with). Errors (InvalidInput): malformed JSON, a top level that is
/// not an object, a malformed "model", "split" or "merges". O(size of the text).
struct ScheduleHeader {
  std::string model_path;
  std::string model_sha256;
  ScheduleSplit split;
  std::size_t merges = 0;
  std::size_t fusions = 0;
  std::string strategy;
};
Expected<ScheduleHeader> schedule_header_from_json(std::string_view json_text);

/// Fails (InvalidInput "schedule JSON: it was made for another model ...") where the header names
/// a model whose sha256 differs from `graph`'s (either unknown: ok). schedule_from_json checks the
/// same; open_model checks it first, before any split or merge work. O(1).
Status check_schedule_model(const ScheduleHeader& header, const Graph& graph);

Status save_schedule(const std::string& path, const Graph& graph, const Schedule& schedule, std::string_view device);
Expected<Schedule> load_schedule(const std::string& path, const Graph& graph);

}  // namespace weft::core
