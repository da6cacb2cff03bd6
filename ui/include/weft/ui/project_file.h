#pragma once
// Studio project (.weft): the model's path, the schedule (schedule JSON) and the panel settings,
// as one JSON document saved atomically (core::write_file_atomic).
#include <QString>
#include <cstdint>
#include <map>
#include <string>

#include "weft/core/base/expected.h"

namespace weft::ui {

class StudioDocument;

struct ProjectSettings {
  QString strategy;
  int max_streams = 8;
  double granularity_us = -1;
  bool cuda_graph = false;  ///< schedule made and predicted for CUDA Graph replay
  QString lane_widths = "time";  ///< "time" or "uniform"
  std::map<std::string, std::int64_t> dims;  ///< dims bound at import (--dim)
  bool merge = false;                        ///< opened with horizontal merges (--merge)
  std::int64_t batch = 0;                    ///< re-batched at import (--batch; 0: the model's own)
  int split = 0;                             ///< micro-batch copies (--split K; 0: not split)
};

struct Project {
  QString model_path;     ///< absolute
  QString schedule_json;  ///< schedule JSON text (core::schedule_to_json)
  ProjectSettings settings;
};

/// Writes the document's model path, schedule and `settings` to `path` atomically.
core::Status save_project(const QString& path, const StudioDocument& doc, const ProjectSettings& settings);
/// Reads a project; the model path is resolved against the project's folder when relative or moved.
core::Expected<Project> load_project(const QString& path);

}  // namespace weft::ui
