// `weft schedule` (one strategy, or --compare for all) and `weft validate`.
#include <cstdio>
#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "weft/core/memory_planner.h"
#include "weft/core/schedule_json.h"
#include "weft/core/simulate.h"
#include "weft/core/strategies.h"
#include "weft/core/strategy_external.h"
#include "weft/core/sync.h"

namespace weft::cli {
namespace {


// Figures of one schedule, shared by the single-strategy report and the --compare table.
struct Figures {
  core::Schedule schedule;
  std::vector<std::string> warnings;
  double makespan_us = 0;
  double sequential_us = 0;
  double event_host_us = 0;
  std::size_t cross_edges = 0;  ///< data edges whose ends sit on different streams
  double predicted_us = 0;      ///< simulated makespan (eager launches, events, contention)
  double predicted_vs_graph = 0, predicted_vs_eager = 0;  ///< against the sequential baselines
  std::int64_t arena_bytes = 0;  ///< memory plan for this schedule (best planner, short search)
  double speedup() const { return makespan_us > 0 ? sequential_us / makespan_us : 1.0; }
};

std::size_t cross_stream_edges(const core::Graph& g, const core::Schedule& s) {
  std::vector<int> stream_of, position;
  s.locate(g.node_count(), stream_of, position);
  std::size_t n = 0;
  for (std::size_t u = 0; u < g.node_count(); ++u)
    for (core::NodeId v : g.successors(static_cast<core::NodeId>(u)))
      if (stream_of[u] != stream_of[static_cast<std::size_t>(v)]) ++n;
  return n;
}

core::Expected<Figures> figures_of(const LoadedModel& m, core::Schedule schedule, const core::StrategyOptions& options,
                                   double sequential_us) {
  Figures f;
  f.schedule = std::move(schedule);
  f.warnings = core::schedule_warnings(f.schedule, options, m.device);
  const std::vector<double> times = core::node_times(m.costs);
  f.makespan_us = core::ideal_makespan_us(m.graph, f.schedule, times);
  f.sequential_us = sequential_us;
  f.event_host_us = core::event_host_cost_us(f.schedule, m.device);
  f.cross_edges = cross_stream_edges(m.graph, f.schedule);
  auto p = core::predict(m.graph, f.schedule, m.costs, m.device);
  if (!p) return p.error();
  f.predicted_us = p->makespan_us;
  f.predicted_vs_graph = p->speedup_vs_graph;
  f.predicted_vs_eager = p->speedup_vs_eager;
  core::PlanOptions plan_options;
  plan_options.search_ms = 20;
  auto plan = core::plan_memory(m.graph, f.schedule, "best", plan_options);
  if (!plan) return plan.error();
  f.arena_bytes = plan->arena_bytes;
  return f;
}

core::Expected<Figures> figures(const LoadedModel& m, std::string_view strategy, const core::StrategyOptions& options,
                                double sequential_us) {
  auto s = core::make_schedule(strategy, m.graph, m.costs, m.device, options);
  if (!s) return s.error();
  return figures_of(m, std::move(*s), options, sequential_us);
}

nlohmann::ordered_json to_json(const core::Graph& g, const Figures& f) {
  nlohmann::ordered_json j;
  j["strategy"] = f.schedule.strategy;
  j["options"] = f.schedule.options;
  auto streams = nlohmann::ordered_json::array();
  auto per_stream = nlohmann::ordered_json::array();
  for (const auto& stream : f.schedule.streams) {
    auto keys = nlohmann::ordered_json::array();
    for (core::NodeId v : stream) keys.push_back(g.key(v));
    streams.push_back(std::move(keys));
    per_stream.push_back(stream.size());
  }
  j["streams"] = std::move(streams);
  j["nodes_per_stream"] = std::move(per_stream);
  auto events = nlohmann::ordered_json::array();
  for (const core::Event& e : f.schedule.events) events.push_back({{"from", g.key(e.from)}, {"to", g.key(e.to)}});
  j["events"] = std::move(events);
  j["cross_stream_edges"] = f.cross_edges;
  j["event_host_us"] = f.event_host_us;
  j["makespan_us"] = f.makespan_us;
  j["sequential_makespan_us"] = f.sequential_us;
  j["speedup"] = f.speedup();
  j["predicted_us"] = f.predicted_us;
  j["predicted_speedup_vs_graph"] = f.predicted_vs_graph;
  j["predicted_speedup_vs_eager"] = f.predicted_vs_eager;
  j["warnings"] = f.warnings;
  return j;
}

void print_report(const LoadedModel& m, const Figures& f) {
  const core::Graph& g = m.graph;
  const core::Schedule& s = f.schedule;
  std::cout << "model: " << g.info().model_path << " (" << g.node_count() << " operators, " << g.edge_count()
            << " edges), device " << m.device.name << "\n"
            << "strategy: " << s.strategy << " (" << s.options << ")\n"
            << "streams: " << s.stream_count() << "\n";
  const std::vector<double> times = core::node_times(m.costs);
  for (std::size_t i = 0; i < s.streams.size(); ++i) {
    double busy = 0;
    for (core::NodeId v : s.streams[i]) busy += times[static_cast<std::size_t>(v)];
    std::cout << "  stream " << i << ": " << s.streams[i].size() << " nodes, " << fixed(busy) << " us busy\n   ";
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
  std::cout << "events: " << s.events.size() << " (host cost " << fixed(f.event_host_us, 2) << " us; " << f.cross_edges
            << " data edges cross streams, the rest follow from stream order and other events)\n";
  for (const core::Event& e : s.events) std::cout << "  " << g.key(e.from) << " -> " << g.key(e.to) << "\n";
  std::cout << "ideal makespan: " << fixed(f.makespan_us) << " us (sequential " << fixed(f.sequential_us)
            << " us, speedup " << fixed(f.speedup(), 2) << "x)\n";
  std::cout << "predicted: " << fixed(f.predicted_us) << " us (" << fixed(f.predicted_vs_graph, 2)
            << "x vs sequential CUDA Graph, " << fixed(f.predicted_vs_eager, 2) << "x vs sequential eager; weft simulate for the timeline)\n";
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
      {"strategy", [](const Figures& f) { return f.schedule.strategy; }, [](const Figures& f) { return f.schedule.strategy; }},
      {"streams", [](const Figures& f) { return std::to_string(f.schedule.stream_count()); },
       [](const Figures& f) { return f.schedule.stream_count(); }},
      {"events", [](const Figures& f) { return std::to_string(f.schedule.events.size()); },
       [](const Figures& f) { return f.schedule.events.size(); }},
      {"x-edges", [](const Figures& f) { return std::to_string(f.cross_edges); }, [](const Figures& f) { return f.cross_edges; }},
      {"event host us", [](const Figures& f) { return fixed(f.event_host_us, 2); }, [](const Figures& f) { return f.event_host_us; }},
      {"ideal makespan us", [](const Figures& f) { return fixed(f.makespan_us); }, [](const Figures& f) { return f.makespan_us; }},
      {"speedup", [](const Figures& f) { return fixed(f.speedup(), 2) + "x"; }, [](const Figures& f) { return f.speedup(); }},
      {"predicted us", [](const Figures& f) { return fixed(f.predicted_us); }, [](const Figures& f) { return f.predicted_us; }},
      {"vs graph", [](const Figures& f) { return fixed(f.predicted_vs_graph, 2) + "x"; },
       [](const Figures& f) { return f.predicted_vs_graph; }},
      {"vs eager", [](const Figures& f) { return fixed(f.predicted_vs_eager, 2) + "x"; },
       [](const Figures& f) { return f.predicted_vs_eager; }},
      {"arena bytes", [](const Figures& f) { return std::to_string(f.arena_bytes); }, [](const Figures& f) { return f.arena_bytes; }},
  };
}

int compare(const LoadedModel& m, const core::StrategyOptions& options, double sequential_us, bool json) {
  std::vector<Figures> rows;
  for (const std::string& name : core::strategy_names()) {
    auto f = figures(m, name, options, sequential_us);
    if (!f) return report("schedule", f.error());
    rows.push_back(std::move(*f));
  }
  const std::vector<Column> columns = compare_columns();
  if (json) {
    nlohmann::ordered_json out;
    out["model"] = m.graph.info().model_path;
    out["device"] = m.device.name;
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
  std::cout << "model: " << m.graph.info().model_path << " (" << m.graph.node_count() << " operators), device "
            << m.device.name << "\n";
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
  if (auto ok = args.parse({"strategy=", "streams=", "granularity=", "graph", "o=", "output=", "json", "compare",
                            "external-timeout="},
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
  auto timeout = args.double_value("external-timeout");
  if (!timeout) return usage_error("schedule", timeout.error().message);
  if (*timeout && (!external || **timeout <= 0))
    return usage_error("schedule", "--external-timeout S (> 0 seconds) applies to --external");
  auto choice = schedule_choice(args, "sequential", args.flag("graph"));
  if (!choice) return usage_error("schedule", choice.error().message);
  const core::StrategyOptions options = choice->options;
  const std::string* strategy = compare_all ? nullptr : &choice->strategy;
  auto model = load_model(args);
  if (!model) return report("schedule", model.error());
  const bool json = args.flag("json");

  auto sequential = core::make_schedule("sequential", model->graph, model->costs, model->device, options);
  if (!sequential) return report("schedule", sequential.error());
  const double sequential_us = core::ideal_makespan_us(model->graph, *sequential, core::node_times(model->costs));
  if (compare_all) return compare(*model, options, sequential_us, json);

  core::Expected<Figures> f = core::Error{};
  if (external) {
    core::ExternalStrategy program{*external, timeout->value_or(60.0)};
    auto s = core::run_external_strategy(program, model->graph, model->costs, model->device, options);
    if (!s) return report("schedule", s.error());
    f = figures_of(*model, std::move(*s), options, sequential_us);
  } else {
    f = figures(*model, *strategy, options, sequential_us);
  }
  if (!f) return report("schedule", f.error());
  const auto out = args.value("o") ? args.value("o") : args.value("output");
  if (out) {
    if (auto saved = core::save_schedule(*out, model->graph, f->schedule, model->device.name); !saved)
      return report("schedule", saved.error());
  }
  if (json) {
    std::cout << to_json(model->graph, *f).dump(2) << "\n";
  } else {
    print_report(*model, *f);
    if (out) std::cout << "schedule written to " << *out << "\n";
  }
  for (const std::string& w : f->warnings) std::cerr << "weft schedule: warning: " << w << "\n";
  return 0;
}

int cmd_validate(Args& args) {
  if (auto ok = args.parse({}, true); !ok) return usage_error("validate", ok.error().message);
  if (args.positional().size() != 2) return usage_error("validate", "expected MODEL SCHEDULE.json");
  auto model = load_model(args);
  if (!model) return report("validate", model.error());
  auto schedule = core::load_schedule(args.positional()[1], model->graph);
  if (!schedule) return report("validate", schedule.error());
  std::cout << "valid: " << schedule->stream_count() << " streams, " << schedule->events.size() << " events, ideal makespan "
            << fixed(core::ideal_makespan_us(model->graph, *schedule, core::node_times(model->costs))) << " us\n";
  return 0;
}

}  // namespace weft::cli
