#include "weft/ui/help_menu.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSet>
#include <QSysInfo>
#include <QTableWidget>
#include <QVBoxLayout>
#include <functional>

#include "weft/gpu/devices.h"
#include "weft/ui/export_actions.h"

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

HelpMenu::HelpMenu(QMainWindow* window) : QObject(window), m_window(window) {}

void HelpMenu::createMenu() {
  QMenu* help = m_window->menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&Keyboard shortcuts"), QKeySequence::HelpContents, this, &HelpMenu::showShortcuts);
  help->addAction(tr("&About Weft Studio"), this,
                  [this] { QMessageBox::about(m_window, tr("About Weft Studio"), aboutText()); });
}

QList<QPair<QString, QString>> HelpMenu::shortcutList() const {
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
      const QString name = path.isEmpty() ? plain_action_text(a->text()) : path + " › " + plain_action_text(a->text());
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
  walk(m_window->menuBar()->actions(), {});
  for (const QAction* a : m_window->findChildren<QAction*>())
    if (!a->shortcuts().isEmpty() && !seen.contains(a)) {
      out.append({plain_action_text(a->text()), keys(a)});
      seen.insert(a);
    }
  return out;
}

void HelpMenu::showShortcuts() {
  const auto list = shortcutList();
  QDialog dialog(m_window);
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

QString HelpMenu::aboutText() const {
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
