// The Python classes: Model (a loaded ONNX graph with a device's cost model), Schedule,
// Timeline, and the results of analyze(), plan(), simulate() and run(). Every long computation
// runs with the GIL released; results become plain Python values and numpy arrays afterwards.
// Schedules cross the boundary in the schedule JSON shape (docs/schedule-format.md), the same
// shape external strategies reply in (docs/strategy-protocol.md).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "weft/core/analyze.h"
#include "weft/core/chrome_trace.h"
#include "weft/core/cost_model.h"
#include "weft/core/cpu_executor.h"
#include "weft/core/critical_path.h"
#include "weft/core/device.h"
#include "weft/core/execution_order.h"
#include "weft/core/file_io.h"
#include "weft/core/given_inputs.h"
#include "weft/core/levels.h"
#include "weft/core/memory_planner.h"
#include "weft/core/onnx_import.h"
#include "weft/core/schedule_edit.h"
#include "weft/core/schedule_json.h"
#include "weft/core/strategies.h"
#include "weft/core/strategy_external.h"
#include "weft/core/study/advice.h"
#include "weft/core/study/cpu_calibration.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/study/merge_study.h"
#include "weft/core/study/split_study.h"
#include "weft/core/micro_batch.h"
#include "weft/core/study/sweep.h"
#include "weft/core/horizontal_merge.h"
#include "weft/core/wire_layering.h"
#include "weft/core/study/prediction.h"
#include "weft/core/study/reference.h"
#include "weft/core/study/run_comparison.h"
#include "weft/core/study/test_data.h"
#include "weft/core/study/schedule_study.h"
#include "weft/core/sync.h"
#include "weft/core/timeline_json.h"
#include "weft/gpu/cuda_executor.h"
#include "weft_python.h"

