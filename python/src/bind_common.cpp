// Helpers the bind_*.cpp files share: nodes and schedules given from Python, strategy options,
// the Models a load, split or merge makes, and tensors to and from numpy.
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "weft/core/analysis/analyze.h"
#include "weft/core/cost/cost_model.h"
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
#include "weft/core/study/cpu_calibration.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/study/split_study.h"
#include "weft/core/study/batch_sweep.h"
#include "weft/core/sim/timeline_json.h"
#include "weft/core/transform/wire_layering.h"
#include "weft/gpu/cuda_executor.h"
#include "weft_python.h"

namespace weft::python {

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

}  // namespace weft::python
