// weft frontier: the Pareto front of predicted time against arena bytes over strategies, stream
// caps and budget-constrained variants (core::memory_frontier), as a table, CSV, an SVG plot or a
// PNG chart (drawn with cairo, as the sweep's).
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "sweep_chart.h"
#include "weft/core/base/file_io.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/strategy/registry.h"
#include "weft/core/study/frontier.h"
#include "weft/core/study/merge_study.h"
#include "weft/core/schedule/sync.h"
#include "weft/core/base/text_format.h"

namespace weft::cli {

namespace {

constexpr std::string_view kFrontier = "frontier";

core::Expected<std::vector<int>> parse_caps(const std::string& text) {
  std::vector<int> caps;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    int cap = 0;
    try {
      std::size_t used = 0;
      cap = std::stoi(item, &used);
      if (used != item.size()) cap = 0;
    } catch (const std::exception&) {
      cap = 0;
    }
    // Core decides which caps a strategy takes (check_strategy, as make_schedule does for each
    // of memory_frontier's requests); the message names this command's option, not --streams.
    core::StrategyOptions request;
    request.max_streams = cap;  // 0 when the item is not an integer: refused as out of range
    if (auto ok = core::check_strategy(core::fixed_strategy_names().front(), request); !ok)
      return as_usage(core::make_error(ok.error().kind, "--caps needs stream caps between 1 and " +
                                                            std::to_string(core::kMaxScheduleStreams) + ", got '" + item + "'"));
    caps.push_back(cap);
  }
  if (caps.empty()) return core::make_error(core::ErrorKind::Usage, "--caps needs at least one stream cap");
  return caps;
}

void print_frontier_table(const core::Frontier& f, bool all) {
  std::cout << std::left << std::setw(44) << "schedule" << std::right << std::setw(9) << "streams" << std::setw(8) << "events"
            << std::setw(14) << "arena bytes" << std::setw(11) << "arena MiB" << std::setw(14) << "predicted us"
            << std::setw(9) << "speedup" << (all ? "  front" : "") << "\n";
  auto row = [&](const core::FrontierPoint& p) {
    std::cout << std::left << std::setw(44) << p.label() << std::right << std::setw(9) << p.schedule.stream_count()
              << std::setw(8) << p.schedule.events.size() << std::setw(14) << p.arena_bytes << std::setw(11)
              << core::fixed_text(static_cast<double>(p.arena_bytes) / 1048576.0, 2) << std::setw(14) << core::fixed_text(p.predicted_us, 1)
              << std::setw(8) << core::fixed_text(p.speedup, 2) << "x" << (all ? (p.on_front ? "  *" : "") : "") << "\n";
  };
  if (all) {
    for (const core::FrontierPoint& p : f.points) row(p);
  } else {
    for (std::size_t i : f.front) row(f.points[i]);
  }
}

}  // namespace

