#pragma once
// Memory plans as JSON: the "tensors" list `weft plan --json` writes ({name, offset, size} per
// planned tensor, with "alignment"), read back for a model, e.g. to repair it after an edit.
#include <string_view>

#include "weft/core/base/expected.h"
#include "weft/core/graph/graph.h"
#include "weft/core/memory/memory_plan.h"

namespace weft::core {

/// A plan of `graph` from `weft plan --json` output: each listed tensor at its offset with its
/// (padded) size, every other tensor unplaced; views are placed inside their parents (a listed
/// view must sit there); "alignment" defaults to kDefaultAlignment; `outputs_in_arena` is taken
/// as given, and a file that says otherwise ("outputs_in_arena") is refused. Not checked against
/// any schedule (repair_plan or check_plan does that). Errors (InvalidInput): malformed JSON, a
/// tensor the model lacks or listed twice, a view outside its parent, a negative offset, a size
/// that is not positive, offsets or sizes off the alignment, an alignment above kMaxAlignment, a
/// tensor ending past kMaxArenaBytes. O(T + file).
Expected<MemoryPlan> plan_from_json(const Graph& graph, std::string_view json_text, bool outputs_in_arena = false);

}  // namespace weft::core
