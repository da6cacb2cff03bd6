#include "weft/ui/properties_panel.h"

#include <QHeaderView>
#include <QLocale>

#include "weft/ui/byte_format.h"
#include "weft/ui/studio_document.h"

namespace weft::ui {

namespace {

QString format_attribute(const core::Attribute& a) {
  auto join = [](const auto& values) {
    QStringList parts;
    for (const auto& v : values) parts << QString::number(v);
    return "[" + parts.join(", ") + "]";
  };
  using T = core::Attribute::Type;
  switch (a.type) {
    case T::Float: return QString::number(static_cast<double>(a.f));
    case T::Int: return QString::number(a.i);
    case T::String: return QString::fromStdString(a.s);
    case T::Floats: return join(a.floats);
    case T::Ints: return join(a.ints);
    case T::Strings: {
      QStringList parts;
      for (const auto& s : a.strings) parts << QString::fromStdString(s);
      return "[" + parts.join(", ") + "]";
    }
    case T::Tensor: return QObject::tr("tensor %1").arg(join(a.tensor_dims));
    case T::Graph: return QObject::tr("subgraph");
    case T::Graphs: return QObject::tr("subgraphs");
    case T::Undefined: break;
  }
  return QObject::tr("?");
}

QString bound_text(core::Bound b) {
  switch (b) {
    case core::Bound::Compute: return QObject::tr("compute-bound");
    case core::Bound::Memory: return QObject::tr("memory-bound");
    case core::Bound::Unknown: break;
  }
  return QObject::tr("unknown");
}

}  // namespace

PropertiesPanel::PropertiesPanel(StudioDocument* doc, QWidget* parent) : QTreeWidget(parent), m_doc(doc) {
  setColumnCount(2);
  setHeaderLabels({tr("Property"), tr("Value")});
  setAlternatingRowColors(true);
  setRootIsDecorated(true);
  // Tensor names can be long: a fixed first column keeps the values in view (tooltips hold both).
  header()->setSectionResizeMode(0, QHeaderView::Interactive);
  setColumnWidth(0, 150);
  setTextElideMode(Qt::ElideMiddle);
  connect(doc, &StudioDocument::selectionChanged, this, &PropertiesPanel::refresh);
  connect(doc, &StudioDocument::scheduleChanged, this, &PropertiesPanel::refresh);
  connect(doc, &StudioDocument::modelChanged, this, &PropertiesPanel::refresh);
}

void PropertiesPanel::refresh() {
  clear();
  if (!m_doc->hasModel() || m_doc->selection().empty()) {
    auto* hint = new QTreeWidgetItem(this, {tr("Select a node"), tr("in the graph or lanes view")});
    hint->setDisabled(true);
    return;
  }
  const core::NodeId n = m_doc->selection().front();
  const auto i = static_cast<std::size_t>(n);
  const core::Graph& g = m_doc->graph();
  const core::Node& node = g.node(n);
  const auto& an = m_doc->analysis();
  auto section = [this](const QString& title) {
    auto* item = new QTreeWidgetItem(this, {title});
    QFont f = item->font(0);
    f.setBold(true);
    item->setFont(0, f);
    item->setExpanded(true);
    return item;
  };
  auto row = [](QTreeWidgetItem* parent, const QString& k, const QString& v) {
    auto* item = new QTreeWidgetItem(parent, {k, v});
    item->setToolTip(0, k);
    item->setToolTip(1, v);
    return item;
  };
  QTreeWidgetItem* op = section(tr("Operator"));
  row(op, tr("name"), QString::fromStdString(node.name));
  row(op, tr("type"), QString::fromStdString(node.domain.empty() ? node.op_type : node.domain + "::" + node.op_type));
  row(op, tr("stream"), tr("%1, position %2").arg(m_doc->streamOf(n)).arg(m_doc->positionOf(n)));
  if (m_doc->selection().size() > 1) row(op, tr("selected"), tr("%1 nodes").arg(m_doc->selection().size()));
  // Measured against predicted, first: with a profile open it is what a node is selected for.
  if (const auto& profile = m_doc->profile()) {
    QTreeWidgetItem* measured = section(tr("Measured"));
    const std::optional<double> us = m_doc->measuredTime(n);
    const auto& predicted = m_doc->predictedCosts().nodes;
    const double predicted_us = i < predicted.size() ? predicted[i].time_us : 0.0;
    row(measured, tr("measured time"),
        us && i < profile->match.size()
            ? tr("%1 µs (%2)").arg(*us, 0, 'f', 2).arg(QString::fromStdString(std::string(core::profile_match_name(profile->match[i]))))
            : tr("not in the profile: predicted time kept"));
    row(measured, tr("predicted time"), tr("%1 µs (%2)").arg(predicted_us, 0, 'f', 2).arg(QString::fromStdString(m_doc->device().name)));
    if (us && predicted_us > 0) row(measured, tr("vs predicted"), tr("%1×").arg(*us / predicted_us, 0, 'f', 2));
    row(measured, tr("profile"), QString::fromStdString(profile->source));
  }
  if (!node.attributes.empty()) {
    QTreeWidgetItem* attrs = section(tr("Attributes"));
    for (const core::Attribute& a : node.attributes) row(attrs, QString::fromStdString(a.name), format_attribute(a));
  }
  auto tensors = [&](const QString& title, const std::vector<core::TensorId>& ids) {
    QTreeWidgetItem* s = section(title);
    for (core::TensorId t : ids) {
      if (t == core::kNoTensor) continue;
      const core::Tensor& tensor = g.tensor(t);
      row(s, QString::fromStdString(tensor.name),
          tr("%1 %2 · %3 · %4")
              .arg(QString::fromStdString(std::string(core::dtype_name(tensor.dtype))),
                   QString::fromStdString(core::format_shape(tensor)), format_bytes(tensor.bytes()),
                   QString::fromStdString(std::string(core::tensor_kind_name(tensor.kind)))));
    }
  };
  tensors(tr("Inputs"), node.inputs);
  tensors(tr("Outputs"), node.outputs);
  QTreeWidgetItem* sched = section(tr("Analysis"));
  row(sched, tr("level (ASAP)"), QString::number(an.levels.asap[i]));
  row(sched, tr("ALAP"), QString::number(an.levels.alap[i]));
  row(sched, tr("slack"), QString::number(an.levels.slack[i]));
  row(sched, tr("critical path"), m_doc->onCriticalPath(n) ? tr("yes") : tr("no"));
  if (i < an.costs.nodes.size()) {
    const core::NodeCost& c = an.costs.nodes[i];
    row(sched, tr("predicted time"), tr("%1 µs%2").arg(c.time_us, 0, 'f', 2).arg(c.measured ? tr(" (measured)") : c.known ? "" : tr(" (guess)")));
    row(sched, tr("bound"), bound_text(c.bound));
    row(sched, tr("flops"), QLocale::system().toString(c.flops, 'g', 4));
    row(sched, tr("bytes moved"), format_bytes(static_cast<std::int64_t>(c.bytes)));
    row(sched, tr("intensity"), tr("%1 flop/byte").arg(c.intensity, 0, 'f', 2));
  }
}

}  // namespace weft::ui