int cmd_frontier(Args& args) {
  if (auto ok = args.parse({"graph", "granularity=", "caps=", "levels=", "all", "csv=", "svg=", "png=", "json", "split=", "merge", "fuse", "profile="}, true); !ok)
    return usage_error(kFrontier, ok.error().message);
  if (args.positional().size() != 1) return usage_error(kFrontier, "expected exactly one MODEL (an .onnx file)");
  core::FrontierOptions options;
  options.strategy.cuda_graph = args.flag("graph");
  auto granularity = args.double_value("granularity");
  if (!granularity) return usage_error(kFrontier, granularity.error().message);
  if (*granularity) {
    if (**granularity < 0) return usage_error(kFrontier, "--granularity must be >= 0 (microseconds)");
    options.strategy.granularity_us = **granularity;
  }
  if (const auto caps = args.value("caps")) {
    auto parsed = parse_caps(*caps);
    if (!parsed) return usage_error(kFrontier, parsed.error().message);
    options.stream_caps = std::move(*parsed);
  }
  auto levels = args.int_value("levels");
  if (!levels) return usage_error(kFrontier, levels.error().message);
  if (*levels) {
    if (**levels < 0 || **levels > 32) return usage_error(kFrontier, "--levels must be between 0 and 32");
    options.budget_levels = static_cast<int>(**levels);
  }

  auto model = load_model(args);
  if (!model) return report(kFrontier, model.error());
  // --merge: the front of the merged model (as the studio's frontier view of a merged model).
  const core::Graph& graph = model->scheduled_graph();
  auto frontier = core::memory_frontier(graph, model->scheduled_costs(), model->device, options);
  if (!frontier) return report(kFrontier, frontier.error());
  const core::Frontier& f = *frontier;

  if (const auto csv = args.value("csv")) {
    const std::string text = core::frontier_csv(f);
    if (*csv == "-") {
      std::cout << text;
      return 0;
    }
    if (auto ok = core::write_file_atomic(*csv, text); !ok) return report(kFrontier, ok.error());
  }
  if (const auto svg = args.value("svg")) {
    const std::string title = model->graph->info().model_path + ": predicted time vs arena (" +
                              std::string(core::launch_mode_name(f.mode)) + ", " + model->device.name + ")";
    if (auto ok = core::write_file_atomic(*svg, core::frontier_svg(f, title)); !ok) return report(kFrontier, ok.error());
  }
  if (const auto png = args.value("png")) {
    const std::string title = std::filesystem::path(model->graph->info().model_path).stem().string() +
                              ": predicted time vs arena (" + std::string(core::launch_mode_name(f.mode)) + ", " +
                              model->device.name + ")";
    auto bytes = render_chart(frontier_chart(f, title), ChartFormat::Png);
    if (!bytes) return report(kFrontier, bytes.error());
    if (auto ok = core::write_file_atomic(*png, *bytes); !ok) return report(kFrontier, ok.error());
  }
  if (args.flag("json")) {
    nlohmann::ordered_json j;
    j["model"] = model->graph->info().model_path;
    j["device"] = model->device.name;
    j["mode"] = core::launch_mode_name(f.mode);
    j["sequential_us"] = f.sequential_us;
    j["sequential_arena_bytes"] = f.sequential_arena_bytes;
    auto points = nlohmann::ordered_json::array();
    for (const core::FrontierPoint& p : f.points)
      points.push_back({{"strategy", p.strategy},
                        {"stream_cap", p.stream_cap},
                        {"budget_bytes", p.budget_bytes},
                        {"streams", p.schedule.stream_count()},
                        {"events", p.schedule.events.size()},
                        {"arena_bytes", p.arena_bytes},
                        {"predicted_us", p.predicted_us},
                        {"speedup", p.speedup},
                        {"on_front", p.on_front}});
    j["points"] = std::move(points);
    j["front"] = f.front;
    if (model->merged) j["merge"] = {{"nodes_before", model->graph->node_count()}, {"nodes_after", graph.node_count()}};
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  if (model->merged)
    std::cout << core::transformed_word(graph) << ": " << model->graph->node_count() << " -> " << graph.node_count()
              << " operators (speedups over the " << core::transformed_word(graph) << " model's sequential run)\n";
  std::cout << "model: " << model->graph->info().model_path << " (" << graph.node_count() << " operators), device "
            << model->device.name << ", predicted with "
            << (f.mode == core::LaunchMode::Graph ? "CUDA Graph replay" : "eager launches") << "\n"
            << "sequential: " << core::fixed_text(f.sequential_us, 1) << " us, arena " << f.sequential_arena_bytes << " bytes ("
            << core::mib_text(f.sequential_arena_bytes) << "); " << f.points.size() << " distinct schedules, " << f.front.size()
            << " on the front" << (args.flag("all") ? " (*)" : "") << "\n";
  print_frontier_table(f, args.flag("all"));
  if (const auto csv = args.value("csv")) std::cout << "csv written to " << *csv << "\n";
  if (const auto svg = args.value("svg")) std::cout << "plot written to " << *svg << " (SVG)\n";
  if (const auto png = args.value("png")) std::cout << "chart written to " << *png << " (PNG)\n";
  return 0;
}

}  // namespace weft::cli
