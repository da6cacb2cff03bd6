#include "weft/ui/load_job.h"
#include "weft/ui/worker_pool.h"

#include <QElapsedTimer>
#include <QPromise>

#include "weft/core/analyze.h"
#include "weft/core/cost_model.h"
#include "weft/core/device.h"
#include "weft/core/onnx_import.h"
#include "weft/core/micro_batch.h"
#include "weft/core/schedule_json.h"
#include "weft/core/strategy.h"
#include "weft/core/study/merge_study.h"
#include "weft/core/study/split_study.h"

namespace weft::ui {

core::DeviceSpec device_or_default(const std::string& name) {
  if (!name.empty())
    if (auto d = core::load_device(name)) return *d;
  if (auto d = core::load_device(core::default_device_name())) return *d;
  core::DeviceSpec spec;
  spec.name = std::string(core::default_device_name());
  return spec;
}

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

void load(QPromise<LoadedModel>& promise, const LoadRequest& request, QString* error) {
  QElapsedTimer clock;
  clock.start();
  promise.setProgressRange(0, 100);
  promise.setProgressValueAndText(5, QObject::tr("Importing %1").arg(request.path));
  std::int64_t batch = request.import.batch;
  core::Expected<core::Graph> graph = request.source ? request.source() : core::import_onnx(request.path.toStdString(), request.import);
  if (!graph) {
    *error = QString::fromStdString(graph.error().message);
    return;
  }
  if (promise.isCanceled()) return;
  if (request.schedule && request.schedule->required) {
    // Checked before any split or merge work: the schedule is for this model file, and a split it
    // records is of this batch (a static-batch export is re-batched as `--batch B` would).
    const auto refuse = [&](const std::string& why) { *error = QStringLiteral("%1: %2").arg(request.schedule->file, QString::fromStdString(why)); };
    auto header = core::schedule_header_from_json(request.schedule->text);
    if (!header) return refuse(header.error().message);
    const std::string& sha = graph->info().model_sha256;
    if (!header->model_sha256.empty() && !sha.empty() && header->model_sha256 != sha)
      return refuse("schedule JSON: it was made for another model ('" + header->model_path + "'), not '" + graph->info().model_path + "'");
    if (header->split.k > 1 && header->split.batch > 0 && !request.source && core::graph_batch(*graph) != header->split.batch) {
      core::ImportOptions rebatched = request.import;
      rebatched.batch = batch = header->split.batch;
      promise.setProgressValueAndText(10, QObject::tr("Re-batching to %1").arg(header->split.batch));
      graph = core::import_onnx(request.path.toStdString(), rebatched);
      if (!graph) return refuse(graph.error().message);
      if (promise.isCanceled()) return;
    }
  }
  LoadedModel m;
  m.path = request.path;
  m.dims = request.import.dims;
  m.batch = batch;
  m.graph = std::make_shared<const core::Graph>(std::move(*graph));
  m.device = device_or_default(request.device.toStdString());
  // The CLI's --split: the model split into micro-batch copies (k chosen by prediction for auto).
  const auto split_model = [&](int k, core::LaunchMode mode) {
    promise.setProgressValueAndText(20, QObject::tr("Splitting the batch"));
    core::SplitOptions split;
    split.k = k;
    split.mode = mode;
    split.strategy = request.options;
    auto applied = core::apply_split(*m.graph, m.device, split);
    if (!applied) {
      *error = QString::fromStdString(applied.error().message);
      return false;
    }
    m.graph = std::make_shared<const core::Graph>(std::move(applied->graph));
    m.note = QString::fromStdString(applied->summary);
    m.unsplit = applied->unsplit;
    return true;
  };
  if (request.split >= 0) {
    if (!split_model(request.split, request.options.cuda_graph ? core::LaunchMode::Graph : core::LaunchMode::Eager)) return;
    if (promise.isCanceled()) return;
  }
  promise.setProgressValueAndText(40, QObject::tr("Estimating costs"));
  core::CostTable costs = core::estimate_costs(*m.graph, m.device);
  // A schedule given with the request names the merges it runs (node ids of the model as split).
  std::optional<std::vector<std::vector<core::NodeId>>> recorded_merges;
  const auto refuse_schedule = [&](const std::string& why) {
    const QString reason = QStringLiteral("%1: %2").arg(request.schedule->file, QString::fromStdString(why));
    if (request.schedule->required) *error = reason;
    else m.schedule_refused = reason;
    return request.schedule->required;
  };
  if (request.schedule) {
    auto groups = core::schedule_merges_from_json(*m.graph, request.schedule->text);
    if (!groups) {
      if (refuse_schedule(groups.error().message)) return;
    } else if (!groups->empty()) {
      recorded_merges = std::move(*groups);
    }
  }
  if (request.merge || recorded_merges) {
    // The CLI's --merge (the default layering's merges), or the merges a schedule records, applied
    // as a graph transformation; the document works on the merged model and keeps the unmerged one
    // to quote the gain against.
    promise.setProgressValueAndText(50, QObject::tr("Merging"));
    const bool recorded = recorded_merges.has_value();
    auto merged = recorded ? core::merge_model(*m.graph, costs, m.device, std::move(*recorded_merges))
                           : core::merge_model(*m.graph, costs, m.device);
    if (!merged && !recorded) {
      *error = QString::fromStdString(merged.error().message);
      return;
    }
    if (!merged) {
      if (refuse_schedule(merged.error().message)) return;
      // A project's schedule whose merges no longer apply: the project's merging (the default
      // layering's merges) where it asks for merging, else the model unmerged.
      if (request.merge) merged = core::merge_model(*m.graph, costs, m.device);
    }
    if (merged) {
      auto state = std::make_shared<MergeState>();
      state->unmerged = m.graph;
      state->unmerged_costs = std::move(costs);
      state->model = std::make_shared<const core::MergedModel>(std::move(*merged));
      for (const auto& members : state->model->members) state->groups += members.size() > 1 ? 1 : 0;
      costs = state->model->costs;
      m.graph = std::shared_ptr<const core::Graph>(state->model, &state->model->graph);  // shares the merged model's life
      m.merge = std::move(state);
    }
  }
  if (promise.isCanceled()) return;
  promise.setProgressValueAndText(55, QObject::tr("Analysing"));
  m.analysis = std::make_shared<const core::AnalysisReport>(core::analyze(*m.graph, costs));
  if (promise.isCanceled()) return;
  QString strategy = request.strategy.isEmpty() ? default_strategy() : request.strategy;
  m.options = request.options;
  if (m.graph->node_count() <= kAdviceNodes) {
    // The same call as `weft analyze` (and the summary panel's when the costs change).
    promise.setProgressValueAndText(65, QObject::tr("Advising"));
    m.advice = core::advise(*m.graph, *m.analysis, m.device, advice_options(request.options, m.unsplit));
    if (promise.isCanceled()) return;
    // A split asked for, or a schedule given, is a configuration chosen: the advice then only speaks.
    if (request.follow_advice && request.split < 0 && !request.schedule && *m.advice) {
      const core::Advice& a = **m.advice;
      const bool split = a.split_k > 1 && !request.merge;
      // The split the advice names was predicted in CUDA Graph replay (eager on a CPU device),
      // as its best strategy's own launch mode says.
      const core::LaunchMode mode = split ? (m.device.kind == core::DeviceKind::Cpu ? core::LaunchMode::Eager : core::LaunchMode::Graph)
                                          : a.best_mode;
      if (split) {
        if (!split_model(a.split_k, mode)) return;
        promise.setProgressValueAndText(70, QObject::tr("Analysing the split model"));
        m.analysis = std::make_shared<const core::AnalysisReport>(core::analyze(*m.graph, core::estimate_costs(*m.graph, m.device)));
        if (promise.isCanceled()) return;
      }
      strategy = split ? QString::fromLatin1(core::kSplitOverlap) : QString::fromStdString(a.best_strategy);
      m.options.cuda_graph = mode == core::LaunchMode::Graph;
      m.advised = QObject::tr("%1%2, %3")
                      .arg(split ? QObject::tr("split k=%1, ").arg(a.split_k) : QString(), strategy,
                           m.options.cuda_graph ? QObject::tr("CUDA Graph replay") : QObject::tr("eager launches"));
      // Merging is a setting the user turns on (it changes the graph shown and every later open):
      // the advice names it, the status says where it is.
      if (a.merge_advised && !request.merge)
        m.advised += QObject::tr("; the advice also merges equal operators (%1 -> %2 launches): apply it in the summary, or tick Merging in the Strategy panel")
                         .arg(a.merge_operators_before)
                         .arg(a.merge_operators_after);
    }
  }
  if (request.schedule && m.schedule_refused.isEmpty()) {
    // The schedule given, validated on the model as loaded (split and merged as it records).
    auto given = core::schedule_from_json(*m.graph, request.schedule->text);
    if (given) {
      m.schedule = std::move(*given);
      m.schedule_file = request.schedule->file;
      m.load_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
      promise.setProgressValueAndText(100, QObject::tr("Done"));
      promise.addResult(std::move(m));
      return;
    }
    if (refuse_schedule(given.error().message)) return;
  }
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
