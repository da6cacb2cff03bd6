#pragma once
// Studio exports: images of any view (PNG, SVG), per-node times (CSV) and Chrome traces of chosen
// runs. Each builds the file's bytes in memory first; saves go through core::write_file_atomic.
#include <QByteArray>
#include <QString>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/base/expected.h"
#include "weft/core/schedule/timeline.h"

class QWidget;

namespace weft::ui {

class StudioDocument;

/// PNG of `widget` as it draws now (QWidget::render, children included), at its size in
/// device-independent pixels. O(pixels).
QByteArray render_png(QWidget* widget);
/// SVG of `widget` (QWidget::render into a QSvgGenerator): custom-painted views stay vectors.
QByteArray render_svg(QWidget* widget, const QString& title);
/// Renders by the path's suffix (.svg: SVG, anything else: PNG) and writes atomically.
core::Status save_widget_image(QWidget* widget, const QString& path, const QString& title = {});

/// The runs exports offer, in the timeline's order: the document's predicted runs (current
/// schedule, sequential eager, sequential graph), then its other runs (measured, loaded).
std::vector<const core::Timeline*> exportable_runs(const StudioDocument& doc);

/// Per-node times: header `node,op,stream,position,predicted_us` then `<run> start_us`,
/// `<run> end_us` for every exportable run; one row per node in node-id order (empty cells
/// where a run lacks the node). Lines end in CRLF (RFC 4180). O(V · runs).
std::string node_times_csv(const StudioDocument& doc);
/// Chrome trace (core::chrome_trace_json) of exportable_runs() at the indices `chosen`.
std::string runs_chrome_trace(const StudioDocument& doc, std::span<const int> chosen);
/// Atomic write of bytes to a path given as a QString.
core::Status write_bytes(const QString& path, std::string_view bytes);

}  // namespace weft::ui
