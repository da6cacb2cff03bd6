#pragma once
// Table of the model's operators (one row per node): adapts the graph, analysis and current
// schedule for the Nodes panel; stream and position columns follow every edit.
#include <QAbstractTableModel>

namespace weft::ui {

class StudioDocument;

class NodeTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Name, Operator, Stream, Position, Level, Slack, TimeUs, Bound, ColumnCount };
  /// Role giving the NodeId of a row (int).
  static constexpr int kNodeIdRole = Qt::UserRole + 1;

  explicit NodeTableModel(StudioDocument* doc, QObject* parent = nullptr);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  StudioDocument* m_doc;
  int m_rows = 0;
};

}  // namespace weft::ui
