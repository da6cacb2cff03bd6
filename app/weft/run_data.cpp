// `weft run`'s inputs, outputs and test data: the options parsed, core's readers and checks
// called, the results printed.
#include "run_data.h"

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "weft/core/onnx/dim_binding.h"
#include "weft/core/base/file_io.h"
#include "weft/core/exec/given_inputs.h"
#include "weft/core/exec/initial_values.h"
#include "weft/core/onnx/seeded_model.h"
#include "weft/core/onnx/onnx_import.h"
#include "weft/core/base/text_format.h"

namespace weft::cli {
namespace {

bool ends_with(std::string_view s, std::string_view tail) { return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail; }

std::string number(double v) {
  if (std::isnan(v)) return "n/a";
  std::ostringstream s;
  s << std::setprecision(3) << v;
  return s.str();
}

std::string result_text(const core::OutputCheck& c) {
  if (c.passed) return "pass";
  if (!c.problem.empty()) return "FAIL (" + c.problem + ")";
  return "FAIL (" + std::to_string(c.mismatched) + " of " + std::to_string(c.elements) + " elements outside the tolerance)";
}

std::string set_name(const std::string& path) {
  const std::filesystem::path p = std::filesystem::path(path).lexically_normal();
  const std::string name = (p.has_filename() ? p.filename() : p.parent_path().filename()).string();
  return name.empty() ? path : name;
}

}  // namespace

core::Expected<RunData> run_data(const Args& args) {
  RunData data;
  const auto inputs = args.value("inputs");
  const auto test_data = args.value("test-data");
  data.save_outputs = args.value("save-outputs");
  data.save_model = args.value("save-model");
  if (inputs && test_data) return core::make_error(core::ErrorKind::Usage, "--inputs and --test-data both give the inputs: choose one");
  if (data.save_outputs && test_data)
    return core::make_error(core::ErrorKind::Usage, "--save-outputs saves the outputs of --inputs (or of the seeded inputs), not of --test-data");
  WEFT_TRY_ASSIGN(const auto rtol, args.double_value("rtol"));
  WEFT_TRY_ASSIGN(const auto atol, args.double_value("atol"));
  if ((rtol || atol) && !test_data) return core::make_error(core::ErrorKind::Usage, "--rtol and --atol need --test-data");
  for (const auto& [name, v] : {std::pair{"rtol", rtol}, std::pair{"atol", atol}})
    if (v && !(*v >= 0)) return core::make_error(core::ErrorKind::Usage, "--" + std::string(name) + " must be a non-negative number");
  if (inputs) {
    WEFT_TRY_ASSIGN(data.inputs, core::read_tensor_files(*inputs, "input"));
  }
  if (test_data) {
    WEFT_TRY_ASSIGN(data.test_data, core::read_test_data(*test_data));
    if (data.test_data->tolerance) {
      data.tolerance = *data.test_data->tolerance;
      data.tolerance_from = "data.json";
    }
    if (rtol || atol) data.tolerance_from = "--rtol/--atol";
    if (rtol) data.tolerance.rtol = *rtol;
    if (atol) data.tolerance.atol = *atol;
  }
  return data;
}

core::Expected<LoadedModel> load_run_model(const Args& args, RunData& data) {
  const core::TensorFiles* given = data.inputs ? &*data.inputs : data.test_data ? &data.test_data->sets.front().inputs : nullptr;
  // The given shapes bind the input dims --dim leaves unbound (core::open_model; said on stderr).
  WEFT_TRY_ASSIGN(auto model, load_model(args, SplitMode::GraphFlag, std::nullopt, given));
  data.bound_dims = model.bound_from_inputs;
  return model;
}

core::Status prepare_run(const Args& args, const RunData& data, const core::Graph& graph, core::RunOptions& run) {
  if (data.save_model) {
    WEFT_TRY_ASSIGN(auto import, import_options(args));
    import.dims.insert(data.bound_dims.begin(), data.bound_dims.end());
    WEFT_TRY(core::save_model_with_weights(graph.info().model_path, import, *data.save_model, run.seed));
  }
  if (data.test_data) {
    // Runs before the comparison (the CPU calibration) take the first set's inputs; the
    // comparison gives each set its own, and says its warnings.
    WEFT_TRY_ASSIGN(auto first, core::first_set_inputs(graph, *data.test_data));
    run.inputs = std::move(first.values);
    return {};
  }
  if (!data.inputs) return {};
  WEFT_TRY_ASSIGN(auto given, core::match_inputs(graph, *data.inputs));
  for (const std::string& w : given.warnings) std::cerr << "weft run: warning: " << w << "\n";
  run.inputs = std::move(given.values);
  return {};
}

core::Expected<core::RunComparison> compare_with_data(const RunData& data, core::Executor& executor, const core::Graph& graph,
                                                      const core::Schedule& schedule, const core::RunComparisonOptions& options,
                                                      std::optional<core::TestDataComparison>& tested) {
  if (!data.test_data) return core::compare_runs(executor, graph, schedule, options);
  WEFT_TRY_ASSIGN(auto t, core::compare_test_data(executor, graph, schedule, *data.test_data, options, data.tolerance));
  for (const auto& set : t.sets)
    for (const std::string& w : set.warnings) std::cerr << "weft run: warning: " << set.path << ": " << w << "\n";
  core::RunComparison compared = std::move(t.compared);
  tested = std::move(t);
  return compared;
}

core::Status save_run_outputs(const RunData& data, const core::Graph& graph, const core::RunComparison& compared) {
  if (!data.save_outputs) return {};
  // As the inputs came: one .npz, .npy files, or output_N.pb (an ONNX test data set, which
  // `--inputs DIR --save-outputs DIR` completes).
  core::TensorFormat format = core::TensorFormat::Pb;
  if (ends_with(*data.save_outputs, ".npz")) format = core::TensorFormat::Npz;
  else if (data.inputs && data.inputs->format != core::TensorFormat::Pb) format = core::TensorFormat::Npy;
  std::vector<std::pair<std::string, const core::HostTensor*>> outputs;
  for (core::TensorId t : graph.outputs()) {
    const std::string& name = graph.tensor(t).name;
    const auto it = compared.scheduled.outputs.find(name);
    if (it == compared.scheduled.outputs.end())
      return core::make_error(core::ErrorKind::Internal, "the run did not produce output '" + name + "'");
    outputs.emplace_back(name, &it->second);
  }
  return core::write_tensor_files(*data.save_outputs, format, outputs, "output");
}

void add_test_data_json(nlohmann::ordered_json& j, const RunData& data, const core::TestDataComparison& tested, std::string_view backend) {
  nlohmann::ordered_json t;
  t["path"] = data.test_data->path;
  t["tolerance_from"] = data.tolerance_from.empty() ? "defaults" : data.tolerance_from;
  t.update(nlohmann::ordered_json::parse(core::test_data_json(tested, backend)));
  j["test_data"] = std::move(t);
}

void print_test_data(std::ostream& out, const RunData& data, const core::TestDataComparison& tested, std::string_view backend) {
  out << "test data: " << data.test_data->path << ", " << tested.sets.size() << (tested.sets.size() == 1 ? " set" : " sets")
      << " (rtol " << number(tested.tolerance.rtol) << ", atol " << number(tested.tolerance.atol) << ", "
      << (data.tolerance_from.empty() ? "the ONNX backend tests' defaults" : "from " + data.tolerance_from) << ")\n";
  std::size_t name_width = 6, run_width = 3;
  for (const auto& set : tested.sets)
    for (const core::CheckedRun& run : core::checked_runs(set, backend)) {
      run_width = std::max(run_width, run.run.size());
      for (const core::OutputCheck& c : *run.checks) name_width = std::max(name_width, c.name.size());
    }
  out << "  " << std::left << std::setw(static_cast<int>(name_width)) << "output" << "  " << std::setw(static_cast<int>(run_width)) << "run"
      << "  max abs error  max rel error  vs its scale  result\n";
  int failed = 0;
  for (const auto& set : tested.sets) {
    if (tested.sets.size() > 1) out << "  " << set_name(set.path) << ":\n";
    failed += set.passed() ? 0 : 1;
    for (const core::CheckedRun& run : core::checked_runs(set, backend))
      for (const core::OutputCheck& c : *run.checks)
        out << "  " << std::left << std::setw(static_cast<int>(name_width)) << c.name << "  " << std::setw(static_cast<int>(run_width)) << run.run
            << "  " << std::setw(13) << number(c.max_abs_error) << "  " << std::setw(13) << number(c.max_rel_error) << "  "
            << std::setw(12) << number(c.max_scaled_error) << "  " << result_text(c)
            << "\n";
  }
  out << std::right;
  if (failed == 0) out << "test data: passed\n";
  else out << "test data: FAILED (" << failed << " of " << tested.sets.size() << (tested.sets.size() == 1 ? " set" : " sets") << ")\n";
}

int test_data_exit(const std::optional<core::TestDataComparison>& tested) {
  if (!tested || tested->passed()) return 0;
  std::cerr << "weft run: error: the outputs differ from the test data (exit " << kExitTestDataMismatch << ")\n";
  return kExitTestDataMismatch;
}

}  // namespace weft::cli
