#include "weft/ui/load_job.h"
#include "weft/ui/worker_pool.h"

#include <QElapsedTimer>
#include <QPromise>

#include "weft/core/analysis/analyze.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/transform/micro_batch.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/strategy/registry.h"
#include "weft/core/study/merge_study.h"
#include "weft/core/study/open_model.h"
#include "weft/core/study/split_study.h"

namespace weft::ui {

QString default_strategy() {
  const auto names = core::strategy_names();
  for (const char* preferred : {"cp-list", "chains"})
    if (std::find(names.begin(), names.end(), preferred) != names.end()) return preferred;
  return names.empty() ? QString("sequential") : QString::fromStdString(names.front());
}

core::AdviceOptions advice_options(const core::StrategyOptions& options, const std::optional<core::UnsplitBaseline>& unsplit) {
  core::AdviceOptions a;
  a.strategy = options;
  a.strategy.cuda_graph = false;  // advise tries both launch modes
  a.unsplit = unsplit;
  return a;
}

namespace {

/// The request as core::open_model takes it: the model, the device (an unknown preset is an error,
/// never the default in disguise), the split and merges, the schedule given.
core::OpenRequest open_request(QPromise<LoadedModel>& promise, const LoadRequest& request) {
  core::OpenRequest open;
  open.path = request.path.toStdString();
  open.source = request.source;
  open.import = request.import;
  open.device = request.device.toStdString();
  open.split = request.split;
  open.split_mode = request.options.cuda_graph ? core::LaunchMode::Graph : core::LaunchMode::Eager;
  open.split_strategy = request.options;
  open.merge = request.merge;
  open.fuse = request.fuse;
  if (request.schedule) {
    open.schedule_text = request.schedule->text;
    open.schedule_file = request.schedule->file.toStdString();
    open.schedule_required = request.schedule->required;
  }
  open.profile = request.profile.toStdString();
  open.analyze = true;
  open.progress = [&promise](int percent, std::string_view stage) {
    promise.setProgressValueAndText(percent * 55 / 100, QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size())));
    return !promise.isCanceled();
  };
  return open;
}

/// The document's view of an opened model: its graph (the merged model's where merged, which
/// shares the merge's life), the merge kept to quote the gain against the unmerged model.
void take_opened(core::OpenedModel opened, LoadedModel& m) {
  m.device = std::move(opened.device);
  m.dims = opened.import.dims;
  m.batch = opened.import.batch;
  m.unsplit = opened.unsplit;
  m.note = QString::fromStdString(opened.split_summary);
  for (const std::string& n : opened.notes) m.note += (m.note.isEmpty() ? "" : "; ") + QString::fromStdString(n);
  m.schedule_refused = QString::fromStdString(opened.schedule_refused);
  m.analysis = opened.analysis;
  if (opened.merged) {
    auto state = std::make_shared<MergeState>();
    state->unmerged = opened.graph;
    state->unmerged_costs = std::move(opened.costs);
    state->model = opened.merged;
    for (const auto& members : state->model->members) state->groups += members.size() > 1 ? 1 : 0;
    m.graph = std::shared_ptr<const core::Graph>(state->model, &state->model->graph);
    m.merge = std::move(state);
  } else {
    m.graph = opened.graph;
  }
  if (opened.schedule) m.schedule = std::move(*opened.schedule);
  if (opened.profile) {
    m.profile = opened.profile;
    m.profile_replay = std::move(opened.profile_replay);
    m.predicted_costs = std::move(opened.predicted_costs);  // what the measured times replaced
  }
}

