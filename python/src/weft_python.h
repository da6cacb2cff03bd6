#pragma once
// Shared by the Python module's files: the objects it hands to Python and the error bridge.
// A Model owns the immutable graph, its device preset and cost table; every object made from
// it (schedules, timelines, analyses) keeps the Model alive through a shared_ptr.
#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>

#include "weft/core/cost_model.h"
#include "weft/core/device.h"
#include "weft/core/expected.h"
#include "weft/core/graph.h"
#include "weft/core/merge_graph.h"
#include "weft/core/schedule.h"
#include "weft/core/strategies.h"
#include "weft/core/study/open_model.h"
#include "weft/core/study/split_study.h"
#include "weft/core/schedule.h"
#include "weft/core/timeline.h"

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

/// Registers weft.Error and its subclasses on `m` (module.cpp).
void register_errors(py::module_& m);
/// Registers Model, Schedule, Timeline, Analysis, Plan, Prediction, Run (bind_model.cpp).
void register_model(py::module_& m);

}  // namespace weft::python