namespace weft::python {

namespace {

template <class T>
py::array_t<T> to_array(const std::vector<T>& v) {
  py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
  if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(T));
  return a;
}

py::list node_keys(const core::Graph& g, const std::vector<core::NodeId>& nodes) {
  py::list out;
  for (core::NodeId n : nodes) out.append(g.key(n));
  return out;
}

[[noreturn]] void usage(const std::string& message) { raise(core::make_error(core::ErrorKind::Usage, message)); }

py::object json_loads(const std::string& text) { return py::module_::import("json").attr("loads")(text); }
std::string json_dumps(const py::handle& value) { return py::cast<std::string>(py::module_::import("json").attr("dumps")(value)); }

/// A node given as its key (str) or index (int).
core::NodeId node_id(const Model& m, const py::handle& node) {
  if (py::isinstance<py::str>(node)) {
    const auto key = py::cast<std::string>(node);
    if (auto n = m.graph.find_node(key)) return *n;
    raise(core::make_error(core::ErrorKind::InvalidInput, "no node '" + key + "' in " + m.graph.info().model_path));
  }
  const auto n = py::cast<long long>(node);
  if (n < 0 || static_cast<std::size_t>(n) >= m.graph.node_count())
    raise(core::make_error(core::ErrorKind::InvalidInput,
                           "node index " + std::to_string(n) + " is out of range (" + std::to_string(m.graph.node_count()) + " nodes)"));
  return static_cast<core::NodeId>(n);
}

/// A schedule given as a Schedule of this model, a dict in the schedule JSON shape, or JSON
/// text. Dicts and text may leave out "format" and "version" (the current ones are meant) and
/// "events" (the minimal events are computed), as external strategies may.
/// Runs f() with the GIL released, so other Python threads run meanwhile. f must not touch
/// Python objects; its Expected is taken (errors raised) by the caller once the GIL is back.
template <class F>
auto without_gil(F&& f) {
  py::gil_scoped_release release;
  return f();
}

core::Schedule schedule_of(const ModelPtr& model, const py::handle& spec) {
  if (py::isinstance<PySchedule>(spec)) {
    const auto& s = py::cast<const PySchedule&>(spec);
    if (s.model != model) usage("the schedule belongs to another model (" + s.model->graph.info().model_path + ")");
    return s.schedule;
  }
  py::object object;
  if (py::isinstance<py::dict>(spec)) {
    object = py::reinterpret_borrow<py::object>(spec);
  } else if (py::isinstance<py::str>(spec)) {
    std::string parse_error;
    try {
      object = json_loads(py::cast<std::string>(spec));
    } catch (py::error_already_set& e) {
      parse_error = e.what();
    }
    if (!parse_error.empty()) raise(core::make_error(core::ErrorKind::InvalidInput, "schedule JSON does not parse: " + parse_error));
    if (!py::isinstance<py::dict>(object)) raise(core::make_error(core::ErrorKind::InvalidInput, "schedule JSON must be an object"));
  } else {
    usage("a schedule is a weft.Schedule, a dict or JSON text, not " + py::cast<std::string>(py::str(spec.get_type())));
  }
  py::dict d(object);
  py::dict filled;
  if (!d.contains("format")) filled["format"] = "weft-schedule";
  if (!d.contains("version")) filled["version"] = 1;
  for (auto item : d) filled[item.first] = item.second;
  const std::string text = json_dumps(filled);
  core::ScheduleImport how;
  how.compute_missing_events = true;
  return take(without_gil([&] { return core::schedule_from_json(model->graph, text, how); }));
}

core::StrategyOptions strategy_options(int max_streams, std::optional<double> granularity_us, bool cuda_graph,
                                       std::optional<double> budget_ms, std::optional<long long> evaluations,
                                       std::optional<unsigned long long> seed) {
  // The ranges are core's to check, as `weft`'s options are; a bad value is a usage error here too.
  core::StrategyRequest r;
  r.max_streams = max_streams;
  r.granularity_us = granularity_us;
  r.cuda_graph = cuda_graph;
  r.search_budget_ms = budget_ms;
  if (evaluations) r.search_evaluations = *evaluations;
  if (seed) r.seed = static_cast<std::int64_t>(std::min<unsigned long long>(*seed, std::numeric_limits<std::int64_t>::max()));
  auto o = core::strategy_options_for(r);
  if (!o) usage(o.error().message);
  return *o;
}

PySchedule make(const ModelPtr& model, core::Schedule s) { return PySchedule{model, std::move(s), std::nullopt}; }

/// The Model of what core::open_model opened (weft.load, Model.open_schedule): the model as imported
/// and split, or, where merged, the merged model whose `unmerged` is the model before the merge.
std::shared_ptr<Model> model_of_opened(core::OpenedModel opened, const std::shared_ptr<const core::OpenRequest>& request, bool device_given) {
  auto model = std::make_shared<Model>(Model{std::move(*opened.graph), opened.device, std::move(opened.costs), opened.unsplit,
                                             opened.split_summary, nullptr, nullptr});
  model->device_given = device_given;
  model->opened_with = request;
  if (!opened.merged) return model;
  core::Graph graph = std::move(opened.merged->graph);
  std::shared_ptr<const core::MergedModel> kept = opened.merged;
  auto merged = std::make_shared<Model>(Model{std::move(graph), model->device, kept->costs, model->unsplit, model->split_summary, kept, model});
  merged->device_given = device_given;
  merged->opened_with = request;
  return merged;
}

/// The Model of a split made from `from` (Model.split, open_schedule).
std::shared_ptr<Model> split_of(const Model& from, core::AppliedSplit applied) {
  auto model = std::make_shared<Model>(
      Model{std::move(applied.graph), from.device, std::move(applied.costs), applied.unsplit, applied.summary, nullptr, nullptr});
  model->device_given = from.device_given;
  model->opened_with = from.opened_with;
  return model;
}

/// The Model of a merge made from `from` (Model.merge, open_schedule): it holds the merged graph;
/// the members and costs stay in the merge, which merge_gain reads.
std::shared_ptr<Model> merged_of(const ModelPtr& from, core::MergedModel merged) {
  core::Graph graph = std::move(merged.graph);
  auto kept = std::make_shared<const core::MergedModel>(std::move(merged));
  auto model = std::make_shared<Model>(Model{std::move(graph), from->device, kept->costs, from->unsplit, from->split_summary, kept, from});
  model->device_given = from->device_given;
  model->opened_with = from->opened_with;
  return model;
}

// ---- Results -----------------------------------------------------------------------------

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

// A Run property read from its CPU prediction: the field, or None (CUDA runs have none).
template <class Field>
auto cpu_prediction(Field field) {
  return [field](const Run& r) -> std::optional<decltype(field(*r.predicted))> {
    if (!r.predicted) return std::nullopt;
    return field(*r.predicted);
  };
}

py::array tensor_array(const core::HostTensor& t) {
  const char* format = nullptr;
  switch (t.dtype) {
    case core::DType::Float32: format = "float32"; break;
    case core::DType::Float64: format = "float64"; break;
    case core::DType::Float16: format = "float16"; break;
    case core::DType::Int64: format = "int64"; break;
    case core::DType::Int32: format = "int32"; break;
    case core::DType::Int16: format = "int16"; break;
    case core::DType::Int8: format = "int8"; break;
    case core::DType::UInt8: format = "uint8"; break;
    case core::DType::UInt16: format = "uint16"; break;
    case core::DType::UInt32: format = "uint32"; break;
    case core::DType::UInt64: format = "uint64"; break;
    case core::DType::Bool: format = "bool"; break;
    default: break;
  }
  if (!format) {
    // bfloat16 and others numpy lacks: the raw little-endian bytes.
    return py::array_t<std::uint8_t>(static_cast<py::ssize_t>(t.bytes.size()), t.bytes.data());
  }
  const py::dtype dtype(format);
  std::vector<py::ssize_t> shape(t.shape.begin(), t.shape.end());
  py::array a(dtype, shape);
  if (static_cast<std::size_t>(a.nbytes()) != t.bytes.size())
    raise(core::make_error(core::ErrorKind::Internal, "output bytes do not match its shape"));
  if (!t.bytes.empty()) std::memcpy(a.mutable_data(), t.bytes.data(), t.bytes.size());
  return a;
}

PyTimeline timeline(const ModelPtr& m, core::Timeline t) { return PyTimeline{m, std::move(t)}; }

/// run(inputs={name: array}) as a set of given tensors (matched by core::match_inputs, as weft run
/// --inputs matches files): each array's dtype and C-order bytes.
core::TensorFiles given_arrays(const py::dict& inputs) {
  core::TensorFiles files;
  files.path = "inputs";
  files.format = core::TensorFormat::Npy;  // named, as .npy files are
  for (auto item : inputs) {
    const auto name = py::cast<std::string>(item.first);
    const std::string where = "inputs['" + name + "']";
    const py::array array = py::module_::import("numpy").attr("ascontiguousarray")(item.second);
    const std::string kind = py::cast<std::string>(py::str(array.dtype()));
    static const std::map<std::string, core::DType> kTypes = {
        {"float32", core::DType::Float32}, {"float64", core::DType::Float64}, {"float16", core::DType::Float16},
        {"int64", core::DType::Int64},     {"int32", core::DType::Int32},     {"int16", core::DType::Int16},
        {"int8", core::DType::Int8},       {"uint8", core::DType::UInt8},     {"uint16", core::DType::UInt16},
        {"uint32", core::DType::UInt32},   {"uint64", core::DType::UInt64},   {"bool", core::DType::Bool}};
    const auto type = kTypes.find(kind);
    if (type == kTypes.end() || array.dtype().byteorder() == '>')
      raise(core::make_error(core::ErrorKind::InvalidInput, where + ": numpy dtype " + kind + " has no Weft type"));
    core::TensorFile f;
    f.name = name;
    f.source = where;
    f.value.dtype = type->second;
    f.value.shape.assign(array.shape(), array.shape() + array.ndim());
    const auto* data = static_cast<const std::uint8_t*>(array.data());
    f.value.bytes.assign(data, data + array.nbytes());
    files.tensors.push_back(std::move(f));
  }
  return files;
}

}  // namespace

