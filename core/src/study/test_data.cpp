// ONNX test data sets through the run comparison: each set's inputs in, every run's outputs
// checked against the set's expected outputs.
#include "weft/core/study/test_data.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "weft/core/base/file_io.h"
#include "weft/core/exec/given_inputs.h"

namespace weft::core {
namespace {

namespace fs = std::filesystem;

// N of a "test_data_set_N" folder name.
std::optional<long long> set_number(const std::string& name) {
  const std::string head = "test_data_set_";
  if (name.size() <= head.size() || name.compare(0, head.size(), head) != 0 || name.size() - head.size() > 9) return std::nullopt;
  const std::string digits = name.substr(head.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  return std::stoll(digits);
}

Expected<TestDataSet> read_set(const std::string& folder) {
  TestDataSet set;
  set.path = folder;
  WEFT_TRY_ASSIGN(set.inputs, read_tensor_files(folder, "input"));
  if (set.inputs.format != TensorFormat::Pb)
    return make_error(ErrorKind::InvalidInput, folder + ": a test data set holds input_N.pb files (found none)");
  auto outputs = read_tensor_files(folder, "output");
  if (!outputs || outputs->format != TensorFormat::Pb)
    return make_error(ErrorKind::InvalidInput, folder + ": a test data set holds output_N.pb files, the expected outputs" +
                                                   (outputs ? std::string(" (found none)") : ": " + outputs.error().message));
  set.outputs = std::move(*outputs);
  return set;
}

// The tolerance of a data.json (the ONNX backend tests' real-model folders carry one), if any.
Expected<std::optional<Tolerance>> read_tolerance(const fs::path& folder) {
  const fs::path file = folder / "data.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::optional<Tolerance>{};
  auto text = read_file(file.string(), kMaxTextBytes);
  if (!text) return make_error(ErrorKind::InvalidInput, text.error().message);
  const auto j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return make_error(ErrorKind::InvalidInput, file.string() + ": not a JSON object");
  Tolerance t;
  for (const auto& [key, field] : {std::pair{"rtol", &t.rtol}, std::pair{"atol", &t.atol}}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_number() || j[key].get<double>() < 0)
      return make_error(ErrorKind::InvalidInput, file.string() + ": '" + key + "' must be a non-negative number");
    *field = j[key].get<double>();
  }
  return std::optional<Tolerance>{t};
}

bool every_passed(const std::vector<OutputCheck>& checks) { return checks.empty() || all_passed(checks); }

nlohmann::ordered_json json_number(double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr); }

}  // namespace

bool TestDataSetResult::passed() const { return all_passed(scheduled) && every_passed(sequential) && every_passed(check); }

bool TestDataComparison::passed() const {
  return !sets.empty() && std::all_of(sets.begin(), sets.end(), [](const TestDataSetResult& s) { return s.passed(); });
}

Expected<GivenInputs> first_set_inputs(const Graph& graph, const TestData& data) {
  WEFT_CHECK_MSG(!data.sets.empty(), "read_test_data returns at least one set");
  auto given = match_inputs(graph, data.sets.front().inputs);
  if (!given) return make_error(given.error().kind, data.sets.front().path + ": " + given.error().message);
  return given;
}

std::vector<CheckedRun> checked_runs(const TestDataSetResult& set, std::string_view backend) {
  const std::string b = backend == "cpu" ? std::string() : std::string(backend) + " ";
  std::vector<CheckedRun> runs{{b + "scheduled", &set.scheduled}, {b + "sequential", &set.sequential}};
  if (!set.check.empty()) runs.push_back({"cpu reference", &set.check});
  return runs;
}

std::string test_data_json(const TestDataComparison& tested, std::string_view backend) {
  nlohmann::ordered_json t;
  t["rtol"] = tested.tolerance.rtol;
  t["atol"] = tested.tolerance.atol;
  t["passed"] = tested.passed();
  t["sets"] = nlohmann::ordered_json::array();
  for (const TestDataSetResult& set : tested.sets) {
    nlohmann::ordered_json s;
    s["path"] = set.path;
    s["passed"] = set.passed();
    s["warnings"] = set.warnings;
    s["outputs"] = nlohmann::ordered_json::array();
    for (const CheckedRun& run : checked_runs(set, backend))
      for (const OutputCheck& c : *run.checks) {
        nlohmann::ordered_json o;
        o["name"] = c.name;
        o["run"] = run.run;
        o["expected"] = c.expected;
        o["max_abs_error"] = json_number(c.max_abs_error);
        o["max_rel_error"] = json_number(c.max_rel_error);
        o["max_scaled_error"] = json_number(c.max_scaled_error);
        o["elements"] = c.elements;
        o["mismatched"] = c.mismatched;
        o["passed"] = c.passed;
        if (!c.problem.empty()) o["problem"] = c.problem;
        s["outputs"].push_back(std::move(o));
      }
    t["sets"].push_back(std::move(s));
  }
  return t.dump();
}

