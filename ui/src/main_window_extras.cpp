// MainWindow, continued: the memory dock, File > Export, preferences (device preset, theme,
// export folder) and Help. Kept apart from main_window.cpp so each stays readable.
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QChartView>
#include <QCheckBox>
#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QStyleHints>
#include <QSysInfo>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtGlobal>
#include <functional>

#include "weft/core/cost_model.h"
#include "weft/gpu/devices.h"
#include "weft/ui/exports.h"
#include "weft/ui/graph_view.h"
#include "weft/ui/lanes_view.h"
#include "weft/ui/main_window.h"
#include "weft/ui/memory_view.h"

#ifndef WEFT_VERSION
#define WEFT_VERSION "unknown"
#endif
#ifndef WEFT_PROTOBUF_VERSION
#define WEFT_PROTOBUF_VERSION ""
#endif
#ifndef WEFT_ONNX_VERSION
#define WEFT_ONNX_VERSION ""
#endif

namespace weft::ui {

namespace {
const QString kMemoryChart = QStringLiteral("Memory chart");
const QString kOffsetMap = QStringLiteral("Offset map");
const QString kWindow = QStringLiteral("Main window");

QString plain(QString text) { return text.remove('&'); }
}  // namespace

void MainWindow::createMemoryDock() {
  m_memory = new MemoryView(m_doc, this);
  auto* d = new QDockWidget(tr("Memory"), this);
  d->setObjectName("memoryDock");
  d->setWidget(m_memory);
  addDockWidget(Qt::RightDockWidgetArea, d);
  // A tab beside the lanes: it re-plans only while visible.
  if (auto* lanes = findChild<QDockWidget*>("lanesDock")) {
    tabifyDockWidget(lanes, d);
    lanes->raise();
  }
}

bool MainWindow::showView(const QString& name) {
  auto* d = findChild<QDockWidget*>(name + "Dock");
  if (!d) return false;
  d->show();
  d->raise();
  return true;
}

// ---- exports --------------------------------------------------------------------------------

QString MainWindow::lastExportFolder() const {
  const QString dir = QSettings().value("export/folder").toString();
  return !dir.isEmpty() && QFileInfo(dir).isDir() ? dir : QDir::homePath();
}

void MainWindow::rememberExportFolder(const QString& path) {
  QSettings().setValue("export/folder", QFileInfo(path).absolutePath());
}

QString MainWindow::askSavePath(const QString& title, const QString& name, const QString& filter) {
  QString chosen;
  QString path = QFileDialog::getSaveFileName(this, title, QDir(lastExportFolder()).filePath(name), filter, &chosen);
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

void MainWindow::createExportMenu(QMenu* file) {
  QMenu* menu = file->addMenu(tr("&Export"));
  auto base = [this] { return QFileInfo(m_doc->modelPath()).completeBaseName(); };
  menu->addAction(tr("&Schedule JSON..."), this, [this, base] {
    if (!m_doc->hasModel()) return;
    const QString path = askSavePath(tr("Export schedule"), base() + ".schedule.json", tr("Schedule JSON (*.json)"));
    if (!path.isEmpty()) exportSchedule(path);
  });
  menu->addAction(tr("&Chrome trace of runs..."), this, [this, base] {
    if (!m_doc->hasModel()) return;
    const std::vector<const core::Timeline*> runs = exportable_runs(*m_doc);
    if (runs.empty()) {
      showMessage(tr("No runs to trace: this model is past the live-prediction size and nothing has run yet"), true);
      return;
    }
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Chrome trace: choose runs"));
    auto* layout = new QVBoxLayout(&dialog);
    layout->addWidget(new QLabel(tr("Runs to put in the trace (one process each):"), &dialog));
    std::vector<QCheckBox*> boxes;
    for (const core::Timeline* run : runs) {
      auto* box = new QCheckBox(tr("%1 — %2, %3 µs").arg(QString::fromStdString(run->label), QString::fromStdString(run->kind))
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

QStringList MainWindow::exportableViews() const {
  QStringList views;
  for (QDockWidget* d : findChildren<QDockWidget*>())
    if (d->widget()) views << plain(d->windowTitle());
  views << kMemoryChart << kOffsetMap << kWindow;
  return views;
}

QWidget* MainWindow::exportableView(const QString& view) const {
  if (view == kMemoryChart) return m_memory->chartView();
  if (view == kOffsetMap) return m_memory->offsetMap();
  if (view == kWindow) return const_cast<MainWindow*>(this);
  for (QDockWidget* d : findChildren<QDockWidget*>())
    if (plain(d->windowTitle()) == view) return d->widget();
  return nullptr;
}

bool MainWindow::exportViewImage(const QString& view, const QString& path) {
  QWidget* w = exportableView(view);
  if (!w) {
    showMessage(tr("There is no view '%1' to export").arg(view), true);
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
      if (layout()) layout()->activate();
    }
  }
  auto ok = save_widget_image(w, path, tr("%1 — Weft Studio").arg(view));
  showMessage(ok ? tr("Exported %1 to %2").arg(view, path)
                 : tr("Could not export %1: %2").arg(path, QString::fromStdString(ok.error().message)),
              !ok);
  return static_cast<bool>(ok);
}

bool MainWindow::exportChromeTrace(const QString& path, const std::vector<int>& runs) {
  if (!m_doc->hasModel()) return false;
  auto ok = write_bytes(path, runs_chrome_trace(*m_doc, runs));
  showMessage(ok ? tr("Exported a Chrome trace of %1 runs to %2").arg(runs.size()).arg(path)
                 : tr("Could not export %1: %2").arg(path, QString::fromStdString(ok.error().message)),
              !ok);
  return static_cast<bool>(ok);
}

bool MainWindow::exportNodeTimes(const QString& path) {
  if (!m_doc->hasModel()) return false;
  auto ok = write_bytes(path, node_times_csv(*m_doc));
  showMessage(ok ? tr("Exported per-node times to %1").arg(path)
                 : tr("Could not export %1: %2").arg(path, QString::fromStdString(ok.error().message)),
              !ok);
  return static_cast<bool>(ok);
}

// ---- preferences ----------------------------------------------------------------------------

void MainWindow::createPreferenceMenus(QMenu* edit, QMenu* view) {
  QMenu* devices = edit->addMenu(tr("&Device preset"));
  auto* device_group = new QActionGroup(devices);
  const QString current = m_device_preset.isEmpty() ? QString::fromStdString(std::string(core::default_device_name()))
                                                    : m_device_preset;
  for (const std::string& name : core::device_names()) {
    QAction* a = devices->addAction(QString::fromStdString(name));
    a->setCheckable(true);
    a->setChecked(a->text() == current);
    a->setData("device:" + a->text());
    device_group->addAction(a);
    connect(a, &QAction::triggered, this, [this, a] { setDevicePreset(a->text()); });
  }
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
  // Follow the system live when it switches between light and dark.
  connect(QGuiApplication::styleHints(), &QStyleHints::colorSchemeChanged, this, [this] {
    if (m_theme == Theme::System) apply_theme(Theme::System);
  });
#endif
  QMenu* themes = view->addMenu(tr("&Theme"));
  auto* theme_group = new QActionGroup(themes);
  for (auto [theme, label] : {std::pair{Theme::System, tr("Follow the &system")}, std::pair{Theme::Light, tr("&Light")},
                              std::pair{Theme::Dark, tr("&Dark")}}) {
    QAction* a = themes->addAction(label);
    a->setCheckable(true);
    a->setChecked(theme == m_theme);
    a->setData("theme:" + theme_name(theme));
    theme_group->addAction(a);
    connect(a, &QAction::triggered, this, [this, theme] { setTheme(theme); });
  }
}

void MainWindow::setDevicePreset(const QString& name) {
  if (name == m_device_preset) return;
  m_device_preset = name;
  QSettings().setValue("device", name);
  for (QAction* a : findChildren<QAction*>())
    if (a->isCheckable() && a->data().toString() == "device:" + name) a->setChecked(true);
  // Costs and the first schedule depend on the device: reload the open model file with it.
  if (m_doc->hasModel() && QFileInfo(m_doc->modelPath()).isFile()) openModel(m_doc->modelPath());
  else showMessage(tr("Device preset %1: applies to the next model opened").arg(name));
}

void MainWindow::setTheme(Theme theme) {
  m_theme = theme;
  QSettings().setValue("view/theme", theme_name(theme));
  apply_theme(theme);
  for (QAction* a : findChildren<QAction*>())
    if (a->isCheckable() && a->data().toString() == "theme:" + theme_name(theme)) a->setChecked(true);
}

// ---- help -----------------------------------------------------------------------------------

void MainWindow::createHelpMenu() {
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&Keyboard shortcuts"), QKeySequence::HelpContents, this, &MainWindow::showShortcuts);
  help->addAction(tr("&About Weft Studio"), this,
                  [this] { QMessageBox::about(this, tr("About Weft Studio"), aboutText()); });
}

QList<QPair<QString, QString>> MainWindow::shortcutList() const {
  QList<QPair<QString, QString>> out;
  QSet<const QAction*> seen;
  auto keys = [](const QAction* a) {
    QStringList k;
    for (const QKeySequence& s : a->shortcuts()) k << s.toString(QKeySequence::NativeText);
    return k.join(", ");
  };
  // Menus first (with their path), then actions living elsewhere (views' own actions).
  std::function<void(const QList<QAction*>&, const QString&)> walk = [&](const QList<QAction*>& actions,
                                                                        const QString& path) {
    for (QAction* a : actions) {
      if (a->isSeparator()) continue;
      const QString name = path.isEmpty() ? plain(a->text()) : path + " › " + plain(a->text());
      if (a->menu()) {
        walk(a->menu()->actions(), name);
        continue;
      }
      if (!a->shortcuts().isEmpty() && !seen.contains(a)) {
        out.append({name, keys(a)});
        seen.insert(a);
      }
    }
  };
  walk(menuBar()->actions(), {});
  for (const QAction* a : findChildren<QAction*>())
    if (!a->shortcuts().isEmpty() && !seen.contains(a)) {
      out.append({plain(a->text()), keys(a)});
      seen.insert(a);
    }
  return out;
}

void MainWindow::showShortcuts() {
  const auto list = shortcutList();
  QDialog dialog(this);
  dialog.setWindowTitle(tr("Keyboard shortcuts"));
  auto* table = new QTableWidget(static_cast<int>(list.size()), 2, &dialog);
  table->setHorizontalHeaderLabels({tr("Action"), tr("Shortcut")});
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  for (int i = 0; i < list.size(); ++i) {
    table->setItem(i, 0, new QTableWidgetItem(list[i].first));
    table->setItem(i, 1, new QTableWidgetItem(list[i].second));
  }
  table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  table->resizeColumnToContents(1);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  auto* layout = new QVBoxLayout(&dialog);
  layout->addWidget(new QLabel(tr("Also: drag boxes between lanes to move nodes; wheel zooms; Ctrl+click adds to the selection."), &dialog));
  layout->addWidget(table);
  layout->addWidget(buttons);
  dialog.resize(520, 480);
  dialog.exec();
}

QString MainWindow::aboutText() const {
  QString cuda;
  if (!gpu::built_with_cuda()) {
    cuda = tr("no CUDA (built without a toolkit)");
  } else if (auto gpus = gpu::list_gpus(); gpus && !gpus->empty()) {
    QStringList names;
    for (const gpu::GpuInfo& g : *gpus) names << QString::fromStdString(g.name);
    cuda = tr("CUDA executor built in; GPUs: %1").arg(names.join(", "));
  } else {
    cuda = tr("CUDA executor built in; %1")
               .arg(gpus ? tr("no GPU found") : QString::fromStdString(gpus.error().message));
  }
  const QString protobuf = QStringLiteral(WEFT_PROTOBUF_VERSION);
  const QString onnx = QStringLiteral(WEFT_ONNX_VERSION);
  return tr("<b>Weft Studio</b> %1<br>Qt %2 (built with %3)<br>protobuf %4 · ONNX %5<br>%6<br>"
            "Core passes: all live (analysis, strategies, sync, edits, schedule JSON, memory planner, simulator)<br>%7")
      .arg(QStringLiteral(WEFT_VERSION), QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR),
           protobuf.isEmpty() ? tr("unknown") : protobuf, onnx.isEmpty() ? tr("unknown") : onnx, cuda,
           QSysInfo::prettyProductName());
}

}  // namespace weft::ui
