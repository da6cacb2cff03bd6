// The results of Model's studies: Analysis, Plan, Prediction, Run and Advice.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "weft/core/exec/cpu_executor.h"
#include "weft/core/analysis/critical_path.h"
#include "weft/core/cost/device.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/base/file_io.h"
#include "weft/core/transform/horizontal_merge.h"
#include "weft/core/transform/micro_batch.h"
#include "weft/core/schedule/schedule_edit.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/strategy/strategy_external.h"
#include "weft/core/study/advice.h"
#include "weft/core/study/cpu_calibration.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/study/merge_study.h"
#include "weft/core/study/prediction.h"
#include "weft/core/study/run_comparison.h"
#include "weft/core/study/batch_sweep.h"
#include "weft/core/study/test_data.h"
#include "weft/core/transform/wire_layering.h"
#include "weft/gpu/cuda_executor.h"
#include "weft_python.h"

namespace weft::python {

namespace {

void register_analysis(py::module_& m) {
  // ---- Analysis ----
  py::class_<Analysis>(m, "Analysis", "Parallelism of a model: levels, width, critical path, work/span, verdict.")
      .def_property_readonly("asap", [](const Analysis& a) { return to_array(a.report.levels.asap); }, "ASAP level per node.")
      .def_property_readonly("alap", [](const Analysis& a) { return to_array(a.report.levels.alap); }, "ALAP level per node.")
      .def_property_readonly("slack", [](const Analysis& a) { return to_array(a.report.levels.slack); })
      .def_property_readonly("level_widths", [](const Analysis& a) { return to_array(a.report.levels.width); },
                             "Nodes per ASAP level.")
      .def_property_readonly("depth", [](const Analysis& a) { return a.report.levels.depth; })
      .def_property_readonly("widest_level", [](const Analysis& a) { return a.report.levels.widest_level; })
      .def_property_readonly("width", [](const Analysis& a) { return a.report.antichain_width; },
                             "Maximum antichain: the streams needed for full concurrency.")
      .def_property_readonly("antichain", [](const Analysis& a) { return node_keys(a.model->graph, a.report.antichain); })
      .def_property_readonly("critical_path", [](const Analysis& a) { return node_keys(a.model->graph, a.report.critical.nodes); },
                             "Node keys of the longest cost-weighted path, source to sink.")
      .def_property_readonly("critical_path_ids", [](const Analysis& a) { return to_array(a.report.critical.nodes); })
      .def_property_readonly("span_us", [](const Analysis& a) { return a.report.critical.span_us; })
      .def_property_readonly("work_us", [](const Analysis& a) { return a.report.critical.work_us; })
      .def_property_readonly("parallelism", [](const Analysis& a) { return a.report.critical.parallelism(); },
                             "work / span: no schedule's speedup exceeds it.")
      .def_property_readonly("verdict", [](const Analysis& a) { return a.report.verdict; })
      .def_property_readonly("notes", [](const Analysis& a) { return a.report.notes; })
      .def_property_readonly("unknown_costs", [](const Analysis& a) { return a.report.unknown_costs; })
      .def("__repr__", [](const Analysis& a) {
        return "<weft.Analysis width " + std::to_string(a.report.antichain_width) + ", depth " + std::to_string(a.report.levels.depth) +
               ": " + a.report.verdict + ">";
      });

  // ---- Plan ----
  py::class_<Plan>(m, "Plan", "A schedule's memory plan beside the sequential reference's, with the lower bounds.")
      .def_property_readonly("planner", [](const Plan& p) { return p.report.plan.planner; })
      .def_property_readonly("arena_bytes", [](const Plan& p) { return p.report.arena_bytes(); })
      .def_property_readonly("reference_arena_bytes", [](const Plan& p) { return p.report.reference_arena_bytes(); })
      .def_property_readonly("concurrent_bound_bytes", [](const Plan& p) { return p.report.bound.bytes; })
      .def_property_readonly("linear_bound_bytes", [](const Plan& p) { return p.report.linear_bound_bytes; })
      .def_property_readonly("no_reuse_bytes", [](const Plan& p) { return p.report.no_reuse_bytes; })
      .def_property_readonly("price_of_concurrency", [](const Plan& p) { return p.report.price_of_concurrency(); },
                             "Arena / sequential arena.")
      .def_property_readonly("planners", [](const Plan& p) {
        py::dict d;
        for (const auto& a : p.report.planners) d[py::str(a.planner)] = a.arena_bytes;
        return d;
      })
      .def_property_readonly("offsets", [](const Plan& p) { return to_array(p.report.plan.offset); },
                             "Arena offset per tensor (numpy int64; meaningful where sizes > 0).")
      .def_property_readonly("sizes", [](const Plan& p) { return to_array(p.report.plan.size); },
                             "Planned bytes per tensor (0: not in the arena).")
      .def_property_readonly("moved", [](const Plan& p) -> py::object {
        return p.report.repaired ? py::object(py::int_(p.report.repair_moved)) : py::none();
      }, "Tensors given a new offset by Model.repair (None for a plan made afresh).")
      .def("__repr__", [](const Plan& p) { return "<weft.Plan " + p.report.plan.planner + ": " + std::to_string(p.report.arena_bytes()) + " bytes>"; });

  // ---- Prediction ----
  py::class_<Prediction>(m, "Prediction", "A schedule's simulated run beside both sequential baselines.")
      .def_property_readonly("mode", [](const Prediction& p) { return std::string(core::launch_mode_name(p.p.mode)); })
      .def_property_readonly("makespan_us", [](const Prediction& p) { return p.p.makespan_us; })
      .def_property_readonly("sequential_eager_us", [](const Prediction& p) { return p.p.sequential_eager_us; })
      .def_property_readonly("sequential_graph_us", [](const Prediction& p) { return p.p.sequential_graph_us; })
      .def_property_readonly("speedup", [](const Prediction& p) { return p.p.speedup(); },
                             "Against the sequential baseline in the same launch mode.")
      .def_property_readonly("speedup_vs_graph", [](const Prediction& p) { return p.p.speedup_vs_graph; })
      .def_property_readonly("speedup_vs_eager", [](const Prediction& p) { return p.p.speedup_vs_eager; })
      .def_property_readonly(
          "speedup_vs_unsplit",
          [](const Prediction& p) -> std::optional<double> {
            if (!p.model->unsplit) return std::nullopt;
            return p.model->unsplit->speedup(p.p.mode, p.p.makespan_us);
          },
          "A split model's schedule (Model.split): over the unsplit model's sequential run in the same launch mode "
          "(as weft --split quotes it); None otherwise.")
      .def_property_readonly(
          "speedup_vs_unmerged",
          [](const Prediction& p) -> std::optional<double> {
            const Model& mo = *p.model;
            if (!mo.merged || !mo.unmerged) return std::nullopt;
            auto gain = take(without_gil([&] { return core::merge_gain(mo.unmerged->graph, mo.unmerged->costs, mo.device, *mo.merged, p.p); }));
            return p.p.mode == core::LaunchMode::Graph ? gain.speedup_vs_graph : gain.speedup_vs_eager;
          },
          "A merged model's schedule (Model.merge): over the unmerged model's sequential run in the same launch mode "
          "(as weft simulate --merge quotes it); None otherwise.")
      .def_property_readonly("verdict", [](const Prediction& p) { return p.p.verdict; })
      .def_property_readonly("timeline", [](const Prediction& p) { return timeline(p.model, p.p.timeline); })
      .def_property_readonly("sequential_eager", [](const Prediction& p) { return timeline(p.model, p.p.sequential_eager); })
      .def_property_readonly("sequential_graph", [](const Prediction& p) { return timeline(p.model, p.p.sequential_graph); })
      .def("__repr__", [](const Prediction& p) { return "<weft.Prediction " + std::to_string(p.p.speedup()) + "x>"; });
}

void register_run_and_advice(py::module_& m) {
  // ---- Run ----
  py::class_<Run>(m, "Run", "A schedule run for real beside the sequential reference run on the same executor.")
      .def_property_readonly("sequential_ms", [](const Run& r) { return r.c.sequential.wall_ms; })
      .def_property_readonly("scheduled_ms", [](const Run& r) { return r.c.scheduled.wall_ms; })
      .def_property_readonly("speedup", [](const Run& r) { return r.c.speedup(); })
      .def_property_readonly("iteration_ms", [](const Run& r) { return to_array(r.c.scheduled.iteration_ms); })
      .def_property_readonly("sequential_iteration_ms", [](const Run& r) { return to_array(r.c.sequential.iteration_ms); })
      .def_property_readonly("threads_per_stream", [](const Run& r) { return r.c.scheduled.threads_per_stream; },
                             "The threads of each stream's library team in the CPU run (threads_per_stream=, or the "
                             "schedule's); 1 on CUDA.")
      .def_property_readonly("hybrid_nodes", [](const Run& r) { return r.c.scheduled.node_team_nodes; },
                             "The nodes that ran on a team other than their stream's (hybrid=True: the ones that run "
                             "alone, on a team of every core the streams hold); 0 when none.")
      .def_property_readonly("hybrid_threads", [](const Run& r) { return r.c.scheduled.node_team_threads; },
                             "The largest such team, threads; 0 when none.")
      .def_property_readonly("rounds", [](const Run& r) { return r.c.rounds; },
                             "Rounds the reference and the schedule alternated in.")
      .def_property_readonly("predicted_speedup", cpu_prediction([](const core::CpuRunPrediction& p) { return p.predicted; }),
                             "backend 'cpu': the speedup the CPU device calibrated from the sequential run predicts for the "
                             "schedule (as weft run --backend cpu); None on CUDA.")
      .def_property_readonly("prediction_error", cpu_prediction([](const core::CpuRunPrediction& p) { return p.error; }),
                             "|predicted - measured| / measured speedup; None on CUDA.")
      .def_property_readonly("predicted_speedup_fitted",
                             cpu_prediction([](const core::CpuRunPrediction& p) { return p.predicted_fitted; }),
                             "The same prediction with the fitted device's node times from shapes alone; None on CUDA.")
      .def_property_readonly("cpu_cores", cpu_prediction([](const core::CpuRunPrediction& p) { return p.device.sm_count; }),
                             "The CPUs the run could use (the calibrated device's cores); None on CUDA.")
      .def_property_readonly("prediction_unavailable",
                             [](const Run& r) -> std::optional<std::string> {
                               if (r.prediction_unavailable.empty()) return std::nullopt;
                               return r.prediction_unavailable;
                             },
                             "backend 'cpu' without a prediction: why (the measurement stands); else None.")
      .def_property_readonly("schedule_made_for", [](const Run& r) { return r.schedule_made_for; },
                             "What the schedule that ran was made for: the calibrated CPU, the model's device, or the "
                             "schedule given.")
      .def_property_readonly("streams", [](const Run& r) { return r.schedule.stream_count(); },
                             "Streams of the schedule that ran.")
      .def_property_readonly("schedule", [](const Run& r) { return make(r.model, r.schedule); },
                             "The schedule that ran (for the CPU where it was made again for it).")
      .def_property_readonly("identical", [](const Run& r) { return r.c.diff.identical; },
                             "The schedule's outputs are bit-identical to the sequential run's.")
      .def_property_readonly("max_abs_diff", [](const Run& r) { return r.c.diff.max_abs_diff; })
      .def_property_readonly("arena_bytes", [](const Run& r) { return r.c.scheduled.arena_bytes; })
      .def_property_readonly("timeline", [](const Run& r) { return timeline(r.model, r.c.scheduled.timeline); })
      .def_property_readonly("sequential_timeline", [](const Run& r) { return timeline(r.model, r.c.sequential.timeline); })
      .def_property_readonly(
          "outputs", [](const Run& r) {
            py::dict d;
            for (const auto& [name, t] : r.c.scheduled.outputs) d[py::str(name)] = tensor_array(t);
            return d;
          },
          "The schedule's outputs by graph-output name (numpy arrays).")
      .def_property_readonly(
          "test_data", [](const Run& r) -> py::object {
            if (!r.tested) return py::none();
            return json_loads(core::test_data_json(*r.tested, r.backend));
          },
          "With run(test_data=...): rtol, atol, passed and per set its outputs' max_abs_error, max_rel_error, "
          "max_scaled_error (vs the output's largest magnitude) and passed, per run (as weft run --test-data --json); "
          "else None.")
      .def("__repr__", [](const Run& r) { return "<weft.Run " + std::to_string(r.c.speedup()) + "x>"; });

  py::class_<Advice>(m, "Advice",
                     "One line of advice and its evidence (as `weft analyze` and the studio's summary give it).")
      .def_property_readonly("line", [](const Advice& a) { return a.a.line; })
      .def_property_readonly("kind", [](const Advice& a) { return std::string(core::advice_kind_name(a.a.kind)); },
                             "'chain', 'little-to-gain' or 'concurrency'.")
      .def_property_readonly("parallelism", [](const Advice& a) { return a.a.parallelism; }, "work / span")
      .def_property_readonly("width", [](const Advice& a) { return a.a.width; }, "antichain width")
      .def_property_readonly("launch_bound", [](const Advice& a) { return a.a.launch_bound; })
      .def_property_readonly("launch_share", [](const Advice& a) { return a.a.launch_share; },
                             "1 - sequential graph / sequential eager (0 on a CPU device).")
      .def_property_readonly("best_strategy", [](const Advice& a) { return a.a.best_strategy; },
                             "The fastest predicted strategy among every fixed one in both launch modes.")
      .def_property_readonly("best_mode", [](const Advice& a) { return std::string(core::launch_mode_name(a.a.best_mode)); },
                             "'graph' (CUDA Graph replay) or 'eager'.")
      .def_property_readonly("best_streams", [](const Advice& a) { return a.a.best_streams; })
      .def_property_readonly("best_speedup", [](const Advice& a) { return a.a.best_speedup; },
                             "Over the sequential CUDA Graph (the sequential run on a CPU device).")
      .def_property_readonly("memory_ratio", [](const Advice& a) { return a.a.memory_ratio; },
                             "The best schedule's arena / the reference's (0: not planned).")
      .def_property_readonly("split_k", [](const Advice& a) { return a.a.split_k; },
                             "Micro-batch copies the advice names (1: splitting does not pay or was not tried).")
      .def_property_readonly("split_speedup", [](const Advice& a) { return a.a.split_speedup; })
      .def_property_readonly("split_batch", [](const Advice& a) { return a.a.split_batch; },
                             "Chains: the batch from which splitting could pay (0: unknown).")
      .def_property_readonly("split_refusal", [](const Advice& a) { return a.a.split_refusal; })
      .def_property_readonly("unknown_costs", [](const Advice& a) { return a.a.unknown_costs; },
                             "Operators whose cost is a launch-only guess (the line cautions from a tenth of the model).")
      .def_property_readonly("merge_advised", [](const Advice& a) { return a.a.merge_advised; },
                             "True when merging equal operators (Model.merge()) beats every unmerged schedule.")
      .def_property_readonly("merge_operators", [](const Advice& a) {
            return py::make_tuple(a.a.merge_operators_before, a.a.merge_operators_after);
          },
          "Operators before and after the default layering's merges ((0, 0): not tried).")
      .def_property_readonly("merge_strategy", [](const Advice& a) { return a.a.merge_strategy; },
                             "The best strategy on the merged model ('' when nothing merges).")
      .def_property_readonly("merge_mode", [](const Advice& a) { return std::string(core::launch_mode_name(a.a.merge_mode)); })
      .def_property_readonly("merge_streams", [](const Advice& a) { return a.a.merge_streams; })
      .def_property_readonly("merge_speedup", [](const Advice& a) { return a.a.merge_speedup; },
                             "The merged model's best over the same unmerged baseline as best_speedup (0: not tried).")
      .def(
          "schedule",
          [](const Advice& a) {
            core::StrategyOptions o = a.options;
            o.cuda_graph = a.a.best_mode == core::LaunchMode::Graph;
            return make(a.model, take(without_gil([&] {
                          return core::make_schedule(a.a.best_strategy, a.model->graph, a.model->costs, a.model->device, o);
                        })));
          },
          "The best configuration's schedule (best_strategy made for best_mode; predict it with "
          "model.simulate(s, graph=advice.best_mode == 'graph')).")
      .def("__repr__", [](const Advice& a) { return "<weft.Advice " + a.a.line + ">"; });
}

}  // namespace

void register_results(py::module_& m) {
  register_analysis(m);
  register_run_and_advice(m);
}

}  // namespace weft::python
