#include "weft/ui/study_job.h"

#include <chrono>

#include "weft/core/strategy/reference.h"

namespace weft::ui {

core::StudyOptions studio_study_options(std::size_t nodes, core::LaunchMode mode) {
  core::StudyOptions options;
  options.mode = mode;
  options.counterfactuals = false;  // the verdict's extra simulations: `weft simulate` has them
  const bool plan = nodes <= kLiveStudyNodes;
  options.predict = true;
  options.memory = plan;
  options.memory_options.growth = plan;
  return options;
}

void copy_study_outputs(StudyResult& result) {
  if (!result.study) return;
  if (const auto& p = result.study->prediction) result.predicted = {p->timeline, p->sequential_eager, p->sequential_graph};
  if (result.study->memory) result.memory = std::make_shared<const core::MemoryReport>(*result.study->memory);
}

StudyResult run_study(const StudyRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed_ms = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  StudyResult result;
  result.generation = request.generation;
  result.model = request.model;
  const core::Graph& graph = *request.graph;
  core::StudyOptions options = studio_study_options(graph.node_count(), request.mode);
  if (request.cancel) options.cancelled = [cancel = request.cancel] { return cancel->load(std::memory_order_relaxed); };
  const auto partial_result = [&](const core::ScheduleStudy& study, bool repaired) {
    StudyResult partial;
    partial.generation = request.generation;
    partial.model = request.model;
    partial.partial = true;
    partial.repaired = repaired;
    partial.study = study;
    copy_study_outputs(partial);
    partial.ms = elapsed_ms();
    return partial;
  };
  if (request.on_prediction)
    options.on_prediction = [&](const core::ScheduleStudy& study) { request.on_prediction(partial_result(study, false)); };
  if (request.on_repaired && request.repair_from && options.memory) {
    options.repair_from = request.repair_from.get();
    options.on_repaired = [&](const core::ScheduleStudy& study) { request.on_repaired(partial_result(study, true)); };
  }

  // The reference schedule is built once per model; its plan comes from the first memory report
  // (which plans the reference schedule as `weft plan` does when it is given none).
  std::shared_ptr<const StudyReference> reference = request.reference;
  if (!reference) {
    auto built = std::make_shared<StudyReference>();
    built->schedule = core::reference_schedule(graph);
    reference = std::move(built);
  }
  options.reference = &reference->schedule;
  options.memory_options.reference_plan = reference->plan ? &*reference->plan : nullptr;

  auto study = core::study_schedule(graph, request.analysis->costs, request.device, request.schedule, options);
  if (study) {
    if (study->memory && !reference->plan) {
      auto with_plan = std::make_shared<StudyReference>(*reference);
      with_plan->plan = study->memory->reference_plan;
      reference = std::move(with_plan);
    }
    result.study = std::move(*study);
    copy_study_outputs(result);
  } else {
    result.error = study.error().message;
  }
  result.reference = std::move(reference);
  result.ms = elapsed_ms();
  return result;
}

}  // namespace weft::ui
