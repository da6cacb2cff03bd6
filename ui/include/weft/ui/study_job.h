#pragma once
// The studio's study of one schedule, run in a worker after every edit, model load or cost
// change (no Qt): core::study_schedule with the studio's options, plus the per-model reference
// the document keeps between edits. The document starts it (QtConcurrent) and keeps only the
// latest edit's result.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "weft/core/analysis/analyze.h"
#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"
#include "weft/core/memory/memory_plan.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/study/schedule_study.h"

namespace weft::ui {

/// Every edit is re-predicted (in a worker) at any size; up to this many nodes it is also
/// re-planned (the memory report, after the prediction; a newer edit stops it between its
/// stages), above the arena figures are left to `weft plan`.
inline constexpr std::size_t kLiveStudyNodes = 100'000;

/// What the studies of one model share: the reference schedule (core::reference_schedule) and,
/// for live-sized models, its plan under the studies' planning. Built by the first study of a
/// model, then reused by every later one.
struct StudyReference {
  core::Schedule schedule;
  std::optional<core::MemoryPlan> plan;
};

struct StudyResult;

struct StudyRequest {
  std::uint64_t generation = 0;  ///< the document's edit counter when asked (echoed in the result)
  std::uint64_t model = 0;       ///< the document's model counter (a reference belongs to one model)
  std::shared_ptr<const core::Graph> graph;
  std::shared_ptr<const core::AnalysisReport> analysis;  ///< its costs are studied
  core::DeviceSpec device;
  core::Schedule schedule;
  core::LaunchMode mode = core::LaunchMode::Eager;
  std::shared_ptr<const StudyReference> reference;  ///< null: built by this job
  /// Set by the document when a newer edit supersedes this request: the study stops at its next
  /// stage. Optional.
  std::shared_ptr<const std::atomic<bool>> cancel;
  /// When set and the study plans memory, called from the worker as soon as the prediction
  /// exists, before the memory report: a result with `partial` set (the study without its memory
  /// report). The complete result is still returned. Optional.
  std::function<void(StudyResult)> on_prediction;
  /// The document's latest memory report of this model (the schedule's before the edit, complete
  /// or repaired). With on_repaired, the study repairs its plan for this schedule right after the
  /// prediction (core::StudyOptions::repair_from) and hands it over before planning afresh.
  std::shared_ptr<const core::MemoryReport> repair_from;
  /// Called from the worker with a result whose study carries the repaired report (`repaired`
  /// set); the complete result is still returned. Optional.
  std::function<void(StudyResult)> on_repaired;
};

struct StudyResult {
  std::uint64_t generation = 0;
  std::uint64_t model = 0;
  std::shared_ptr<const StudyReference> reference;  ///< the request's, or the one built here
  std::optional<core::ScheduleStudy> study;         ///< absent on error; `cancelled` when stopped
  std::string error;                                ///< why there is no study
  double ms = 0;                                    ///< wall time in the worker
  /// The prediction stage of the study (StudyRequest::on_prediction): `study` has no memory
  /// report yet and its predicted timeline no arena counter; the complete result follows.
  bool partial = false;
  /// A partial result whose study carries the repaired memory report (StudyRequest::on_repaired).
  bool repaired = false;
  /// Copies the document keeps of the study, made in the worker so the GUI thread only moves
  /// them in (at 100k operators each is megabytes): the prediction's timelines (the schedule's,
  /// then the eager and the graph baselines) and the memory report. Empty when the study has
  /// none, or when the result was not made by run_study (the document then copies them).
  std::vector<core::Timeline> predicted;
  std::shared_ptr<const core::MemoryReport> memory;
};

/// Fills result.predicted and result.memory from result.study (in the worker).
void copy_study_outputs(StudyResult& result);

/// The studio's study options for a graph of `nodes`: prediction in `mode` without the
/// counterfactuals, the memory report with growth (the memory view's series), both only up to
/// kLiveStudyNodes; the planning is the studies' default (core::reference_plan_options), so
/// every figure equals the CLI's.
core::StudyOptions studio_study_options(std::size_t nodes, core::LaunchMode mode);

/// Runs one request: the reference (and its plan) first when the request has none, then
/// core::study_schedule. Cost: study_schedule's, plus memory_aware_order and one plan the first
/// time for a model.
StudyResult run_study(const StudyRequest& request);

}  // namespace weft::ui
