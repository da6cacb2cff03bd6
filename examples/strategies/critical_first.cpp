// A strategy written against the Weft library: "critical-first" puts the cost-weighted critical
// path on stream 0 and deals every other node round-robin over the remaining streams by ASAP
// level. It registers itself with the library, so make_schedule, the predictions and every list of
// strategies know it; the program then prints how it compares with the built-in strategies.
//
//   critical_first MODEL [--graph] [--dim NAME=VALUE ...]
#include <cstdio>
#include <iostream>
#include <string>

#include "weft/core/analysis/critical_path.h"
#include "weft/core/analysis/levels.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/strategy/registry.h"
#include "weft/core/study/prediction.h"

namespace {

using namespace weft::core;

class CriticalFirst final : public Strategy {
 public:
  std::string name() const override { return "critical-first"; }
  std::string description() const override { return "the critical path on stream 0, the rest round-robin by level"; }
  Expected<Schedule> schedule(const StrategyInput& in) const override {
    const CriticalPath cp = find_critical_path(in.graph, in.time_us);
    const Levels levels = compute_levels(in.graph);
    std::vector<char> critical(in.graph.node_count(), 0);
    for (NodeId v : cp.nodes) critical[static_cast<std::size_t>(v)] = 1;
    const int others = std::max(1, in.options.max_streams - 1);
    std::vector<int> next_in_level(static_cast<std::size_t>(levels.depth), 0);
    Schedule s;
    s.streams.resize(static_cast<std::size_t>(in.options.max_streams > 1 ? others + 1 : 1));
    // Topological order keeps every stream's order consistent with the data edges.
    for (NodeId v : in.graph.topo_order()) {
      const auto i = static_cast<std::size_t>(v);
      int stream = 0;
      if (!critical[i] && s.streams.size() > 1)
        stream = 1 + next_in_level[static_cast<std::size_t>(levels.asap[i])]++ % others;
      s.streams[static_cast<std::size_t>(stream)].push_back(v);
    }
    std::erase_if(s.streams, [](const auto& st) { return st.empty(); });
    return s;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: critical_first MODEL [--graph] [--dim NAME=VALUE ...]\n";
    return 1;
  }
  ImportOptions import;
  bool graph_mode = false;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--graph") {
      graph_mode = true;
    } else if (a == "--dim" && i + 1 < argc) {
      const std::string kv = argv[++i];
      const auto eq = kv.find('=');
      if (eq == std::string::npos) return 1;
      import.dims[kv.substr(0, eq)] = std::stoll(kv.substr(eq + 1));
    } else {
      std::cerr << "critical_first: unknown option " << a << "\n";
      return 1;
    }
  }
  if (auto ok = register_strategy(std::make_shared<CriticalFirst>()); !ok) {
    std::cerr << "critical_first: " << ok.error().message << "\n";
    return 4;
  }
  auto graph = import_onnx(argv[1], import);
  if (!graph) {
    std::cerr << "critical_first: " << graph.error().message << "\n";
    return 2;
  }
  auto device = load_device(default_device_name());
  if (!device) {
    std::cerr << "critical_first: " << device.error().message << "\n";
    return 3;
  }
  const CostTable costs = estimate_costs(*graph, *device);
  StrategyOptions options;
  options.cuda_graph = graph_mode;
  PredictOptions predict_options;
  predict_options.mode = graph_mode ? LaunchMode::Graph : LaunchMode::Eager;
  predict_options.counterfactuals = false;
  std::printf("%-16s %8s %8s %12s %10s\n", "strategy", "streams", "events", "predicted us", "speedup");
  for (const StrategyInfo& info : strategy_list()) {
    if (info.iterative) continue;  // search takes seconds; this example compares the fixed ones
    auto s = make_schedule(info.name, *graph, costs, *device, options);
    if (!s) {
      std::cerr << "critical_first: " << info.name << ": " << s.error().message << "\n";
      return 4;
    }
    auto p = predict(*graph, *s, costs, *device, predict_options);
    if (!p) {
      std::cerr << "critical_first: " << p.error().message << "\n";
      return 4;
    }
    std::printf("%-16s %8zu %8zu %12.1f %9.2fx\n", info.name.c_str(), s->stream_count(), s->events.size(), p->makespan_us,
                p->speedup());
  }
  return 0;
}
