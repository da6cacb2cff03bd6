#include "weft/core/schedule_json.h"
#include "weft/ui/project_file.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include "weft/core/file_io.h"
#include "weft/ui/studio_document.h"

namespace weft::ui {

namespace {
constexpr const char* kFormat = "weft-project";
constexpr int kVersion = 1;
}  // namespace

core::Status save_project(const QString& path, const StudioDocument& doc, const ProjectSettings& settings) {
  if (!doc.hasModel()) return core::make_error(core::ErrorKind::InvalidInput, "no model to save");
  const std::string schedule = core::schedule_to_json(doc.graph(), doc.schedule(), doc.device().name);
  QJsonParseError perr;
  const QJsonDocument sdoc = QJsonDocument::fromJson(QByteArray::fromStdString(schedule), &perr);
  if (!sdoc.isObject()) return core::make_error(core::ErrorKind::Internal, "schedule JSON did not parse: " + perr.errorString().toStdString());
  const QFileInfo model(doc.modelPath());
  QJsonObject root;
  root["format"] = kFormat;
  root["version"] = kVersion;
  root["model"] = model.absoluteFilePath();
  root["model_relative"] = QFileInfo(path).absoluteDir().relativeFilePath(model.absoluteFilePath());
  root["schedule"] = sdoc.object();
  root["settings"] = QJsonObject{{"strategy", settings.strategy},
                                 {"max_streams", settings.max_streams},
                                 {"granularity_us", settings.granularity_us},
                                 {"cuda_graph", settings.cuda_graph},
                                 {"lane_widths", settings.lane_widths}};
  return core::write_file_atomic(path.toStdString(), QJsonDocument(root).toJson(QJsonDocument::Indented).toStdString());
}

core::Expected<Project> load_project(const QString& path) {
  WEFT_TRY_ASSIGN(auto text, core::read_file(path.toStdString()));
  QJsonParseError perr;
  const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text), &perr);
  const std::string where = path.toStdString() + ": ";
  if (!doc.isObject()) return core::make_error(core::ErrorKind::InvalidInput, where + "not a JSON object (" + perr.errorString().toStdString() + ")");
  const QJsonObject root = doc.object();
  if (root["format"].toString() != kFormat)
    return core::make_error(core::ErrorKind::InvalidInput, where + "'format' is not " + kFormat);
  if (root["version"].toInt() != kVersion)
    return core::make_error(core::ErrorKind::InvalidInput, where + "unsupported version " + std::to_string(root["version"].toInt()));
  Project p;
  p.model_path = root["model"].toString();
  const QString relative = QFileInfo(path).absoluteDir().absoluteFilePath(root["model_relative"].toString());
  if (!QFileInfo::exists(p.model_path) && QFileInfo::exists(relative)) p.model_path = relative;
  if (p.model_path.isEmpty()) return core::make_error(core::ErrorKind::InvalidInput, where + "no model path");
  if (!root["schedule"].isObject()) return core::make_error(core::ErrorKind::InvalidInput, where + "no schedule");
  p.schedule_json = QString::fromUtf8(QJsonDocument(root["schedule"].toObject()).toJson(QJsonDocument::Compact));
  const QJsonObject s = root["settings"].toObject();
  p.settings.strategy = s["strategy"].toString();
  p.settings.max_streams = s["max_streams"].toInt(8);
  p.settings.granularity_us = s["granularity_us"].toDouble(-1);
  p.settings.cuda_graph = s["cuda_graph"].toBool(false);
  p.settings.lane_widths = s["lane_widths"].toString("time");
  return p;
}

}  // namespace weft::ui
