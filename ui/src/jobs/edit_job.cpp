#include "weft/ui/edit_job.h"

#include <chrono>

#include "weft/core/schedule/sync.h"

namespace weft::ui {

EditResult run_edit(const EditRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  EditResult result;
  result.base = request.base;
  result.schedule = request.edit(*request.graph, *request.schedule);
  if (result.schedule) result.ideal_us = core::ideal_makespan_us(*request.graph, *result.schedule, *request.node_times);
  result.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace weft::ui
