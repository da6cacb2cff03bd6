#pragma once
// The Summary panel: the live figures of the current schedule and the latest real run.
#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>

#include "weft/core/study/advice.h"
#include "weft/core/study/merge_study.h"

class QLabel;
class QScrollArea;

namespace weft::ui {

class StudioDocument;

/// Live figures: streams, events, ideal makespan and speedup, work/span, width, verdict, and the
/// model's advice (core::advise: the load's, or computed in the worker when the model comes
/// without one and whenever its costs change; a newer request drops the older answer).
class SummaryPanel : public QWidget {
  Q_OBJECT
 public:
  explicit SummaryPanel(StudioDocument* doc, QWidget* parent = nullptr);
  ~SummaryPanel() override;
  QString text() const;
  void refresh();
  /// The latest real run's figures (rich text) under the live ones; cleared with the model.
  void setRunText(const QString& html);
  QString runText() const;
  /// The advice line shown (empty without a model; "computing..." while the worker advises).
  QString advice() const;
  /// True while the worker computes the advice for the current model and costs.
  bool adviceComputing() const { return m_advice_watcher.isRunning(); }
  /// Blocks until the advice being computed (if any) is shown (the screenshot run, tests).
  void waitForAdvice();
  /// True when the advice names a strategy and launch mode (streams alone: not a merge or a
  /// split, which re-open the model) other than the current schedule's: the advice line then
  /// ends in an "apply" link.
  bool adviceApplicable() const;
  /// The link's target in the notes label.
  static constexpr const char* kApplyAdviceLink = "weft:apply-advice";

 signals:
  /// The advice line changed (computed, or cleared with the model).
  void adviceChanged();
  /// The user followed the advice's "apply" link: make `strategy` in that launch mode (the window
  /// applies it through the Strategy panel, as one undoable edit).
  void applyAdviceRequested(const QString& strategy, bool cuda_graph);

 public:
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
  std::optional<core::Advice> m_advice_value;  ///< the advice shown, when it was computed
  std::optional<core::MergeGain> m_merge_gain;
  QFutureWatcher<core::Expected<core::Advice>> m_advice_watcher;
  std::shared_ptr<std::atomic<bool>> m_advice_cancel;  ///< set: the running advice is not wanted any more
  void showLoadAdvice();  ///< the advice the load computed (a new model), else advises in the worker
  void updateAdvice();    ///< advises again in the worker (new costs, or a model loaded without advice)
  void takeAdvice();      ///< the worker's answer
  void stopAdvice();      ///< drops the advice being computed
  void updateMergeGain();
};

}  // namespace weft::ui
