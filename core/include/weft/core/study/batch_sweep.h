#pragma once
// The batch sweep: a model imported at several batch sizes, each strategy's predicted speedup
// over the reference schedule at each (and, with an executor, the measured one). `weft sweep`
// prints, writes and plots it; every point is independent, so a sweep may be cut into points
// run on different machines and their CSV rows merged (sweep_from_csv).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "weft/core/cost/device.h"
#include "weft/core/exec/executor.h"
#include "weft/core/graph/graph.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/sim/simulator.h"
#include "weft/core/strategy/strategies.h"

namespace weft::core {

/// One strategy at one batch size.
struct SweepPoint {
  std::string model;      ///< the model file's path
  std::int64_t batch = 0;
  std::string strategy;
  std::string device;     ///< the device predicted on ("cpu" when calibrated from a CPU run)
  std::string mode;       ///< launch mode of the prediction ("eager", "graph"; "cpu" on a CPU device)
  int streams = 0;
  std::size_t events = 0;
  double predicted_us = 0;             ///< the schedule's predicted makespan
  double predicted_sequential_us = 0;  ///< the reference schedule's, same device and mode
  double predicted_speedup = 0;
  std::optional<double> measured_ms;             ///< with an executor: median wall time
  std::optional<double> measured_sequential_ms;  ///< the reference schedule's
  std::optional<double> measured_speedup;
  /// SweepOptions::hybrid: the nodes that ran (or are predicted) on a team other than their
  /// stream's and the largest such team (0, 0: none). Not in the CSV; in the JSON where > 0.
  std::size_t hybrid_nodes = 0;
  int hybrid_threads = 0;
};

struct SweepOptions {
  /// The symbolic dimension bound to each batch; "": find it (find_batch_dim). A model whose
  /// batch is static (dim 0 of every input a number) is re-batched at each point instead, as
  /// ImportOptions::batch (`--batch`) does; a point whose re-batched model keeps the exported
  /// batch (a Reshape to a constant shape) is refused, naming the output.
  std::string batch_dim;
  std::vector<std::int64_t> batches;   ///< each > 0
  std::vector<std::string> strategies; ///< registered names; empty: every fixed strategy
  ImportOptions import;                ///< other dims (--dim) and folding
  DeviceSpec device;                   ///< predictions without an executor
  LaunchMode mode = LaunchMode::Eager;
  StrategyOptions strategy;            ///< stream cap, granularity, search budget
  /// With an executor, every schedule also runs for real and its measured speedup over the
  /// reference run is kept. calibrate_cpu (the CPU executor): each batch's reference run
  /// calibrates a CPU device (fit_cpu_device) that predicts; off (CUDA, launched as `mode` says):
  /// `device` predicts.
  Executor* executor = nullptr;
  /// A measured profile of the model as `import` opens it (profile.h; not with an executor): at
  /// that batch its measured node times replace the predictions; every batch is predicted on
  /// `device` fitted to it (fit_device_to_profile). Empty: none.
  std::string profile;
  bool calibrate_cpu = true;
  /// How far a schedule's float outputs may be from the reference run's: |a − b| ≤ this ×
  /// max(1, largest |reference output|). 0: bit for bit (the CPU executor's promise); the CUDA
  /// sweep uses kSweepOutputTolerance. Other outputs (integers, booleans) always match exactly.
  double output_tolerance = 0;
  RunOptions run;
  /// Hybrid teams on a CPU (`weft sweep --hybrid`): each point's schedule, once made for the
  /// CPU, gets make_hybrid's teams (the nodes that run alone on a team of every core the streams
  /// hold; the nodes under kHybridMinNodeUs by the point's node times stay on their stream's)
  /// on the executor's cores (cpu_count()) or, predicted only, on `device`'s. Measured, the
  /// reference runs each node on the schedule's team too (as compare_runs does: the outputs
  /// compare bit for bit and the speedup is the streams'), and the prediction takes that run's
  /// node times; predicted only, a wide node takes its team's rates where `device` was
  /// calibrated at that team size (cpu_node_team_costs) and the baseline is the plain
  /// sequential run. Needs a CPU: the CPU executor with calibrate_cpu, or a CPU `device`.
  /// split-overlap's points stay without (their baseline runs the unsplit model).
  bool hybrid = false;
  /// Called after each point; return false to stop (the points so far are returned).
  std::function<bool(const SweepPoint&)> on_point;
  /// Called with what the sweep assumed (a static batch re-batched) and each point's import
  /// warnings, prefixed with the batch. Optional.
  std::function<void(const std::string&)> on_note;
};

/// A CUDA sweep's output agreement: |scheduled − reference| ≤ this × max(1, largest |reference
/// output|). Kernels chosen by shape (a micro-batch copy's convolution) may sum in another order.
inline constexpr double kSweepOutputTolerance = 1e-3;

/// The batch dimension of a model imported without it bound: the one symbol at dim 0 of the
/// graph inputs that is still unknown ("INPUT:0" for an unnamed one, bound by position). Errors (InvalidInput): none (the batch is static: nothing
/// to sweep) or several (name one with batch_dim), listing what was found.
Expected<std::string> find_batch_dim(const Graph& graph);

/// Imports `model_path` at every batch and studies every strategy there, batches outer.
/// Errors: import (InvalidInput, naming the batch), an unknown strategy or batch dimension
/// (InvalidInput), hybrid without a CPU (InvalidInput), the executor's; a schedule whose run
/// differs from the reference run (Internal). Cost: per batch an import, per strategy
/// make_schedule + 2 simulations (+ 1 run with an executor, + 1 reference run with its hybrid
/// teams where it has some).
Expected<std::vector<SweepPoint>> sweep(const std::string& model_path, const SweepOptions& options);

/// The CSV header and one row per point (RFC 4180 quoting); empty optional fields stay empty.
std::string sweep_csv(const std::vector<SweepPoint>& points, bool header = true);
/// The points as a JSON array (`weft sweep --json`, Python's weft.sweep): one object per point with
/// the CSV's fields; the measured ones only where the point was measured.
std::string sweep_json(const std::vector<SweepPoint>& points);
/// Points back from sweep_csv text (headers may repeat, as when point files are concatenated).
/// Errors (InvalidInput) name the line: a wrong header, a short row, a field that is not a number.
Expected<std::vector<SweepPoint>> sweep_from_csv(std::string_view text, std::string_view origin);

}  // namespace weft::core
