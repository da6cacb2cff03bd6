// weft layers: the wire layering of a model by the head rule (shared/seeds/002), its depth and
// widths, and the horizontal merges it allows (one launch for a layer's equal operators).
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "weft/core/base/file_io.h"
#include "weft/core/transform/horizontal_merge.h"
#include "weft/core/analysis/levels.h"
#include "weft/core/base/text_format.h"
#include "weft/core/transform/wire_layering.h"

namespace weft::cli {

namespace {

constexpr std::string_view kLayers = "layers";

}  // namespace

int cmd_layers(Args& args) {
  if (auto ok = args.parse({"wires=", "schedule=", "strategy=", "streams=", "granularity=", "graph", "json", "fuse"}, true); !ok)
    return usage_error(kLayers, ok.error().message);
  if (args.positional().size() != 1) return usage_error(kLayers, "expected exactly one MODEL (an .onnx file)");
  const auto wires_file = args.value("wires");
  const bool from_schedule = args.value("schedule") || args.value("strategy");
  if (wires_file && from_schedule) return usage_error(kLayers, "give --wires FILE or a schedule (--schedule/--strategy), not both");
  std::optional<ScheduleChoice> choice;
  if (from_schedule) {
    auto c = schedule_choice(args, "chains", args.flag("graph"));
    if (!c) return usage_error(kLayers, c.error().message);
    choice = std::move(*c);
  } else if (args.value("streams") || args.value("granularity")) {
    return usage_error(kLayers, "--streams and --granularity shape a --strategy");
  }

  auto model = load_model(args);
  if (!model) return report(kLayers, model.error());
  // The model as schedules address it (merged where a schedule file records merges).
  const core::Graph& graph = model->scheduled_graph();
  const core::CostTable& costs = model->scheduled_costs();

  core::Expected<core::Wires> wires = core::Error{};
  if (wires_file) {
    auto text = core::read_file(*wires_file, core::kMaxTextBytes);
    if (!text) return report(kLayers, core::Error{core::ErrorKind::InvalidInput, text.error().message});
    wires = core::parse_wires_json(graph, *text, *wires_file);
  } else if (choice) {
    auto obtained = obtain_merged_schedule(kLayers, *choice, *model);
    if (!obtained) return report(kLayers, obtained.error());
    wires = core::wires_from_schedule(graph, obtained->schedule);
  } else {
    wires = core::wires_from_graph(graph);
  }
  if (!wires) return report(kLayers, wires.error());
  auto layering = core::layer_by_wires(graph, *wires);
  if (!layering) return report(kLayers, layering.error());
  const core::MergePlan merges = core::find_merge_groups(graph, *layering, costs, model->device);
  const int asap_depth = core::compute_levels(graph).depth;
  std::size_t merged_nodes = 0;
  for (const core::MergeGroup& g : merges.groups) merged_nodes += g.nodes.size();

  if (args.flag("json")) {
    nlohmann::ordered_json j;
    j["model"] = graph.info().model_path;
    j["device"] = model->device.name;
    j["wires"] = {{"origin", wires->origin}, {"count", wires->names.size()}, {"names", wires->names}};
    j["depth"] = layering->depth();
    j["asap_depth"] = asap_depth;
    j["max_width"] = layering->max_width();
    auto widths = nlohmann::ordered_json::array();
    auto layers = nlohmann::ordered_json::array();
    for (const auto& layer : layering->layers) {
      widths.push_back(layer.size());
      auto keys = nlohmann::ordered_json::array();
      for (core::NodeId n : layer) keys.push_back(graph.key(n));
      layers.push_back(std::move(keys));
    }
    j["layer_widths"] = std::move(widths);
    j["layers"] = std::move(layers);
    auto groups = nlohmann::ordered_json::array();
    for (const core::MergeGroup& g : merges.groups) {
      auto keys = nlohmann::ordered_json::array();
      for (core::NodeId n : g.nodes) keys.push_back(graph.key(n));
      groups.push_back({{"op", graph.node(g.nodes.front()).op_type},
                        {"layer", layering->layer_of[static_cast<std::size_t>(g.nodes.front())]},
                        {"nodes", std::move(keys)},
                        {"shared_input", g.shared_input},
                        {"time_us", g.time_us}});
    }
    j["merge_groups"] = std::move(groups);
    j["launches_before"] = merges.launches_before;
    j["launches_after"] = merges.launches_after;
    j["time_before_us"] = merges.time_before_us;
    j["time_after_us"] = merges.time_after_us;
    if (model->fused) j["fusion"] = fusion_json(*model);
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return 0;
  }

  std::cout << "model         " << graph.info().model_path << " (" << graph.node_count() << " nodes)\n"
            << "wires         " << wires->names.size() << " (" << wires->origin << ")\n"
            << "layers        " << layering->depth() << " (ASAP depth " << asap_depth << ")\n"
            << "widest layer  " << layering->max_width() << "\n"
            << "merge groups  " << merges.groups.size() << " (" << merged_nodes << " nodes)\n"
            << "launches      " << merges.launches_before << " -> " << merges.launches_after << "\n"
            << "one stream    " << core::fixed_text(merges.time_before_us, 1) << " us -> " << core::fixed_text(merges.time_after_us, 1)
            << " us predicted with eager launches ("
            << core::fixed_text(merges.time_after_us > 0 ? merges.time_before_us / merges.time_after_us : 1.0, 2) << "x)\n"
            << "layer widths ";
  for (const auto& layer : layering->layers) std::cout << " " << layer.size();
  std::cout << "\n";
  if (model->fused) std::cout << fusion_text(*model) << "\n";
  if (!merges.groups.empty()) {
    std::cout << "\nmerges (layer: operator x count, time):\n";
    std::size_t shown = 0;
    for (const core::MergeGroup& g : merges.groups) {
      if (++shown > 20) {
        std::cout << "  ... " << merges.groups.size() - 20 << " more (--json lists all)\n";
        break;
      }
      std::cout << "  " << layering->layer_of[static_cast<std::size_t>(g.nodes.front())] << ": "
                << graph.node(g.nodes.front()).op_type << " x" << g.nodes.size() << ", " << core::fixed_text(g.time_us, 2) << " us"
                << (g.shared_input ? " (shared input)" : "") << "  " << graph.key(g.nodes.front()) << " ...\n";
    }
  }
  return 0;
}

}  // namespace weft::cli
