#pragma once
// Side panels: node properties, strategy (apply is undoable) and the summary figures.
#include <QTreeWidget>
#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;

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
  /// Applies the chosen settings; false (and the reason in the panel) when refused.
  bool apply();

 private:
  StudioDocument* m_doc;
  QComboBox* m_strategy;
  QSpinBox* m_cap;
  QDoubleSpinBox* m_grain;
  QComboBox* m_launch;
  QLabel* m_note;
};

/// Live figures: streams, events, ideal makespan and speedup, work/span, width, verdict.
class SummaryPanel : public QWidget {
  Q_OBJECT
 public:
  explicit SummaryPanel(StudioDocument* doc, QWidget* parent = nullptr);
  QString text() const;
  void refresh();
  /// The latest real run's figures (rich text) under the live ones; cleared with the model.
  void setRunText(const QString& html);
  QString runText() const;

 private:
  StudioDocument* m_doc;
  QLabel* m_label;
  QLabel* m_run;
};

}  // namespace weft::ui
