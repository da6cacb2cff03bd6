#include "weft/ui/export_actions.h"

#include <QCheckBox>
#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLayout>
#include <QMainWindow>
#include <QMenu>
#include <QRegularExpression>
#include <QSettings>
#include <QVBoxLayout>

#include "weft/core/base/file_io.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/ui/exports.h"
#include "weft/ui/memory_view.h"
#include "weft/ui/offset_map_view.h"
#include "weft/ui/status_area.h"
#include "weft/ui/studio_document.h"

namespace weft::ui {

namespace {
const QString kMemoryChart = QStringLiteral("Memory chart");
const QString kOffsetMap = QStringLiteral("Offset map");
const QString kWindow = QStringLiteral("Main window");
}  // namespace

QString plain_action_text(QString text) { return text.remove('&'); }

ExportActions::ExportActions(StudioDocument* doc, QMainWindow* window, MemoryView* memory, StatusArea* status)
    : QObject(window), m_doc(doc), m_window(window), m_memory(memory), m_status(status) {}

bool ExportActions::exportSchedule(const QString& path) {
  if (!m_doc->hasModel()) return false;
  const std::string json = core::schedule_to_json(m_doc->graph(), m_doc->schedule(), m_doc->device().name);
  auto ok = core::write_file_atomic(path.toStdString(), json);
  m_status->showMessage(ok ? tr("Exported the schedule to %1").arg(path)
                           : tr("Could not export %1: %2").arg(path, QString::fromStdString(ok.error().message)),
                        !ok);
  return static_cast<bool>(ok);
}

QString ExportActions::lastExportFolder() const {
  const QString dir = QSettings().value("export/folder").toString();
  return !dir.isEmpty() && QFileInfo(dir).isDir() ? dir : QDir::homePath();
}

void ExportActions::rememberExportFolder(const QString& path) {
  QSettings().setValue("export/folder", QFileInfo(path).absolutePath());
}

QString ExportActions::askSavePath(const QString& title, const QString& name, const QString& filter) {
  QString chosen;
  QString path = QFileDialog::getSaveFileName(m_window, title, QDir(lastExportFolder()).filePath(name), filter, &chosen);
  if (path.isEmpty()) return path;
  // A name typed without a suffix takes the chosen filter's ("PNG image (*.png)" -> .png), which
  // also decides PNG or SVG for images.
  if (QFileInfo(path).suffix().isEmpty()) {
    const qsizetype star = chosen.indexOf("*.");
    if (star >= 0) path += chosen.mid(star + 1, chosen.indexOf(QRegularExpression("[ )]"), star) - star - 1);
  }
  rememberExportFolder(path);
  return path;
}

void ExportActions::createMenu(QMenu* file) {
  QMenu* menu = file->addMenu(tr("&Export"));
  auto base = [this] { return QFileInfo(m_doc->modelPath()).completeBaseName(); };
  menu->addAction(tr("&Schedule JSON..."), this, [this, base] {
    if (!m_doc->hasModel()) return;
    const QString path = askSavePath(tr("Export schedule"), base() + ".schedule.json", tr("Schedule JSON (*.json)"));
    if (!path.isEmpty()) exportSchedule(path);
  });
  menu->addAction(tr("&Chrome trace of runs..."), this, [this, base] {
    if (!m_doc->hasModel()) return;
    m_doc->waitForStudy();  // the predicted runs offered must be the current schedule's
    const std::vector<const core::Timeline*> runs = exportable_runs(*m_doc);
    if (runs.empty()) {
      m_status->showMessage(tr("No runs to trace: this model is past the live-prediction size and nothing has run yet"), true);
      return;
    }
    QDialog dialog(m_window);
    dialog.setWindowTitle(tr("Chrome trace: choose runs"));
    auto* layout = new QVBoxLayout(&dialog);
    layout->addWidget(new QLabel(tr("Runs to put in the trace (one process each):"), &dialog));
    std::vector<QCheckBox*> boxes;
    for (const core::Timeline* run : runs) {
      auto* box = new QCheckBox(tr("%1 — %2, %3 µs").arg(QString::fromStdString(run->label), QString::fromStdString(std::string(core::run_kind_name(run->kind))))
                                    .arg(run->makespan_us(), 0, 'f', 1), &dialog);
      box->setChecked(true);
      layout->addWidget(box);
      boxes.push_back(box);
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted) return;
    std::vector<int> chosen;
    for (std::size_t i = 0; i < boxes.size(); ++i)
      if (boxes[i]->isChecked()) chosen.push_back(static_cast<int>(i));
    if (chosen.empty()) return;
    const QString path = askSavePath(tr("Export Chrome trace"), base() + ".trace.json", tr("Chrome trace (*.json)"));
    if (!path.isEmpty()) exportChromeTrace(path, chosen);
  });
  menu->addAction(tr("Per-node &times CSV..."), this, [this, base] {
    if (!m_doc->hasModel()) return;
    const QString path = askSavePath(tr("Export per-node times"), base() + ".times.csv", tr("CSV (*.csv)"));
    if (!path.isEmpty()) exportNodeTimes(path);
  });
  QMenu* images = menu->addMenu(tr("&Image of view"));
  // Built when shown, so views docked later (e.g. the timeline) are offered too.
  connect(images, &QMenu::aboutToShow, this, [this, images, base] {
    images->clear();
    for (const QString& view : exportableViews())
      images->addAction(view + "...", this, [this, view, base] {
        QString name = base() + "." + QString(view).toLower().replace(' ', '-') + ".png";
        const QString path = askSavePath(tr("Export %1").arg(view), name, tr("PNG image (*.png);;SVG drawing (*.svg)"));
        if (!path.isEmpty()) exportViewImage(view, path);
      });
  });
}

QStringList ExportActions::exportableViews() const {
  QStringList views;
  for (QDockWidget* d : m_window->findChildren<QDockWidget*>())
    if (d->widget()) views << plain_action_text(d->windowTitle());
  views << kMemoryChart << kOffsetMap << kWindow;
  return views;
}

QWidget* ExportActions::exportableView(const QString& view) const {
  if (view == kMemoryChart) return m_memory->chart();
  if (view == kOffsetMap) return m_memory->offsetMap();
  if (view == kWindow) return m_window;
  for (QDockWidget* d : m_window->findChildren<QDockWidget*>())
    if (plain_action_text(d->windowTitle()) == view) return d->widget();
  return nullptr;
}

bool ExportActions::exportViewImage(const QString& view, const QString& path) {
  QWidget* w = exportableView(view);
  if (!w) {
    m_status->showMessage(tr("There is no view '%1' to export").arg(view), true);
    return false;
  }
  if (!w->isVisible() || w->visibleRegion().isEmpty()) {
    // A background tab has no current size or layout: bring it forward first.
    for (QWidget* p = w; p; p = p->parentWidget())
      if (auto* d = qobject_cast<QDockWidget*>(p)) {
        d->show();
        d->raise();
        break;
      }
    // Two passes: the tab switch shows the dock, then its layout gives the widget its size.
    for (int pass = 0; pass < 2; ++pass) {
      QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
      QCoreApplication::processEvents();
      if (m_window->layout()) m_window->layout()->activate();
    }
  }
  auto ok = save_widget_image(w, path, tr("%1 — Weft Studio").arg(view));
  m_status->showMessage(ok ? tr("Exported %1 to %2").arg(view, path)
                 : tr("Could not export %1: %2").arg(path, QString::fromStdString(ok.error().message)),
              !ok);
  return static_cast<bool>(ok);
}

bool ExportActions::exportChromeTrace(const QString& path, const std::vector<int>& runs) {
  if (!m_doc->hasModel()) return false;
  m_doc->waitForStudy();  // predictions of the exported schedule, not of the one before the last edit
  auto ok = write_bytes(path, runs_chrome_trace(*m_doc, runs));
  m_status->showMessage(ok ? tr("Exported a Chrome trace of %1 runs to %2").arg(runs.size()).arg(path)
                 : tr("Could not export %1: %2").arg(path, QString::fromStdString(ok.error().message)),
              !ok);
  return static_cast<bool>(ok);
}

bool ExportActions::exportNodeTimes(const QString& path) {
  if (!m_doc->hasModel()) return false;
  m_doc->waitForStudy();
  auto ok = write_bytes(path, node_times_csv(*m_doc));
  m_status->showMessage(ok ? tr("Exported per-node times to %1").arg(path)
                 : tr("Could not export %1: %2").arg(path, QString::fromStdString(ok.error().message)),
              !ok);
  return static_cast<bool>(ok);
}

}  // namespace weft::ui
