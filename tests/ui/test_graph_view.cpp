// The graph view at fit: a deep model (Inception-v3, 112 levels) fills the view, its levels
// wrapped into bands at a readable scale instead of a thin column; layers stay rows within a band
// and every edge runs forward or into a later band; a small graph keeps one band top to bottom;
// turning wrapping off brings the single column back; a large graph zoomed in is painted from its
// cell index exactly as by a pass over every node and edge.
#include <QAction>
#include <QTest>
#include <QWheelEvent>
#include <cmath>
#include <map>

#include "ui_test_support.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/ui/graph_view.h"
#include "weft/ui/studio_document.h"
#include "weft/ui/synthetic_model.h"

using weft::core::NodeId;
using weft::ui::GraphView;

namespace {

weft::ui::LoadedModel load_model(const char* name) {
  auto g = weft::core::import_onnx(std::string(WEFT_TEST_DATA_DIR "/models/") + name, {.dims = {{"batch", 1}}});
  if (!g) qFatal("%s", g.error().message.c_str());
  return weft::test::make_loaded(std::move(*g), {});
}

// Within each band, the nodes of one layer share their coordinate along the flow, and a later
// layer lies further along; every edge goes further along its band, or into a later band.
void expect_bands(const GraphView& view, const weft::core::Graph& g) {
  const bool down = view.arrangement().flow == GraphView::Flow::TopDown;
  const auto along = [&](NodeId n) {
    const QPointF c = view.nodeWorldRect(n).center();
    return down ? c.y() : c.x();
  };
  std::map<int, double> along_of_layer;
  for (std::size_t v = 0; v < g.node_count(); ++v) {
    const auto n = static_cast<NodeId>(v);
    const auto [it, fresh] = along_of_layer.emplace(view.layerOf(n), along(n));
    QVERIFY(fresh || it->second == along(n));
    for (NodeId s : g.successors(n)) {
      QVERIFY(view.bandOf(s) >= view.bandOf(n));
      if (view.bandOf(s) == view.bandOf(n)) QVERIFY(along(s) > along(n));
    }
  }
}

}  // namespace

class TestGraphView : public QObject {
  Q_OBJECT
 private slots:
  void deepModelFillsTheView();
  void smallGraphKeepsOneColumn();
  void cellIndexPaintsAsAFullPass();
};

void TestGraphView::deepModelFillsTheView() {
  weft::ui::StudioDocument doc;
  GraphView view(&doc);
  view.resize(800, 700);
  doc.setModel(load_model("inception_v3.onnx"));
  const auto& g = doc.graph();
  QVERIFY(doc.analysis().levels.depth > 100);
  view.fit();
  // One column top to bottom would draw it at about a tenth of its size (the thin column).
  view.setWrapping(false);
  QCOMPARE(view.arrangement(), GraphView::Arrangement{});
  const double column_scale = view.scale();
  QVERIFY2(column_scale < 0.15, qPrintable(QString::number(column_scale)));
  QVERIFY(!view.findChild<QAction*>("wrapLayers")->isChecked());
  // Wrapped: the largest scale over both flows and every band count, here several bands.
  view.findChild<QAction*>("wrapLayers")->trigger();
  QVERIFY(view.wrapping());
  QVERIFY(view.arrangement().bands > 1);
  qInfo() << "inception_v3 at fit in 800x700: one column" << column_scale << "wrapped" << view.scale() << view.arrangementText();
  QVERIFY2(view.scale() > 3 * column_scale, qPrintable(QString("%1 vs %2").arg(view.scale()).arg(column_scale)));
  // Nodes large enough for their operator's name: 28 world units tall become at least 10 pixels.
  QVERIFY2(view.scale() * 28 >= 10, qPrintable(QString::number(view.scale())));
  // The graph's extent fills the view in both directions (not a column, not a strip).
  QRectF shown;
  for (std::size_t v = 0; v < g.node_count(); ++v) {
    const QRectF r = view.nodeWorldRect(static_cast<NodeId>(v));
    shown |= QRectF(r.topLeft() * view.scale(), r.bottomRight() * view.scale());
  }
  QVERIFY2(shown.width() > 0.6 * view.width() && shown.height() > 0.6 * (view.height() - 40),
           qPrintable(QString("%1x%2 in %3x%4").arg(shown.width()).arg(shown.height()).arg(view.width()).arg(view.height())));
  expect_bands(view, g);
  QVERIFY(view.bandOf(g.topo_order().back()) == view.arrangement().bands - 1);
  // The status line says how it is laid out.
  QVERIFY(!view.arrangementText().isEmpty());
  // A click on a node's centre still finds it in the wrapped layout.
  const NodeId last = g.topo_order().back();
  view.centerOn(last);
  QCOMPARE(view.nodeAt(QPointF(view.width() / 2.0, view.height() / 2.0)), last);
  // A view as tall as it is narrow gets another arrangement, still wrapped.
  view.resize(400, 1200);
  view.fit();
  expect_bands(view, g);
}

