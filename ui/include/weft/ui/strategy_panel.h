#pragma once
// The Strategy panel: strategy, stream cap, granularity and launch mode; Apply is undoable.
// Iterative strategies (search) and any Apply with a memory budget run off the GUI thread with
// progress and Cancel (a search keeps the best schedule found; a budget fit applies nothing).
#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <memory>

#include "weft/core/base/expected.h"
#include "weft/core/strategy/strategies.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QLineEdit;
class QSpinBox;
class QTimer;

namespace weft::ui {

class StudioDocument;

/// Strategy, stream cap, granularity and launch mode; Apply pushes one undoable edit.
class StrategyPanel : public QWidget {
  Q_OBJECT
 public:
  explicit StrategyPanel(StudioDocument* doc, QWidget* parent = nullptr);
  ~StrategyPanel() override;
  QComboBox* strategyBox() const { return m_strategy; }
  QSpinBox* streamCap() const { return m_cap; }
  QDoubleSpinBox* granularity() const { return m_grain; }
  /// Launch mode the schedule is made and predicted for: 0 eager launches, 1 CUDA Graph replay.
  QComboBox* launchMode() const { return m_launch; }
  /// Time budget of iterative strategies (search), in milliseconds.
  QSpinBox* searchBudget() const { return m_search_budget; }
  /// Horizontal merging (as `--merge` in the CLI): each layer's equal operators as one launch.
  /// Toggling it emits mergeRequested; the window re-opens the model merged or unmerged.
  QCheckBox* mergeBox() const { return m_merge; }
  /// Vertical fusion (as `--fuse` in the CLI): each Conv with the Relu/Clip/LeakyRelu/residual Add
  /// after it as one node. Toggling it emits fuseRequested; the window re-opens the model.
  QCheckBox* fuseBox() const { return m_fuse; }
  QPushButton* applyButton() const { return m_apply; }
  QPushButton* cancelButton() const { return m_cancel; }
  QProgressBar* progressBar() const { return m_progress; }
  QLabel* note() const { return m_note; }
  /// Memory budget (empty: none): bytes with an optional unit, e.g. "4MiB" or "4MB".
  QLineEdit* memoryBudget() const { return m_memory_budget; }
  /// The note under Apply (what was applied, what the budget cost, or the refusal).
  QString noteText() const;
  /// Applies the chosen settings. A fixed strategy without a memory budget applies at once:
  /// false (and the reason in the panel) when refused. A search, or any strategy with a memory
  /// budget (core::fit_strategy_schedule's fit plans and simulates at every step), starts off
  /// the GUI thread and returns true; searchFinished reports the outcome. False at once for a
  /// budget that does not parse, or while one is running.
  bool apply();
  /// From a worker Apply (a search or a memory-budget fit) until its result is handled.
  bool searching() const { return m_running; }
  /// Stops a running search early (it still applies the best schedule it found), or a running
  /// memory-budget fit (nothing is applied).
  void cancelSearch();

 signals:
  /// A search or a budgeted Apply finished (completed or cancelled): applied, or refused or
  /// cancelled (see note()).
  void searchFinished(bool applied);
  /// The user toggled the merge box: re-open the model with merges on or off.
  void mergeRequested(bool merge);
  /// The user toggled the fuse box: re-open the model with fusion on or off.
  void fuseRequested(bool fuse);

 private:
  /// What the worker gives back: the schedule (fitted to the memory budget when one was set)
  /// and what the budget cost.
  struct SearchOutcome {
    core::Expected<core::Schedule> schedule = core::Schedule{};
    std::string budget_note;
  };
  /// Shared with the worker: the search's progress and stop flag, then the fit's phase and stop flag.
  struct Progress {
    std::atomic<double> fraction{0};
    std::atomic<double> best_us{0};
    std::atomic<bool> cancel{false};      ///< stop the search (it returns the best schedule found)
    std::atomic<bool> fitting{false};     ///< the memory-budget fit has started
    std::atomic<bool> cancel_fit{false};  ///< stop the fit (nothing is applied)
  };
  void updateControls();
  void showProgress();
  void searchDone();

  StudioDocument* m_doc;
  QComboBox* m_strategy;
  QSpinBox* m_cap;
  QDoubleSpinBox* m_grain;
  QComboBox* m_launch;
  QSpinBox* m_search_budget;
  QCheckBox* m_merge;
  QCheckBox* m_fuse;
  QLineEdit* m_memory_budget;
  QPushButton* m_apply;
  QPushButton* m_cancel;
  QProgressBar* m_progress;
  QLabel* m_note;
  QTimer* m_poll;
  // The running search: its progress (shared with the worker), its input graph and options.
  std::shared_ptr<Progress> m_state;
  std::shared_ptr<const core::Graph> m_search_graph;
  core::StrategyOptions m_search_options;
  QString m_search_name;
  QFutureWatcher<SearchOutcome> m_watcher;
  bool m_running = false;  ///< from apply() starting the worker until searchDone()
};

}  // namespace weft::ui
