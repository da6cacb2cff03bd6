#pragma once
// The Summary panel: the live figures of the current schedule and the latest real run.
#include <QWidget>

class QLabel;

namespace weft::ui {

class StudioDocument;

/// Live figures: streams, events, ideal makespan and speedup, work/span, width, verdict, and the
/// model's advice (core::advise, recomputed when the model or its costs change).
class SummaryPanel : public QWidget {
  Q_OBJECT
 public:
  explicit SummaryPanel(StudioDocument* doc, QWidget* parent = nullptr);
  QString text() const;
  void refresh();
  /// The latest real run's figures (rich text) under the live ones; cleared with the model.
  void setRunText(const QString& html);
  QString runText() const;
  /// The advice line shown (empty without a model).
  QString advice() const;

 private:
  StudioDocument* m_doc;
  QLabel* m_label;
  QLabel* m_run;
  QString m_advice;
  void updateAdvice();
};

}  // namespace weft::ui
