#include "weft/ui/main_window.h"

#include <QFileDialog>
#include <QLabel>
#include <QMenuBar>
#include <QStatusBar>

#include "weft/core/levels.h"
#include "weft/core/onnx_import.h"

namespace weft::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("Weft Studio");
  m_summary = new QLabel(tr("Open an ONNX model (Ctrl+O)."), this);
  m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_summary->setMargin(12);
  setCentralWidget(m_summary);
  auto* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open..."), QKeySequence::Open, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open model"), {}, tr("ONNX models (*.onnx)"));
    if (!path.isEmpty()) openModel(path);
  });
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  resize(900, 600);
}

bool MainWindow::openModel(const QString& path) {
  auto graph = core::import_onnx(path.toStdString());
  if (!graph) {
    m_summary->setText(tr("Could not open %1:\n%2").arg(path, QString::fromStdString(graph.error().message)));
    return false;
  }
  const core::Levels lv = core::compute_levels(*graph);
  m_summary->setText(tr("%1\n\noperators: %2\nedges: %3\ntensors: %4\ndepth: %5\nwidest level: %6")
                         .arg(path)
                         .arg(graph->node_count())
                         .arg(graph->edge_count())
                         .arg(graph->tensor_count())
                         .arg(lv.depth)
                         .arg(lv.widest_level));
  statusBar()->showMessage(tr("%1 operators").arg(graph->node_count()));
  return true;
}

}  // namespace weft::ui
