#pragma once
// The load job: loading off the GUI thread, as run_job.h runs and study_job.h studies. Import (or
// any graph source), costs, analysis and a first schedule run in QtConcurrent; progress and
// cancellation go through the QFuture. Also the defaults a load applies (device, strategy).
#include <QFuture>
#include <QString>
#include <functional>
#include <optional>
#include <string>

#include "weft/core/graph/graph.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/strategy/strategies.h"
#include "weft/ui/studio_document.h"
#include "weft/ui/worker_job.h"

namespace weft::ui {

/// Produces the graph in the worker thread (import_onnx for files; tests pass synthetic graphs).
using GraphSource = std::function<core::Expected<core::Graph>()>;

struct LoadRequest {
  QString path;            ///< shown in titles and saved in projects
  GraphSource source;      ///< empty: import_onnx(path)
  QString strategy;        ///< first schedule; empty: the studio's default
  core::StrategyOptions options;
  QString device;          ///< device preset or file; empty: the default preset; unknown: the load fails, naming it
  core::ImportOptions import;  ///< dims bound at import (`--dim`), as the CLI's import_onnx takes them
  /// Merge each layer's equal operators into one launch (core::merge_model, as `weft ... --merge`):
  /// the document's graph is then the merged model.
  bool merge = false;
  /// Fuse each Conv with the activations and residual Add after it (core::fuse_graph, as `weft ...
  /// --fuse`), before any merge: the document's graph is then the fused model.
  bool fuse = false;
  /// Micro-batch split after import (core::apply_split, as `weft ... --split`): -1 none, 0 chosen
  /// by prediction (auto), k > 0 that many copies. Predicted in the options' launch mode.
  int split = -1;
  /// Open as advised: where the model is advised at load (kAdviceNodes operators or fewer) and no
  /// split is asked for, the first schedule is the advice's best configuration (its strategy in
  /// its launch mode, with the options' stream cap and granularity; or the micro-batch split it
  /// names, unless merging is asked for) instead of `strategy` and `options.cuda_graph`.
  bool follow_advice = false;
  /// The advice's "apply" link asked for this load (a merge or a split): what it applied, for the
  /// status bar. Not repeated by later re-opens.
  QString advice_applied;
  /// A schedule to open the model with (schedule JSON, as `weft ... --schedule FILE` reads it):
  /// the merges it records are applied to the model (instead of `merge`'s default layering) and
  /// it is the first schedule, validated on the model as loaded. The split it records is the
  /// caller's to ask for (`split`). Advice is then not followed.
  struct ScheduleText {
    QString file;      ///< where the text came from, named in errors and the status bar
    std::string text;  ///< schedule JSON
    /// true (File > Open schedule): a schedule that does not load fails the load, naming the
    /// file and the reason. false (a project's schedule): the load goes on with a fresh schedule
    /// made as `strategy` says, and LoadedModel::schedule_refused says why.
    bool required = true;
  };
  std::optional<ScheduleText> schedule;
  /// A measured profile to open the model with (File > Open profile, a dropped profile, --profile):
  /// core::OpenRequest::profile, so its node times replace the predicted ones before the analysis,
  /// the advice and every study, as `weft ... --profile FILE` does. Empty: none.
  QString profile;
};

/// The advice options the studio advises a model with: the strategy panel's stream cap and
/// granularity (both launch modes are tried whatever options.cuda_graph says), quoted against the
/// unsplit model's baselines on a split model. One set for the load and the summary panel.
core::AdviceOptions advice_options(const core::StrategyOptions& options, const std::optional<core::UnsplitBaseline>& unsplit);

/// The strategy the studio applies after loading when none is asked for.
QString default_strategy();

/// Starts loading. The future reports progress 0..100 with text; on failure it finishes with no
/// result and sets `error` (WorkerJob). Cancel with future.cancel(): the worker stops at the next
/// stage boundary.
using LoadJob = WorkerJob<LoadedModel>;
LoadJob start_loading(LoadRequest request);

}  // namespace weft::ui
