#include "weft/ui/node_table_model.h"

#include "weft/ui/studio_document.h"

namespace weft::ui {

NodeTableModel::NodeTableModel(StudioDocument* doc, QObject* parent) : QAbstractTableModel(parent), m_doc(doc) {
  connect(doc, &StudioDocument::modelChanged, this, [this] {
    beginResetModel();
    m_rows = m_doc->hasModel() ? static_cast<int>(m_doc->graph().node_count()) : 0;
    endResetModel();
  });
  connect(doc, &StudioDocument::scheduleChanged, this, [this] {
    if (m_rows > 0) emit dataChanged(index(0, Stream), index(m_rows - 1, Position), {Qt::DisplayRole});
  });
}

int NodeTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : m_rows; }
int NodeTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant NodeTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= m_rows || index.column() >= ColumnCount) return {};
  const auto n = static_cast<core::NodeId>(index.row());
  if (role == kNodeIdRole) return index.row();
  if (role == Qt::TextAlignmentRole)
    return index.column() >= Stream ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  const core::Node& node = m_doc->graph().node(n);
  const auto& an = m_doc->analysis();
  const auto i = static_cast<std::size_t>(n);
  switch (index.column()) {
    case Name: return QString::fromStdString(node.name);
    case Operator: return QString::fromStdString(node.op_type);
    case Stream: return m_doc->streamOf(n);
    case Position: return m_doc->positionOf(n);
    case Level: return an.levels.asap[i];
    case Slack: return an.levels.slack[i];
    case TimeUs: return i < an.costs.nodes.size() ? an.costs.nodes[i].time_us : 0.0;
    case Bound: {
      if (i >= an.costs.nodes.size()) return QString();
      switch (an.costs.nodes[i].bound) {
        case core::Bound::Compute: return tr("compute");
        case core::Bound::Memory: return tr("memory");
        case core::Bound::Unknown: return tr("unknown");
      }
      return QString();
    }
    default: return {};
  }
}

QVariant NodeTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
  static const char* const kNames[] = {"Name", "Operator", "Stream", "Position", "Level", "Slack", "Time (µs)", "Bound"};
  return section >= 0 && section < ColumnCount ? tr(kNames[section]) : QVariant();
}

}  // namespace weft::ui
