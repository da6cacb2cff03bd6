// weft analyze MODEL: levels, width, critical path, work/span and the verdict, as text or JSON.
// weft advise MODEL: the advice alone, one line, with the evidence it rests on.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "weft/core/analysis/analyze.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/analysis/critical_path.h"
#include "weft/core/study/advice.h"
#include "weft/core/schedule/sync.h"
#include "weft/core/base/text_format.h"

namespace weft::cli {

namespace {

nlohmann::ordered_json evidence_json(const core::Advice& advice) {
  nlohmann::ordered_json evidence;
  evidence["kind"] = std::string(core::advice_kind_name(advice.kind));
  evidence["best_strategy"] = advice.best_strategy;
  evidence["best_mode"] = std::string(core::launch_mode_name(advice.best_mode));
  evidence["best_streams"] = advice.best_streams;
  if (!advice.team_speedups.empty()) {
    evidence["best_threads_per_stream"] = advice.best_threads_per_stream;
    nlohmann::ordered_json teams = nlohmann::ordered_json::array();
    for (const auto& [threads, speedup] : advice.team_speedups) teams.push_back({{"threads_per_stream", threads}, {"speedup", speedup}});
    evidence["team_speedups"] = std::move(teams);
    evidence["hybrid_speedup"] = advice.hybrid_speedup;
    evidence["hybrid_nodes"] = advice.hybrid_nodes;
    evidence["hybrid_threads"] = advice.hybrid_threads;
  }
  evidence["best_speedup"] = advice.best_speedup;
  evidence["memory_ratio"] = advice.memory_ratio;
  evidence["launch_share"] = advice.launch_share;
  evidence["launch_bound"] = advice.launch_bound;
  evidence["split_batch"] = advice.split_batch;
  evidence["split_refusal"] = advice.split_refusal;
  evidence["split_k"] = advice.split_k;
  evidence["split_speedup"] = advice.split_speedup;
  evidence["over_unsplit"] = advice.over_unsplit;
  evidence["unknown_costs"] = advice.unknown_costs;
  if (advice.merge_operators_before > 0) {
    nlohmann::ordered_json merge;
    merge["operators_before"] = advice.merge_operators_before;
    merge["operators_after"] = advice.merge_operators_after;
    merge["advised"] = advice.merge_advised;
    if (advice.merge_speedup > 0) {
      merge["strategy"] = advice.merge_strategy;
      merge["mode"] = std::string(core::launch_mode_name(advice.merge_mode));
      merge["streams"] = advice.merge_streams;
      merge["speedup"] = advice.merge_speedup;
      merge["memory_ratio"] = advice.merge_memory_ratio;
    }
    evidence["merge"] = std::move(merge);
  } else {
    evidence["merge"] = nullptr;
  }
  return evidence;
}

/// The analysis with its advice, or without it and why: the advice predicts every strategy, and
/// a model it cannot predict still gets its analysis.
nlohmann::ordered_json analysis_json(const LoadedModel& m, const core::AnalysisReport& r, const core::Expected<core::Advice>& advice) {
  const core::Graph& g = *m.graph;
  nlohmann::ordered_json j;
  j["model"] = g.info().model_path;
  j["device"] = m.device.name;
  j["operators"] = g.node_count();
  j["edges"] = g.edge_count();
  j["tensors"] = g.tensor_count();
  j["folded"] = g.info().folded_nodes;
  j["depth"] = r.levels.depth;
  j["widest_level"] = r.levels.widest_level;
  j["antichain_width"] = r.antichain_width;
  j["work_us"] = r.critical.work_us;
  j["span_us"] = r.critical.span_us;
  j["parallelism"] = r.critical.parallelism();
  j["verdict"] = r.verdict;
  if (advice) {
    j["advice"] = advice->line;
    j["advice_evidence"] = evidence_json(*advice);
  } else {
    j["advice"] = nullptr;
    j["advice_evidence"] = nullptr;
    j["advice_unavailable"] = advice.error().message;
  }
  j["unknown_shapes"] = r.unknown_shapes;
  j["unknown_costs"] = r.unknown_costs;
  j["unresolved_dims"] = g.info().unresolved_dims;
  j["notes"] = r.notes;
  j["level_widths"] = r.levels.width;
  auto names = [&](const std::vector<core::NodeId>& ids) {
    auto a = nlohmann::ordered_json::array();
    for (core::NodeId n : ids) a.push_back(g.key(n));
    return a;
  };
  j["critical_path"] = names(r.critical.nodes);
  j["antichain"] = names(r.antichain);
  auto nodes = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < g.node_count(); ++i) {
    const auto id = static_cast<core::NodeId>(i);
    const core::NodeCost& c = r.costs[id];
    nodes.push_back({{"name", g.key(id)},
                     {"op", g.node(id).op_type},
                     {"level", r.levels.asap[i]},
                     {"alap", r.levels.alap[i]},
                     {"slack", r.levels.slack[i]},
                     {"flops", c.flops},
                     {"bytes", c.bytes},
                     {"time_us", c.time_us},
                     {"bound", core::bound_name(c.bound)},
                     {"known", c.known}});
  }
  j["nodes"] = std::move(nodes);
  return j;
}

void print_text(const LoadedModel& m, const core::AnalysisReport& r, const core::Expected<core::Advice>& advice) {
  const core::Graph& g = *m.graph;
  std::cout << "model           " << g.info().model_path << "\n"
            << "device          " << m.device.name << " (" << m.device.display_name << ")\n"
            << "operators       " << g.node_count() << "\n"
            << "edges           " << g.edge_count() << "\n"
            << "tensors         " << g.tensor_count() << "\n"
            << "folded nodes    " << g.info().folded_nodes << "\n"
            << "depth           " << r.levels.depth << " levels\n"
            << "widest level    " << r.levels.widest_level << "\n"
            << "antichain width " << r.antichain_width << "\n"
            << "work            " << core::fixed_text(r.critical.work_us, 1) << " us\n"
            << "span            " << core::fixed_text(r.critical.span_us, 1) << " us (critical path of "
            << r.critical.nodes.size() << " operators)\n"
            << "work/span       " << core::fixed_text(r.critical.parallelism(), 2) << "\n"
            << "verdict         " << r.verdict << "\n"
            << "advice          " << (advice ? advice->line : "none (" + advice.error().message + ")") << "\n";
  // The heaviest operators on the critical path: where shortening the span would pay.
  std::vector<core::NodeId> heavy = r.critical.nodes;
  std::stable_sort(heavy.begin(), heavy.end(),
                   [&](core::NodeId a, core::NodeId b) { return r.costs[a].time_us > r.costs[b].time_us; });
  if (heavy.size() > 5) heavy.resize(5);
  if (!heavy.empty()) {
    std::cout << "\ncritical path, heaviest operators:\n";
    std::cout << "     time_us  share  bound    op                 name\n";
    for (core::NodeId n : heavy) {
      const core::NodeCost& c = r.costs[n];
      const double share = r.critical.span_us > 0 ? 100.0 * c.time_us / r.critical.span_us : 0;
      char line[256];
      std::snprintf(line, sizeof line, "  %10.2f %5.1f%%  %-8s %-18s ", c.time_us, share,
                    std::string(core::bound_name(c.bound)).c_str(), g.node(n).op_type.c_str());
      std::cout << line << g.key(n) << "\n";
    }
  }
  if (r.unknown_shapes > 0 || r.unknown_costs > 0 || !r.notes.empty()) std::cout << "\n";
  for (const std::string& note : r.notes) std::cout << "note: " << note << "\n";
  if (r.unknown_costs > 0) {
    std::cout << "unknown cost:";
    std::size_t shown = 0;
    for (std::size_t i = 0; i < g.node_count() && shown < 8; ++i)
      if (!r.costs.nodes[i].known) {
        std::cout << (shown++ ? ", " : " ") << g.key(static_cast<core::NodeId>(i)) << " ("
                  << g.node(static_cast<core::NodeId>(i)).op_type << ")";
      }
    std::cout << (r.unknown_costs > shown ? ", ..." : "") << "\n";
  }
}

// The evidence under `weft advise`'s line: what the analysis found, the best configuration tried
// and what splitting the batch gives.
void print_evidence(const LoadedModel& m, const core::AnalysisReport& r, const core::Advice& a) {
  const bool cpu = m.device.kind == core::DeviceKind::Cpu;
  // advise() quotes over the sequential CUDA Graph (the sequential run on a CPU device), of the
  // unsplit model when the model is split.
  const std::string baseline = std::string(a.over_unsplit ? "the unsplit model's " : "the ") +
                               (cpu ? "sequential run" : "sequential CUDA Graph");
  std::cout << "  model       " << m.graph->info().model_path << " (" << m.graph->node_count() << " operators; device "
            << m.device.name << ")\n"
            << "  work/span   " << core::fixed_text(a.parallelism, 2) << " (work " << core::fixed_text(r.critical.work_us, 1)
            << " us, span " << core::fixed_text(r.critical.span_us, 1) << " us)\n"
            << "  width       " << a.width << " (maximum antichain; widest level " << r.levels.widest_level << ")\n";
  if (!cpu)
    std::cout << "  launches    " << core::fixed_text(100 * a.launch_share, 1) << "% of the sequential eager run"
              << (a.launch_bound ? " (launch-bound)" : "") << "\n";
  std::cout << "  best        " << a.best_strategy << " on " << a.best_streams << " stream" << (a.best_streams == 1 ? "" : "s")
            << (a.best_threads_per_stream > 1 ? " of " + std::to_string(a.best_threads_per_stream) + " threads" : std::string())
            << ", " << (a.best_mode == core::LaunchMode::Graph ? "CUDA Graph replay" : "eager launches") << ": "
            << core::fixed_text(a.best_speedup, 2) << "x over " << baseline;
  if (a.memory_ratio > 0) std::cout << ", " << core::fixed_text(a.memory_ratio, 2) << "x the memory";
  std::cout << "\n";
  if (a.merge_operators_before > 0) {
    std::cout << "  merging     ";
    if (a.merge_operators_after == a.merge_operators_before) std::cout << "nothing merges (no layer holds equal operators)\n";
    else
      std::cout << a.merge_operators_before << " -> " << a.merge_operators_after << " operators: "
                << (a.merge_speedup > 0 ? a.merge_strategy + " on " + std::to_string(a.merge_streams) + " stream" +
                                              (a.merge_streams == 1 ? "" : "s") + ", " +
                                              (a.merge_mode == core::LaunchMode::Graph ? "CUDA Graph replay" : "eager launches") + ": " +
                                              core::fixed_text(a.merge_speedup, 2) + "x over " + baseline +
                                              (a.merge_advised ? "" : " (does not beat the unmerged schedule)")
                                        : std::string("no faster than the sequential run"))
                << "\n";
  }
  std::cout << "  split       ";
  if (a.over_unsplit) std::cout << "the model is split into " << m.graph->info().micro_batches << " micro-batches\n";
  else if (!a.split_refusal.empty()) std::cout << "refused: " << a.split_refusal << "\n";
  else if (a.split_k > 1) std::cout << "split-overlap k=" << a.split_k << ": " << core::fixed_text(a.split_speedup, 2) << "x over " << baseline << "\n";
  else if (a.split_batch > 0) std::cout << "does not pay at this batch; could from batch " << a.split_batch << " (--batch N)\n";
  else std::cout << "does not pay at this batch\n";
}

// One MODEL, loaded with --split applied as the advice quotes it; a usage error otherwise.
core::Expected<LoadedModel> one_model(Args& args) {
  if (args.positional().size() != 1)
    return core::make_error(core::ErrorKind::Usage, args.positional().empty()
                                                        ? "missing MODEL (an .onnx file)"
                                                        : "expected one MODEL, got " + std::to_string(args.positional().size()) +
                                                              " arguments");
  return load_model(args, SplitMode::AdviceBaseline);
}

int failed(std::string_view command, const core::Error& error) {
  return error.kind == core::ErrorKind::Usage ? usage_error(command, error.message) : report(command, error);
}

}  // namespace