/// Opens as advised (request.follow_advice): the advice's micro-batch split where it names one (not
/// on a merged model), else its best strategy in its launch mode. Returns false on an error.
bool follow_advice(QPromise<LoadedModel>& promise, const LoadRequest& request, core::OpenedModel& opened, LoadedModel& m,
                   QString& strategy, QString* error) {
  const core::Advice& a = **m.advice;
  const bool split = a.split_k > 1 && !request.merge;
  // The split the advice names was predicted in CUDA Graph replay (eager on a CPU device), as its
  // best strategy's own launch mode says.
  const core::LaunchMode mode = split ? (m.device.kind == core::DeviceKind::Cpu ? core::LaunchMode::Eager : core::LaunchMode::Graph)
                                      : a.best_mode;
  if (split) {
    promise.setProgressValueAndText(70, QObject::tr("Splitting the batch as advised"));
    opened.device = m.device;
    if (auto ok = core::split_opened_model(opened, a.split_k, mode, request.options); !ok) {
      *error = QString::fromStdString(ok.error().message);
      return false;
    }
    m.graph = opened.graph;
    m.unsplit = opened.unsplit;
    m.note = QString::fromStdString(opened.split_summary);
    m.analysis = std::make_shared<const core::AnalysisReport>(core::analyze(*m.graph, opened.costs));
    if (promise.isCanceled()) return false;
  }
  strategy = split ? QString::fromLatin1(core::kSplitOverlap) : QString::fromStdString(a.best_strategy);
  m.options.cuda_graph = mode == core::LaunchMode::Graph;
  m.advised = QObject::tr("%1%2, %3")
                  .arg(split ? QObject::tr("split k=%1, ").arg(a.split_k) : QString(), strategy,
                       m.options.cuda_graph ? QObject::tr("CUDA Graph replay") : QObject::tr("eager launches"));
  // Merging is a setting the user turns on (it changes the graph shown and every later open): the
  // advice names it, the status says where it is.
  if (a.merge_advised && !request.merge)
    m.advised += QObject::tr("; the advice also merges equal operators (%1 -> %2 launches): apply it in the summary, or tick Merging in the Strategy panel")
                     .arg(a.merge_operators_before)
                     .arg(a.merge_operators_after);
  return true;
}

void load(QPromise<LoadedModel>& promise, const LoadRequest& request, QString* error) {
  QElapsedTimer clock;
  clock.start();
  promise.setProgressRange(0, 100);
  // One pipeline with the CLI and Python: import, split, merges, the schedule given, analysis.
  auto opened = core::open_model(open_request(promise, request));
  if (!opened) {
    *error = QString::fromStdString(opened.error().message);
    return;
  }
  if (opened->cancelled || promise.isCanceled()) return;
  LoadedModel m;
  m.path = request.path;
  m.options = request.options;
  const bool given = opened->schedule.has_value();
  take_opened(*opened, m);
  QString strategy = request.strategy.isEmpty() ? default_strategy() : request.strategy;
  if (m.graph->node_count() <= kAdviceNodes) {
    // The same call as `weft analyze` (and the summary panel's when the costs change).
    promise.setProgressValueAndText(65, QObject::tr("Advising"));
    m.advice = core::advise(*m.graph, *m.analysis, m.device, advice_options(request.options, m.unsplit));
    if (promise.isCanceled()) return;
    // A split asked for, or a schedule given, is a configuration chosen: the advice then only speaks.
    if (request.follow_advice && request.split < 0 && !request.schedule && *m.advice)
      if (!follow_advice(promise, request, *opened, m, strategy, error)) return;
  }
  if (given) {
    // The schedule given, validated on the model as opened (split and merged as it records).
    m.schedule_file = request.schedule->file;
  } else {
    promise.setProgressValueAndText(80, QObject::tr("Scheduling"));
    // The analysis found the graph's chain cover already: chains and resource-aware start from it.
    core::StrategyOptions options = m.options;
    options.chain_cover = m.analysis->chain_cover;
    auto schedule = core::make_schedule(strategy.toStdString(), *m.graph, m.analysis->costs, m.device, options);
    if (!schedule) schedule = core::make_schedule("sequential", *m.graph, m.analysis->costs, m.device, options);
    if (!schedule) {
      *error = QString::fromStdString(schedule.error().message);
      return;
    }
    m.schedule = std::move(*schedule);
  }
  if (promise.isCanceled()) return;
  m.load_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  promise.setProgressValueAndText(100, QObject::tr("Done"));
  promise.addResult(std::move(m));
}

}  // namespace

LoadJob start_loading(LoadRequest request) {
  return start_worker_job<LoadedModel>([request = std::move(request)](QPromise<LoadedModel>& promise, QString& error) {
    load(promise, request, &error);
  });
}

}  // namespace weft::ui
