#pragma once
// What `weft run` reads and writes besides the model, on both backends: --inputs, --test-data,
// --save-outputs, --save-model, --rtol, --atol. Parsing and printing only; the reading, matching
// and checking are core's (tensor_files, given_inputs, study/test_data).
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "weft/core/exec/executor.h"
#include "weft/core/exec/output_check.h"
#include "weft/core/study/run_comparison.h"
#include "weft/core/study/test_data.h"
#include "weft/core/exec/tensor_files.h"

namespace weft::cli {

/// `weft run`'s exit code when outputs differ from the test data (docs/inputs-and-test-data.md).
inline constexpr int kExitTestDataMismatch = 5;

struct RunData {
  std::optional<core::TensorFiles> inputs;  ///< --inputs
  std::optional<core::TestData> test_data;  ///< --test-data
  std::optional<std::string> save_outputs;  ///< --save-outputs
  std::optional<std::string> save_model;    ///< --save-model
  core::Tolerance tolerance;                ///< --rtol/--atol, else the test data's data.json, else ONNX's defaults
  std::string tolerance_from;               ///< "" (defaults), "data.json" or "--rtol/--atol"
  std::map<std::string, std::int64_t> bound_dims;  ///< what load_run_model bound from the inputs' shapes
};

/// Reads the options (which `weft run` declares in parse()) and their files. Usage errors: --inputs with --test-data, --save-outputs
/// with --test-data, a tolerance that is not a non-negative number or without --test-data.
/// InvalidInput: core's, for files that are missing, unreadable or malformed.
core::Expected<RunData> run_data(const Args& args);

/// load_model(args), with the symbolic input dims that --dim leaves unbound bound from the given
/// inputs' shapes (--inputs, or the first test data set's) into data.bound_dims; said on stderr.
core::Expected<LoadedModel> load_run_model(const Args& args, RunData& data);

/// Before the run: --save-model written (core::save_model_with_weights, the model imported as
/// load_run_model imported it), --inputs (or the first test data set's inputs) matched to
/// `graph`'s inputs into `run.inputs` (warnings on stderr as "weft run: warning: ...").
core::Status prepare_run(const Args& args, const RunData& data, const core::Graph& graph, core::RunOptions& run);

/// The run comparison: core::compare_test_data with --test-data (its per-set checks into
/// `tested`), else core::compare_runs.
core::Expected<core::RunComparison> compare_with_data(const RunData& data, core::Executor& executor, const core::Graph& graph,
                                                      const core::Schedule& schedule, const core::RunComparisonOptions& options,
                                                      std::optional<core::TestDataComparison>& tested);

/// After the run: --save-outputs written (the schedule's outputs). Errors: the writer's.
core::Status save_run_outputs(const RunData& data, const core::Graph& graph, const core::RunComparison& compared);

/// The test data checks as JSON (key "test_data") and as text lines; `runs` names the runs
/// whose outputs were checked: sequential, scheduled, check.
void add_test_data_json(nlohmann::ordered_json& j, const RunData& data, const core::TestDataComparison& tested,
                        std::string_view backend);
void print_test_data(std::ostream& out, const RunData& data, const core::TestDataComparison& tested, std::string_view backend);

/// 0 when there was no test data or it passed, kExitTestDataMismatch (with the reason on
/// stderr) when an output differs.
int test_data_exit(const std::optional<core::TestDataComparison>& tested);

}  // namespace weft::cli
