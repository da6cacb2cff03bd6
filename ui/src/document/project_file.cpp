#include "weft/ui/project_file.h"

#include "weft/core/base/file_io.h"
#include "weft/core/base/project_file.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/ui/studio_document.h"

namespace weft::ui {

// The document format lives in core (core::parse_project, Qt-free and fuzzed); these adapt it.

core::Status save_project(const QString& path, const StudioDocument& doc, const ProjectSettings& settings) {
  if (!doc.hasModel()) return core::make_error(core::ErrorKind::InvalidInput, "no model to save");
  core::ProjectFile p;
  p.model_path = doc.modelPath().toStdString();
  p.schedule_json = core::schedule_to_json(doc.graph(), doc.schedule(), doc.device().name);
  p.strategy = settings.strategy.toStdString();
  p.max_streams = settings.max_streams;
  p.granularity_us = settings.granularity_us;
  p.cuda_graph = settings.cuda_graph;
  p.lane_widths = settings.lane_widths.toStdString();
  p.dims = settings.dims;
  p.merge = settings.merge;
  p.batch = settings.batch;
  p.split = settings.split;
  WEFT_TRY_ASSIGN(auto text, core::project_to_json(p, path.toStdString()));
  return core::write_file_atomic(path.toStdString(), text);
}

core::Expected<Project> load_project(const QString& path) {
  WEFT_TRY_ASSIGN(auto parsed, core::load_project_file(path.toStdString()));
  Project p;
  p.model_path = QString::fromStdString(parsed.model_path);
  p.schedule_json = QString::fromStdString(parsed.schedule_json);
  p.settings.strategy = QString::fromStdString(parsed.strategy);
  p.settings.max_streams = parsed.max_streams;
  p.settings.granularity_us = parsed.granularity_us;
  p.settings.cuda_graph = parsed.cuda_graph;
  p.settings.lane_widths = QString::fromStdString(parsed.lane_widths);
  p.settings.dims = std::move(parsed.dims);
  p.settings.merge = parsed.merge;
  p.settings.batch = parsed.batch;
  p.settings.split = parsed.split;
  return p;
}

}  // namespace weft::ui