void register_model(py::module_& m) {
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

  // ---- Run ----
  py::class_<Run>(m, "Run", "A schedule run for real beside the sequential reference run on the same executor.")
      .def_property_readonly("sequential_ms", [](const Run& r) { return r.c.sequential.wall_ms; })
      .def_property_readonly("scheduled_ms", [](const Run& r) { return r.c.scheduled.wall_ms; })
      .def_property_readonly("speedup", [](const Run& r) { return r.c.speedup(); })
      .def_property_readonly("iteration_ms", [](const Run& r) { return to_array(r.c.scheduled.iteration_ms); })
      .def_property_readonly("sequential_iteration_ms", [](const Run& r) { return to_array(r.c.sequential.iteration_ms); })
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

  // ---- Model ----
  py::class_<Model, std::shared_ptr<Model>>(m, "Model", "An ONNX model loaded by weft.load(), with a device's cost model.")
      .def_property_readonly("path", [](const Model& mo) { return mo.graph.info().model_path; })
      .def_property_readonly("sha256", [](const Model& mo) { return mo.graph.info().model_sha256; })
      .def_property_readonly("device", [](const Model& mo) { return mo.device.name; })
      .def_property_readonly("node_count", [](const Model& mo) { return mo.graph.node_count(); })
      .def_property_readonly("tensor_count", [](const Model& mo) { return mo.graph.tensor_count(); })
      .def_property_readonly("nodes", [](const Model& mo) {
        py::list out;
        for (std::size_t n = 0; n < mo.graph.node_count(); ++n) out.append(mo.graph.key(static_cast<core::NodeId>(n)));
        return out;
      }, "Node keys (names; '#<index>:<op>' for unnamed nodes), by index.")
      .def_property_readonly("ops", [](const Model& mo) {
        py::list out;
        for (const core::Node& n : mo.graph.nodes()) out.append(n.op_type);
        return out;
      })
      .def_property_readonly("edges", [](const Model& mo) {
        py::array_t<core::NodeId> a({static_cast<py::ssize_t>(mo.graph.edge_count()), py::ssize_t{2}});
        auto r = a.mutable_unchecked<2>();
        py::ssize_t i = 0;
        for (std::size_t u = 0; u < mo.graph.node_count(); ++u)
          for (core::NodeId v : mo.graph.successors(static_cast<core::NodeId>(u))) {
            r(i, 0) = static_cast<core::NodeId>(u);
            r(i, 1) = v;
            ++i;
          }
        return a;
      }, "Producer -> consumer node index pairs (numpy int32, shape (E, 2)).")
      .def_property_readonly("node_time_us", [](const Model& mo) { return to_array(core::node_times(mo.costs)); },
                             "Predicted time per node on the model's device (µs).")
      .def_property_readonly("folded_nodes", [](const Model& mo) { return mo.graph.info().folded_nodes; })
      .def_property_readonly("unresolved_dims", [](const Model& mo) { return mo.graph.info().unresolved_dims; })
      .def_property_readonly("warnings", [](const Model& mo) { return mo.graph.info().warnings; },
                             "What the import had to assume, as `weft` prints on stderr (a dim binding that "
                             "matched nothing, inference that stopped early, a re-batched model that keeps its batch).")
      .def_property_readonly("micro_batches", [](const Model& mo) { return std::max(1, mo.graph.info().micro_batches); },
                             "Micro-batch copies of a split model (Model.split); 1 otherwise.")
      .def_property_readonly("split_summary", [](const Model& mo) -> std::optional<std::string> {
        if (mo.split_summary.empty()) return std::nullopt;
        return mo.split_summary;
      }, "weft's sentence on the split (the k chosen and its prediction over the unsplit model); None when not split.")
      .def_property_readonly("unsplit_sequential_us", [](const Model& mo) -> std::optional<py::dict> {
        if (!mo.unsplit) return std::nullopt;
        py::dict d;
        d["eager"] = mo.unsplit->sequential_eager_us;
        d["graph"] = mo.unsplit->sequential_graph_us;
        return d;
      }, "A split model's unsplit sequential baselines, {'eager': us, 'graph': us}; None otherwise.")
      .def_property_readonly("merges", [](const Model& mo) {
        py::list out;
        if (mo.merged && mo.unmerged)
          for (const auto& members : mo.merged->members)
            if (members.size() > 1) out.append(node_keys(mo.unmerged->graph, members));
        return out;
      }, "A merged model's merge groups: the unmerged model's node keys each merged node runs (empty when not merged).")
      .def_property_readonly("unmerged", [](const Model& mo) -> py::object {
        if (!mo.unmerged) return py::none();
        return py::cast(std::const_pointer_cast<Model>(mo.unmerged));
      }, "The model a merged model was made from; None otherwise.")
      .def(
          "split",
          [](const std::shared_ptr<Model>& mo, const py::object& k, bool graph, int max_streams) {
            int copies = 0;
            if (py::isinstance<py::str>(k)) {
              auto parsed = core::parse_split(py::cast<std::string>(k));
              if (!parsed) usage("split: " + parsed.error().message);
              copies = *parsed;
            } else {
              const auto n = py::cast<long long>(k);
              if (n < 1 || n > 4096) usage("split: k must be 'auto' or 1..4096, got " + std::to_string(n));
              copies = static_cast<int>(n);
            }
            if (mo->merged || mo->unsplit) usage("split: split the loaded model, not a split or merged one");
            if (copies == 0 && !core::can_simulate(mo->device))
              usage("split: 'auto' predicts on the device; '" + mo->device.name + "' has no rates");
            core::SplitOptions o;
            o.k = copies;
            o.mode = graph ? core::LaunchMode::Graph : core::LaunchMode::Eager;
            o.strategy = strategy_options(max_streams, std::nullopt, graph, {}, {}, {});
            return split_of(*mo, take(without_gil([&] { return core::apply_split(mo->graph, mo->device, o); })));
          },
          py::arg("k") = "auto", py::kw_only(), py::arg("graph") = false, py::arg("max_streams") = core::kDefaultMaxStreams,
          "The model split into k micro-batch copies (as weft --split K|auto): 'auto' chooses k by prediction in the "
          "launch mode graph= says (k = 1 where splitting does not pay). A new Model: schedule it with 'split-overlap'; "
          "its predictions' speedup_vs_unsplit quote the unsplit model. InvalidInputError names an operator that mixes "
          "the batch.")
      .def(
          "merge",
          [](const std::shared_ptr<Model>& mo, std::optional<std::vector<std::vector<py::object>>> groups) {
            if (mo->merged) usage("merge: the model is merged already");
            std::optional<std::vector<std::vector<core::NodeId>>> ids;
            if (groups) {
              ids.emplace();
              for (const auto& g : *groups) {
                auto& group = ids->emplace_back();
                for (const py::object& node : g) group.push_back(node_id(*mo, node));
              }
            }
            return merged_of(mo, take(without_gil([&] {
                               return ids ? core::merge_model(mo->graph, mo->costs, mo->device, std::move(*ids))
                                          : core::merge_model(mo->graph, mo->costs, mo->device);
                             })));
          },
          py::arg("groups") = py::none(),
          "The model with horizontal merges (as weft --merge): each layer's equal operators of the default wire "
          "layering as one launch, or the groups given (lists of node keys or indices; the members must be "
          "independent). A new Model whose merged nodes run their members; merges lists them, and its predictions' "
          "speedup_vs_unmerged quote the unmerged model. A saved schedule records the merges.")
      .def(
          "open_schedule",
          [](const std::shared_ptr<Model>& mo, const py::object& source) {
            // A path (str or os.PathLike) or JSON text (a str starting with '{').
            std::string text;
            const auto starts_json = [](const std::string& t) {
              const auto first = t.find_first_not_of(" \t\r\n");
              return first != std::string::npos && t[first] == '{';
            };
            const bool is_text = py::isinstance<py::str>(source) && starts_json(py::cast<std::string>(source));
            if (is_text) {
              text = py::cast<std::string>(source);
            } else {
              const auto path = py::cast<std::string>(py::module_::import("os").attr("fspath")(source));
              auto read = core::read_file(path, core::kMaxTextBytes);
              if (!read) raise(core::make_error(core::ErrorKind::InvalidInput, read.error().message));
              text = std::move(*read);
            }
            // On this model where it fits it as it is; else the model opened again as weft ... --schedule
            // FILE and the studio open it (core::open_model): re-batched, split and merged as it records.
            if (auto direct = core::schedule_from_json(mo->graph, text)) return make(mo, std::move(*direct));
            if (!mo->opened_with) raise(core::make_error(core::ErrorKind::InvalidInput, "open_schedule: this model was not opened by weft.load"));
            core::OpenRequest request = *mo->opened_with;
            request.schedule_text = std::move(text);
            if (!is_text) request.schedule_file = py::cast<std::string>(py::module_::import("os").attr("fspath")(source));
            auto opened = take(without_gil([&] { return core::open_model(request); }));
            core::Schedule schedule = std::move(*opened.schedule);
            return make(model_of_opened(std::move(opened), mo->opened_with, mo->device_given), std::move(schedule));
          },
          py::arg("source"),
          "A saved schedule (a path, or JSON text) opened as weft ... --schedule FILE opens it: on this model, or on "
          "it split and merged as the file records (schedule.model is then that model). Refusals as validate().")
      .def(
          "layers",
          [](const std::shared_ptr<Model>& mo, const py::object& schedule, const py::object& wires) {
            // As weft layers: the wires of the graph's chains, of a schedule's streams, or given.
            if (!schedule.is_none() && !wires.is_none()) usage("layers: give schedule= or wires=, not both");
            core::Expected<core::Wires> w = core::Error{};
            if (!wires.is_none()) {
              w = core::parse_wires_json(mo->graph, py::isinstance<py::str>(wires) ? py::cast<std::string>(wires) : json_dumps(wires), "wires");
            } else if (!schedule.is_none()) {
              const core::Schedule s = schedule_of(mo, schedule);
              w = core::wires_from_schedule(mo->graph, s);
            } else {
              w = without_gil([&] { return core::wires_from_graph(mo->graph); });
            }
            const core::Wires found = take(std::move(w));
            const core::WireLayering layering = take(without_gil([&] { return core::layer_by_wires(mo->graph, found); }));
            const core::MergePlan merges = core::find_merge_groups(mo->graph, layering, mo->costs, mo->device);
            py::dict out;
            out["wires"] = found.names;
            out["origin"] = found.origin;
            py::list layers;
            for (const auto& layer : layering.layers) layers.append(node_keys(mo->graph, layer));
            out["layers"] = layers;
            out["depth"] = layering.depth();
            out["asap_depth"] = core::compute_levels(mo->graph).depth;
            out["max_width"] = layering.max_width();
            py::list groups;
            for (const core::MergeGroup& g : merges.groups) groups.append(node_keys(mo->graph, g.nodes));
            out["merge_groups"] = groups;
            out["launches_before"] = merges.launches_before;
            out["launches_after"] = merges.launches_after;
            out["time_before_us"] = merges.time_before_us;
            out["time_after_us"] = merges.time_after_us;
            return out;
          },
          py::kw_only(), py::arg("schedule") = py::none(), py::arg("wires") = py::none(),
          "The wire layering by the head rule (as weft layers): over the graph's chains, a schedule's streams "
          "(schedule=), or wires given as a dict or JSON text in weft-wires shape (wires=); layers, depth beside the "
          "ASAP depth, and the merge groups with launches before and after. A dict.")
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
          "Predicted timeline and speedup against both sequential baselines; graph=True: CUDA Graph replay.")
      .def(
          "run",
          [](const std::shared_ptr<Model>& mo, const py::object& spec, const std::string& backend, bool graph, int iterations,
             int warmup, int rounds, std::uint64_t seed, const std::string& planner, int max_streams,
             std::optional<py::dict> inputs, std::optional<py::object> test_data, std::optional<double> rtol,
             std::optional<double> atol) {
            if (backend != "cpu" && backend != "cuda") usage("backend must be 'cpu' or 'cuda', got '" + backend + "'");
            if (graph && backend != "cuda") usage("graph=True (CUDA Graph replay) needs backend='cuda'");
            if (auto ok = core::check_run_counts(iterations, warmup, rounds); !ok) usage(ok.error().message);
            if (!planner.empty()) check(core::check_planner(planner));
            if (inputs && test_data) usage("inputs= and test_data= both give the inputs: choose one");
            if ((rtol || atol) && !test_data) usage("rtol= and atol= need test_data=");
            for (const auto& v : {rtol, atol})
              if (v && !(*v >= 0)) usage("rtol= and atol= must be non-negative numbers");
            core::RunComparisonOptions o;
            o.run.iterations = iterations;
            o.run.warmup = warmup;
            o.rounds = rounds;
            o.run.seed = seed;
            o.planner = planner;
            if (inputs) {
              auto matched = take(core::match_inputs(mo->graph, given_arrays(*inputs)));
              for (const std::string& w : matched.warnings) py::module_::import("warnings").attr("warn")(w);
              o.run.inputs = std::move(matched.values);
            }
            std::optional<core::TestData> data;
            core::Tolerance tolerance;
            if (test_data) {
              data = take(core::read_test_data(py::cast<std::string>(py::module_::import("os").attr("fspath")(*test_data))));
              if (data->tolerance) tolerance = *data->tolerance;
              if (rtol) tolerance.rtol = *rtol;
              if (atol) tolerance.atol = *atol;
              // The runs before the comparison (the CPU calibration) take the first set's inputs.
              o.run.inputs = take(core::first_set_inputs(mo->graph, *data)).values;
            }
            // The schedule: a strategy's (by name, or a weft.Schedule Model.schedule made) is made for
            // the machine that runs it: on the CPU, for the CPU calibrated from a short sequential run
            // (core::schedule_for_cpu), unless weft.load(device=...) named a device; anything else runs
            // as given (weft run --backend cpu does the same).
            std::string strategy;
            core::StrategyOptions made_with;
            std::optional<core::Schedule> given;
            if (py::isinstance<py::str>(spec) && !py::cast<std::string>(spec).starts_with("{")) {
              strategy = py::cast<std::string>(spec);
              made_with.max_streams = max_streams;
              made_with.cuda_graph = graph;
              check(core::check_strategy(strategy, made_with));
            } else if (py::isinstance<PySchedule>(spec) && py::cast<const PySchedule&>(spec).made_with) {
              const auto& ps = py::cast<const PySchedule&>(spec);
              if (ps.model != mo) usage("the schedule belongs to another model (" + ps.model->graph.info().model_path + ")");
              strategy = ps.schedule.strategy;
              made_with = *ps.made_with;
              given = ps.schedule;
            } else {
              given = schedule_of(mo, spec);
            }
            std::string made_for = mo->device.name;
            const bool for_cpu = backend == "cpu" && !strategy.empty() && !mo->device_given &&
                                 mo->device.kind != core::DeviceKind::Cpu && core::remade_for_cpu(strategy);
            core::Schedule s;
            if (for_cpu) {
              auto made = take(without_gil([&] { return core::schedule_for_cpu(mo->graph, strategy, made_with, o.run); }));
              s = std::move(made.schedule);
              made_for = made.made_for.summary;
            } else if (given) {
              s = std::move(*given);
              made_for = strategy.empty() ? "the schedule given" : mo->device.name;
            } else {
              s = take(without_gil([&] { return core::make_schedule(strategy, mo->graph, mo->costs, mo->device, made_with); }));
            }
            // A merged model runs against the unmerged model's sequential run, as weft run --merge.
            if (mo->merged && mo->unmerged) o.reference_graph = &mo->unmerged->graph;
            Run r{mo, {}, std::nullopt, {}, made_for, s, std::nullopt, backend};
            check(without_gil([&]() -> core::Status {
              // The CUDA executor loads the CUDA module on first use; where it or a GPU is
              // missing, run() returns the Runtime error that says which.
              gpu::CudaRunOptions cuda;
              cuda.cuda_graph = graph;
              auto executor = backend == "cuda" ? gpu::make_cuda_executor(cuda) : core::make_cpu_executor();
              if (!data) {
                WEFT_TRY_ASSIGN(r.c, core::compare_runs(*executor, mo->graph, s, o));
                return {};
              }
              WEFT_TRY_ASSIGN(auto tested, core::compare_test_data(*executor, mo->graph, s, *data, o, tolerance));
              r.c = std::move(tested.compared);
              r.tested = std::move(tested);
              return {};
            }));
            // An extra: where the prediction cannot be made, the measurement stands with the reason.
            // (A merged run's reference timed the unmerged graph, whose node times do not fit it.)
            if (backend == "cpu" && o.reference_graph) {
              r.prediction_unavailable = "the reference ran the unmerged model, whose node times do not fit the merged one";
            } else if (backend == "cpu") {
              auto p = without_gil([&] { return core::predict_cpu_run(mo->graph, s, r.c, o.run); });
              if (p) r.predicted = std::move(*p);
              else r.prediction_unavailable = p.error().message;
            }
            return r;
          },
          py::arg("schedule"), py::kw_only(), py::arg("backend") = "cpu", py::arg("graph") = false,
          py::arg("iterations") = core::kDefaultRunIterations, py::arg("warmup") = core::kDefaultRunWarmup,
          py::arg("rounds") = core::kDefaultRunRounds, py::arg("seed") = 42, py::arg("planner") = "",
          py::arg("max_streams") = core::kDefaultMaxStreams, py::arg("inputs") = py::none(), py::arg("test_data") = py::none(),
          py::arg("rtol") = py::none(), py::arg("atol") = py::none(),
          "Runs the reference and the schedule on the CPU executor (backend='cuda': the CUDA executor, graph=True: "
          "replayed as a CUDA Graph), alternating in `rounds` rounds that share the iterations; median times, speedup, "
          "outputs compared. The schedule is a strategy's name (max_streams caps it), a weft.Schedule, a dict or JSON "
          "text; on the CPU a strategy's schedule is made for the CPU calibrated from a short sequential run unless "
          "weft.load named a device (Run.schedule_made_for says which). inputs={name: array} runs on those inputs "
          "(each of the dtype and shape the model expects; others are an error, extras a warning) instead of seeded "
          "ones; test_data=PATH (a test_data_set_N folder or a folder of them) runs each set's inputs and checks every "
          "output against the set's (rtol=, atol=: the tolerance; default the folder's data.json, else the ONNX "
          "backend tests' 1e-3, 1e-7): Run.test_data. No GPU or CUDA module: RuntimeFailure.")
      .def(
          "chrome_trace",
          [](const std::shared_ptr<Model>& mo, const std::vector<PyTimeline>& runs, std::optional<std::string> path) -> py::object {
            std::vector<core::Timeline> ts;
            for (const PyTimeline& t : runs) {
              if (t.model != mo) usage("a timeline belongs to another model");
              ts.push_back(t.timeline);
            }
            core::TraceInfo info;
            info.model = mo->graph.info().model_path;
            info.sha256 = mo->graph.info().model_sha256;
            info.device = mo->device.name;
            if (path) {
              check(core::save_chrome_trace(*path, mo->graph, ts, &mo->costs, info));
              return py::none();
            }
            return py::str(core::chrome_trace_json(mo->graph, ts, &mo->costs, info));
          },
          py::arg("timelines"), py::arg("path") = py::none(),
          "Chrome trace JSON of the timelines (one process per run; opens in Perfetto); written atomically to path, "
          "or returned as text.")
      .def("__repr__", [](const Model& mo) {
        return "<weft.Model " + mo.graph.info().model_path + ": " + std::to_string(mo.graph.node_count()) + " operators, device " +
               mo.device.name + ">";
      });

  m.def(
      "sweep",
      [](const py::object& source, const std::vector<long long>& batches, std::optional<std::vector<std::string>> strategies,
         std::optional<std::map<std::string, long long>> dims, std::optional<std::string> device, bool graph, int max_streams,
         std::optional<std::string> batch_dim, std::optional<std::string> backend, int iterations, int warmup) {
        core::SweepOptions o;
        for (long long b : batches) {
          if (b <= 0) usage("sweep: batches must be positive, got " + std::to_string(b));
          o.batches.push_back(b);
        }
        if (o.batches.empty()) usage("sweep: batches is empty");
        if (strategies) o.strategies = *strategies;
        if (dims)
          for (const auto& [k, v] : *dims) o.import.dims[k] = v;
        const std::string device_name = device ? *device : std::string(core::default_device_name());
        check(core::check_device_name(device_name));
        o.device = take(core::load_device(device_name));
        o.mode = graph ? core::LaunchMode::Graph : core::LaunchMode::Eager;
        o.strategy = strategy_options(max_streams, std::nullopt, graph, {}, {}, {});
        for (const std::string& name : o.strategies) check(core::check_strategy(name, o.strategy));
        if (batch_dim) o.batch_dim = *batch_dim;
        if (iterations < 1) usage("sweep: iterations must be >= 1");
        if (warmup < 0) usage("sweep: warmup must be >= 0");
        o.run.iterations = iterations;
        o.run.warmup = warmup;
        std::unique_ptr<core::Executor> executor;
        if (backend) {
          if (*backend == "cpu") {
            if (graph) usage("sweep: graph=True (CUDA Graph replay) needs backend='cuda'");
            executor = core::make_cpu_executor();
          } else if (*backend == "cuda") {
            // As weft sweep --backend cuda: the preset predicts; no per-node events in the timed runs.
            gpu::CudaRunOptions cuda;
            cuda.cuda_graph = graph;
            executor = gpu::make_cuda_executor(cuda);
            o.calibrate_cpu = false;
            o.output_tolerance = core::kSweepOutputTolerance;
            o.run.per_node_timing = false;
          } else {
            usage("sweep: backend must be 'cpu' or 'cuda', got '" + *backend + "'");
          }
          o.executor = executor.get();
        }
        const auto path = py::cast<std::string>(py::module_::import("os").attr("fspath")(source));
        if (auto read = core::read_file(path); !read) raise(core::make_error(core::ErrorKind::InvalidInput, read.error().message));
        const auto points = take(without_gil([&] { return core::sweep(path, o); }));
        // weft sweep --json's points, with the measured fields None where a point was not measured.
        py::list out = json_loads(core::sweep_json(points));
        for (py::handle point : out)
          for (const char* key : {"measured_ms", "measured_sequential_ms", "measured_speedup"})
            point.attr("setdefault")(key, py::none());
        return out;
      },
      py::arg("model"), py::arg("batches"), py::kw_only(), py::arg("strategies") = py::none(), py::arg("dims") = py::none(),
      py::arg("device") = py::none(), py::arg("graph") = false, py::arg("max_streams") = core::kDefaultMaxStreams,
      py::arg("batch_dim") = py::none(), py::arg("backend") = py::none(), py::arg("iterations") = 3, py::arg("warmup") = 1,
      "As weft sweep: the model imported at each batch (its symbolic batch dimension bound), every strategy (or "
      "those given) scheduled and predicted; backend='cpu' or 'cuda' also runs each point. A list of dicts, one "
      "per point, with the fields of weft sweep's CSV (measured ones None without a backend).");

  m.def(
      "load",
      [](const py::object& source, std::optional<std::map<std::string, long long>> dims, bool fold, std::optional<std::string> device,
         std::optional<std::string> name, std::optional<long long> batch) {
        core::ImportOptions options;
        options.fold = fold;
        if (batch) {
          if (*batch <= 0) usage("batch must be a positive integer, got " + std::to_string(*batch));
          options.batch = *batch;
        }
        if (dims)
          for (const auto& [k, v] : *dims) {
            if (v <= 0) usage("dims['" + k + "'] must be a positive integer, got " + std::to_string(v));
            options.dims[k] = v;
          }
        // As `weft` and the studio open a model (core::open_model); bytes are imported from memory.
        auto request = std::make_shared<core::OpenRequest>();
        request->import = options;
        request->device = device.value_or(std::string());
        const bool from_bytes =
            py::isinstance<py::bytes>(source) || py::isinstance<py::bytearray>(source) || py::isinstance<py::memoryview>(source);
        if (from_bytes) {
          auto copy = py::reinterpret_steal<py::object>(PyBytes_FromObject(source.ptr()));
          if (!copy) throw py::error_already_set();
          auto bytes = std::make_shared<const std::string>(py::cast<std::string>(copy));
          request->path = name ? *name : std::string("<bytes>");
          request->source = [bytes, path = request->path, options]() { return core::import_onnx_bytes(*bytes, path, options); };
        } else {
          if (name) usage("name= is for models given as bytes");
          request->path = py::cast<std::string>(py::module_::import("os").attr("fspath")(source));
        }
        auto opened = take(without_gil([&] { return core::open_model(*request); }));
        return model_of_opened(std::move(opened), request, device.has_value());
      },
      py::arg("source"), py::kw_only(), py::arg("dims") = py::none(), py::arg("fold") = true, py::arg("device") = py::none(),
      py::arg("name") = py::none(), py::arg("batch") = py::none(),
      "Loads an ONNX model from a path or from bytes; dims binds symbolic dimensions ({'batch': 8} or {'input:0': 1}); "
      "batch re-batches a model exported at a static batch (as weft --batch); device names the preset of the cost "
      "model (weft.devices()).");
}

}  // namespace weft::python
