#pragma once
// The memory view's offset map: one rectangle per planned tensor of the current schedule, drawn
// from the view's MemoryModel (no planning here).
#include <QString>
#include <QImage>
#include <QWidget>
#include <vector>

#include "weft/ui/memory_model.h"

namespace weft::ui {

class StudioDocument;

/// Offset map: x = step or predicted time, y = byte offset in the arena (0 at the bottom); one
/// rectangle per planned tensor, coloured by its producer's stream. Hover names the tensor; a
/// click selects its producer. Draws only what is visible; colours follow the palette.
class OffsetMapView : public QWidget {
  Q_OBJECT
 public:
  OffsetMapView(StudioDocument* doc, QWidget* parent = nullptr);
  /// `model` must outlive the view or be replaced before it dies (the MemoryView owns both).
  void setModel(const MemoryModel* model, bool over_time);
  bool overTime() const { return m_over_time; }
  /// Index into model->blocks under a widget point, or -1.
  int blockAt(QPointF pos) const;
  /// Widget point at the centre of block i (tests).
  QPointF blockCenter(int block) const;
  /// "tensor name · size · offset · producer" of block i.
  QString blockText(int block) const;
  /// The text of the block under the mouse (empty when none).
  const QString& hoverText() const { return m_hover_text; }
  /// The plot area inside the axes, widget coordinates.
  QRectF plotRect() const;
  /// Left and right plot margins in pixels (to line the map up under the chart's plot area);
  /// negative: the map's own.
  void setHorizontalMargins(double left, double right);

  /// What drawing the blocks reads of the view and the document (the plot, the size, one colour
  /// per node: its stream's, or the selection's), taken on the GUI thread for renderBlocks. O(V).
  struct BlocksInput {
    QRectF plot;
    QSize size;
    qreal ratio = 1;
    QColor edge;
    std::vector<QRgb> fill;  ///< per node
  };
  BlocksInput blocksInput() const;
  /// The blocks of `model` drawn as this view draws them (without the hover), on any thread.
  static QImage renderBlocks(const MemoryModel& model, bool over_time, const BlocksInput& in);
  /// Takes blocks drawn by renderBlocks for the model just set (setModel) on `plot`: shown as
  /// they are unless the view changed size since.
  void adoptBlocks(QImage blocks, QRectF plot);

 protected:
  bool event(QEvent* event) override;
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  double xMax() const;
  double yMax() const;
  /// Where blocks go: the plot rect and the scales, worked out once per paint or hit test (the
  /// plot rect measures text).
  struct Frame {
    QRectF plot;
    double sx = 1, sy = 1;
    bool over_time = false;
  };
  Frame frame() const;
  static Frame frameOf(const MemoryModel* model, bool over_time, QRectF plot);
  QRectF blockRect(int block, const Frame& f) const;
  static QRectF rectOf(const MemoryBlock& b, const Frame& f);
  /// The blocks drawn (without the hover) into m_blocks, for the plot `f`.
  void drawBlocks(const Frame& f);

  StudioDocument* m_doc;
  const MemoryModel* m_model = nullptr;
  bool m_over_time = false;
  double m_left = -1, m_right = -1;
  int m_hover = -1;
  QString m_hover_text;
  // The blocks as last drawn: a hover or an expose redraws from it (100k blocks took 14 ms a
  // paint). Remade after a model, selection, schedule (colours), palette or size change.
  QImage m_blocks;
  QRectF m_blocks_plot;
  bool m_blocks_valid = false;
};

}  // namespace weft::ui
