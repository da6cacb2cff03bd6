#pragma once
// A schedule edit computed off the GUI thread (no Qt): the core edit API applied to a snapshot of
// the document's schedule, with the figure the document shows at once after an edit (the ideal
// makespan). The document runs it in a worker above kAsyncEditNodes operators, on the calling
// thread below; either way its result becomes one undo step.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "weft/core/base/expected.h"
#include "weft/core/graph/graph.h"
#include "weft/core/schedule/schedule.h"

namespace weft::ui {

/// Edits of models with more operators than this run in the studio's worker pool: at 100k
/// operators an edit (the cycle check, the minimal events, the validation and the ideal makespan)
/// takes 30-100 ms, more than a frame. Below it the edit is applied before the call returns
/// (about 3 ms at 10k).
inline constexpr std::size_t kAsyncEditNodes = 20'000;

/// One edit: `edit` maps the schedule before to the schedule after (a core edit function bound
/// to its arguments) or says why it is refused.
struct EditRequest {
  std::uint64_t base = 0;  ///< the document's schedule serial the edit was asked on (echoed)
  std::shared_ptr<const core::Graph> graph;
  std::shared_ptr<const core::Schedule> schedule;        ///< the schedule before
  std::shared_ptr<const std::vector<double>> node_times;  ///< the ideal makespan's node times
  std::function<core::Expected<core::Schedule>(const core::Graph&, const core::Schedule&)> edit;
};

struct EditResult {
  std::uint64_t base = 0;
  core::Expected<core::Schedule> schedule = core::make_error(core::ErrorKind::Internal, "edit not run");
  double ideal_us = 0;  ///< core::ideal_makespan_us of the schedule after (when it is valid)
  double ms = 0;        ///< wall time of the edit and its figure
};

/// Applies request.edit and measures the result's ideal makespan; O(V + E) for the core edits.
EditResult run_edit(const EditRequest& request);

}  // namespace weft::ui
