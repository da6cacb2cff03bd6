// Opening a model: device, import (bound by --dim, the given inputs or a schedule's split), the
// split, the merges, the schedule given, costs, analysis and advice; one pipeline for every front end.
#include "weft/core/study/open_model.h"

#include <utility>

#include "weft/core/base/file_io.h"
#include "weft/core/exec/given_inputs.h"
#include "weft/core/transform/micro_batch.h"
#include "weft/core/exec/cpu_executor.h"
#include "weft/core/profile/profile.h"
#include "weft/core/study/merge_study.h"
#include "weft/core/transform/vertical_fusion.h"

namespace weft::core {

namespace {

/// `m` studied on a device of the profile's kind fitted to it (fit_device_to_profile), its
/// predicted costs re-estimated there. A CPU gets the cores of this machine where the profile
/// ran fewer streams (ONNX Runtime's sequential executor: one), so that the studies can still
/// say what streams would buy here; a note names the device.
Status study_on_profiled_device(OpenedModel& m, const Profile& profile) {
  const bool cpu = profile.device_kind == DeviceKind::Cpu;
  WEFT_TRY_ASSIGN(DeviceSpec fitted, fit_device_to_profile(*m.graph, profile, m.device, cpu ? "cpu-profile" : "gpu-profile"));
  fitted.display_name = std::string(cpu ? "a CPU" : "a GPU") + " fitted to " + profile.source + " (efficiencies against " +
                        m.device.name + "'s rates)";
  std::string cores;
  if (cpu && fitted.sm_count < cpu_count()) {
    fitted.sm_count = cpu_count();
    cores = ", " + std::to_string(fitted.sm_count) + " cores (this machine's; --device FILE for another)";
  }
  m.notes.push_back("studied on " + fitted.name + ": " + fitted.display_name + cores);
  m.device = std::move(fitted);
  m.costs = estimate_costs(*m.graph, m.device);
  return {};
}

/// Imports the request's model: from `source`, or from the file's bytes (read once by the caller).
Expected<Graph> import_model(const OpenRequest& request, const std::optional<std::string>& bytes, const ImportOptions& import) {
  if (request.source) return request.source();
  return import_onnx_bytes(*bytes, request.path, import);
}

/// Where the schedule does not fit: the error (required), or the reason kept (not required).
Status refuse_schedule(const OpenRequest& request, OpenedModel& m, const Error& why) {
  const Error named = make_error(why.kind, (request.schedule_file.empty() ? std::string("schedule") : request.schedule_file) + ": " + why.message);
  if (request.schedule_required) return named;
  m.schedule_refused = named.message;
  return {};
}

/// The fusions the schedule records (ids of the model as split), or every fusable chain where
/// the request fuses; a schedule whose fusions no longer apply falls back as refuse_schedule says.
Status apply_fusions(const OpenRequest& request, const std::optional<std::string>& schedule_text, OpenedModel& m) {
  std::optional<std::vector<std::vector<NodeId>>> recorded;
  if (schedule_text) {
    auto chains = schedule_fusions_from_json(*m.graph, *schedule_text);
    if (!chains) WEFT_TRY(refuse_schedule(request, m, chains.error()));
    else if (!chains->empty()) recorded = std::move(*chains);
  }
  if (!request.fuse && !recorded) return {};
  if (recorded) {
    auto fused = fuse_graph(*m.graph, m.costs, m.device, *recorded);
    if (fused) {
      m.fused = std::make_shared<MergedModel>(std::move(*fused));
      m.merged = m.fused;
      return {};
    }
    WEFT_TRY(refuse_schedule(request, m, fused.error()));
    if (!request.fuse) return {};
  }
  WEFT_TRY_ASSIGN(auto fused, fuse_graph(*m.graph, m.costs, m.device, find_fusion_chains(*m.graph)));
  m.fused = std::make_shared<MergedModel>(std::move(fused));
  m.merged = m.fused;
  return {};
}

/// The merges the schedule records (ids of the model as split and fused), or the default
/// layering's where the request merges; a schedule whose merges no longer apply falls back as
/// refuse_schedule says. On a fused model the merges group its unfused nodes (mergeable_op has no
/// fused operator) and their members are named in the unfused model (compose_transforms).
Status apply_merges(const OpenRequest& request, const std::optional<std::string>& schedule_text, OpenedModel& m) {
  const Graph& base = m.fused ? m.fused->graph : *m.graph;
  const CostTable& base_costs = m.fused ? m.fused->costs : m.costs;
  const auto keep = [&](MergedModel merged) {
    m.merged = std::make_shared<MergedModel>(m.fused ? compose_transforms(*m.fused, std::move(merged)) : std::move(merged));
  };
  std::optional<std::vector<std::vector<NodeId>>> recorded;
  if (schedule_text) {
    auto groups = schedule_merges_from_json(base, *schedule_text);
    if (!groups) WEFT_TRY(refuse_schedule(request, m, groups.error()));
    else if (!groups->empty()) recorded = std::move(*groups);
  }
  if (!request.merge && !recorded) return {};
  if (recorded) {
    auto merged = merge_model(base, base_costs, m.device, std::move(*recorded));
    if (merged) {
      keep(std::move(*merged));
      return {};
    }
    WEFT_TRY(refuse_schedule(request, m, merged.error()));
    if (!request.merge) return {};
  }
  WEFT_TRY_ASSIGN(auto merged, merge_model(base, base_costs, m.device));
  keep(std::move(merged));
  if (m.fused && request.fuse)
    m.notes.push_back("merging groups the unfused operators: the " + std::to_string(m.fused_nodes()) + " fused nodes stay as they are");
  return {};
}

}  // namespace

Expected<DeviceSpec> open_device(const std::string& name_or_file) {
  if (name_or_file.empty()) return load_device(default_device_name());
  // A device file (e.g. from `weft calibrate`): its problems are the input's.
  if (is_device_file(name_or_file)) return load_device_file(name_or_file);
  WEFT_TRY(check_device_name(name_or_file));
  return load_device(name_or_file);
}

Expected<OpenedModel> open_model(const OpenRequest& request) {
  OpenedModel m;
  m.path = request.path;
  const auto stage = [&](int percent, std::string_view what) {
    if (request.progress && !request.progress(percent, what)) m.cancelled = true;
    return !m.cancelled;
  };
  WEFT_TRY_ASSIGN(m.device, open_device(request.device));

  if (!stage(5, "Importing " + request.path)) return m;
  // The model file is the caller's input: missing or unreadable is invalid input.
  std::optional<std::string> bytes;
  if (!request.source) {
    auto read = read_file(request.path);
    if (!read) return make_error(ErrorKind::InvalidInput, read.error().message);
    bytes = std::move(*read);
  }
  m.import = request.import;
  WEFT_TRY_ASSIGN(Graph graph, import_model(request, bytes, m.import));
  // The given inputs' shapes bind what --dim left unbound: imported again, bound.
  if (request.given_inputs && !graph.info().unresolved_dims.empty()) {
    WEFT_TRY_ASSIGN(m.bound_from_inputs, dims_from_inputs(graph, *request.given_inputs, m.import.dims));
    if (!m.bound_from_inputs.empty()) {
      std::string said;
      for (const auto& [key, value] : m.bound_from_inputs) said += (said.empty() ? "" : ", ") + key + "=" + std::to_string(value);
      m.notes.push_back("bound from the given inputs' shapes: " + said);
      m.import.dims.insert(m.bound_from_inputs.begin(), m.bound_from_inputs.end());
      WEFT_TRY_ASSIGN(graph, import_model(request, bytes, m.import));
    }
  }
  // The schedule's header, read once (after the model, whose errors come first): the split it
  // records decides the batch the model opens at.
  std::optional<std::string> text = request.schedule_text;
  if (!text && !request.schedule_file.empty()) {
    WEFT_TRY_ASSIGN(text, read_file(request.schedule_file, kMaxTextBytes));
  }
  std::optional<ScheduleHeader> header;
  if (text) {
    auto h = schedule_header_from_json(*text);
    if (h) header = std::move(*h);
    else WEFT_TRY(refuse_schedule(request, m, h.error()));
  }
  // A schedule for another model fails here, before any split or merge work is spent on it.
  if (header)
    if (auto ok = check_schedule_model(*header, graph); !ok) {
      WEFT_TRY(refuse_schedule(request, m, ok.error()));
      header.reset();
    }
  // A schedule that records a split of batch B re-batches a model of another batch (a
  // static-batch export), as --batch B would. Only a schedule the model is opened for reshapes it:
  // one merely offered (a project's) must fit the model as the request opens it.
  const int recorded_k = header && request.schedule_required ? header->split.k : 1;
  if (recorded_k > 1 && header->split.batch > 0 && m.import.batch == 0 && !request.source &&
      graph_batch(graph) != header->split.batch) {
    if (!stage(10, "Re-batching to " + std::to_string(header->split.batch))) return m;
    m.import.batch = header->split.batch;
    m.notes.push_back("re-batched to " + std::to_string(header->split.batch) + ", the batch " +
                      (request.schedule_file.empty() ? std::string("the schedule") : request.schedule_file) + " splits");
    WEFT_TRY_ASSIGN(graph, import_model(request, bytes, m.import));
  }
  m.graph = std::make_shared<Graph>(std::move(graph));
  if (!stage(20, "Estimating costs")) return m;
  m.costs = estimate_costs(*m.graph, m.device);
  if (!request.profile.empty()) {
    // Measured times replace predictions before any split, merge or study sees the costs.
    if (request.split >= 0 || request.merge || request.fuse || recorded_k > 1)
      return make_error(ErrorKind::InvalidInput, request.profile + ": a profile measures the model as exported; not with a split" +
                                                     (request.fuse ? ", merges or fusion" : " or merges"));
    if (!stage(25, "Mapping the profile")) return m;
    WEFT_TRY_ASSIGN(Profile profile, load_profile(*m.graph, m.costs, request.profile));
    // A profile measured on another kind of device than the default preset (ONNX Runtime's CPU
    // EP against a GPU preset) is studied on a device fitted to it, as `weft calibrate --profile`
    // makes: CPU times judged with a GPU's launches and events would advise CUDA Graphs for a CPU.
    // A device asked for by name or file is kept, as asked.
    if (request.device.empty() && profile.device_kind != m.device.kind) WEFT_TRY(study_on_profiled_device(m, profile));
    // Replayed on the device the studies use (its label names it in the studio's timeline).
    m.profile_replay = replay_profile(*m.graph, m.costs, profile, m.device);
    m.predicted_costs = m.costs;
    m.costs = apply_profile(m.costs, profile);
    m.profile = std::make_shared<const Profile>(std::move(profile));
  }

  // The split asked for, else the one the schedule records.
  const int k = request.split >= 0 ? request.split : recorded_k > 1 ? recorded_k : -1;
  if (k >= 0) {
    if (!stage(30, "Splitting the batch")) return m;
    if (k == 0 && !can_simulate(m.device))
      return make_error(ErrorKind::InvalidInput, "a split chosen by prediction needs a device with rates; '" + m.device.name + "' has none");
    WEFT_TRY(split_opened_model(m, k, request.split_mode, request.split_strategy));
  }

  const std::optional<std::string> schedule_text = header ? text : std::nullopt;
  if (request.fuse || (header && header->fusions > 0)) {
    if (!stage(40, "Fusing")) return m;
    WEFT_TRY(apply_fusions(request, schedule_text, m));
  }
  if (request.merge || (header && header->merges > 0)) {
    if (!stage(45, "Merging")) return m;
    WEFT_TRY(apply_merges(request, schedule_text, m));
  }
  if (schedule_text && m.schedule_refused.empty()) {
    // Validated on the model as opened (split and merged as it records; the model's sha256 checked).
    auto given = schedule_from_json(m.scheduled_graph(), *schedule_text);
    if (given) m.schedule = std::move(*given);
    else WEFT_TRY(refuse_schedule(request, m, given.error()));
  }

  if (request.analyze || request.advise) {
    if (!stage(55, "Analysing")) return m;
    m.analysis = std::make_shared<const AnalysisReport>(analyze(m.scheduled_graph(), m.scheduled_costs()));
  }
  if (request.advise) {
    if (!stage(65, "Advising")) return m;
    AdviceOptions options = *request.advise;
    if (m.unsplit) options.unsplit = m.unsplit;
    m.advice = advise(m.scheduled_graph(), *m.analysis, m.device, options);
  }
  stage(100, "Opened");
  m.cancelled = false;  // finished: a late cancel changes nothing
  return m;
}

std::size_t OpenedModel::fused_nodes() const { return count_fused_nodes(scheduled_graph()); }

Status split_opened_model(OpenedModel& model, int k, LaunchMode mode, const StrategyOptions& strategy) {
  SplitOptions options;
  options.k = k;
  options.mode = mode;
  options.strategy = strategy;
  WEFT_TRY_ASSIGN(auto split, apply_split(*model.graph, model.device, options));
  model.graph = std::make_shared<Graph>(std::move(split.graph));
  model.costs = std::move(split.costs);
  model.unsplit = split.unsplit;
  model.split_summary = std::move(split.summary);
  model.analysis.reset();
  return {};
}

}  // namespace weft::core
