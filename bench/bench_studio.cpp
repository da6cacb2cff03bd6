// The studio's work after one schedule edit, on the synthetic models the UI tests use (layered
// conv-like DAGs, 4 random streams with their events): what runs in the worker before the
// figures, the predicted timelines and the memory view are refreshed. Args: nodes.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>

#include "test_graphs.h"
#include "weft/core/analysis/analyze.h"
#include "weft/core/memory/bounds.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/memory/liveness.h"
#include "weft/core/memory/memory_planner.h"
#include "weft/core/strategy/reference.h"
#include "weft/core/study/schedule_study.h"
#include "weft/core/schedule/sync.h"
#include "weft/ui/study_job.h"
#include "weft/ui/synthetic_model.h"

using namespace weft;

namespace {

struct Case {
  core::Graph graph;
  core::DeviceSpec device;
  core::CostTable costs;
  core::Schedule schedule;
};

const Case& cached_case(int nodes) {
  static std::map<int, std::unique_ptr<Case>> cache;
  auto& slot = cache[nodes];
  if (!slot) {
    auto graph = ui::make_synthetic_graph(nodes, 7);
    if (!graph) std::abort();
    auto device = core::load_device(core::default_device_name());
    if (!device) std::abort();
    core::CostTable costs = core::estimate_costs(*graph, *device);
    core::Schedule s = test::random_schedule(*graph, 4, 3);
    s.events = core::compute_events(*graph, s);
    slot = std::make_unique<Case>(Case{std::move(*graph), std::move(*device), std::move(costs), std::move(s)});
  }
  return *slot;
}

// One edit's study as the studio's worker runs it (run_study: the document's study, which the
// summary, the timeline and the memory view all read), the model's reference already built.
void studio_edit(benchmark::State& state) {
  const Case& c = cached_case(static_cast<int>(state.range(0)));
  ui::StudyRequest request;
  request.graph = std::shared_ptr<const core::Graph>(&c.graph, [](const core::Graph*) {});
  auto analysis = std::make_shared<core::AnalysisReport>();
  analysis->costs = c.costs;
  request.analysis = analysis;
  request.device = c.device;
  request.schedule = c.schedule;
  request.reference = ui::run_study(request).reference;  // what the model's first study leaves
  std::int64_t arena = 0;
  for (auto _ : state) {
    const ui::StudyResult r = ui::run_study(request);
    if (!r.study || !r.study->memory || !r.study->prediction) {
      state.SkipWithError(("no study: " + r.error).c_str());
      return;
    }
    arena = r.study->memory->arena_bytes();
    benchmark::DoNotOptimize(r);
  }
  state.counters["arena"] = static_cast<double>(arena);
}

// The stages of one edit's study, to see where its time goes. Arg: nodes.
void stage_liveness(benchmark::State& state) {
  const Case& c = cached_case(static_cast<int>(state.range(0)));
  std::size_t conflicts = 0;
  for (auto _ : state) {
    auto live = core::compute_liveness(c.graph, c.schedule, core::reference_plan_options());
    conflicts = 0;
    for (const auto& l : live->problem.conflicts) conflicts += l.size();
  }
  state.counters["conflicts"] = static_cast<double>(conflicts / 2);
}

void stage_bound(benchmark::State& state) {
  const Case& c = cached_case(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(core::concurrent_lower_bound(c.graph, c.schedule, core::reference_plan_options()));
}

void stage_planner(benchmark::State& state, const std::string& planner) {
  const Case& c = cached_case(static_cast<int>(state.range(0)));
  const core::PlanOptions options = core::reference_plan_options();
  auto live = core::compute_liveness(c.graph, c.schedule, options);
  auto bound = core::concurrent_lower_bound(c.graph, c.schedule, options);
  std::int64_t arena = 0;
  for (auto _ : state) {
    auto plan = core::plan_memory(c.graph, *live, planner, options, bound->bytes);
    arena = plan->arena_bytes;
  }
  state.counters["arena/bound"] = static_cast<double>(arena) / static_cast<double>(bound->bytes);
}

void stage_predict(benchmark::State& state) {
  const Case& c = cached_case(static_cast<int>(state.range(0)));
  core::PredictOptions options;
  options.counterfactuals = false;
  for (auto _ : state) benchmark::DoNotOptimize(core::predict(c.graph, c.schedule, c.costs, c.device, options));
}

void stage_reference_schedule(benchmark::State& state) {
  const Case& c = cached_case(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(core::reference_schedule(c.graph));
}

int register_stages = [] {
  for (const std::string& planner : core::planner_names())
    benchmark::RegisterBenchmark(("stage_planner/" + planner).c_str(),
                                 [planner](benchmark::State& st) { stage_planner(st, planner); })
        ->Arg(1000)->Arg(4000)->Arg(5000)->Unit(benchmark::kMillisecond);
  return 0;
}();

}  // namespace

BENCHMARK(stage_liveness)->Arg(1000)->Arg(4000)->Arg(5000)->Unit(benchmark::kMillisecond);
BENCHMARK(stage_bound)->Arg(1000)->Arg(4000)->Arg(5000)->Unit(benchmark::kMillisecond);
BENCHMARK(stage_predict)->Arg(1000)->Arg(4000)->Arg(5000)->Unit(benchmark::kMillisecond);
BENCHMARK(stage_reference_schedule)->Arg(1000)->Arg(4000)->Arg(5000)->Unit(benchmark::kMillisecond);
BENCHMARK(studio_edit)->Arg(1000)->Arg(4000)->Arg(5000)->Unit(benchmark::kMillisecond);
