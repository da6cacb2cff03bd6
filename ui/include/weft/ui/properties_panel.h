#pragma once
// The Properties panel: the selected node's operator, attributes, tensors, levels and cost.
#include <QTreeWidget>

namespace weft::ui {

class StudioDocument;

/// Properties of the (first) selected node: operator, attributes, tensors, levels, cost.
class PropertiesPanel : public QTreeWidget {
  Q_OBJECT
 public:
  explicit PropertiesPanel(StudioDocument* doc, QWidget* parent = nullptr);
  void refresh();

 private:
  StudioDocument* m_doc;
};

}  // namespace weft::ui
