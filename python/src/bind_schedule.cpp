// weft.Schedule (operators on streams, edits returning new schedules) and weft.Timeline.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "weft/core/cost/cost_model.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/analysis/critical_path.h"
#include "weft/core/cost/device.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/base/file_io.h"
#include "weft/core/transform/horizontal_merge.h"
#include "weft/core/schedule/schedule_edit.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/strategy/strategy_external.h"
#include "weft/core/study/cpu_calibration.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/study/run_comparison.h"
#include "weft/core/study/batch_sweep.h"
#include "weft/core/study/test_data.h"
#include "weft/core/schedule/sync.h"
#include "weft/core/sim/timeline_json.h"
#include "weft/core/transform/wire_layering.h"
#include "weft_python.h"

namespace weft::python {

void register_schedule(py::module_& m) {
  // ---- Schedule ----
  py::class_<PySchedule>(m, "Schedule",
                         "Operators on streams, in order, with the cross-stream events that enforce the data edges. "
                         "Immutable: edits return a new Schedule.")
      .def_property_readonly("model", [](const PySchedule& s) { return std::const_pointer_cast<Model>(s.model); },
                             "The Model the schedule belongs to (a split or merged one for a schedule that records them).")
      .def_property_readonly("strategy", [](const PySchedule& s) { return s.schedule.strategy; })
      .def_property_readonly("options", [](const PySchedule& s) { return s.schedule.options; })
      .def_property_readonly("stream_count", [](const PySchedule& s) { return s.schedule.stream_count(); })
      .def_property_readonly(
          "streams", [](const PySchedule& s) {
            py::list out;
            for (const auto& stream : s.schedule.streams) out.append(node_keys(s.model->graph, stream));
            return out;
          },
          "Node keys per stream, in issue order.")
      .def_property_readonly(
          "stream_ids", [](const PySchedule& s) {
            py::list out;
            for (const auto& stream : s.schedule.streams) out.append(to_array<core::NodeId>(stream));
            return out;
          },
          "Node indices per stream (numpy int32 arrays).")
      .def_property_readonly(
          "events", [](const PySchedule& s) {
            py::list out;
            for (const core::Event& e : s.schedule.events) out.append(py::make_tuple(s.model->graph.key(e.from), s.model->graph.key(e.to)));
            return out;
          },
          "Cross-stream waits as (recorded after, waited before) node keys.")
      .def(
          "to_json", [](const PySchedule& s) { return core::schedule_to_json(s.model->graph, s.schedule, s.model->device.name); },
          "Schedule JSON text (docs/schedule-format.md), as `weft schedule -o` writes it.")
      .def(
          "to_dict", [](const PySchedule& s) { return json_loads(core::schedule_to_json(s.model->graph, s.schedule, s.model->device.name)); },
          "The schedule JSON as a dict.")
      .def(
          "save", [](const PySchedule& s, const std::string& path) { check(core::save_schedule(path, s.model->graph, s.schedule, s.model->device.name)); },
          py::arg("path"), "Writes schedule JSON atomically.")
      .def(
          "move",
          [](const PySchedule& s, const py::handle& node, int stream, int position) {
            const core::NodeId n = node_id(*s.model, node);
            return make(s.model, take(core::move_node(s.model->graph, s.schedule, n, stream, position)));
          },
          py::arg("node"), py::arg("stream"), py::arg("position"),
          "Moves a node (key or index) to `stream` at `position`; refused (InvalidInputError, with the reason) "
          "when the result would deadlock.")
      .def("add_stream", [](const PySchedule& s) { return make(s.model, take(core::add_stream(s.model->graph, s.schedule))); })
      .def(
          "remove_stream", [](const PySchedule& s, int stream) { return make(s.model, take(core::remove_stream(s.model->graph, s.schedule, stream))); },
          py::arg("stream"), "Removes an empty stream.")
      .def(
          "merge_streams",
          [](const PySchedule& s, int a, int b) { return make(s.model, take(core::merge_streams(s.model->graph, s.schedule, a, b))); },
          py::arg("a"), py::arg("b"))
      .def("__repr__", [](const PySchedule& s) {
        return "<weft.Schedule " + s.schedule.strategy + ": " + std::to_string(s.schedule.stream_count()) + " streams, " +
               std::to_string(s.schedule.events.size()) + " events>";
      });

  // ---- Timeline ----
  py::class_<PyTimeline>(m, "Timeline", "Per-node start and end on streams: predicted, measured or a baseline.")
      .def_property_readonly("label", [](const PyTimeline& t) { return t.timeline.label; })
      .def_property_readonly("kind", [](const PyTimeline& t) { return std::string(core::run_kind_name(t.timeline.kind)); })
      .def_property_readonly("backend", [](const PyTimeline& t) { return t.timeline.backend; },
                             "The executor of a measured run ('cpu', 'cuda', 'cuda-graph'); empty otherwise.")
      .def_property_readonly("strategy", [](const PyTimeline& t) { return t.timeline.strategy; },
                             "The strategy of the schedule that ran ('sequential' for the baselines).")
      .def_property_readonly("device", [](const PyTimeline& t) { return t.timeline.device; })
      .def_property_readonly("stream_count", [](const PyTimeline& t) { return t.timeline.stream_count; })
      .def_property_readonly("makespan_us", [](const PyTimeline& t) { return t.timeline.makespan_us(); })
      .def_property_readonly(
          "node", [](const PyTimeline& t) {
            std::vector<core::NodeId> v;
            for (const auto& i : t.timeline.items) v.push_back(i.node);
            return to_array(v);
          },
          "Node index per item (numpy int32).")
      .def_property_readonly("stream", [](const PyTimeline& t) {
        std::vector<std::int32_t> v;
        for (const auto& i : t.timeline.items) v.push_back(i.stream);
        return to_array(v);
      })
      .def_property_readonly("start_us", [](const PyTimeline& t) {
        std::vector<double> v;
        for (const auto& i : t.timeline.items) v.push_back(i.start_us);
        return to_array(v);
      })
      .def_property_readonly("end_us", [](const PyTimeline& t) {
        std::vector<double> v;
        for (const auto& i : t.timeline.items) v.push_back(i.end_us);
        return to_array(v);
      })
      .def_property_readonly("stream_busy_us", [](const PyTimeline& t) { return to_array(t.timeline.stream_busy_us()); })
      .def_property_readonly(
          "arena_bytes", [](const PyTimeline& t) {
            std::vector<double> time, value;
            for (const auto& c : t.timeline.arena_bytes) {
              time.push_back(c.time_us);
              value.push_back(c.value);
            }
            return py::make_tuple(to_array(time), to_array(value));
          },
          "Arena bytes over time: (time_us, bytes) numpy arrays.")
      .def("to_json", [](const PyTimeline& t) { return core::timeline_to_json(t.model->graph, t.timeline); },
           "Timeline JSON (docs/trace-format.md).")
      .def("__repr__", [](const PyTimeline& t) {
        return "<weft.Timeline '" + t.timeline.label + "': " + std::to_string(t.timeline.makespan_us()) + " us>";
      });
}

}  // namespace weft::python
