// Model's studies: analyze, advise, schedule (by strategy, reference, external program), validate, plan,
// repair and simulate.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "weft/core/cost/device.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/analysis/levels.h"
#include "weft/core/memory/memory_planner.h"
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
#include "weft/core/study/batch_sweep.h"
#include "weft/core/schedule/sync.h"
#include "weft/core/sim/timeline_json.h"
#include "weft/gpu/cuda_executor.h"
#include "weft_python.h"

namespace weft::python {

void add_model_studies(ModelClass& model) {
  model
      .def(
          "analyze",
          [](const std::shared_ptr<Model>& mo) {
            return Analysis{mo, without_gil([&] { return core::analyze(mo->graph, mo->costs); })};
          },
          "Levels, width (maximum antichain), critical path, work/span and the verdict (as `weft analyze`).")
      .def(
          "advise",
          [](const std::shared_ptr<Model>& mo, int max_streams, std::optional<double> granularity_us) {
            core::AdviceOptions o;
            o.strategy = strategy_options(max_streams, granularity_us, false, {}, {}, {});
            o.unsplit = mo->unsplit;  // a split model is quoted over the unsplit one, as weft analyze --split
            auto advice = without_gil([&] { return core::advise(mo->graph, core::analyze(mo->graph, mo->costs), mo->device, o); });
            return Advice{mo, take(std::move(advice)), o.strategy};
          },
          py::kw_only(), py::arg("max_streams") = core::kDefaultMaxStreams, py::arg("granularity_us") = py::none(),
          "One line of advice (as `weft analyze`): every fixed strategy tried in both launch modes, the micro-batch "
          "split where concurrency has nothing to work with; the line and its evidence.")
      .def(
          "schedule",
          [](const std::shared_ptr<Model>& mo, const py::object& strategy, int max_streams, std::optional<double> granularity_us,
             bool cuda_graph, std::optional<double> budget_ms, std::optional<long long> evaluations,
             std::optional<unsigned long long> seed) {
            if (!py::isinstance<py::str>(strategy) || py::cast<std::string>(strategy).starts_with("{"))
              return make(mo, schedule_of(mo, strategy));
            const auto name = py::cast<std::string>(strategy);
            const core::StrategyOptions o = strategy_options(max_streams, granularity_us, cuda_graph, budget_ms, evaluations, seed);
            check(core::check_strategy(name, o));
            PySchedule made = make(mo, take(without_gil([&] { return core::make_schedule(name, mo->graph, mo->costs, mo->device, o); })));
            made.made_with = o;
            made.made_with->progress = nullptr;
            return made;
          },
          py::arg("strategy") = "cp-list", py::kw_only(), py::arg("max_streams") = core::kDefaultMaxStreams,
          py::arg("granularity_us") = py::none(), py::arg("cuda_graph") = false, py::arg("budget_ms") = py::none(),
          py::arg("evaluations") = py::none(), py::arg("seed") = py::none(),
          "A schedule: by strategy name (weft.strategies()), or imported from a dict or JSON text in the schedule "
          "JSON shape (validated; events may be left out).")
      .def(
          "reference", [](const std::shared_ptr<Model>& mo) { return make(mo, core::reference_schedule(mo->graph)); },
          "The sequential reference schedule every figure is quoted against.")
      .def(
          "strategy_input",
          [](const std::shared_ptr<Model>& mo, int max_streams, std::optional<double> granularity_us, bool cuda_graph) {
            const core::StrategyOptions o = strategy_options(max_streams, granularity_us, cuda_graph, {}, {}, {});
            return json_loads(core::strategy_input_json(mo->graph, mo->costs, mo->device, o));
          },
          py::kw_only(), py::arg("max_streams") = core::kDefaultMaxStreams, py::arg("granularity_us") = py::none(),
          py::arg("cuda_graph") = false,
          "The external strategy input (docs/strategy-protocol.md) as a dict.")
      .def(
          "schedule_with",
          [](const std::shared_ptr<Model>& mo, const py::object& strategy, int max_streams, std::optional<double> granularity_us,
             bool cuda_graph) {
            const core::StrategyOptions o = strategy_options(max_streams, granularity_us, cuda_graph, {}, {}, {});
            py::object input = json_loads(core::strategy_input_json(mo->graph, mo->costs, mo->device, o));
            py::object reply = strategy(input);
            core::Schedule s = schedule_of(mo, reply);
            if (s.strategy.empty() || s.strategy == "hand") s.strategy = "python";
            return make(mo, std::move(s));
          },
          py::arg("strategy"), py::kw_only(), py::arg("max_streams") = core::kDefaultMaxStreams,
          py::arg("granularity_us") = py::none(), py::arg("cuda_graph") = false,
          "Runs a Python strategy: strategy(input) gets the external strategy input dict and returns a schedule "
          "dict (the same shapes an external program reads and writes).")
      .def(
          "validate",
          [](const std::shared_ptr<Model>& mo, const py::object& spec) {
            const core::Schedule s = schedule_of(mo, spec);
            check(without_gil([&] { return core::validate_schedule(mo->graph, s); }));
          },
          py::arg("schedule"),
          "Returns None when the schedule is valid for the model; raises InvalidInputError with the reason otherwise.")
      .def(
          "plan",
          [](const std::shared_ptr<Model>& mo, const py::object& spec, const std::string& planner) {
            const core::Schedule s = schedule_of(mo, spec);
            if (!planner.empty()) check(core::check_planner(planner));
            core::MemoryReportOptions o;
            o.planner = planner;
            return Plan{mo, take(without_gil([&] { return core::memory_report(mo->graph, s, o); }))};
          },
          py::arg("schedule"), py::arg("planner") = "",
          "Memory plan of the schedule and of the reference ('' : every planner, smallest arena), bounds, price of concurrency.")
      .def(
          "repair",
          [](const std::shared_ptr<Model>& mo, const Plan& earlier, const py::object& spec) {
            if (earlier.model != mo) raise(core::make_error(core::ErrorKind::InvalidInput, "the plan belongs to another model"));
            const core::Schedule s = schedule_of(mo, spec);
            auto repaired = without_gil([&]() -> core::Expected<std::optional<core::MemoryReport>> {
              WEFT_TRY_ASSIGN(const core::ExecutionOrder order, core::ExecutionOrder::build(mo->graph, s));
              return core::repaired_memory_report(mo->graph, order, earlier.report, core::MemoryReportOptions{});
            });
            return Plan{mo, std::move(*take(std::move(repaired)))};  // no move limit: always complete
          },
          py::arg("plan"), py::arg("schedule"),
          "An earlier plan of this model made valid for `schedule`: every offset that still holds kept, the tensors "
          "that now clash moved (as `weft plan --repair` and the studio after an edit). planner is 'repaired', moved "
          "says how many tensors moved.")
      .def(
          "simulate",
          [](const std::shared_ptr<Model>& mo, const py::object& spec, bool graph) {
            const core::Schedule s = schedule_of(mo, spec);
            core::PredictOptions o;
            o.mode = graph ? core::LaunchMode::Graph : core::LaunchMode::Eager;
            return Prediction{mo, take(without_gil([&] { return core::predict(mo->graph, s, mo->costs, mo->device, o); }))};
          },
          py::arg("schedule"), py::kw_only(), py::arg("graph") = false,
          "Predicted timeline and speedup against both sequential baselines; graph=True: CUDA Graph replay.");
}

}  // namespace weft::python
