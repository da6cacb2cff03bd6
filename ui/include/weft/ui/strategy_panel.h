#pragma once
// The Strategy panel: strategy, stream cap, granularity and launch mode; Apply is undoable.
#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace weft::ui {

class StudioDocument;

/// Strategy, stream cap, granularity and launch mode; Apply pushes one undoable edit.
class StrategyPanel : public QWidget {
  Q_OBJECT
 public:
  explicit StrategyPanel(StudioDocument* doc, QWidget* parent = nullptr);
  QComboBox* strategyBox() const { return m_strategy; }
  QSpinBox* streamCap() const { return m_cap; }
  QDoubleSpinBox* granularity() const { return m_grain; }
  /// Launch mode the schedule is made and predicted for: 0 eager launches, 1 CUDA Graph replay.
  QComboBox* launchMode() const { return m_launch; }
  /// Memory budget (empty: none): bytes with an optional unit, e.g. "4MiB" or "4MB".
  QLineEdit* memoryBudget() const { return m_budget; }
  /// The note under Apply (what was applied, what the budget cost, or the refusal).
  QString noteText() const;
  /// Applies the chosen settings; false (and the reason in the panel) when refused.
  bool apply();

 private:
  StudioDocument* m_doc;
  QComboBox* m_strategy;
  QSpinBox* m_cap;
  QDoubleSpinBox* m_grain;
  QComboBox* m_launch;
  QLineEdit* m_budget;
  QLabel* m_note;
};

}  // namespace weft::ui