void TestGraphView::smallGraphKeepsOneColumn() {
  weft::ui::StudioDocument doc;
  GraphView view(&doc);
  view.resize(800, 700);
  doc.setModel(weft::test::make_loaded(weft::test::make_random_dag(30, 0.15, 7, 3), {}));
  view.fit();
  // Readable as it is: one band, top to bottom, as before wrapping existed.
  QCOMPARE(view.arrangement(), GraphView::Arrangement{});
  QVERIFY(view.arrangementText().isEmpty());
  expect_bands(view, doc.graph());
}

void TestGraphView::cellIndexPaintsAsAFullPass() {
  // 20k synthetic operators, centred on nodes across the graph, outlined (scale 0.8) and plain
  // (0.1), in a wide and a tall view (other arrangements): the paint from the cells in view
  // draws the same picture and counts the same nodes and edges as the pass over all of them.
  weft::ui::StudioDocument doc;
  GraphView view(&doc);
  doc.setModel(weft::test::make_loaded(*weft::ui::make_synthetic_graph(20000, 5), {}));
  const auto n = doc.graph().node_count();
  int by_cells = 0;
  for (const QSize size : {QSize(800, 600), QSize(400, 1000)}) {
    view.resize(size);
    view.fit();
    view.waitForOverview();  // the cells of this layout come with its picture
    for (std::size_t i = 0; i < 9; ++i) {
      const auto at = static_cast<NodeId>(i * (n - 1) / 8);
      for (const double scale : {0.8, 0.1}) {
        view.centerOn(at);  // at 0.8
        if (scale != 0.8) {
          const QPointF centre(view.width() / 2.0, view.height() / 2.0);
          QWheelEvent wheel(centre, view.mapToGlobal(centre), QPoint(), QPoint(0, static_cast<int>(std::lround(std::log(scale / 0.8) / std::log(1.0015)))),
                            Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
          QCoreApplication::sendEvent(&view, &wheel);
        }
        view.setCellIndex(true);
        const QImage cells = view.grab().toImage();
        const std::size_t cell_items = view.paintedItems();
        by_cells += view.paintedByCells() ? 1 : 0;
        view.setCellIndex(false);
        const QImage all = view.grab().toImage();
        QVERIFY(!view.paintedByCells());
        QCOMPARE(cell_items, view.paintedItems());
        QVERIFY(cell_items > 0);
        QVERIFY2(cells == all, qPrintable(QString("node %1 at scale %2 in %3x%4").arg(at).arg(view.scale()).arg(size.width()).arg(size.height())));
      }
    }
  }
  QVERIFY2(by_cells >= 30, qPrintable(QString::number(by_cells)));  // of 36 views: the index was used
}

QTEST_MAIN(TestGraphView)
#include "test_graph_view.moc"
