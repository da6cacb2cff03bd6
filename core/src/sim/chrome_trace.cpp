// Chrome trace export: the Trace Event Format (Google's "Trace Event Format" document), which
// Perfetto and chrome://tracing both read.
#include "weft/core/sim/chrome_trace.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "weft/core/base/file_io.h"

namespace weft::core {

namespace {

using ojson = nlohmann::ordered_json;

ojson meta(const char* name, int pid, int tid, ojson args) {
  return {{"name", name}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

void counter_track(ojson& events, int pid, const char* name, const char* series,
                   const std::vector<CounterSample>& samples) {
  for (const CounterSample& s : samples)
    events.push_back({{"name", name}, {"ph", "C"}, {"pid", pid}, {"tid", 0}, {"ts", s.time_us},
                      {"args", {{series, s.value}}}});
}

}  // namespace

std::string chrome_trace_json(const Graph& graph, std::span<const Timeline> runs, const CostTable* costs,
                              const TraceInfo& info) {
  ojson trace;
  // chrome://tracing accepts only "ms" or "ns"; kernels last microseconds, so show nanoseconds.
  trace["displayTimeUnit"] = "ns";
  ojson events = ojson::array();
  long long flow_id = 0;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const Timeline& tl = runs[r];
    const int pid = static_cast<int>(r) + 1;
    const std::string label = tl.label.empty() ? std::string(run_kind_name(tl.kind)) : tl.label;
    events.push_back(meta("process_name", pid, 0, {{"name", label}}));
    events.push_back(meta("process_sort_index", pid, 0, {{"sort_index", pid}}));
    int streams = tl.stream_count;
    for (const TimelineItem& it : tl.items) streams = std::max(streams, it.stream + 1);
    for (int s = 0; s < streams; ++s) events.push_back(meta("thread_name", pid, s, {{"name", "stream " + std::to_string(s)}}));

    // Where each node ran in this run, for the flow arrows.
    std::vector<const TimelineItem*> where(graph.node_count(), nullptr);
    for (const TimelineItem& it : tl.items) {
      if (it.node < 0 || static_cast<std::size_t>(it.node) >= graph.node_count()) continue;
      where[static_cast<std::size_t>(it.node)] = &it;
      const Node& node = graph.node(it.node);
      ojson args = {{"op", node.op_type}};
      if (costs && static_cast<std::size_t>(it.node) < costs->nodes.size()) {
        const NodeCost& c = (*costs)[it.node];
        args["flops"] = c.flops;
        args["bytes"] = c.bytes;
        if (c.measured) args["measured"] = true;
      } else {
        args["flops"] = nullptr;
        args["bytes"] = nullptr;
      }
      events.push_back({{"name", graph.key(it.node)}, {"cat", node.op_type}, {"ph", "X"}, {"pid", pid},
                        {"tid", it.stream}, {"ts", it.start_us}, {"dur", std::max(0.0, it.end_us - it.start_us)},
                        {"args", std::move(args)}});
    }
    for (const Event& e : tl.events) {
      if (e.from < 0 || e.to < 0 || static_cast<std::size_t>(std::max(e.from, e.to)) >= graph.node_count()) continue;
      const TimelineItem* a = where[static_cast<std::size_t>(e.from)];
      const TimelineItem* b = where[static_cast<std::size_t>(e.to)];
      if (!a || !b || a->stream == b->stream) continue;
      ++flow_id;
      // The start must lie inside the producer's slice to bind to it: put it just before its end.
      const double s_ts = std::max(a->start_us, a->end_us - std::min(0.001, (a->end_us - a->start_us) / 2));
      const std::string name = graph.key(e.from) + " -> " + graph.key(e.to);
      events.push_back({{"name", name}, {"cat", "event"}, {"ph", "s"}, {"id", flow_id}, {"pid", pid},
                        {"tid", a->stream}, {"ts", s_ts}});
      events.push_back({{"name", name}, {"cat", "event"}, {"ph", "f"}, {"bp", "e"}, {"id", flow_id}, {"pid", pid},
                        {"tid", b->stream}, {"ts", b->start_us}});
    }
    counter_track(events, pid, "arena bytes", "bytes", tl.arena_bytes);
    counter_track(events, pid, "compute use", "fraction", tl.compute_use);
    counter_track(events, pid, "bandwidth use", "fraction", tl.bandwidth_use);
  }
  trace["traceEvents"] = std::move(events);

  ojson other;
  other["generator"] = "weft 0.1.0";
  other["model"] = info.model.empty() ? graph.info().model_path : info.model;
  other["sha256"] = info.sha256.empty() ? graph.info().model_sha256 : info.sha256;
  other["device"] = !info.device.empty() ? info.device : (runs.empty() ? std::string() : runs.front().device);
  other["strategy"] = info.strategy;
  ojson run_list = ojson::array();
  for (std::size_t r = 0; r < runs.size(); ++r)
    run_list.push_back({{"pid", static_cast<int>(r) + 1}, {"label", runs[r].label}, {"kind", run_kind_name(runs[r].kind)},
                        {"backend", runs[r].backend}, {"strategy", runs[r].strategy}, {"device", runs[r].device}, {"makespan_us", runs[r].makespan_us()}});
  other["runs"] = std::move(run_list);
  trace["otherData"] = std::move(other);
  // Replace invalid UTF-8 in names rather than throw: a hostile model must not abort the export.
  return trace.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Status save_chrome_trace(const std::string& path, const Graph& graph, std::span<const Timeline> runs,
                         const CostTable* costs, const TraceInfo& info) {
  return write_file_atomic(path, chrome_trace_json(graph, runs, costs, info));
}

}  // namespace weft::core