Expected<TestData> read_test_data(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return make_error(ErrorKind::InvalidInput, path + ": no such folder (test data is a test_data_set_N folder or a folder of them)");
  TestData data;
  data.path = path;
  std::vector<std::pair<long long, std::string>> sets;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
    if (auto n = set_number(it->path().filename().string()); n && it->is_directory(ec)) sets.emplace_back(*n, it->path().string());
  fs::path tolerance_folder = path;
  if (sets.empty()) {
    // The folder is one set: its data.json, if any, sits beside it.
    WEFT_TRY_ASSIGN(auto set, read_set(path));
    data.sets.push_back(std::move(set));
    tolerance_folder = fs::path(path).lexically_normal().parent_path();
    if (tolerance_folder.empty()) tolerance_folder = ".";
  } else {
    std::sort(sets.begin(), sets.end());
    for (const auto& [n, folder] : sets) {
      WEFT_TRY_ASSIGN(auto set, read_set(folder));
      data.sets.push_back(std::move(set));
    }
  }
  WEFT_TRY_ASSIGN(data.tolerance, read_tolerance(tolerance_folder));
  return data;
}

Expected<TestDataComparison> compare_test_data(Executor& executor, const Graph& graph, const Schedule& schedule, const TestData& data,
                                               const RunComparisonOptions& options, const Tolerance& tolerance) {
  TestDataComparison out;
  out.tolerance = tolerance;
  const std::size_t n = data.sets.size();
  for (std::size_t i = 0; i < n; ++i) {
    const TestDataSet& set = data.sets[i];
    auto given = i == 0 ? first_set_inputs(graph, data) : match_inputs(graph, set.inputs);
    if (!given) return make_error(given.error().kind, i == 0 ? given.error().message : set.path + ": " + given.error().message);
    RunComparisonOptions o = options;
    o.run.inputs = std::move(given->values);
    if (i > 0) {
      // Further sets only need their outputs: one iteration of each run, nothing timed twice.
      o.run.iterations = 1;
      o.run.warmup = 0;
      o.rounds = 1;
      o.timed_runs = false;
      o.graph_executor = nullptr;
    }
    if (options.progress && n > 1)
      o.progress = [&, i](int percent, std::string_view stage) {
        return options.progress(static_cast<int>((100 * i + static_cast<std::size_t>(percent)) / n),
                                "Set " + std::to_string(i + 1) + " of " + std::to_string(n) + ": " + std::string(stage));
      };
    WEFT_TRY_ASSIGN(RunComparison c, compare_runs(executor, graph, schedule, o));
    if (c.cancelled) {
      if (i == 0) out.compared = std::move(c);
      out.compared.cancelled = true;
      return out;
    }
    TestDataSetResult r;
    r.path = set.path;
    r.warnings = std::move(given->warnings);
    // A merged graph's reference is the unmerged model: same inputs and outputs by name.
    const Graph& reference_graph = options.reference_graph ? *options.reference_graph : graph;
    r.sequential = check_outputs(reference_graph, c.sequential, set.outputs, tolerance);
    r.scheduled = check_outputs(graph, c.scheduled, set.outputs, tolerance);
    if (c.check) r.check = check_outputs(reference_graph, *c.check, set.outputs, tolerance);
    out.sets.push_back(std::move(r));
    // A later stage that failed (RunComparison::failure: the check run, say) ends the sets: the
    // front end reports what was checked, then the failure, naming the set it happened in.
    const bool failed = c.failure.has_value();
    if (i == 0) out.compared = std::move(c);
    else if (failed) out.compared.failure = StageFailure{set.path + ": " + c.failure->stage, c.failure->error};
    if (failed) break;
  }
  return out;
}

}  // namespace weft::core
