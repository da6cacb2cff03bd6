#pragma once
// Measured profiles from the runtimes people deploy, mapped onto an opened model's nodes:
// ONNX Runtime's profiler JSON (enable_profiling), PyTorch's profiler Chrome trace
// (torch.profiler export_chrome_trace) and Weft's own Chrome trace (chrome_trace.h), so that
// measured node times replace predicted ones node by node (DESIGN.md, "Cost") in every study,
// a device can be fitted to them, and the profiled run's own schedule can be replayed.
// docs/profiles.md describes the formats and the mapping.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/cost_model.h"
#include "weft/core/device.h"
#include "weft/core/expected.h"
#include "weft/core/graph.h"
#include "weft/core/schedule.h"
#include "weft/core/timeline.h"

namespace weft::core {

/// Where a profile comes from.
enum class ProfileFormat : std::uint8_t {
  OnnxRuntime,  ///< ONNX Runtime profiler JSON: an array of events, cat "Node" with "_kernel_time"
  PyTorch,      ///< torch.profiler Chrome trace: aten CPU operators, CUDA kernels by correlation id
  WeftTrace,    ///< Weft's own Chrome trace (round trip): X events named by node key
};
/// "onnxruntime", "pytorch" or "weft".
std::string_view profile_format_name(ProfileFormat format);

/// How a node got its measured time.
enum class ProfileMatch : std::uint8_t {
  None,          ///< nothing in the profile matched: the node keeps its prediction
  Exact,         ///< an event named after the node
  OutputTensor,  ///< an event named after the node's output tensor (ONNX Runtime at level "all":
                 ///< the original output plus suffixes like "_nchwc")
  FusedChain,    ///< one member of a fused event's chain (e.g. Conv+Relu): the event's time spread
                 ///< over the members by predicted cost share
  Scope,         ///< PyTorch: the exporter's scope name (module path) and the operator sequence
  RoundTrip,     ///< Weft's own trace: the node's key
};
/// "none", "exact", "output-tensor", "fused-chain", "scope", "round-trip".
std::string_view profile_match_name(ProfileMatch match);

/// Events of the profile that matched no node, aggregated by name.
struct UnmatchedEvent {
  std::string name;
  std::string op;       ///< the event's operator (ONNX Runtime op_name, aten name), when recorded
  double time_us = 0;   ///< median time per iteration
};

/// A measured profile mapped onto one graph (the model as opened, before any split or merge).
/// Per-node vectors are indexed by NodeId and have the graph's node count.
struct Profile {
  std::string path;    ///< the file, as given
  ProfileFormat format = ProfileFormat::OnnxRuntime;
  /// For people: e.g. "ONNX Runtime CPU EP, median of 10 runs" or "PyTorch CPU trace, 5 steps".
  std::string source;
  /// What ran the profiled kernels: a CPU (ONNX Runtime's CPU EP, a PyTorch CPU trace, Weft's
  /// CPU executor) or a GPU; replay and fitting simulate that kind of device.
  DeviceKind device_kind = DeviceKind::Cpu;
  int runs = 0;              ///< profiled iterations aggregated (the median is over these)
  double iteration_us = 0;   ///< the profile's own total per iteration (median over runs), µs
  /// Per node: measured time per iteration, µs (median over runs); nullopt where nothing matched.
  std::vector<std::optional<double>> node_us;
  std::vector<ProfileMatch> match;  ///< per node; None where node_us is nullopt
  /// Per node: the stream it ran on (PyTorch: the trace's CUDA streams or CPU threads, renumbered
  /// 0..; ONNX Runtime's sequential executor: 0); -1 where unmatched.
  std::vector<int> stream;
  /// The profiled run's own schedule, what replay_profile simulates: per stream the nodes in the
  /// order they first started; unmatched nodes are placed after their last placed predecessor on
  /// its stream (stream 0 without one). Events: the cross-stream data edges (compute_events).
  Schedule schedule;
  /// One representative iteration (the median one) as a measured timeline: items of matched
  /// nodes relative to the iteration's start; a fused chain's members split its interval, and
  /// events that matched no node lengthen the node run before them.
  Timeline measured;
  /// Every profiled iteration as measured, in order (the same form as `measured`, which is one of them).
  std::vector<Timeline> iterations;
  std::vector<double> iteration_times_us;  ///< each iteration's own duration, µs, in order
  /// Mean idle time between consecutive kernels on one stream within an iteration, µs, leaving
  /// out pre-emptions (gaps over 20 times the median): the launch and gap cost `weft calibrate
  /// --profile` fits.
  double gap_us = 0;
  /// Kernel records in the median iteration, matched or not (a fused chain's one kernel counts
  /// once): how many gaps its streams paid, where nodes and kernels differ in number.
  std::size_t kernels = 0;
  std::vector<UnmatchedEvent> unmatched_events;  ///< largest time first
  std::vector<NodeId> unmatched_nodes;           ///< operators (nonzero predicted cost) with no time, ascending
  std::vector<std::string> notes;                ///< what the mapping did beyond exact names, for the report

