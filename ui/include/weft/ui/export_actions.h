#pragma once
// File ▸ Export: schedule JSON, a Chrome trace of chosen runs, per-node times CSV, and images of
// views (PNG or SVG); the last export folder is remembered.
#include <QObject>
#include <QString>
#include <QStringList>
#include <vector>

class QMainWindow;
class QMenu;
class QWidget;

namespace weft::ui {

class MemoryView;
class StatusArea;
class StudioDocument;

/// An action's text without its mnemonic ampersands ("&Export" → "Export").
QString plain_action_text(QString text);

class ExportActions : public QObject {
  Q_OBJECT
 public:
  ExportActions(StudioDocument* doc, QMainWindow* window, MemoryView* memory, StatusArea* status);

  /// Adds the Export submenu to `file`.
  void createMenu(QMenu* file);

  bool exportSchedule(const QString& path);
  /// Chrome trace of the runs at `runs` (indices into exportable_runs(*document()): predicted
  /// runs first, then measured).
  bool exportChromeTrace(const QString& path, const std::vector<int>& runs);
  /// Per-node times of the schedule and of every run as CSV.
  bool exportNodeTimes(const QString& path);
  /// PNG or SVG (by suffix) of the view named `view` (one of exportableViews()).
  bool exportViewImage(const QString& view, const QString& path);
  /// Every dock's widget, the memory chart, the offset map and the whole window.
  QStringList exportableViews() const;
  QWidget* exportableView(const QString& view) const;
  QString lastExportFolder() const;

 private:
  void rememberExportFolder(const QString& path);
  QString askSavePath(const QString& title, const QString& name, const QString& filter);

  StudioDocument* m_doc;
  QMainWindow* m_window;
  MemoryView* m_memory;
  StatusArea* m_status;
};

}  // namespace weft::ui
