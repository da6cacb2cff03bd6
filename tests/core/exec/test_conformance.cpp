// Runs every ONNX backend conformance case (onnx-conformance.sh) whose operators the CPU executor
// supports, imported with folding off so the operator under test runs, and compares with the
// reference outputs (fp32: rtol 1e-3, atol 1e-4; ints and bools exact). Skips (77) when the
// cases were not generated.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "weft/core/cpu_executor.h"
#include "weft/core/memory_plan.h"
#include "weft/core/onnx_import.h"
#include "weft/core/tensor_pb.h"

namespace fs = std::filesystem;
using namespace weft;

namespace {

enum class Outcome { Passed, Failed, Unsupported };

struct CaseResult {
  Outcome outcome = Outcome::Failed;
  std::string reason;
};

fs::path find_cases() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("WEFT_CONFORMANCE_DIR")) candidates.emplace_back(env);
#ifdef WEFT_CONFORMANCE_BUILD_DIR
  candidates.emplace_back(WEFT_CONFORMANCE_BUILD_DIR);
#endif
  std::error_code ec;
  for (const auto& c : candidates) {
    if (fs::is_directory(c / "node", ec)) return c / "node";
    if (fs::is_directory(c, ec) && fs::exists(c / "test_abs" / "model.onnx", ec)) return c;
  }
  return {};
}

template <class T>
bool same_values(const core::HostTensor& got, const core::HostTensor& want, std::string& why) {
  const std::size_t n = want.bytes.size() / sizeof(T);
  std::vector<T> a(n), b(n);
  std::memcpy(a.data(), got.bytes.data(), n * sizeof(T));
  std::memcpy(b.data(), want.bytes.data(), n * sizeof(T));
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(b[i]) && std::isnan(a[i])) continue;
      if (std::isinf(b[i]) && a[i] == b[i]) continue;
      const double diff = std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
      if (!(diff <= 1e-4 + 1e-3 * std::abs(static_cast<double>(b[i])))) {
        why = "element " + std::to_string(i) + ": got " + std::to_string(a[i]) + ", want " + std::to_string(b[i]);
        return false;
      }
    } else if (a[i] != b[i]) {
      why = "element " + std::to_string(i) + " differs";
      return false;
    }
  }
  return true;
}

bool compare(const core::HostTensor& got, const core::HostTensor& want, std::string& why) {
  if (got.dtype != want.dtype) {
    why = "dtype " + std::string(core::dtype_name(got.dtype)) + " vs " + std::string(core::dtype_name(want.dtype));
    return false;
  }
  if (got.shape != want.shape) {
    why = "shape differs";
    return false;
  }
  if (got.bytes.size() != want.bytes.size()) {
    why = "byte size differs";
    return false;
  }
  switch (want.dtype) {
    case core::DType::Float32: return same_values<float>(got, want, why);
    case core::DType::Float64: return same_values<double>(got, want, why);
    default:
      if (got.bytes != want.bytes) why = "bytes differ";
      return got.bytes == want.bytes;
  }
}

CaseResult run_case(const fs::path& dir) {
  core::ImportOptions io;
  io.fold = false;
  auto graph = core::import_onnx((dir / "model.onnx").string(), io);
  if (!graph) return {Outcome::Unsupported, "import: " + graph.error().message};
  if (auto s = core::cpu_check_supported(*graph); !s) return {Outcome::Unsupported, s.error().message};
  const fs::path data = dir / "test_data_set_0";
  core::RunOptions options;
  options.warmup = 0;
  const auto inputs = graph->inputs();
  for (std::size_t i = 0;; ++i) {
    const fs::path p = data / ("input_" + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    if (i >= inputs.size()) return {Outcome::Unsupported, "more input files than graph inputs"};
    auto t = core::read_tensor_pb(p.string());
    if (!t) return {Outcome::Unsupported, "input: " + t.error().message};
    options.inputs[graph->tensor(inputs[i]).name] = std::move(*t);
  }
  core::Schedule schedule;
  schedule.streams.emplace_back(graph->topo_order().begin(), graph->topo_order().end());
  auto result = core::make_cpu_executor()->run(*graph, schedule, core::plan_no_reuse(*graph), options);
  if (!result) {
    const bool gap = result.error().message.rfind("unsupported", 0) == 0 || result.error().message.find("unsupported:") != std::string::npos;
    return {gap ? Outcome::Unsupported : Outcome::Failed, result.error().message};
  }
  const auto outputs = graph->outputs();
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const fs::path p = data / ("output_" + std::to_string(i) + ".pb");
    auto want = core::read_tensor_pb(p.string());
    if (!want) return {Outcome::Unsupported, "output: " + want.error().message};
    const auto& got = result->outputs.at(graph->tensor(outputs[i]).name);
    std::string why;
    if (!compare(got, *want, why)) return {Outcome::Failed, "output " + std::to_string(i) + ": " + why};
  }
  return {Outcome::Passed, {}};
}

}  // namespace

int main() {
  const fs::path root = find_cases();
  if (root.empty()) {
    std::cout << "conformance cases not found (set WEFT_CONFORMANCE_DIR or run scripts/onnx-conformance.sh); skipped\n";
    return 77;
  }
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(root))
    if (fs::exists(e.path() / "model.onnx")) cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  const bool verbose = std::getenv("WEFT_CONFORMANCE_VERBOSE") != nullptr;
  int passed = 0, failed = 0, unsupported = 0;
  std::map<std::string, int> gaps;
  for (const auto& c : cases) {
    const CaseResult r = run_case(c);
    const std::string name = c.filename().string();
    switch (r.outcome) {
      case Outcome::Passed: ++passed; break;
      case Outcome::Failed:
        ++failed;
        std::cout << "FAILED " << name << ": " << r.reason << "\n";
        break;
      case Outcome::Unsupported: {
        ++unsupported;
        if (verbose) std::cout << "unsupported " << name << ": " << r.reason << "\n";
        // Group by the operator or feature named in the reason, for the summary.
        std::string key = r.reason.substr(0, r.reason.find(':', r.reason.find(':') + 1));
        ++gaps[r.reason.rfind("import", 0) == 0 ? std::string("import") : key];
        break;
      }
    }
  }
  std::cout << "conformance: " << passed << " passed / " << failed << " failed / " << unsupported << " unsupported ("
            << cases.size() << " cases in " << root.string() << ")\n";
  return failed == 0 && passed > 0 ? 0 : 1;
}
