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

#include "weft/core/cost/cost_model.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/analysis/critical_path.h"
#include "weft/core/cost/device.h"
#include "weft/core/schedule/execution_order.h"
#include "weft/core/base/file_io.h"
#include "weft/core/graph/fused_node.h"
#include "weft/core/transform/horizontal_merge.h"
#include "weft/core/transform/micro_batch.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/schedule/schedule_edit.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/strategy/strategy_external.h"
#include "weft/core/study/cpu_calibration.h"
#include "weft/core/study/memory_report.h"
#include "weft/core/study/merge_study.h"
#include "weft/core/study/split_study.h"
#include "weft/core/study/batch_sweep.h"
#include "weft/core/study/test_data.h"
#include "weft/core/sim/timeline_json.h"
#include "weft/core/transform/wire_layering.h"
#include "weft/gpu/cuda_executor.h"
#include "weft_python.h"

namespace weft::python {

namespace {

/// The unmerged model's node keys of each node of `mo` that `is_kind` (merged, fused) holds.
py::list members_of(const Model& mo, bool (*is_kind)(const core::Node&)) {
  py::list out;
  if (mo.merged && mo.unmerged)
    for (std::size_t v = 0; v < mo.merged->members.size(); ++v)
      if (is_kind(mo.graph.node(static_cast<core::NodeId>(v)))) out.append(node_keys(mo.unmerged->graph, mo.merged->members[v]));
  return out;
}

void add_model_properties(ModelClass& model) {
  model
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
      .def_property_readonly("measured_from",
                             [](const Model& mo) -> std::optional<std::string> {
                               if (mo.costs.measured_from.empty()) return std::nullopt;
                               return mo.costs.measured_from;
                             },
                             "The profile whose measured node times replaced the predictions (its source and file), or None.")
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
      .def_property_readonly("merges", [](const Model& mo) { return members_of(mo, core::is_merged_node); },
        "A merged model's merge groups: the unmerged model's node keys each merged node runs (empty when not merged).")
      .def_property_readonly("fusions", [](const Model& mo) { return members_of(mo, core::is_fused_node); }, "A fused model's chains (weft.load(fuse=True)): the unfused model's node keys each fused node runs, producer first "
         "(empty when not fused).")
      .def_property_readonly("unmerged", [](const Model& mo) -> py::object {
        if (!mo.unmerged) return py::none();
        return py::cast(std::const_pointer_cast<Model>(mo.unmerged));
      }, "The model a merged model was made from; None otherwise.");
}

void add_model_transforms(ModelClass& model) {
  model
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
            if (mo->merged) usage("merge: the model is merged or fused already (weft.load(fuse=True) cannot merge after; weft ... --fuse --merge can)");
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
          "ASAP depth, and the merge groups with launches before and after. A dict.");
}

void register_load(py::module_& m) {
  m.def(
      "load",
      [](const py::object& source, std::optional<std::map<std::string, long long>> dims, bool fold, std::optional<std::string> device,
         std::optional<std::string> name, std::optional<long long> batch, const py::object& profile, bool fuse) {
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
        request->fuse = fuse;
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
        if (!profile.is_none()) request->profile = py::cast<std::string>(py::module_::import("os").attr("fspath")(profile));
        auto opened = take(without_gil([&] { return core::open_model(*request); }));
        return model_of_opened(std::move(opened), request, device.has_value());
      },
      py::arg("source"), py::kw_only(), py::arg("dims") = py::none(), py::arg("fold") = true, py::arg("device") = py::none(),
      py::arg("name") = py::none(), py::arg("batch") = py::none(), py::arg("profile") = py::none(), py::arg("fuse") = false,
      "Loads an ONNX model from a path or from bytes; dims binds symbolic dimensions ({'batch': 8} or {'input:0': 1}); "
      "batch re-batches a model exported at a static batch (as weft --batch); device names the preset of the cost "
      "model (weft.devices()); profile is a measured profile of the model (ONNX Runtime profiler JSON, PyTorch or Weft "
      "Chrome trace) whose node times replace the predictions (as weft --profile; Model.measured_from names it); fuse "
      "fuses each Conv with the Relu/Clip/LeakyRelu/residual Add after it into one node (as weft --fuse; Model.fusions "
      "lists the chains, runs compare with the unfused model).");
}

}  // namespace

void register_model(py::module_& m) {
  ModelClass model(m, "Model", "An ONNX model loaded by weft.load(), with a device's cost model.");
  add_model_properties(model);
  add_model_transforms(model);
  add_model_studies(model);
  add_model_run(model);
  register_load(m);
  register_sweep(m);
}

}  // namespace weft::python
