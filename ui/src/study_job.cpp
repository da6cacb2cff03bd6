#include "weft/ui/study_job.h"

#include <chrono>

#include "weft/core/study/reference.h"

namespace weft::ui {

core::StudyOptions studio_study_options(std::size_t nodes, core::LaunchMode mode) {
  core::StudyOptions options;
  options.mode = mode;
  options.counterfactuals = false;  // the verdict's extra simulations: `weft simulate` has them
  const bool live = nodes <= kLiveStudyNodes;
  options.predict = live;
  options.memory = live;
  options.memory_options.growth = live;
  return options;
}

StudyResult run_study(const StudyRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  StudyResult result;
  result.generation = request.generation;
  result.model = request.model;
  const core::Graph& graph = *request.graph;
  core::StudyOptions options = studio_study_options(graph.node_count(), request.mode);
  if (request.cancel) options.cancelled = [cancel = request.cancel] { return cancel->load(std::memory_order_relaxed); };

  result.reference = request.reference;
  if (!result.reference || (options.memory && !result.reference->plan)) {
    auto reference = std::make_shared<StudyReference>();
    reference->schedule = result.reference ? result.reference->schedule : core::reference_schedule(graph);
    if (options.memory) {
      // The plan every later edit compares against: the studies' planning, as `weft plan` does it.
      auto plan = core::study_plan(graph, reference->schedule, options.memory_options.planner, options.memory_options.plan);
      if (plan) reference->plan = std::move(*plan);
    }
    result.reference = std::move(reference);
  }
  options.reference = &result.reference->schedule;
  options.memory_options.reference_plan = result.reference->plan ? &*result.reference->plan : nullptr;

  auto study = core::study_schedule(graph, request.analysis->costs, request.device, request.schedule, options);
  if (study)
    result.study = std::move(*study);
  else
    result.error = study.error().message;
  result.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace weft::ui
