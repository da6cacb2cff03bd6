#include "weft/ui/dim_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <limits>

namespace weft::ui {

DimDialog::DimDialog(const QString& model, std::vector<core::UnboundDim> dims, QWidget* parent)
    : QDialog(parent), m_dims(std::move(dims)) {
  setWindowTitle(tr("Bind dimensions"));
  setObjectName("dimDialog");
  auto* intro = new QLabel(tr("%1 leaves %n input dimension(s) symbolic. Until they are bound, tensor sizes, "
                              "costs and the arena are unknown. Bind them to re-open the model "
                              "(the same as weft's --dim NAME=VALUE).",
                              "", static_cast<int>(m_dims.size()))
                               .arg(model),
                           this);
  intro->setWordWrap(true);
  auto* form = new QFormLayout;
  for (const core::UnboundDim& d : m_dims) {
    auto* box = new QSpinBox(this);
    box->setRange(1, std::numeric_limits<int>::max());
    box->setValue(static_cast<int>(core::suggested_dim_value(d)));
    box->setObjectName(QString::fromStdString("dim:" + d.key()));
    box->setToolTip(QString::fromStdString("--dim " + d.key() + "=VALUE"));
    form->addRow(QString::fromStdString(d.describe()), box);
    m_boxes.push_back(box);
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Bind and re-open"));
  buttons->button(QDialogButtonBox::Cancel)->setText(tr("Keep unbound"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(intro);
  layout->addLayout(form);
  layout->addWidget(buttons);
}

QSpinBox* DimDialog::valueBox(const QString& key) const {
  for (std::size_t i = 0; i < m_dims.size(); ++i)
    if (QString::fromStdString(m_dims[i].key()) == key) return m_boxes[i];
  return nullptr;
}

std::map<std::string, std::int64_t> DimDialog::bindings() const {
  std::map<std::string, std::int64_t> out;
  for (std::size_t i = 0; i < m_dims.size(); ++i) out[m_dims[i].key()] = m_boxes[i]->value();
  return out;
}

}  // namespace weft::ui