  /// Nodes with a measured time.
  std::size_t matched_count() const;
  /// Nodes with a measured time by how they matched, indexed by ProfileMatch.
  std::vector<std::size_t> match_counts() const;
};

struct ProfileOptions {
  /// The format; nullopt: told from the content (an array of events with "cat": "Node" is ONNX
  /// Runtime's, a trace with "otherData" naming Weft is Weft's, any other Chrome trace PyTorch's).
  std::optional<ProfileFormat> format;
  /// Below this share of the graph's operators (nodes of nonzero predicted cost, and nodes the
  /// profile timed) matched, the profile is refused as a profile of another model.
  double min_matched_share = 0.5;
};

/// Maps the profile `text` (the file's bytes; `path` names it in errors and in Profile::path)
/// onto `graph`, whose `predicted` costs spread fused events over their members. Nothing is
/// applied: callers replace costs with apply_profile(). Errors (all InvalidInput, naming the
/// file): malformed or truncated JSON, no node events (e.g. a profile recorded without
/// operators, or only session events), a format that cannot be told, a profile of another
/// model (fewer than min_matched_share of the operators matched: the share is said). O(events
/// log events + V + tensors).
Expected<Profile> import_profile(const Graph& graph, const CostTable& predicted, std::string_view text,
                                 const std::string& path, const ProfileOptions& options = {});

/// import_profile() of the file at `path` (read with read_file's text limit). Errors: the file
/// missing or unreadable (InvalidInput), then as import_profile().
Expected<Profile> load_profile(const Graph& graph, const CostTable& predicted, const std::string& path,
                               const ProfileOptions& options = {});

/// `predicted` with every measured node's time replaced (NodeCost::measured set); the others keep
/// their prediction. CostTable::measured_from names the profile (studies say so). O(V).
CostTable apply_profile(const CostTable& predicted, const Profile& profile);

/// Replay fidelity: the profiled run's own schedule simulated with each iteration's measured
/// times, against that iteration's measured duration; the iteration of median error is reported
/// (a machine that pre-empted one iteration between kernels does not decide the figure).
struct ProfileReplay {
  int iteration = 0;       ///< the iteration reported
  double measured_us = 0;  ///< its measured duration
  double replayed_us = 0;  ///< makespan of its simulated replay
  double error = 0;        ///< (replayed − measured) / measured: the median over the iterations
  double worst_error = 0;  ///< the largest |error| of any iteration, signed
  Timeline timeline;       ///< the simulated run (label "replay: <source>")
};

/// Simulates `profile.schedule` on `device` (made of the profile's device kind) with each
/// iteration's own node times (Profile::iterations; Lumos replays a trace's own durations), nodes
/// without one at zero (the profiled run did not run them as kernels of their own), the profile's own launch and gap cost (gap_us as the device's
/// launch_us) and no contention (measured times already carry it). O(iterations · (V + E) log V).
ProfileReplay replay_profile(const Graph& graph, const CostTable& predicted, const Profile& profile,
                             const DeviceSpec& device);

/// `weft calibrate --profile`: `preset` with its rates fitted to the profile. Per operator family
/// (conv, gemm/matmul, elementwise, normalisation, pooling, data movement, other) the measured /
/// predicted ratio (median) scales that family's time, recorded as the device's efficiency per
/// family; launch_us and kernel_min_us come from the idle time between kernels on one stream.
/// `name` names the new device; it is of the profile's kind (a CPU profile fitted against a GPU
/// preset keeps the preset's rates as the reference its efficiencies scale). Errors (InvalidInput): a preset without rates, no measured
/// node of known cost. O(V log V).
Expected<DeviceSpec> fit_device_to_profile(const Graph& graph, const Profile& profile, const DeviceSpec& preset,
                                           const std::string& name);

/// The mapping report as text: the replay error first, then the source, iteration time, nodes by
/// how they matched, unmatched nodes and the largest unmatched events. O(V).
std::string profile_report_text(const Graph& graph, const Profile& profile, const ProfileReplay& replay);
/// The same as JSON (format "weft-profile-report", version 1). O(V).
std::string profile_report_json(const Graph& graph, const Profile& profile, const ProfileReplay& replay);

}  // namespace weft::core
