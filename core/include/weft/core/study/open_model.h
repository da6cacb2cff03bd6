#pragma once
// Opening a model: the one pipeline `weft` (every command that takes a MODEL), the studio's loader
// and Python's weft.load / Model.open_schedule share. A schedule file's header is read once; the
// model is imported once (again only where the header's split names another batch, or given
// inputs bind its symbolic dimensions); the split the request or the schedule asks for is
// applied, then the merges, then the schedule is validated on the model as opened; costs,
// analysis and advice follow on request. Progress and cancellation go through a callback.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/analysis/analyze.h"
#include "weft/core/cost/cost_model.h"
#include "weft/core/cost/device.h"
#include "weft/core/graph/graph.h"
#include "weft/core/transform/merge_graph.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/profile/profile.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/schedule/schedule_json.h"
#include "weft/core/study/schedule_study.h"
#include "weft/core/strategy/strategies.h"
#include "weft/core/study/advice.h"
#include "weft/core/study/split_study.h"
#include "weft/core/exec/tensor_files.h"

namespace weft::core {

/// Called between stages with a percentage (0..100) and what comes next; return false to cancel.
using OpenProgress = std::function<bool(int percent, std::string_view stage)>;

struct OpenRequest {
  /// The model file. Read and imported with `import`, unless `source` gives the graph.
  std::string path;
  /// A graph from elsewhere (the studio's synthetic models, tests); `path` then only names it.
  std::function<Expected<Graph>()> source;
  ImportOptions import;
  /// A device preset's name or a device file (`weft calibrate -o`); empty: the default preset.
  /// An unknown name is an error (InvalidInput listing the presets), never the default in disguise.
  std::string device;
  /// Micro-batch split: -1 none (or the one the schedule records), 0 chosen by prediction, k > 0.
  int split = -1;
  LaunchMode split_mode = LaunchMode::Eager;  ///< the launch mode a split is predicted in
  StrategyOptions split_strategy;              ///< stream cap etc. for split-overlap's choice
  /// The merges of the model's default layering (merge_model), unless the schedule records its own.
  bool merge = false;
  /// Vertical fusion (find_fusion_chains, fuse_graph), unless the schedule records its own
  /// fusions. Applied after the split and before the merges, which then group the unfused nodes
  /// only (a fused node has no merged form; OpenedModel::notes says so where both are asked for).
  bool fuse = false;
  /// A schedule to open the model with (schedule JSON): the split it records re-batches a model of
  /// another batch and splits it (unless `split` says otherwise), its merges are applied, and the
  /// schedule is validated on the model as opened. `schedule_file` names it in errors; where
  /// `schedule_text` is not given, the file is read (after the model: its errors come first).
  std::optional<std::string> schedule_text;
  std::string schedule_file;
  /// Where the schedule does not fit (another model, merges that no longer apply): true fails the
  /// open; false opens the model without it and says why (OpenedModel::schedule_refused). A
  /// schedule not required is offered to the model as the request opens it: its split does not
  /// re-batch or split the model (its merges still apply).
  bool schedule_required = true;
  /// Inputs given as files (weft run --inputs, a test data set): their shapes bind the symbolic
  /// dimensions `import.dims` leaves unbound (dims_from_inputs).
  const TensorFiles* given_inputs = nullptr;
  /// A measured profile (ONNX Runtime JSON, PyTorch or Weft Chrome trace; profile.h): mapped onto
  /// the model as imported, its measured node times replace the predicted ones in `costs` before
  /// any study. Empty: none. Not with a split or merges (the profile measured the model as exported).
  std::string profile;
  bool analyze = false;                ///< OpenedModel::analysis (of the model as scheduled)
  std::optional<AdviceOptions> advise;  ///< OpenedModel::advice (with analysis); unsplit is filled in
  OpenProgress progress;                ///< optional
};

struct OpenedModel {
  std::string path;
  bool cancelled = false;  ///< the callback asked to stop: the fields below are partial
  /// The model as imported and split, before any merge: what a strategy schedules unless `merged`.
  /// Shared (the studio's document holds it; Python moves it into its Model). Null only when cancelled.
  std::shared_ptr<Graph> graph;
  CostTable costs;  ///< of `graph`
  DeviceSpec device;
  ImportOptions import;  ///< as used: --dim bindings plus those the given inputs bound, the batch a schedule re-batched to
  std::map<std::string, std::int64_t> bound_from_inputs;  ///< the dims the given inputs bound
  /// A split model: the unsplit model's sequential baselines and the split's one-line summary.
  std::optional<UnsplitBaseline> unsplit;
  std::string split_summary;
  /// The fused model (request.fuse, or the schedule's fusions), its members nodes of `graph`.
  std::shared_ptr<MergedModel> fused;
  /// The model schedules run on where fused or merged (request.fuse, request.merge, or the
  /// schedule's fusions and merges), its members nodes of `graph`: the fused model itself, or the
  /// merges applied to it (or to `graph` where nothing fused).
  std::shared_ptr<MergedModel> merged;
  /// The schedule given with the request, on scheduled_graph().
  std::optional<Schedule> schedule;
  std::string schedule_refused;  ///< schedule_required = false: why the schedule was left out
  /// The request's profile, mapped onto `graph` (whose `costs` carry its measured times), and the
  /// replay of the profiled run's own schedule; null without one.
  std::shared_ptr<const Profile> profile;
  std::optional<ProfileReplay> profile_replay;
  /// With a profile: `costs` as predicted before its measured times replaced them (measured
  /// against predicted, per node). Empty without one.
  CostTable predicted_costs;
  std::shared_ptr<const AnalysisReport> analysis;  ///< of scheduled_graph(), on request
  std::optional<Expected<Advice>> advice;          ///< on request
  /// What opening did beyond import, for the front ends to say: a re-batch, the dims the inputs bound.
  std::vector<std::string> notes;

  /// Nodes of scheduled_graph() that fuse a chain (weft.Fused). O(V).
  std::size_t fused_nodes() const;

  /// The graph schedules address: the merged model's where merged, else `graph`.
  const Graph& scheduled_graph() const { return merged ? merged->graph : *graph; }
  const CostTable& scheduled_costs() const { return merged ? merged->costs : costs; }
};

/// The device a request names (see OpenRequest::device). Errors: InvalidInput for an unknown
/// preset name (listing the known ones) or a device file that is missing or malformed; Runtime
/// when the presets folder itself is missing and a preset is named.
Expected<DeviceSpec> open_device(const std::string& name_or_file);

/// Opens a model as the request says. Errors (InvalidInput unless said): the model file (missing,
/// unreadable, not ONNX), the device, the schedule's header or its fit where required, a split or
/// merge that the model refuses, given inputs that bind one symbol two ways. Cost: one import (two
/// where a schedule's split or given inputs re-bind it), the split's choice, merge_model, and the
/// analysis and advice asked for.
Expected<OpenedModel> open_model(const OpenRequest& request);

/// Splits an opened (unmerged) model further into k micro-batch copies (the studio opens a model as
/// advised this way): graph, costs, unsplit and split_summary replaced; analysis dropped. Errors as
/// apply_split.
Status split_opened_model(OpenedModel& model, int k, LaunchMode mode, const StrategyOptions& strategy);

}  // namespace weft::core
