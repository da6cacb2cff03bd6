#pragma once
// Layered graph view: ASAP levels are the layers (top to bottom), order within a layer by
// barycenter sweeps (Sugiyama et al., 1981), nodes coloured by stream, the critical path in red;
// with a measured profile open, nodes coloured by measured time (heat_scale.h, with a legend).
// Alternatively (right-click) the wire layering by the head rule, as `weft layers` gives it: over
// the graph's chains or the current schedule's streams, with the horizontal merges it allows.
// Wheel zooms about the cursor, drag pans, fit() shows everything: a graph too deep (or too wide)
// for the view at a readable size is arranged to fill it, its layers wrapped into side-by-side
// bands, top to bottom or left to right, whichever draws the nodes largest. Paints only what is
// visible and drops labels, then outlines, when zoomed out, so 5k+ node graphs stay fluid.
#include <QFutureWatcher>
#include <QImage>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

#include "weft/core/graph/graph.h"
#include "weft/ui/heat_scale.h"

class QAction;
class QActionGroup;
class QFontMetrics;
class QPainter;

namespace weft::ui {

namespace detail {
class GraphCells;
}

class StudioDocument;

class GraphView : public QWidget {
  Q_OBJECT
 public:
  /// What the rows are: ASAP levels, or the wire layering by the head rule (core::layer_by_wires)
  /// over the graph's wires (core::wires_from_graph: a minimum chain cover) or over the current
  /// schedule's streams (core::wires_from_schedule; re-layered after every edit).
  enum class Layering { Levels, GraphWires, ScheduleWires };

  explicit GraphView(StudioDocument* doc, QWidget* parent = nullptr);
  /// Waits for an overview being rendered: its painter uses Qt's GUI thread pool, which must
  /// outlive it (a view closed as the application quits hung in that pool's shutdown).
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

  /// How the layers are placed: the direction they follow each other in (top to bottom, or left
  /// to right) and the bands they are wrapped into (consecutive layers, side by side; 1: none).
  enum class Flow { TopDown, LeftRight };
  struct Arrangement {
    Flow flow = Flow::TopDown;
    int bands = 1;
    bool operator==(const Arrangement&) const = default;
  };
  Arrangement arrangement() const { return m_arrangement; }
  /// The band node n is drawn in (0 first), -1 before a layout.
  int bandOf(core::NodeId n) const;
  /// Whether fit() may wrap and turn the layers to fill the view (on by default; the right-click
  /// menu's "Wrap layers to fill the view"). Off: one band, top to bottom, however small.
  void setWrapping(bool on);
  /// The status line's words for the arrangement (" in 3 bands, left to right"); empty for one band top to bottom.
  QString arrangementText() const;
  bool wrapping() const { return m_wrapping; }
  /// The arrangement that shows the whole graph largest in a `size` pixels area: one band top to
  /// bottom while that draws nodes at a readable scale, else the flow and band count of the largest
  /// scale (fewer bands on near ties). O(candidates): their extents are measured at layout.
  Arrangement bestArrangement(QSizeF size) const;

  /// What the nodes' fill shows: their stream, or their measured time in the document's profile
  /// (a heat scale, grey where the profile has none). A model opened with a profile shows
  /// measured times, one without streams; the right-click menu switches.
  enum class Colouring { Streams, MeasuredTime };
  void setColouring(Colouring colouring);
  Colouring colouring() const { return m_colouring; }
  /// The fill node n is painted with.
  QColor nodeFill(core::NodeId n) const;
  /// The heat scale of the measured times (empty without a profile).
  const HeatScale& heatScale() const { return m_heat; }

  /// Fits the whole graph into the widget (Ctrl+0), arranged by bestArrangement().
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

  QSize sizeHint() const override { return {640, 480}; }

