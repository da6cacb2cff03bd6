// Reading `weft plan --json` back into a MemoryPlan of a model.
#include "weft/core/memory/plan_json.h"

#include <algorithm>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>

namespace weft::core {

namespace {

Error refuse_plan(const std::string& why) { return make_error(ErrorKind::InvalidInput, "plan file refused: " + why); }

}  // namespace

Expected<MemoryPlan> plan_from_json(const Graph& graph, std::string_view json_text, bool outputs_in_arena) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    return refuse_plan(std::string("malformed JSON: ") + e.what());
  }
  if (!j.is_object()) return refuse_plan("the top level must be an object (weft plan --json)");
  MemoryPlan plan;
  plan.planner = "file";
  plan.outputs_in_arena = outputs_in_arena;
  if (auto a = j.find("alignment"); a != j.end()) {
    if (!a->is_number_integer() || a->get<std::int64_t>() <= 0 || a->get<std::int64_t>() > kMaxAlignment)
      return refuse_plan("'alignment' must be an integer from 1 to " + std::to_string(kMaxAlignment));
    plan.alignment = a->get<std::int64_t>();
  }
  if (auto o = j.find("outputs_in_arena"); o != j.end()) {
    if (!o->is_boolean()) return refuse_plan("'outputs_in_arena' must be true or false");
    if (o->get<bool>() != outputs_in_arena)
      return refuse_plan(o->get<bool>() ? "it plans the graph outputs in the arena (weft plan --outputs); read it with outputs in the arena"
                                   : "it leaves the graph outputs out of the arena; read it without outputs in the arena");
  }
  auto tensors = j.find("tensors");
  if (tensors == j.end() || !tensors->is_array()) return refuse_plan("'tensors' must be a list of {\"name\", \"offset\", \"size\"}");
  plan.offset.assign(graph.tensor_count(), kNotPlanned);
  plan.size.assign(graph.tensor_count(), 0);
  std::unordered_map<TensorId, std::int64_t> listed_views;
  for (const auto& entry : *tensors) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string() || !entry.contains("offset") ||
        !entry["offset"].is_number_integer() || !entry.contains("size") || !entry["size"].is_number_integer())
      return refuse_plan("each entry of 'tensors' must be {\"name\": string, \"offset\": integer, \"size\": integer}");
    const std::string name = entry["name"].get<std::string>();
    const std::optional<TensorId> id = graph.find_tensor(name);
    if (!id) return refuse_plan("it places tensor '" + name + "', which the model does not have");
    const auto t = static_cast<std::size_t>(*id);
    const std::int64_t offset = entry["offset"].get<std::int64_t>(), size = entry["size"].get<std::int64_t>();
    if (graph.tensor(*id).is_view()) {
      // Views lie inside their parents (placed below); the listed offset is checked there.
      if (!listed_views.emplace(*id, offset).second) return refuse_plan("it places tensor '" + name + "' twice");
      continue;
    }
    if (plan.offset[t] != kNotPlanned) return refuse_plan("it places tensor '" + name + "' twice");
    if (offset < 0) return refuse_plan("tensor '" + name + "' has a negative offset");
    if (size <= 0) return refuse_plan("tensor '" + name + "' has a size that is not positive");
    if (offset % plan.alignment != 0 || size % plan.alignment != 0)
      return refuse_plan("tensor '" + name + "' has an offset or size that is not a multiple of the alignment " +
                    std::to_string(plan.alignment));
    if (offset > kMaxArenaBytes - size)
      return refuse_plan("tensor '" + name + "' ends past 2^50 bytes, beyond any arena");
    plan.offset[t] = offset;
    plan.size[t] = size;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + size);
  }
  place_views(graph, plan);
  for (const auto& [view, offset] : listed_views)
    if (plan.offset[static_cast<std::size_t>(view)] != offset)
      return refuse_plan("view '" + graph.tensor(view).name + "' is listed at offset " + std::to_string(offset) +
                    ", not inside its parent '" + graph.tensor(graph.tensor(view).view_of).name + "'");
  return plan;
}

}  // namespace weft::core
