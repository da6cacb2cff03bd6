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
/// The configuration the advice's "apply" link asks for.
struct AdviceAction {
  QString strategy;        ///< the strategy the advice predicted (split-overlap for a split)
  bool cuda_graph = true;  ///< its launch mode
  bool merge = false;      ///< re-open the model merged (core::merge_model: the advice leads with merging)
  int split_k = 1;         ///< > 1: re-open the model split into k micro-batches (core::apply_split)
  /// A merge or a split changes the graph: the model is re-opened, and edits of the schedule go
  /// with the graph they were made on (as when Merging is ticked).
  bool reopens() const { return merge || split_k > 1; }
};

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
  /// What the advice would change, when it names a configuration other than the current one:
  /// a strategy and launch mode (one undoable edit), or a merge or micro-batch split (the model
  /// re-opened merged or split, with the strategy the advice predicted on it). Empty when the
  /// advice is followed already, names nothing to do, or is not computed.
  std::optional<AdviceAction> adviceAction() const;
  /// True when adviceAction() has a value: the advice line then ends in an "apply" link.
  bool adviceApplicable() const { return adviceAction().has_value(); }
  /// The link's target in the notes label.
  static constexpr const char* kApplyAdviceLink = "weft:apply-advice";

 signals:
  /// The advice line changed (computed, or cleared with the model).
  void adviceChanged();
  /// The user followed the advice's "apply" link (adviceAction() at the time). The window applies
  /// a strategy through the Strategy panel, as one undoable edit, and re-opens the model for a
  /// merge or a split.
  void applyAdviceRequested(const weft::ui::AdviceAction& action);

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
