#include "weft/ui/exports.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <QWidget>
#include <vector>

#include "weft/core/sim/chrome_trace.h"
#include "weft/core/base/csv.h"
#include "weft/core/base/file_io.h"
#include "weft/ui/studio_document.h"

namespace weft::ui {

QByteArray render_png(QWidget* widget) {
  QImage image(widget->size(), QImage::Format_ARGB32_Premultiplied);
  image.fill(widget->palette().color(QPalette::Window));
  {
    QPainter p(&image);
    widget->render(&p);
  }
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  image.save(&buffer, "PNG");
  return bytes;
}

QByteArray render_svg(QWidget* widget, const QString& title) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator svg;
  svg.setOutputDevice(&buffer);
  svg.setSize(widget->size());
  svg.setViewBox(QRect(QPoint(0, 0), widget->size()));
  svg.setTitle(title.isEmpty() ? widget->windowTitle() : title);
  svg.setDescription(QStringLiteral("Weft Studio"));
  {
    QPainter p(&svg);
    widget->render(&p);
  }
  return bytes;
}

core::Status write_bytes(const QString& path, std::string_view bytes) {
  return core::write_file_atomic(QFileInfo(path).absoluteFilePath().toStdString(), bytes);
}

core::Status save_widget_image(QWidget* widget, const QString& path, const QString& title) {
  const QByteArray bytes =
      path.endsWith(".svg", Qt::CaseInsensitive) ? render_svg(widget, title) : render_png(widget);
  if (bytes.isEmpty()) return core::make_error(core::ErrorKind::Runtime, "could not render " + path.toStdString());
  return write_bytes(path, std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
}

std::vector<const core::Timeline*> exportable_runs(const StudioDocument& doc) {
  std::vector<const core::Timeline*> runs;
  for (const core::Timeline& r : doc.predictedRuns()) runs.push_back(&r);
  for (const core::Timeline& r : doc.runs()) runs.push_back(&r);
  return runs;
}

std::string node_times_csv(const StudioDocument& doc) {
  const core::Graph& g = doc.graph();
  const std::vector<const core::Timeline*> runs = exportable_runs(doc);
  std::string out = "node,op,stream,position,predicted_us";
  for (const core::Timeline* r : runs) out += "," + core::csv_field(r->label + " start_us") + "," + core::csv_field(r->label + " end_us");
  out += "\r\n";
  // Per run, the item of each node (-1: not in the run).
  std::vector<std::vector<int>> item_of(runs.size(), std::vector<int>(g.node_count(), -1));
  for (std::size_t r = 0; r < runs.size(); ++r)
    for (std::size_t i = 0; i < runs[r]->items.size(); ++i) {
      const core::NodeId n = runs[r]->items[i].node;
      if (n >= 0 && static_cast<std::size_t>(n) < g.node_count()) item_of[r][static_cast<std::size_t>(n)] = static_cast<int>(i);
    }
  auto num = [](double v) { return QString::number(v, 'f', 3).toStdString(); };
  for (std::size_t v = 0; v < g.node_count(); ++v) {
    const auto n = static_cast<core::NodeId>(v);
    out += core::csv_field(g.key(n)) + "," + core::csv_field(g.node(n).op_type) + "," + std::to_string(doc.streamOf(n)) + "," +
           std::to_string(doc.positionOf(n)) + "," + num(v < doc.nodeTimes().size() ? doc.nodeTimes()[v] : 0.0);
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const int i = item_of[r][v];
      if (i < 0) {
        out += ",,";
        continue;
      }
      const core::TimelineItem& it = runs[r]->items[static_cast<std::size_t>(i)];
      out += "," + num(it.start_us) + "," + num(it.end_us);
    }
    out += "\r\n";
  }
  return out;
}

std::string runs_chrome_trace(const StudioDocument& doc, std::span<const int> chosen) {
  const std::vector<const core::Timeline*> all = exportable_runs(doc);
  std::vector<core::Timeline> runs;
  for (int i : chosen)
    if (i >= 0 && static_cast<std::size_t>(i) < all.size()) runs.push_back(*all[static_cast<std::size_t>(i)]);
  core::TraceInfo info;
  info.model = doc.graph().info().model_path.empty() ? doc.modelPath().toStdString() : doc.graph().info().model_path;
  info.sha256 = doc.graph().info().model_sha256;
  info.device = doc.device().name;
  info.strategy = doc.schedule().strategy;
  return core::chrome_trace_json(doc.graph(), runs, &doc.analysis().costs, info);
}

}  // namespace weft::ui
