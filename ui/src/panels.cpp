#include "weft/ui/panels.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "weft/ui/core_bridge.h"
#include "weft/ui/model_loader.h"
#include "weft/ui/studio_document.h"

namespace weft::ui {

namespace {

QString format_bytes(std::int64_t bytes) {
  if (bytes < 0) return QObject::tr("unknown");
  return QLocale::system().formattedDataSize(bytes, 1, QLocale::DataSizeIecFormat);
}

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

StrategyPanel::StrategyPanel(StudioDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  auto* form = new QFormLayout;
  m_strategy = new QComboBox(this);
  for (const std::string& name : bridge::strategy_names()) m_strategy->addItem(QString::fromStdString(name));
  m_strategy->setCurrentText(default_strategy());
  m_cap = new QSpinBox(this);
  m_cap->setRange(1, 64);
  m_cap->setValue(core::kDefaultMaxStreams);
  m_cap->setToolTip(tr("Most streams to use; the hardware has 8 work queues by default"));
  m_grain = new QDoubleSpinBox(this);
  m_grain->setRange(-1, 10000);
  m_grain->setDecimals(1);
  m_grain->setSuffix(tr(" µs"));
  m_grain->setSpecialValueText(tr("automatic"));
  m_grain->setValue(-1);
  m_grain->setToolTip(tr("Operators shorter than this stay on a producer's stream"));
  form->addRow(tr("Strategy"), m_strategy);
  form->addRow(tr("Stream cap"), m_cap);
  m_launch = new QComboBox(this);
  m_launch->addItem(tr("eager launches"));
  m_launch->addItem(tr("CUDA Graph replay"));
  m_launch->setToolTip(tr("Eager: every cross-stream event costs host time, so automatic granularity keeps short "
                          "operators together. CUDA Graph: dependencies are graph edges, automatic granularity is 0; "
                          "predictions use graph replay."));
  form->addRow(tr("Granularity"), m_grain);
  form->addRow(tr("Launch"), m_launch);
  auto* button = new QPushButton(tr("Apply"), this);
  m_note = new QLabel(this);
  m_note->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(button);
  layout->addWidget(m_note);
  layout->addStretch();
  connect(button, &QPushButton::clicked, this, &StrategyPanel::apply);
  connect(m_cap, &QSpinBox::valueChanged, this, [this](int v) {
    m_note->setText(v > core::kDefaultMaxStreams ? tr("More than %1 streams: the GPU has %1 hardware queues by default; "
                                                      "extra streams share them.")
                                                       .arg(core::kDefaultMaxStreams)
                                                 : QString());
  });
  connect(doc, &StudioDocument::modelChanged, this, [this] {
    m_cap->setValue(m_doc->strategyOptions().max_streams);
    m_grain->setValue(m_doc->strategyOptions().granularity_us);
    m_launch->setCurrentIndex(m_doc->strategyOptions().cuda_graph ? 1 : 0);
    m_strategy->setCurrentText(QString::fromStdString(m_doc->schedule().strategy));
  });
}

bool StrategyPanel::apply() {
  core::StrategyOptions opt;
  opt.max_streams = m_cap->value();
  opt.granularity_us = m_grain->value();
  opt.cuda_graph = m_launch->currentIndex() == 1;
  const bool ok = m_doc->applyStrategy(m_strategy->currentText(), opt);
  m_note->setText(ok ? tr("Applied %1 (Ctrl+Z undoes).").arg(m_strategy->currentText())
                     : tr("Refused: %1").arg(m_doc->lastRefusal()));
  return ok;
}

SummaryPanel::SummaryPanel(StudioDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  m_label = new QLabel(this);
  m_label->setTextFormat(Qt::RichText);
  m_label->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_label->setWordWrap(true);
  m_run = new QLabel(this);
  m_run->setTextFormat(Qt::RichText);
  m_run->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_run->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_run->setWordWrap(true);
  m_run->hide();
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_label);
  layout->addWidget(m_run);
  layout->addStretch();
  connect(doc, &StudioDocument::modelChanged, this, [this] { setRunText({}); });
  connect(doc, &StudioDocument::modelChanged, this, &SummaryPanel::refresh);
  connect(doc, &StudioDocument::scheduleChanged, this, &SummaryPanel::refresh);
  refresh();
}

QString SummaryPanel::text() const { return m_label->text(); }
QString SummaryPanel::runText() const { return m_run->text(); }

void SummaryPanel::setRunText(const QString& html) {
  m_run->setText(html);
  m_run->setVisible(!html.isEmpty());
}

void SummaryPanel::refresh() {
  if (!m_doc->hasModel()) {
    m_label->setText(tr("<i>No model</i>"));
    return;
  }
  const auto& an = m_doc->analysis();
  const auto& f = m_doc->figures();
  const auto& s = m_doc->schedule();
  QString rows;
  auto add = [&rows](const QString& k, const QString& v) { rows += QString("<tr><td nowrap>%1</td><td nowrap align=right>&nbsp;<b>%2</b></td></tr>").arg(k, v); };
  add(tr("strategy"), QString::fromStdString(s.strategy).toHtmlEscaped());
  if (m_doc->costsCalibrated()) add(tr("cost model"), m_doc->costsOrigin().toHtmlEscaped());
  add(tr("streams"), QString::number(f.streams));
  add(tr("events"), QString::number(f.events));
  add(tr("sequential"), tr("%1&nbsp;µs").arg(f.sequential_us, 0, 'f', 1));
  add(tr("ideal makespan"), tr("%1&nbsp;µs").arg(f.ideal_us, 0, 'f', 1));
  add(tr("speedup"), tr("%1×").arg(f.speedup, 0, 'f', 2));
  if (f.predicted_us >= 0) {
    add(tr("predicted"), tr("%1&nbsp;µs").arg(f.predicted_us, 0, 'f', 1));
    if (f.predicted_sequential_us > 0)
      add(tr("vs one stream"), tr("%1×").arg(f.predicted_sequential_us / f.predicted_us, 0, 'f', 2));
  }
  if (f.arena_bytes >= 0) {
    add(tr("arena"), format_bytes(f.arena_bytes));
    if (f.sequential_arena_bytes > 0)
      add(tr("vs one stream"), tr("%1×").arg(static_cast<double>(f.arena_bytes) / static_cast<double>(f.sequential_arena_bytes), 0, 'f', 2));
  }
  add(tr("work"), tr("%1&nbsp;µs").arg(an.critical.work_us, 0, 'f', 1));
  add(tr("span"), tr("%1&nbsp;µs").arg(an.critical.span_us, 0, 'f', 1));
  add(tr("work / span"), QString::number(an.critical.parallelism(), 'f', 2));
  add(tr("width"), QString::number(an.antichain_width));
  add(tr("depth"), QString::number(an.levels.depth));
  m_label->setText(QString("<table>%1</table><p><b>verdict:</b> %2</p>").arg(rows, QString::fromStdString(an.verdict).toHtmlEscaped()));
}

}  // namespace weft::ui
