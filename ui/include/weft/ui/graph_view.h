#pragma once
// Layered graph view: ASAP levels are the layers (top to bottom), order within a layer by
// barycenter sweeps (Sugiyama et al., 1981), nodes coloured by stream, the critical path in red.
// Alternatively (right-click) the wire layering by the head rule, as `weft layers` gives it: over
// the graph's chains or the current schedule's streams, with the horizontal merges it allows.
// Wheel zooms about the cursor, drag pans, fit() shows everything. Paints only what is visible
// and drops labels, then outlines, when zoomed out, so 5k+ node graphs stay fluid.
#include <QPointF>
#include <QRectF>
#include <QString>
#include <QFutureWatcher>
#include <QImage>
#include <QWidget>
#include <vector>

#include "weft/core/graph/graph.h"

class QAction;
class QPainter;

namespace weft::ui {

class StudioDocument;

class GraphView : public QWidget {
  Q_OBJECT
 public:
  /// What the rows are: ASAP levels, or the wire layering by the head rule (core::layer_by_wires)
  /// over the graph's wires (core::wires_from_graph: a minimum chain cover) or over the current
  /// schedule's streams (core::wires_from_schedule; re-layered after every edit).
  enum class Layering { Levels, GraphWires, ScheduleWires };

  explicit GraphView(StudioDocument* doc, QWidget* parent = nullptr);
  ~GraphView() override;

  /// Lays the graph out by `layering` (also the right-click menu's choice).
  void setLayering(Layering layering);
  Layering layering() const { return m_layering; }
  /// The row of node n in the current layering, and the number of rows.
  int layerOf(core::NodeId n) const;
  int layerCount() const { return m_layer_count; }
  /// The status line's figures for the current layering (rows; for wires: their origin, the widest
  /// layer, launches before and after the merges the layering allows, as `weft layers`).
  const QString& layeringSummary() const { return m_layering_summary; }

  /// Fits the whole graph into the widget (Ctrl+0).
  void fit();
  /// Selects the next node whose name or operator contains `text` (case-insensitive) after the
  /// current selection, centres on it and returns the number of matches.
  int find(const QString& text);
  /// Centres the view on node n.
  void centerOn(core::NodeId n);
  /// Node under a widget point, or kNoNode.
  core::NodeId nodeAt(QPointF widget_pos) const;
  /// Node rectangle in layout (world) coordinates.
  QRectF nodeWorldRect(core::NodeId n) const;
  double scale() const { return m_scale; }
  /// Layer crossings after the barycenter sweeps (for tests and the status line).
  std::size_t crossings() const { return m_crossings; }
  /// Zoomed out on a large graph (5k operators or more), the view draws a picture of
  /// the whole graph rendered in the worker pool after each layout, edit or cost change (the
  /// previous one stays shown meanwhile): true when the last paint drew it. Zoomed in, each
  /// paint draws only the rows and edges in view.
  bool paintedOverview() const { return m_painted_overview; }
  /// True while the overview picture is being rendered.
  bool overviewPending() const { return m_overview_running; }
  /// Blocks until the overview picture being rendered (and any asked meanwhile) is in
  /// (screenshots); returns at once when none is.
  void waitForOverview();
  /// Nodes and edges the last paint drew (not counting the overview picture's).
  std::size_t paintedItems() const { return m_painted_items; }

  QSize sizeHint() const override { return {640, 480}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void relayout();
  /// Fills m_layer_of and m_layer_count for the current layering (and the summary).
  void computeLayers();
  /// Rows sorted by x, edges by their upper row, critical-path indices: what a paint culls with.
  void indexLayout();
  /// Draws the nodes and edges in `visible` (world coordinates), found through the rows.
  void paintVisible(QPainter& p, const QRectF& visible);
  /// Re-renders the overview picture in the worker (coalesced: one job at a time, the latest
  /// request runs when it returns).
  void requestOverview();
  void launchOverview();
  void takeOverview();
  /// Indices into the critical path per node (-1: off it), for the document's current analysis.
  const std::vector<int>& criticalIndex();
  QPointF toWorld(QPointF widget_pos) const;
  QPointF toWidget(QPointF world) const;

  StudioDocument* m_doc;
  std::vector<QPointF> m_pos;  ///< world centre per node
  QRectF m_bounds;
  std::size_t m_crossings = 0;
  double m_scale = 1.0;
  QPointF m_offset;  ///< widget = world * scale + offset
  QPointF m_press_pos;
  QPointF m_press_offset;
  bool m_panning = false;
  bool m_fit_pending = true;
  bool m_fitted = false;  ///< showing fit()'s view (no zoom or pan since): kept fitted on resize
  Layering m_layering = Layering::Levels;
  std::vector<int> m_layer_of;  ///< row per node
  int m_layer_count = 0;
  QString m_layering_summary;
  std::vector<QAction*> m_layering_actions;  ///< by Layering
  // What a paint culls with (indexLayout).
  std::vector<std::vector<core::NodeId>> m_rows;  ///< per row, its nodes by x
  struct RowEdge {
    int far_row;  ///< the edge's lower row (the larger index)
    core::NodeId from, to;
  };
  std::vector<std::vector<RowEdge>> m_row_edges;  ///< per upper row, its edges by far_row descending
  std::vector<int> m_crit_index;
  const void* m_crit_for = nullptr;  ///< the analysis m_crit_index was made from
  // The overview picture (large graphs, zoomed out).
  struct Overview {
    QImage image;
    QRectF bounds;  ///< the world rectangle the image covers
    double scale = 0;  ///< image pixels per world unit
    const void* graph = nullptr;  ///< the graph it shows (a later model's paint ignores it)
  };
  Overview m_overview;
  QFutureWatcher<Overview> m_overview_watcher;
  bool m_overview_running = false;
  bool m_overview_dirty = false;
  bool m_painted_overview = false;
  std::size_t m_painted_items = 0;
};

}  // namespace weft::ui
