// `weft schedule` (one strategy, or --compare for all) and `weft validate`.
#include <cstdio>
#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/schedule/node_teams.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/strategy/strategy_external.h"
#include "weft/core/study/schedule_study.h"
#include "weft/core/schedule/sync.h"
#include "weft/core/base/text_format.h"

namespace weft::cli {
namespace {


// One schedule's row: the study (figures, prediction, memory report) and the strategy's warnings.
using Figures = core::StrategyStudy;

double predicted_us(const Figures& f) { return f.study.prediction ? f.study.prediction->makespan_us : 0.0; }
double vs_graph(const Figures& f) { return f.study.prediction ? f.study.prediction->speedup_vs_graph : 0.0; }
double vs_eager(const Figures& f) { return f.study.prediction ? f.study.prediction->speedup_vs_eager : 0.0; }
// The memory figures are null in JSON and "-" in text where the study planned nothing (a graph
// with unresolved dimensions).
nlohmann::ordered_json arena(const Figures& f) {
  return f.study.memory ? nlohmann::ordered_json(f.study.memory->arena_bytes()) : nlohmann::ordered_json();
}
nlohmann::ordered_json price(const Figures& f) {
  return f.study.memory ? nlohmann::ordered_json(f.study.memory->price_of_concurrency()) : nlohmann::ordered_json();
}
std::string arena_text(const Figures& f) { return f.study.memory ? std::to_string(f.study.memory->arena_bytes()) : "-"; }
std::string price_text(const Figures& f) {
  return f.study.memory ? core::fixed_text(f.study.memory->price_of_concurrency(), 2) + "x" : "-";
}

nlohmann::ordered_json figures_json(const core::Graph& g, const Figures& f) {
  nlohmann::ordered_json j;
  j["strategy"] = f.study.schedule.strategy;
  j["options"] = f.study.schedule.options;
  auto streams = nlohmann::ordered_json::array();
  auto per_stream = nlohmann::ordered_json::array();
  for (const auto& stream : f.study.schedule.streams) {
    auto keys = nlohmann::ordered_json::array();
    for (core::NodeId v : stream) keys.push_back(g.key(v));
    streams.push_back(std::move(keys));
    per_stream.push_back(stream.size());
  }
  j["streams"] = std::move(streams);
  j["nodes_per_stream"] = std::move(per_stream);
  // Hybrid teams (--hybrid): the nodes on a team other than their stream's.
  const core::Schedule& s = f.study.schedule;
  const core::NodeTeamCount teams = core::count_node_teams(s);
  auto node_threads = nlohmann::ordered_json::object();
  for (std::size_t v = 0; v < s.node_threads.size() && v < g.node_count(); ++v)
    if (const int t = s.team_of(static_cast<core::NodeId>(v)); t != s.threads_per_stream) node_threads[g.key(static_cast<core::NodeId>(v))] = t;
  j["threads_per_stream"] = s.threads_per_stream;
  j["node_teams"] = {{"nodes", teams.nodes}, {"threads", teams.threads}, {"summary", core::node_teams_text(s, g.node_count())}};
  j["node_threads"] = std::move(node_threads);
  auto events = nlohmann::ordered_json::array();
  for (const core::Event& e : f.study.schedule.events) events.push_back({{"from", g.key(e.from)}, {"to", g.key(e.to)}});
  j["events"] = std::move(events);
  j["cross_stream_edges"] = f.study.cross_stream_edges;
  j["event_host_us"] = f.study.event_host_us;
  j["makespan_us"] = f.study.ideal_makespan_us;
  j["sequential_makespan_us"] = f.study.reference_ideal_us;
  j["speedup"] = f.study.ideal_speedup();
  j["predicted_us"] = predicted_us(f);
  j["predicted_speedup_vs_graph"] = vs_graph(f);
  j["predicted_speedup_vs_eager"] = vs_eager(f);
  j["mode"] = f.study.prediction ? core::launch_mode_name(f.study.prediction->mode) : "eager";
  j["arena_bytes"] = arena(f);
  j["warnings"] = f.warnings;
  return j;
}

void print_report(const LoadedModel& m, const Figures& f) {
  const core::Graph& g = m.scheduled_graph();
  const core::Schedule& s = f.study.schedule;
  std::cout << "model: " << g.info().model_path << " (" << g.node_count() << " operators, " << g.edge_count()
            << " edges), device " << m.device.name << "\n"
            << "strategy: " << s.strategy << " (" << s.options << ")\n"
            << "streams: " << s.stream_count() << "\n";
  if (s.has_node_teams()) std::cout << core::node_teams_text(s, g.node_count()) << "\n";
  const std::vector<double> times = core::node_times(m.scheduled_costs());
  for (std::size_t i = 0; i < s.streams.size(); ++i) {
    double busy = 0;
    for (core::NodeId v : s.streams[i]) busy += times[static_cast<std::size_t>(v)];
    std::cout << "  stream " << i << ": " << s.streams[i].size() << " nodes, " << core::fixed_text(busy, 1) << " us busy\n   ";
    std::size_t column = 3;
    for (core::NodeId v : s.streams[i]) {
      const std::string& k = g.key(v);
      if (column + k.size() + 1 > 100) {
        std::cout << "\n   ";
        column = 3;
      }
      std::cout << ' ' << k;
      column += k.size() + 1;
    }
    std::cout << "\n";
  }
  std::cout << "events: " << s.events.size() << " (host cost " << core::fixed_text(f.study.event_host_us, 2) << " us; " << f.study.cross_stream_edges
            << " data edges cross streams, the rest follow from stream order and other events)\n";
  for (const core::Event& e : s.events) std::cout << "  " << g.key(e.from) << " -> " << g.key(e.to) << "\n";
  std::cout << "ideal makespan: " << core::fixed_text(f.study.ideal_makespan_us, 1) << " us (sequential " << core::fixed_text(f.study.reference_ideal_us, 1)
            << " us, speedup " << core::fixed_text(f.study.ideal_speedup(), 2) << "x)\n";
  std::cout << "predicted: " << core::fixed_text(predicted_us(f), 1) << " us with "
            << (f.study.prediction && f.study.prediction->mode == core::LaunchMode::Graph ? "CUDA Graph replay" : "eager launches")
            << " (" << core::fixed_text(vs_graph(f), 2) << "x vs sequential CUDA Graph, " << core::fixed_text(vs_eager(f), 2)
            << "x vs sequential eager; weft simulate for the timeline)\n"
            << "arena: "
            << (f.study.memory ? arena_text(f) + " bytes (" + f.study.memory->plan.planner + " planner)"
                               : std::string("unknown (unresolved dimensions: bind them with --dim or --batch)"))
            << "\n";
}

// The --compare table: one row per strategy, columns as data so later issues can add
// predicted-time and memory columns by appending to the list.
struct Column {
  std::string header;
  std::function<std::string(const Figures&)> cell;
  std::function<nlohmann::ordered_json(const Figures&)> value;
};

std::vector<Column> compare_columns() {
  return {
      {"strategy", [](const Figures& f) { return f.study.schedule.strategy; }, [](const Figures& f) { return f.study.schedule.strategy; }},
      {"streams", [](const Figures& f) { return std::to_string(f.study.schedule.stream_count()); },
       [](const Figures& f) { return f.study.schedule.stream_count(); }},
      {"events", [](const Figures& f) { return std::to_string(f.study.schedule.events.size()); },
       [](const Figures& f) { return f.study.schedule.events.size(); }},
      {"x-edges", [](const Figures& f) { return std::to_string(f.study.cross_stream_edges); }, [](const Figures& f) { return f.study.cross_stream_edges; }},
      {"event host us", [](const Figures& f) { return core::fixed_text(f.study.event_host_us, 2); }, [](const Figures& f) { return f.study.event_host_us; }},
      {"ideal makespan us", [](const Figures& f) { return core::fixed_text(f.study.ideal_makespan_us, 1); }, [](const Figures& f) { return f.study.ideal_makespan_us; }},
      {"speedup", [](const Figures& f) { return core::fixed_text(f.study.ideal_speedup(), 2) + "x"; }, [](const Figures& f) { return f.study.ideal_speedup(); }},
      {"predicted us", [](const Figures& f) { return core::fixed_text(predicted_us(f), 1); }, [](const Figures& f) { return predicted_us(f); }},
      {"vs graph", [](const Figures& f) { return core::fixed_text(vs_graph(f), 2) + "x"; },
       [](const Figures& f) { return vs_graph(f); }},
      {"vs eager", [](const Figures& f) { return core::fixed_text(vs_eager(f), 2) + "x"; },
       [](const Figures& f) { return vs_eager(f); }},
      {"arena bytes", arena_text, arena},
      // Arena / the sequential arena (`weft plan`'s price_of_concurrency).
      {"price", price_text, price},
  };
}

int compare(const LoadedModel& m, const core::StrategyOptions& options, bool json) {
  // Predictions in the launch mode the schedules are made for (--graph: CUDA Graph replay).
  core::StudyOptions study;
  study.mode = core::launch_mode_of(options);
  study.counterfactuals = false;  // the table shows no verdict
  auto studied = core::study_strategies(m.scheduled_graph(), m.scheduled_costs(), m.device, options, study);
  if (!studied) return report("schedule", studied.error());
  const std::vector<Figures>& rows = *studied;
  const std::vector<Column> columns = compare_columns();
  if (json) {
    nlohmann::ordered_json out;
    out["model"] = m.graph->info().model_path;
    out["device"] = m.device.name;
    out["mode"] = core::launch_mode_name(core::launch_mode_of(options));
    auto list = nlohmann::ordered_json::array();
    for (const Figures& f : rows) {
      nlohmann::ordered_json row;
      for (const Column& c : columns) row[c.header] = c.value(f);
      row["warnings"] = f.warnings;
      list.push_back(std::move(row));
    }
    out["strategies"] = std::move(list);
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::vector<std::size_t> width;
  for (const Column& c : columns) {
    std::size_t w = c.header.size();
    for (const Figures& f : rows) w = std::max(w, c.cell(f).size());
    width.push_back(w);
  }
  std::cout << "model: " << m.graph->info().model_path << " (" << m.graph->node_count() << " operators), device "
            << m.device.name << ", predicted with " << (options.cuda_graph ? "CUDA Graph replay" : "eager launches") << "\n";
  for (std::size_t i = 0; i < columns.size(); ++i)
    std::cout << (i ? "  " : "") << (i ? std::right : std::left) << std::setw(static_cast<int>(width[i])) << columns[i].header;
  std::cout << "\n";
  for (const Figures& f : rows) {
    for (std::size_t i = 0; i < columns.size(); ++i)
      std::cout << (i ? "  " : "") << (i ? std::right : std::left) << std::setw(static_cast<int>(width[i])) << columns[i].cell(f);
    std::cout << "\n";
  }
  for (const Figures& f : rows)
    for (const std::string& w : f.warnings) std::cerr << "weft schedule: warning: " << w << "\n";
  return 0;
}

}  // namespace

int cmd_schedule(Args& args) {
  const auto external = args.take_after("--external");
  if (auto ok = args.parse({"strategy=", "streams=", "granularity=", "memory-budget=", "graph", "o=", "output=", "json", "compare", "profile=",
                            "external-timeout=", "merge", "fuse", "hybrid"},
                           true);
      !ok)
    return usage_error("schedule", ok.error().message);
  if (args.positional().size() != 1) return usage_error("schedule", "expected one MODEL");
  const bool compare_all = args.flag("compare");
  if (external && external->empty()) return usage_error("schedule", "--external needs a PROGRAM (and its arguments)");
  if (external && (compare_all || args.value("strategy")))
    return usage_error("schedule", "--external PROGRAM replaces --strategy and --compare; give one of them");
  if (!external && compare_all == args.value("strategy").has_value())
    return usage_error("schedule", "give either --strategy S (one of the strategies), --compare or --external PROGRAM");
  if (external && args.flag("merge"))
    return usage_error("schedule", "--merge schedules the merged model with a built-in strategy, not --external");
  auto timeout = args.double_value("external-timeout");
  if (!timeout) return usage_error("schedule", timeout.error().message);
  if (*timeout && (!external || **timeout <= 0))
    return usage_error("schedule", "--external-timeout S (> 0 seconds) applies to --external");
  auto choice = schedule_choice(args, "sequential", args.flag("graph"));
  if (!choice) return usage_error("schedule", choice.error().message);
  const core::StrategyOptions options = choice->options;
  auto model = load_model(args);
  if (!model) return report("schedule", model.error());
  const bool json = args.flag("json");
  if (compare_all && choice->memory_budget > 0)
    return usage_error("schedule", "--memory-budget applies to one --strategy (weft frontier MODEL fits every strategy to budgets)");
  // --merge: the merged model (load_model merged it) is scheduled; every figure below is its own,
  // and a saved schedule records the merges so that loading it re-applies them.
  const core::Graph& graph = model->scheduled_graph();
  const core::CostTable& costs = model->scheduled_costs();

  if (compare_all) return compare(*model, options, json);

  std::optional<core::BudgetFit> fit;
  core::Expected<core::Schedule> made = core::Schedule{};
  if (external) {
    made = core::run_external_strategy(core::ExternalStrategy{*external, timeout->value_or(60.0)}, graph, costs,
                                       model->device, options);
    if (made) made = fit_schedule(*choice, graph, costs, model->device, std::move(*made), &fit);
  } else {
    made = obtain_schedule("schedule", *choice, graph, costs, model->device, &fit);
  }
  if (!made) return report("schedule", made.error());
  // --hybrid: the nodes that run alone on a team of every core the streams hold (a CPU device's
  // cores; streams x threads per stream on another device).
  if (args.flag("hybrid")) {
    const bool cpu = model->device.kind == core::DeviceKind::Cpu;
    const std::vector<double> node_us = cpu ? core::node_times(costs) : std::vector<double>{};
    if (auto ok = core::make_hybrid(graph, *made, made->threads_per_stream, cpu ? core::device_cores(model->device) : 0, node_us); !ok)
      return report("schedule", ok.error());
  }
  core::StudyOptions study;
  study.mode = core::launch_mode_of(options);
  study.counterfactuals = false;
  Figures row;
  row.warnings = core::schedule_warnings(*made, options, model->device);
  if (external)  // obtain_schedule printed a strategy's
    for (const std::string& w : row.warnings) std::cerr << "weft schedule: warning: " << w << "\n";
  auto studied = core::study_schedule(graph, costs, model->device, std::move(*made), study);
  if (!studied) return report("schedule", studied.error());
  row.study = std::move(*studied);
  const Figures* f = &row;
  const auto out = args.value("o") ? args.value("o") : args.value("output");
  if (out) {
    if (auto saved = core::save_schedule(*out, graph, f->study.schedule, model->device.name); !saved)
      return report("schedule", saved.error());
  }
  if (json) {
    nlohmann::ordered_json j = figures_json(graph, *f);
    if (fit) j["memory_budget"] = budget_json(*fit);
    std::cout << j.dump(2) << "\n";
  } else {
    print_report(*model, *f);
    if (fit) std::cout << budget_line(*fit) << "\n";
    if (out) std::cout << "schedule written to " << *out << "\n";
  }
  return 0;
}

int cmd_validate(Args& args) {
  if (auto ok = args.parse({"split="}, true); !ok) return usage_error("validate", ok.error().message);
  if (args.positional().size() != 2) return usage_error("validate", "expected MODEL SCHEDULE.json");
  auto model = load_model(args, SplitMode::GraphFlag, args.positional()[1]);  // split as the file records
  if (!model) return report("validate", model.error());
  // load_model opened the model as the file records (split, merged) and validated the schedule on it.
  const core::Schedule& schedule = *model->schedule;
  const core::Graph& graph = model->scheduled_graph();
  const core::CostTable& costs = model->scheduled_costs();
  std::cout << "valid: " << schedule.stream_count() << " streams, " << schedule.events.size() << " events, ideal makespan "
            << core::fixed_text(core::ideal_makespan_us(graph, schedule, core::node_times(costs)), 1) << " us";
  if (model->merged) std::cout << ", " << model->graph->node_count() << " -> " << graph.node_count() << " operators " << core::transformed_word(graph);
  std::cout << "\n";
  return 0;
}

}  // namespace weft::cli
