#pragma once
// The run comparison on ONNX test data: each test_data_set_N's inputs run through the reference
// and the schedule (and the check executor, for a device run), every output compared with the
// set's expected one. `weft run --test-data` (both backends), the studio's Run menu and Python
// call it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weft/core/exec/executor.h"
#include "weft/core/base/expected.h"
#include "weft/core/exec/given_inputs.h"
#include "weft/core/graph/graph.h"
#include "weft/core/exec/output_check.h"
#include "weft/core/schedule/schedule.h"
#include "weft/core/study/run_comparison.h"
#include "weft/core/exec/tensor_files.h"

namespace weft::core {

/// One test data set: its inputs and the outputs expected of them.
struct TestDataSet {
  std::string path;
  TensorFiles inputs;   ///< input_N.pb
  TensorFiles outputs;  ///< output_N.pb
};

struct TestData {
  std::string path;  ///< as given
  std::vector<TestDataSet> sets;  ///< in N order
  /// The tolerance the sets ask for (a data.json with "rtol" and "atol" beside them, as the ONNX
  /// backend tests' real-model folders have); none when there is no such file.
  std::optional<Tolerance> tolerance;
};

/// Reads `path`: a test_data_set_N folder (its input_N.pb and output_N.pb), or a folder of them.
/// A data.json in that folder (or, for a single set, beside it) gives the tolerance. Errors
/// (InvalidInput, naming the file): no set, a set without inputs or outputs, an unreadable or
/// malformed tensor or data.json. O(bytes read).
Expected<TestData> read_test_data(const std::string& path);

/// One set's outputs against its expected ones, for each run that computed them.
struct TestDataSetResult {
  std::string path;
  std::vector<OutputCheck> sequential;  ///< the reference schedule's run
  std::vector<OutputCheck> scheduled;   ///< the schedule's run
  std::vector<OutputCheck> check;       ///< the check executor's run (empty without one)
  std::vector<std::string> warnings;    ///< match_inputs's
  bool passed() const;
};

struct TestDataComparison {
  /// The first set's run comparison (timings with the options' iterations and rounds); further
  /// sets run once each, for their outputs.
  RunComparison compared;
  std::vector<TestDataSetResult> sets;
  Tolerance tolerance;  ///< what the checks used
  bool passed() const;  ///< every set passed
};

/// The first set's inputs matched to `graph` (match_inputs; errors name the set): what the runs
/// a front end makes before the comparison (a CPU calibration, a prediction) start from, so that
/// they take the set's path through the model (silero's If branches on an input's value).
Expected<GivenInputs> first_set_inputs(const Graph& graph, const TestData& data);

/// The runs whose outputs a set was checked on, as reports name them: "scheduled", "sequential"
/// (prefixed with the backend unless it is "cpu": "cuda scheduled"), and "cpu reference" for the
/// check executor's run when there is one.
struct CheckedRun {
  std::string run;
  const std::vector<OutputCheck>* checks;
};
std::vector<CheckedRun> checked_runs(const TestDataSetResult& set, std::string_view backend);

/// The checks as JSON text: rtol, atol, passed, and per set its path, passed, warnings and one
/// entry per output and run (name, run, expected, max_abs_error, max_rel_error,
/// max_scaled_error, elements, mismatched, passed, problem when there is one); NaN and infinite
/// errors as null. What `weft run --test-data --json` and Python's Run.test_data report.
std::string test_data_json(const TestDataComparison& tested, std::string_view backend);

/// The comparison `compare_runs` makes, on each set's inputs (match_inputs against `graph`),
/// with every output of the reference, the schedule and the check run checked against the set's
/// expected outputs under `tolerance`. options.run.inputs is replaced by each set's. A cancel
/// (options.progress) stops between sets: `compared.cancelled` is then set; so does a later
/// stage's failure (`compared.failure`, its stage prefixed with the set's path after the first
/// set), after that set's checks. Errors:
/// match_inputs's (naming the set) and compare_runs's. Cost: compare_runs for the first set, a
/// one-iteration compare_runs (no timed runs, no graph executor) for each further set.
Expected<TestDataComparison> compare_test_data(Executor& executor, const Graph& graph, const Schedule& schedule, const TestData& data,
                                               const RunComparisonOptions& options, const Tolerance& tolerance);

}  // namespace weft::core
