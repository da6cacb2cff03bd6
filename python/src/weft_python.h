#pragma once
// Shared by the Python module's files: the objects it hands to Python and the error bridge.
// A Model owns the immutable graph, its device preset and cost table; every object made from
// it (schedules, timelines, analyses) keeps the Model alive through a shared_ptr.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "weft/core/analysis/analyze.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/base/expected.h"
#include "weft/core/graph/graph.h"
#include "weft/core/transform/merge_graph.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/advice.h"
#include "weft/core/study/cpu_calibration.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/study/open_model.h"
#include "weft/core/study/prediction.h"
#include "weft/core/study/run_comparison.h"
#include "weft/core/study/split_study.h"
#include "weft/core/study/test_data.h"
#include "weft/core/exec/tensor_files.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/schedule/timeline.h"

namespace weft::python {

namespace py = pybind11;

struct Model {
  core::Graph graph;
  core::DeviceSpec device;
  core::CostTable costs;
  /// Made by Model.split(): the unsplit model's sequential baselines, and weft's sentence on it.
  std::optional<core::UnsplitBaseline> unsplit;
  std::string split_summary;
  /// Made by Model.merge(): the merge (members by merged node) and the model it was made from.
  std::shared_ptr<const core::MergedModel> merged;
  std::shared_ptr<const Model> unmerged;
  /// weft.load(device=...) named the device: a CPU run then schedules for it as asked, not for
  /// the calibrated CPU (as `weft run --backend cpu --device D`).
  bool device_given = false;
  /// How weft.load opened it (core::open_model's request, without a schedule): Model.open_schedule
  /// opens it again with a schedule that splits or merges it otherwise.
  std::shared_ptr<const core::OpenRequest> opened_with{};
};
using ModelPtr = std::shared_ptr<const Model>;

struct PySchedule {
  ModelPtr model;
  core::Schedule schedule;
  /// Model.schedule(strategy, ...): the options the strategy made it with on the model's device.
  /// A CPU run may make the same strategy again for the calibrated CPU (core::schedule_for_cpu).
  std::optional<core::StrategyOptions> made_with;
};

struct PyTimeline {
  ModelPtr model;
  core::Timeline timeline;
};

/// Raises the Python exception for `error` (weft.InvalidInputError, weft.RuntimeFailure, ...,
/// all subclasses of weft.Error) with .kind and .message set. Never returns.
[[noreturn]] void raise(const core::Error& error);

/// The value of `e`, or raises its error.
template <class T>
T take(core::Expected<T>&& e) {
  if (!e) raise(e.error());
  return std::move(*e);
}
inline void check(const core::Status& s) {
  if (!s) raise(s.error());
}

// ---- Shared by the bind_*.cpp files ------------------------------------------------------

/// The results Model's methods return (bind_results.cpp binds them).
struct Analysis {
  ModelPtr model;
  core::AnalysisReport report;
};

struct Plan {
  ModelPtr model;
  core::MemoryReport report;
};

struct Prediction {
  ModelPtr model;
  core::Prediction p;
};

struct Advice {
  ModelPtr model;
  core::Advice a;
  core::StrategyOptions options;  ///< what the strategies were tried with
};

struct Run {
  ModelPtr model;
  core::RunComparison c;
  /// backend 'cpu': the calibrated CPU device's prediction for the schedule (as `weft run`'s).
  std::optional<core::CpuRunPrediction> predicted;
  std::string prediction_unavailable;  ///< backend 'cpu' without a prediction: why
  std::string schedule_made_for;       ///< what the schedule that ran was made for
  core::Schedule schedule;             ///< the schedule that ran
  /// test_data=: every set's outputs checked (core::compare_test_data), and the backend that ran.
  std::optional<core::TestDataComparison> tested;
  std::string backend;
};


template <class T>
py::array_t<T> to_array(const std::vector<T>& v) {
  py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
  if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(T));
  return a;
}

/// Runs f() with the GIL released, so other Python threads run meanwhile. f must not touch
/// Python objects; its Expected is taken (errors raised) by the caller once the GIL is back.
template <class F>
auto without_gil(F&& f) {
  py::gil_scoped_release release;
  return f();
}

template <class Field>
auto cpu_prediction(Field field) {
  return [field](const Run& r) -> std::optional<decltype(field(*r.predicted))> {
    if (!r.predicted) return std::nullopt;
    return field(*r.predicted);
  };
}

/// The keys of `nodes` in `g`.
py::list node_keys(const core::Graph& g, const std::vector<core::NodeId>& nodes);
/// Raises weft.UsageError with `message`.
[[noreturn]] void usage(const std::string& message);
py::object json_loads(const std::string& text);
std::string json_dumps(const py::handle& value);
/// A node given as its key (str) or index (int).
core::NodeId node_id(const Model& m, const py::handle& node);
/// A schedule given as a Schedule of this model, a dict in the schedule JSON shape, or JSON
/// text. Dicts and text may leave out "format" and "version" (the current ones are meant) and
/// "events" (the minimal events are computed), as external strategies may.
core::Schedule schedule_of(const ModelPtr& model, const py::handle& spec);
/// Strategy options from Python's arguments, checked as `weft`'s options are (a bad value is a
/// usage error).
core::StrategyOptions strategy_options(int max_streams, std::optional<double> granularity_us, bool cuda_graph,
                                       std::optional<double> budget_ms, std::optional<long long> evaluations,
                                       std::optional<unsigned long long> seed);
PySchedule make(const ModelPtr& model, core::Schedule s);
PyTimeline timeline(const ModelPtr& m, core::Timeline t);
/// The Model of what core::open_model opened (weft.load, Model.open_schedule): the model as imported
/// and split, or, where merged, the merged model whose `unmerged` is the model before the merge.
std::shared_ptr<Model> model_of_opened(core::OpenedModel opened, const std::shared_ptr<const core::OpenRequest>& request,
                                       bool device_given);
/// The Model of a split made from `from` (Model.split, open_schedule).
std::shared_ptr<Model> split_of(const Model& from, core::AppliedSplit applied);
/// The Model of a merge made from `from` (Model.merge, open_schedule).
std::shared_ptr<Model> merged_of(const ModelPtr& from, core::MergedModel merged);
/// A tensor as a numpy array of its dtype and shape (raw bytes for dtypes numpy lacks).
py::array tensor_array(const core::HostTensor& t);
/// run(inputs={name: array}) as a set of given tensors (matched by core::match_inputs, as weft run
/// --inputs matches files): each array's dtype and C-order bytes.
core::TensorFiles given_arrays(const py::dict& inputs);

using ModelClass = py::class_<Model, std::shared_ptr<Model>>;

/// Registers weft.Error and its subclasses on `m` (module.cpp).
void register_errors(py::module_& m);
/// Schedule and Timeline (bind_schedule.cpp).
void register_schedule(py::module_& m);
/// Analysis, Plan, Prediction, Run and Advice (bind_results.cpp).
void register_results(py::module_& m);
/// Model: its properties and transformations (bind_model.cpp), its studies (bind_studies.cpp),
/// Model.run and chrome_trace (bind_run.cpp); weft.load (bind_model.cpp), weft.sweep (bind_run.cpp).
void register_model(py::module_& m);
void add_model_studies(ModelClass& model);
void add_model_run(ModelClass& model);
void register_sweep(py::module_& m);

}  // namespace weft::python
