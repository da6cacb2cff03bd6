#pragma once
// The Summary panel: the live figures of the current schedule and the latest real run.
#include <QWidget>
#include <optional>

#include "weft/core/study/merge_study.h"

class QLabel;
class QScrollArea;

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
  /// The label that holds the verdict and the advice (word-wrapped to the dock's width).
  QLabel* notesLabel() const;
  /// For a merged model: the merged schedule's gain over the unmerged model (core::merge_gain,
  /// as `weft simulate --merge` reports it), once its study has a prediction.
  const std::optional<core::MergeGain>& mergeGain() const;

 private:
  StudioDocument* m_doc;
  QLabel* m_label;
  QLabel* m_notes;
  QLabel* m_run;
  QScrollArea* m_scroll;
  QString m_advice;
  std::optional<core::MergeGain> m_merge_gain;
  void showLoadAdvice();  ///< the advice the load computed (a new model)
  void updateAdvice();    ///< advises again (new costs)
  void updateMergeGain();
};

}  // namespace weft::ui
