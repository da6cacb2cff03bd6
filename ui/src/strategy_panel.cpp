#include "weft/ui/strategy_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "weft/core/strategies.h"
#include "weft/core/study/memory_budget.h"
#include "weft/ui/model_loader.h"
#include "weft/ui/studio_document.h"

namespace weft::ui {

StrategyPanel::StrategyPanel(StudioDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  auto* form = new QFormLayout;
  m_strategy = new QComboBox(this);
  for (const std::string& name : core::strategy_names()) m_strategy->addItem(QString::fromStdString(name));
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
  m_budget = new QLineEdit(this);
  m_budget->setPlaceholderText(tr("none (e.g. 4MiB)"));
  m_budget->setToolTip(tr("Largest arena the schedule may plan: orders live ranges or merges streams until it fits, "
                          "and says what that cost in predicted time. Refused below the sequential order's arena."));
  form->addRow(tr("Memory budget"), m_budget);
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
  std::int64_t budget = 0;
  if (const QString text = m_budget->text().trimmed(); !text.isEmpty()) {
    auto bytes = core::parse_byte_size(text.toStdString());
    if (!bytes) {
      m_note->setText(tr("Refused: %1").arg(QString::fromStdString(bytes.error().message)));
      return false;
    }
    budget = *bytes;
  }
  const bool ok = m_doc->applyStrategy(m_strategy->currentText(), opt, budget);
  QString note = ok ? tr("Applied %1 (Ctrl+Z undoes).").arg(m_strategy->currentText())
                    : tr("Refused: %1").arg(m_doc->lastRefusal());
  if (ok && !m_doc->lastBudgetNote().isEmpty()) note += " " + tr("Memory budget: %1").arg(m_doc->lastBudgetNote());
  m_note->setText(note);
  return ok;
}

QString StrategyPanel::noteText() const { return m_note->text(); }

}  // namespace weft::ui