int cmd_analyze(Args& args) {
  if (auto st = args.parse({"json", "split=", "profile="}, true); !st) return usage_error("analyze", st.error().message);
  auto model = one_model(args);
  if (!model) return failed("analyze", model.error());
  const core::AnalysisReport r = core::analyze(*model->graph, model->costs);
  core::AdviceOptions advice_options;
  advice_options.unsplit = model->unsplit;
  // The advice is an extra to the analysis: where it cannot be made, the analysis stands and says why.
  const auto advice = core::advise(*model->graph, r, model->device, advice_options);
  if (args.flag("json"))
    std::cout << analysis_json(*model, r, advice).dump(2) << "\n";
  else
    print_text(*model, r, advice);
  return 0;
}

int cmd_advise(Args& args) {
  if (auto st = args.parse({"json", "split=", "streams=", "profile="}, true); !st) return usage_error("advise", st.error().message);
  core::AdviceOptions options;
  auto streams = args.int_value("streams");
  if (!streams) return usage_error("advise", streams.error().message);
  if (*streams) {
    if (**streams < 1 || static_cast<std::size_t>(**streams) > core::kMaxScheduleStreams)
      return usage_error("advise", "--streams must be between 1 and " + std::to_string(core::kMaxScheduleStreams));
    options.strategy.max_streams = static_cast<int>(**streams);
  }
  auto model = one_model(args);
  if (!model) return failed("advise", model.error());
  options.unsplit = model->unsplit;
  const core::AnalysisReport r = core::analyze(*model->graph, model->costs);
  auto advice = core::advise(*model->graph, r, model->device, options);
  if (!advice) return report("advise", advice.error());
  if (args.flag("json")) {
    nlohmann::ordered_json j;
    j["model"] = model->graph->info().model_path;
    j["device"] = model->device.name;
    j["operators"] = model->graph->node_count();
    j["advice"] = advice->line;
    j["parallelism"] = advice->parallelism;
    j["antichain_width"] = advice->width;
    j["advice_evidence"] = evidence_json(*advice);
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << advice->line << "\n";
  print_evidence(*model, r, *advice);
  return 0;
}

}  // namespace weft::cli