  // Large graphs zoomed out (from kOverviewNodes operators, a node under a few pixels wide) are
  // drawn from an overview picture rendered in the worker pool after each layout, edit or colour
  // change (coalesced; the previous picture shown meanwhile): such a frame draws no node itself.
  /// The last paint drew the overview picture.
  bool paintedOverview() const { return m_painted_overview; }
  /// True while the overview picture is being rendered.
  bool overviewPending() const { return m_overview_running; }
  /// Waits for an overview being rendered and takes it (screenshots, tests).
  void waitForOverview();
  /// Nodes and edges the last paint drew (0 when it drew the overview picture).
  std::size_t paintedItems() const { return m_painted_items; }
  /// A large graph zoomed in is painted from the nodes and edges filed in the cells in view
  /// (src/views/graph_cells.h); off, every paint tests every node and edge (tests compare).
  void setCellIndex(bool on) {
    m_use_cells = on;
    update();
  }
  /// The last paint visited the nodes and edges of the cells in view only.
  bool paintedByCells() const { return m_painted_by_cells; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  /// A new model (or the one there when the view is made): colouring, layout, fit.
  void takeModel();
  /// A checkable action of the right-click menu, in `group` when given.
  QAction* addMenuAction(const QString& label, const char* name, bool checked, QActionGroup* group);
  void addSeparator();
  void relayout();
  void requestOverview();
  void launchOverview();
  void takeOverview();
  /// The legend of the measured-time colouring, at the view's top right (widget coordinates).
  void paintHeatLegend(QPainter& p) const;
  QRect heatLegendRect(const QFontMetrics& fm) const;
  /// The font of the status line and the legend.
  QFont overlayFont() const;
  /// The tooltip's line of measured against predicted time (empty without a profile).
  QString measuredTip(core::NodeId v) const;
  /// Places the ordered layers as `a` says: m_pos, m_bounds. O(V).
  void arrange(Arrangement a);
  /// m_candidates for the current layers: O(layers × candidates), once per layout.
  void measureArrangements();
  /// The first layer of each band when wrapped into `bands`. O(layers).
  std::vector<std::size_t> bandStarts(int bands) const;
  /// The world size arrange(a) would give (nodes' bounds). O(layers).
  QSizeF arrangedSize(Arrangement a) const;
  /// Fills m_layer_of and m_layer_count for the current layering (and the summary).
  void computeLayers();
  QPointF toWorld(QPointF widget_pos) const;
  QPointF toWidget(QPointF world) const;

  StudioDocument* m_doc;
  std::vector<QPointF> m_pos;  ///< world centre per node
  /// The laid-out nodes and edges of a large graph (kOverviewNodes+) by cells: made in the
  /// worker with the overview picture after each layout (O(V + E)); none until it returns.
  std::shared_ptr<const detail::GraphCells> m_cells;
  std::size_t m_layout_serial = 0;  ///< counts arrangements (the cells' and m_pos's)
  bool m_use_cells = true;
  bool m_painted_by_cells = false;
  struct Overview {
    QImage image;
    QRectF bounds;                ///< the world rectangle the image covers
    double scale = 0;             ///< image pixels per world unit
    const void* graph = nullptr;  ///< the graph it shows (a later model's paint ignores it)
    /// The cell index of the layout it was launched for (built with the first picture of a layout).
    std::shared_ptr<const detail::GraphCells> cells;
    std::size_t layout = 0;  ///< m_layout_serial at launch
  };
  Overview m_overview;
  QFutureWatcher<Overview> m_overview_watcher;
  bool m_overview_running = false;
  bool m_overview_dirty = false;
  bool m_painted_overview = false;
  std::size_t m_painted_items = 0;
  /// The layers, each ordered by the barycenter sweeps, and each node's place across its layer
  /// (in node slots, centred on 0).
  std::vector<std::vector<core::NodeId>> m_layers;
  std::vector<double> m_slot;
  std::vector<double> m_layer_span;  ///< per layer: slots from its first node to its last
  std::vector<int> m_cut;            ///< per layer l: edges from layers before l to l or after
  /// The arrangements fit() chooses from, with their world extents; the first is one band top to bottom.
  std::vector<std::pair<Arrangement, QSizeF>> m_candidates;
  Arrangement m_arrangement;
  std::vector<int> m_band_of;  ///< band per node
  bool m_wrapping = true;
  Colouring m_colouring = Colouring::Streams;
  HeatScale m_heat;
  std::vector<QAction*> m_colouring_actions;  ///< by Colouring
  QAction* m_wrap_action = nullptr;
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
};

}  // namespace weft::ui
