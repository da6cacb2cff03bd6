#pragma once
// Studio project files (.weft): the model's path, the schedule (schedule JSON) and the panel
// settings as one JSON document. Parsed here, without Qt, so the CLI's tests, the fuzzer and the
// studio read it the same way; the studio adapts the result to its types.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "weft/core/base/expected.h"

namespace weft::core {

struct ProjectFile {
  /// The model: `model` (absolute when saved) unless that file is gone and `model_relative`
  /// (against the project's folder) exists; never empty in a parsed project.
  std::string model_path;
  std::string schedule_json;  ///< the schedule object, as compact JSON text
  std::string strategy;
  int max_streams = 8;
  double granularity_us = -1;
  bool cuda_graph = false;          ///< schedule made and predicted for CUDA Graph replay
  std::string lane_widths = "time";  ///< "time" or "uniform"
  /// Import options: symbolic dims bound at import (as `--dim`; key a symbol or INPUT:AXIS,
  /// value > 0) and whether the model is opened with horizontal merges (as `--merge`).
  std::map<std::string, std::int64_t> dims;
  bool merge = false;
  /// Re-batched at import (as `--batch N`; 0: the model's own batch) and split into `split`
  /// micro-batch copies (as `--split K`; 0: not split). A project saved after `--split auto` stores
  /// the k that was chosen, so it reopens onto the same copies.
  std::int64_t batch = 0;
  int split = 0;
};

/// Parses a project document; `project_path` locates model_relative and names the file in
/// errors. Refuses (InvalidInput, naming the file and the key): malformed JSON, a top level that
/// is not an object, another `format`, a `version` other than 1, no model path, a schedule that
/// is not an object, settings of the wrong type. The schedule itself is checked when loaded
/// against the model (schedule_from_json). O(size of the text).
Expected<ProjectFile> parse_project(std::string_view text, const std::string& project_path);

/// Reads and parses a project file (Runtime when it cannot be read).
Expected<ProjectFile> load_project_file(const std::string& path);

/// The project document for `project`, to be saved at `project_path` (model_relative is written
/// against its folder). Internal error when project.schedule_json is not JSON (a caller's bug).
Expected<std::string> project_to_json(const ProjectFile& project, const std::string& project_path);

}  // namespace weft::core
