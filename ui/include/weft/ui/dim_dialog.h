#pragma once
// The dialog that binds a model's symbolic input dims (the CLI's `--dim`): one spin box per
// unbound dim, prefilled with core::suggested_dim_value; accepting re-imports the model with them.
#include <QDialog>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "weft/core/onnx/dim_binding.h"

class QSpinBox;

namespace weft::ui {

class DimDialog : public QDialog {
  Q_OBJECT
 public:
  /// `model` names the file in the text; `dims` are core::unbound_dims of its graph.
  DimDialog(const QString& model, std::vector<core::UnboundDim> dims, QWidget* parent = nullptr);
  /// The spin box of the dim bound by `key` (a symbol or INPUT:AXIS), or null.
  QSpinBox* valueBox(const QString& key) const;
  /// The values chosen, by key, as ImportOptions::dims takes them.
  std::map<std::string, std::int64_t> bindings() const;

 private:
  std::vector<core::UnboundDim> m_dims;
  std::vector<QSpinBox*> m_boxes;
};

}  // namespace weft::ui
